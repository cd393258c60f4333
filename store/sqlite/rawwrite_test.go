package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	sqlite3 "modernc.org/sqlite/lib"
)

func rawTestStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.Context(), templatePath(t, "raw.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func rawEpisode(id string) memory.CreateEpisodesParams {
	at := time.Unix(100, 0).UTC()
	return memory.CreateEpisodesParams{Namespace: "ns", Episodes: []*memory.Episode{{
		ID: id, Namespace: "ns", Kind: memory.EpisodeUserMessage, Content: "episode " + id,
		OccurredAt: at, RecordedAt: at, ContentHash: "hash-" + id,
	}}}
}

func countEpisodes(t *testing.T, s *Store) int {
	t.Helper()
	eps, err := s.ListEpisodes(t.Context(), memory.ListEpisodesParams{Namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	return len(eps)
}

// With the driver this module pins, a write transaction runs its
// statements on the writer's handle: a driver upgrade that hides the
// handle would fall back to database/sql silently, and slowly.
func TestRawWritePathActive(t *testing.T) {
	t.Parallel()
	s := rawTestStore(t)
	if err := s.CreateEpisodes(t.Context(), rawEpisode("e1")); err != nil {
		t.Fatal(err)
	}
	if s.noRaw.Load() || s.raw.fc.db == 0 {
		t.Fatal("the write transaction ran through database/sql: the driver connection's handle was not found")
	}
	if s.raw.stmts[qInsertEpisode] == nil {
		t.Fatal("the episode insert is not kept prepared on the writer's handle")
	}
}

// The statements of a raw transaction and the *sql.Tx SQLTx hands out
// (River's job insert) are one transaction on one connection: each sees
// the other's writes, and a rollback undoes both.
func TestRawWriteSharesSQLTx(t *testing.T) {
	t.Parallel()
	s := rawTestStore(t)
	ctx := t.Context()
	if _, err := s.writer.ExecContext(ctx, `CREATE TABLE side (v TEXT)`); err != nil {
		t.Fatal(err)
	}
	side := func() int {
		var n int
		if err := s.writer.QueryRowContext(ctx, `SELECT count(*) FROM side`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	boom := errors.New("boom")
	for _, fail := range []bool{true, false} {
		err := s.InTx(ctx, func(tx memory.Executor) error {
			if err := tx.CreateEpisodes(ctx, rawEpisode("e1")); err != nil {
				return err
			}
			stx, err := SQLTx(tx)
			if err != nil {
				return err
			}
			var n int
			if err := stx.QueryRowContext(ctx, `SELECT count(*) FROM episodes WHERE namespace = 'ns'`).Scan(&n); err != nil {
				return err
			}
			if n != 1 {
				return fmt.Errorf("the *sql.Tx sees %d episodes, want the raw statement's 1", n)
			}
			if _, err := stx.ExecContext(ctx, `INSERT INTO side VALUES ('x')`); err != nil {
				return err
			}
			if _, err := tx.GetEpisode(ctx, memory.GetParams{Namespace: "ns", ID: "e1"}); err != nil {
				return err
			}
			if fail {
				return boom
			}
			return nil
		})
		if fail {
			if !errors.Is(err, boom) {
				t.Fatalf("InTx: %v, want boom", err)
			}
			if n, m := countEpisodes(t, s), side(); n != 0 || m != 0 {
				t.Fatalf("after a rollback: %d episodes and %d side rows, want none", n, m)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n, m := countEpisodes(t, s), side(); n != 1 || m != 1 {
			t.Fatalf("after the commit: %d episodes and %d side rows, want 1 and 1", n, m)
		}
	}
}

// Raw statements do not watch the context while they run, so it is
// checked before each and before COMMIT: a transaction whose context ends
// is rolled back, whether it is still writing or has finished.
func TestRawWriteCancelled(t *testing.T) {
	t.Parallel()
	s := rawTestStore(t)
	for _, atEnd := range []bool{false, true} {
		ctx, cancel := context.WithCancel(t.Context())
		err := s.InTx(ctx, func(tx memory.Executor) error {
			if err := tx.CreateEpisodes(ctx, rawEpisode("e1")); err != nil {
				return err
			}
			cancel()
			if atEnd {
				return nil
			}
			return tx.CreateEpisodes(ctx, rawEpisode("e2"))
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("atEnd %v: InTx: %v, want context.Canceled", atEnd, err)
		}
		if n := countEpisodes(t, s); n != 0 {
			t.Fatalf("atEnd %v: %d episodes stored by a cancelled transaction", atEnd, n)
		}
	}
	if err := s.CreateEpisodes(t.Context(), rawEpisode("e3")); err != nil {
		t.Fatalf("a write after the cancelled ones: %v", err)
	}
}

// A function that panics with rows still open leaves the kept statement
// mid-step; the next transaction resets it and runs the query again. A
// query run again while its own rows are open gets a statement of its own.
func TestRawWriteStatementsReused(t *testing.T) {
	t.Parallel()
	s := rawTestStore(t)
	ctx := t.Context()
	for _, id := range []string{"e1", "e2"} {
		if err := s.CreateEpisodes(ctx, rawEpisode(id)); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT id FROM episodes WHERE namespace = ? ORDER BY id`
	panicMidScan(t, s, q)
	err := s.InTx(ctx, func(tx memory.Executor) error {
		e := tx.(*executor)
		outer, err := e.query(ctx, q, "ns")
		if err != nil {
			return err
		}
		defer outer.Close()
		var pairs []string
		for outer.Next() {
			var a string
			if err := outer.Scan(&a); err != nil {
				return err
			}
			inner, err := e.query(ctx, q, "ns")
			if err != nil {
				return err
			}
			for inner.Next() {
				var b string
				if err := inner.Scan(&b); err != nil {
					inner.Close()
					return err
				}
				pairs = append(pairs, a+b)
			}
			if err := inner.Close(); err != nil {
				return err
			}
		}
		if err := outer.Err(); err != nil {
			return err
		}
		if got := fmt.Sprint(pairs); got != "[e1e1 e1e2 e2e1 e2e2]" {
			return fmt.Errorf("nested scans read %s", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A text larger than the kept scratch buffer is bound whole, and the
// buffer it needed is not kept.
func TestRawWriteLargeText(t *testing.T) {
	t.Parallel()
	s := rawTestStore(t)
	ctx := t.Context()
	p := rawEpisode("big")
	p.Episodes[0].Content = strings.Repeat("a long text ", maxScratch/6)
	if err := s.CreateEpisodes(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "ns", ID: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != p.Episodes[0].Content {
		t.Fatalf("stored %d bytes, want %d", len(got.Content), len(p.Episodes[0].Content))
	}
	if s.raw.scratchCap > maxScratch {
		t.Fatalf("a %d-byte scratch buffer kept", s.raw.scratchCap)
	}
}

// A transaction's rows are over when the transaction is: rows left open
// (a function that panicked mid-scan, or one that returned without closing
// them) must not keep a read transaction on the writer after ROLLBACK or
// COMMIT, where it would hold the WAL back from a TRUNCATE checkpoint
// until the next write. database/sql closes a transaction's rows when it
// ends; the raw path must too.
func TestRawWriteRowsEndWithTransaction(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	const q = `SELECT id FROM episodes WHERE namespace = ? ORDER BY id`
	cases := map[string]func(s *Store) *rawRows{
		"panic": func(s *Store) *rawRows { return panicMidScan(t, s, q) },
		"left open": func(s *Store) *rawRows {
			var kept *rawRows
			err := s.InTx(ctx, func(tx memory.Executor) error {
				rows, err := tx.(*executor).query(ctx, q, "ns")
				if err != nil {
					return err
				}
				kept = rows.(*rawRows)
				kept.Next()
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return kept
		},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			s := rawTestStore(t)
			for _, id := range []string{"e1", "e2"} {
				if err := s.CreateEpisodes(ctx, rawEpisode(id)); err != nil {
					t.Fatal(err)
				}
			}
			kept := run(s)
			c, err := openRawConn(s.path, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer c.close()
			if err := c.exec("PRAGMA user_version"); err != nil {
				t.Fatal(err)
			}
			all, err := c.walCheckpoint(sqlite3.SQLITE_CHECKPOINT_TRUNCATE)
			if err != nil {
				t.Fatal(err)
			}
			if !all {
				t.Error("the writer still holds a read transaction after its transaction ended: the TRUNCATE checkpoint was held back")
			}
			if kept.Next() {
				t.Error("rows of an ended transaction still read")
			}
			if err := s.CreateEpisodes(ctx, rawEpisode("e3")); err != nil {
				t.Fatalf("a write after: %v", err)
			}
		})
	}
}

// A kept statement's bindings stay after it is reset: SQLite's copy of a
// large argument (an imported document) must not stay with it until the
// statement's next use, which the scratch buffer's bound was for.
func TestRawWriteLargeBindingNotKept(t *testing.T) {
	t.Parallel()
	s := rawTestStore(t)
	ctx := t.Context()
	p := rawEpisode("big")
	p.Episodes[0].Content = strings.Repeat("a long text ", 4*maxScratch/12)
	if err := s.CreateEpisodes(ctx, p); err != nil {
		t.Fatal(err)
	}
	s.raw.mu.Lock()
	defer s.raw.mu.Unlock()
	for q, rs := range s.raw.stmts {
		if n := sqlite3.Xsqlite3_stmt_status(s.raw.fc.tls, rs.st, sqlite3.SQLITE_STMTSTATUS_MEMUSED, 0); n > maxScratch {
			t.Errorf("a kept statement holds %d bytes after its transaction: %.60s", n, q)
		}
	}
}

// panicMidScan runs q in a write transaction that panics after the first
// row, with its rows still open, and returns those rows.
func panicMidScan(t *testing.T, s *Store, q string) (kept *rawRows) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	_ = s.InTx(t.Context(), func(tx memory.Executor) error {
		rows, err := tx.(*executor).query(t.Context(), q, "ns")
		if err != nil {
			return err
		}
		kept = rows.(*rawRows)
		kept.Next()
		panic("mid-scan")
	})
	return kept
}
