package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/internal/pgtest"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/postgres"
)

// A read-only store (a reader replica) reads what a writer stored, and
// refuses every write with store_read_only before anything reaches a
// table; a write that goes around the store, on its pool, is refused by
// PostgreSQL itself. Nothing it is given is written.
func TestReadOnlyOpen(t *testing.T) {
	url := pgtest.Schema(t)
	ctx := t.Context()

	// A schema nobody migrated: refused as too old, and left empty (not
	// even schema_migrations is created).
	_, err := postgres.Open(ctx, url, postgres.Options{ReadOnly: true})
	var pe *memory.Error
	if !errors.Is(err, memory.ErrSchemaTooOld) || !errors.As(err, &pe) || pe.Code != memory.CodeStoreTooOld {
		t.Fatalf("read-only open of an empty schema: got %v, want store_too_old", err)
	}
	conn, err := pgx.Connect(ctx, url)
	must(t, err)
	var tables int
	must(t, conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&tables))
	_ = conn.Close(ctx)
	if tables != 0 {
		t.Fatalf("a read-only open created %d tables", tables)
	}

	w := open(t, url)
	m := newMemory("ns-a", "m-1")
	must(t, w.CreateMemory(ctx, m))
	must(t, w.CreateVersion(ctx, newVersion(m, "v-1")))
	before := rowCounts(t, w)

	r, err := postgres.Open(ctx, url, postgres.Options{ReadOnly: true, MaxConns: 2})
	must(t, err)
	defer r.Close()
	if !r.ReadOnly() || w.ReadOnly() {
		t.Fatalf("ReadOnly(): reader %v, writer %v", r.ReadOnly(), w.ReadOnly())
	}
	if v, err := r.GetVersion(ctx, memory.GetParams{Namespace: "ns-a", ID: "v-1"}); err != nil || v.Content != "content of v-1" {
		t.Fatalf("the reader cannot read the writer's version: %v %v", v, err)
	}
	if cs, err := r.ListChanges(ctx, memory.ListChangesParams{Namespace: "ns-a"}); err != nil || len(cs) != 1 {
		t.Fatalf("the reader's change log: %v %v", cs, err)
	}

	at := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	writes := []struct {
		name  string
		write func(ctx context.Context) error
	}{
		{"create memory", func(ctx context.Context) error { return r.CreateMemory(ctx, newMemory("ns-a", "m-2")) }},
		{"create version", func(ctx context.Context) error {
			v := newVersion(m, "v-2")
			v.Seq = 2
			return r.CreateVersion(ctx, v)
		}},
		{"create episodes", func(ctx context.Context) error {
			return r.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "ns-a", Episodes: []*memory.Episode{{
				ID: "e-1", Kind: memory.EpisodeUserMessage, Content: "hello", OccurredAt: at, RecordedAt: at, ContentHash: "h1"}}})
		}},
		{"create trace", func(ctx context.Context) error {
			return r.CreateTrace(ctx, &memory.Trace{ID: "t-1", Namespace: "ns-a", Query: "q", CreatedAt: at})
		}},
		{"a transaction", func(ctx context.Context) error {
			return r.InTx(ctx, func(tx memory.Executor) error { return tx.CreateMemory(ctx, newMemory("ns-a", "m-3")) })
		}},
	}
	for _, tc := range writes {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.write(ctx)
			var pe *memory.Error
			if !errors.Is(err, memory.ErrReadOnly) || !errors.As(err, &pe) || pe.Code != memory.CodeStoreReadOnly {
				t.Fatalf("got %v, want store_read_only", err)
			}
		})
	}

	// Around the store: PostgreSQL's default_transaction_read_only.
	_, err = r.Pool().Exec(ctx, `DELETE FROM versions`)
	if err == nil {
		t.Fatal("a DELETE on the read-only store's pool was accepted")
	}
	if got := rowCounts(t, w); got != before {
		t.Fatalf("rows changed under a read-only store: %v, before %v", got, before)
	}
}

// A read-only open of a schema from a newer mnemon is refused, as a
// read-write one is.
func TestReadOnlyOpenSchemaTooNew(t *testing.T) {
	url := pgtest.Schema(t)
	w := open(t, url)
	if _, err := w.Pool().Exec(t.Context(), `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'from_the_future', now())`, postgres.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	if _, err := postgres.Open(t.Context(), url, postgres.Options{ReadOnly: true}); !errors.Is(err, memory.ErrSchemaTooNew) {
		t.Fatalf("got %v, want ErrSchemaTooNew", err)
	}
}

// rowCounts counts the rows of the tables a write touches.
func rowCounts(t *testing.T, st *postgres.Store) [5]int {
	t.Helper()
	var n [5]int
	err := st.Pool().QueryRow(t.Context(), `SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM versions),
	    (SELECT count(*) FROM episodes), (SELECT count(*) FROM traces), (SELECT count(*) FROM changes)`).Scan(&n[0], &n[1], &n[2], &n[3], &n[4])
	must(t, err)
	return n
}

// CreateSlot writes what CreateMemory then CreateVersion write, with the
// version's change-log entry, in one statement; its conflicts leave what
// the two calls would leave, and the transaction usable.
func TestCreateSlot(t *testing.T) {
	st := open(t, reusedSchema(t))
	ctx := t.Context()
	m := newMemory("ns-a", "m-1")
	must(t, st.InTx(ctx, func(tx memory.Executor) error {
		return tx.(memory.SlotCreator).CreateSlot(ctx, m, newVersion(m, "v-1"))
	}))
	if v, err := st.GetVersion(ctx, memory.GetParams{Namespace: "ns-a", ID: "v-1"}); err != nil || v.MemoryID != "m-1" {
		t.Fatalf("the version: %v %v", v, err)
	}
	var last int64
	if got := follow(t, st, "ns-a", &last); len(got) != 1 || got[0] != "v-1" {
		t.Fatalf("change log: %v", got)
	}

	for _, tc := range []struct {
		name    string
		m       *memory.Memory
		v       func(m *memory.Memory) *memory.Version
		memKept bool
	}{
		{"same memory id", newMemory("ns-a", "m-1"), func(m *memory.Memory) *memory.Version { return newVersion(m, "v-2") }, false},
		{"same slot", func() *memory.Memory { m := newMemory("ns-a", "m-2"); m.Key = "k-m-1"; return m }(),
			func(m *memory.Memory) *memory.Version { return newVersion(m, "v-3") }, false},
		{"same version id", newMemory("ns-a", "m-4"), func(m *memory.Memory) *memory.Version { return newVersion(m, "v-1") }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := rowCounts(t, st)
			err := st.InTx(ctx, func(tx memory.Executor) error {
				err := tx.(memory.SlotCreator).CreateSlot(ctx, tc.m, tc.v(tc.m))
				if !errors.Is(err, memory.ErrConflict) {
					t.Errorf("got %v, want ErrConflict", err)
				}
				// The transaction goes on.
				return tx.CreateMemory(ctx, newMemory("ns-a", "after-"+tc.m.ID))
			})
			must(t, err)
			after := rowCounts(t, st)
			wantMems := before[0] + 1
			if tc.memKept {
				wantMems++
			}
			if after[0] != wantMems || after[1] != before[1] {
				t.Errorf("memories %d -> %d (want %d), versions %d -> %d", before[0], after[0], wantMems, before[1], after[1])
			}
		})
	}
}

// Without pgvector (as on these machines) the store says so, makes none of
// its table, answers no vector search, and versions keep their vectors in
// versions.embedding as always. With pgvector installed the test says
// that this path is not the one it checks.
func TestPgvectorAbsent(t *testing.T) {
	st := open(t, pgtest.Schema(t))
	ctx := t.Context()
	p, err := st.DetectPgvector(ctx)
	must(t, err)
	if p.Present() {
		t.Skipf("pgvector %s is installed here: this test checks the path without it", p.Installed)
	}
	if st.VectorSearchEnabled() {
		t.Fatal("vector search enabled without pgvector")
	}
	if _, err := st.SearchVectors(ctx, memory.VectorSearchParams{Namespace: "ns-a", Query: []byte{1}, K: 5}); err == nil {
		t.Fatal("a vector search without pgvector answered")
	}
	m := newMemory("ns-a", "m-1")
	v := newVersion(m, "v-1")
	v.Embedding = []byte{0x02, 0x00, 0x03, 0x00, 0x38, 0x00, 0x00, 0x00, 0x3c} // any bytes: the store does not read them
	must(t, st.InTx(ctx, func(tx memory.Executor) error { return tx.(memory.SlotCreator).CreateSlot(ctx, m, v) }))
	var table bool
	must(t, st.Pool().QueryRow(ctx, `SELECT to_regclass('version_vectors') IS NOT NULL`).Scan(&table))
	if table {
		t.Fatal("version_vectors exists without pgvector")
	}
	got, err := st.GetVersion(ctx, memory.GetParams{Namespace: "ns-a", ID: "v-1"})
	must(t, err)
	if string(got.Embedding) != string(v.Embedding) {
		t.Fatalf("embedding %x, want %x", got.Embedding, v.Embedding)
	}
	if p.String() == "" || !strings.Contains(p.String(), "not") {
		t.Errorf("state in words: %q", p.String())
	}
}
