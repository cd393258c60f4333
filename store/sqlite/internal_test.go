package sqlite

import (
	"database/sql"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/mnemon-dev/mnemon/memory"
)

// Every pooled connection, not only the first, must carry the pragmas.
func TestConnectionPragmas(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sync string
		want int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{{"", 2}, {"FULL", 2}, {"NORMAL", 1}} {
		s, err := Open(t.Context(), templatePath(t, "p.db"), Options{Synchronous: c.sync, Readers: 3})
		if err != nil {
			t.Fatal(err)
		}
		check := func(name string, db *sql.DB, conns int, queryOnly int) {
			// Hold several connections at once so the pool must open new ones.
			var held []*sql.Conn
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			for range conns {
				conn, err := db.Conn(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, conn)
				want := map[string]any{
					"synchronous": c.want, "foreign_keys": 1, "busy_timeout": 5000,
					"journal_mode": "wal", "query_only": queryOnly,
				}
				for pragma, w := range want {
					var got any
					if err := conn.QueryRowContext(t.Context(), "PRAGMA "+pragma).Scan(&got); err != nil {
						t.Fatal(err)
					}
					if s, ok := got.(string); ok && s != w {
						t.Errorf("%s sync=%q: %s = %v, want %v", name, c.sync, pragma, got, w)
					}
					if n, ok := got.(int64); ok && int(n) != w {
						t.Errorf("%s sync=%q: %s = %v, want %v", name, c.sync, pragma, got, w)
					}
				}
			}
		}
		check("writer", s.writer, 1, 0)
		check("reader", s.reader, 3, 1)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadMigrations(t *testing.T) {
	t.Parallel()
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].version != 1 || ms[0].name != "init" {
		t.Fatalf("embedded migrations: %+v", ms)
	}
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	cases := []struct {
		name    string
		fsys    fstest.MapFS
		wantErr string
		want    []int
	}{
		{"Ordered", fstest.MapFS{"migrations/0002_b.sql": file("b"), "migrations/0001_a.sql": file("a")}, "", []int{1, 2}},
		{"Gap", fstest.MapFS{"migrations/0001_a.sql": file("a"), "migrations/0003_c.sql": file("c")}, "expected version 2", nil},
		{"Duplicate", fstest.MapFS{"migrations/0001_a.sql": file("a"), "migrations/0001_b.sql": file("b")}, "expected version 2", nil},
		{"BadName", fstest.MapFS{"migrations/init.sql": file("a")}, "NNNN_description", nil},
		{"Zero", fstest.MapFS{"migrations/0000_a.sql": file("a")}, "NNNN_description", nil},
		{"Empty", fstest.MapFS{"migrations/README": nil}, "NNNN_description", nil},
	}
	for _, c := range cases {
		ms, err := loadMigrations(c.fsys)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []int
		for _, m := range ms {
			got = append(got, m.version)
		}
		if len(got) != len(c.want) || got[0] != c.want[0] || got[len(got)-1] != c.want[len(c.want)-1] {
			t.Errorf("%s: versions %v, want %v", c.name, got, c.want)
		}
	}
}

// A trace written before migration 3 holds JSON text in items; it must stay
// readable next to the binary rows written since. The rows name the
// columns of before migration 18, so they also stand for the traces
// written before it: no notes, no model usage.
func TestLegacyJSONTraceItems(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), templatePath(t, "legacy.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.writer.ExecContext(t.Context(), `INSERT INTO traces (namespace, id, query, agent_id, user_id,
		project_id, session_id, task_type, item_limit, token_budget, tokens_used, as_of, include_history, items,
		created_at, duration_us, known_at) VALUES
		('ns', 'ret_old', 'editor', '', '', '', '', '', 10, 1000, 12, NULL, 0,
		 CAST('[{"memory_id":"mem_1","version_id":"ver_1","channels":{"lexical":{"rank":1,"score":2.5}},"fused":1,"terms":null,"final":1.02,"rank":1,"tokens":11,"trust":0.69,"action":"HINT","packed":true,"reason":"ranked"}]' AS BLOB),
		 0, 5, NULL),
		('ns', 'ret_null', 'x', '', '', '', '', '', 10, 1000, 0, NULL, 0, CAST('null' AS BLOB), 0, 5, NULL)`)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.GetTrace(t.Context(), memory.GetParams{Namespace: "ns", ID: "ret_old"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Items) != 1 || tr.Items[0].VersionID != "ver_1" || tr.Items[0].Channels[0].Rank != 1 || !tr.Items[0].Packed {
		t.Fatalf("legacy items = %+v", tr.Items)
	}
	if tr.Notes != nil || tr.Models != nil {
		t.Fatalf("legacy trace: notes %q, models %+v; want none", tr.Notes, tr.Models)
	}
	tr, err = s.GetTrace(t.Context(), memory.GetParams{Namespace: "ns", ID: "ret_null"})
	if err != nil || tr.Items != nil {
		t.Fatalf("legacy null items = %+v, %v", tr.Items, err)
	}
}

// Statements are prepared on first use, so Open no longer proves that every
// frequent query's SQL is valid: this does, on both pools.
func TestEveryPreparableStatementPrepares(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), templatePath(t, "p.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for q := range preparable() {
		for _, db := range []*sql.DB{s.writer, s.reader} {
			st, err := db.PrepareContext(t.Context(), q)
			if err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
			st.Close()
		}
	}
}

// A frequent query is prepared on the reader when first read, and on the
// writer before the transaction after the one that first ran it; a read
// transaction holding the only reader connection runs it unprepared
// instead of waiting for another.
func TestStatementsPreparedOnFirstUse(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), templatePath(t, "p.db"), Options{Readers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := len(*s.rstmts.m.Load()) + len(*s.wstmts.m.Load()); n != 0 {
		t.Fatalf("%d statements prepared by Open", n)
	}
	ctx := t.Context()
	if _, err := s.Namespaces(ctx); err != nil {
		t.Fatal(err)
	}
	if s.rstmts.get(qNamespaces) == nil {
		t.Fatal("read: not prepared on the reader")
	}
	read := func(tx memory.Executor) error {
		rows, err := tx.(*executor).query(ctx, qStats, "ns")
		if err != nil {
			return err
		}
		return rows.Close()
	}
	if err := s.ReadTx(ctx, read); err != nil {
		t.Fatal(err)
	}
	if s.rstmts.get(qStats) != nil {
		t.Fatal("prepared inside a read transaction")
	}
	// The raw write path keeps it prepared on the writer's handle from
	// its first use, and leaves database/sql's statements alone.
	if err := s.InTx(ctx, read); err != nil {
		t.Fatal(err)
	}
	if s.raw.stmts[qStats] == nil {
		t.Fatal("raw write path: not kept prepared on the writer's handle")
	}
	if s.wstmts.get(qStats) != nil {
		t.Fatal("raw write path: prepared through database/sql")
	}
	// database/sql's write path, where the handle is out of reach.
	s.noRaw.Store(true)
	if err := s.InTx(ctx, read); err != nil {
		t.Fatal(err)
	}
	if s.wstmts.get(qStats) != nil {
		t.Fatal("prepared inside the write transaction")
	}
	if err := s.InTx(ctx, read); err != nil {
		t.Fatal(err)
	}
	if s.wstmts.get(qStats) == nil {
		t.Fatal("not prepared on the writer before the next transaction")
	}
	if s.rstmts.get(qStats) != nil {
		t.Fatal("the writer's use prepared it on the reader")
	}
}

// Scans outside a transaction keep their connection for the next scan
// instead of opening (and parsing the schema on) a new one each time; one
// stopped by its callback gives it back too, and Close closes the idle
// ones, after which a scan is refused.
func TestFastScansReuseConnections(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), templatePath(t, "p.db"), Options{Readers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := s.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "ns", Episodes: []*memory.Episode{
		{ID: "e1", Namespace: "ns", Kind: memory.EpisodeUserMessage, Content: "one", OccurredAt: time.Unix(1, 0).UTC(), RecordedAt: time.Unix(1, 0).UTC(), ContentHash: "h1"},
		{ID: "e2", Namespace: "ns", Kind: memory.EpisodeUserMessage, Content: "two", OccurredAt: time.Unix(2, 0).UTC(), RecordedAt: time.Unix(2, 0).UTC(), ContentHash: "h2"},
	}}); err != nil {
		t.Fatal(err)
	}
	idle := func() []*fastConn {
		s.fast.mu.Lock()
		defer s.fast.mu.Unlock()
		return slices.Clone(s.fast.idle)
	}
	if n := len(idle()); n != 0 {
		t.Fatalf("%d scan connections open before any scan", n)
	}
	// The read executor's episode scan takes the fast path (the Store's
	// own ScanEpisodes reads the archive too, in a transaction).
	scan := func(stopAt int) int {
		n := 0
		err := s.read.ScanEpisodes(ctx, memory.ScanParams{Namespace: "ns"}, func(*memory.Episode) error {
			n++
			if n == stopAt {
				return errors.New("enough")
			}
			return nil
		})
		if stopAt == 0 && err != nil || stopAt > 0 && (err == nil || err.Error() != "enough") {
			t.Fatalf("scan stopping at %d: %v", stopAt, err)
		}
		return n
	}
	if n := scan(0); n != 2 {
		t.Fatalf("scanned %d episodes, want 2", n)
	}
	first := idle()
	if len(first) != 1 {
		t.Fatalf("%d idle scan connections after one scan, want 1", len(first))
	}
	if n := scan(1); n != 1 {
		t.Fatalf("a scan stopped at the first episode saw %d", n)
	}
	if n := scan(0); n != 2 {
		t.Fatalf("scanned %d episodes after a stopped scan, want 2", n)
	}
	if now := idle(); len(now) != 1 || now[0] != first[0] {
		t.Fatalf("idle scan connections after three scans: %v, want the first one (%v) alone", now, first)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(idle()); n != 0 {
		t.Fatalf("%d idle scan connections after Close", n)
	}
	if err := s.ScanVersions(ctx, memory.ScanParams{Namespace: "ns"}, func(*memory.Version) error { return nil }); !errors.Is(err, errClosed) {
		t.Fatalf("scan after Close: %v", err)
	}
}

// The checkpointer's plain connection copies the log into the file: what
// a PASSIVE checkpoint on it leaves behind is a log whose every frame is
// copied, and a TRUNCATE empties it.
func TestCheckpointerCopiesTheLog(t *testing.T) {
	t.Parallel()
	path := templatePath(t, "p.db")
	s, err := Open(t.Context(), path, Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	if err := s.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "ns", Episodes: []*memory.Episode{
		{ID: "e1", Namespace: "ns", Kind: memory.EpisodeUserMessage, Content: "one", OccurredAt: time.Unix(1, 0).UTC(), RecordedAt: time.Unix(1, 0).UTC(), ContentHash: "h1"},
	}}); err != nil {
		t.Fatal(err)
	}
	c := &checkpointer{path: s.path, busy: time.Second}
	defer func() {
		if c.conn != nil {
			c.conn.close()
		}
	}()
	whole, err := c.checkpoint(sqlite3.SQLITE_CHECKPOINT_PASSIVE)
	if err != nil || !whole {
		t.Fatalf("PASSIVE checkpoint with no reader: whole %v, %v", whole, err)
	}
	whole, err = c.checkpoint(sqlite3.SQLITE_CHECKPOINT_TRUNCATE)
	if err != nil || !whole {
		t.Fatalf("TRUNCATE checkpoint: whole %v, %v", whole, err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() != 0 {
		t.Fatalf("the log after TRUNCATE: %v, %v", fi, err)
	}
}
