package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/pgtest"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/postgres"
	"github.com/mnemon-dev/mnemon/store/storetest"
)

// The tests run against the server MNEMON_TEST_POSTGRES names, each in a
// schema of its own (internal/pgtest); without a server they skip.

// The conformance suite opens a store per subtest, well over a hundred; a
// migration costs more than half a second on a loaded machine. So its
// schemas are reused: migrated once, emptied when a test ends and handed to
// the next.
var reusable struct {
	sync.Mutex
	free []string // emptied schemas, ready
	all  []string // every schema made, dropped by TestMain
}

// TestMain drops the reused schemas when the package's tests end.
func TestMain(m *testing.M) {
	code := m.Run()
	if len(reusable.all) > 0 {
		ctx := context.Background()
		for _, s := range reusable.all {
			_ = pgtest.Exec(ctx, "DROP SCHEMA "+s+" CASCADE")
		}
	}
	os.Exit(code)
}

// reusedSchema returns the URL of an empty, migrated schema for one test;
// when the test ends (after its store is closed) the schema is emptied and
// returned for the next.
func reusedSchema(t *testing.T) string {
	t.Helper()
	pgtest.Require(t)
	reusable.Lock()
	var schema string
	if n := len(reusable.free); n > 0 {
		schema, reusable.free = reusable.free[n-1], reusable.free[:n-1]
	}
	reusable.Unlock()
	if schema == "" {
		schema = pgtest.NewSchemaName("mnemon_test_")
		pgtest.CreateSchema(t, schema)
		reusable.Lock()
		reusable.all = append(reusable.all, schema)
		reusable.Unlock()
	}
	t.Cleanup(func() {
		// DELETE, not TRUNCATE: the tables are tiny, and TRUNCATE makes new
		// files for each. Migrations are kept: the schema stays current.
		err := pgtest.Exec(context.Background(), `DO $$ DECLARE t text; BEGIN
		  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = '`+schema+`' AND tablename <> 'schema_migrations'
		           ORDER BY tablename = 'memories' LOOP -- versions reference memories
		    EXECUTE format('DELETE FROM %I.%I', '`+schema+`', t);
		  END LOOP; END $$`)
		if err != nil {
			t.Error(err) // not returned: the next test gets a fresh one
			return
		}
		reusable.Lock()
		reusable.free = append(reusable.free, schema)
		reusable.Unlock()
	})
	return pgtest.WithSearchPath(t, schema)
}

func open(t *testing.T, url string) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(t.Context(), url, postgres.Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestConformance(t *testing.T) {
	pgtest.Require(t)
	storetest.Run(t, func(t *testing.T) memory.Store { return open(t, reusedSchema(t)) })
}

// Processes starting together on an empty schema: one migrates, the others
// wait on the advisory lock and find the schema current.
func TestMigrateConcurrently(t *testing.T) {
	url := pgtest.Schema(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			st, err := postgres.Open(t.Context(), url, postgres.Options{MaxConns: 2})
			if err != nil {
				errs <- err
				return
			}
			errs <- st.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	st := open(t, url)
	var applied, distinct int
	if err := st.Pool().QueryRow(t.Context(), `SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&applied, &distinct); err != nil {
		t.Fatal(err)
	}
	if applied != postgres.SchemaVersion() || distinct != applied {
		t.Errorf("schema_migrations holds %d rows (%d versions), want each of %d once", applied, distinct, postgres.SchemaVersion())
	}
}

func TestSchemaTooNew(t *testing.T) {
	url := pgtest.Schema(t)
	st := open(t, url)
	newer := postgres.SchemaVersion() + 1
	if _, err := st.Pool().Exec(t.Context(), `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'from_the_future', now())`, newer); err != nil {
		t.Fatal(err)
	}
	must(t, st.Close())
	_, err := postgres.Open(t.Context(), url, postgres.Options{})
	if !errors.Is(err, memory.ErrSchemaTooNew) {
		t.Fatalf("open a schema at version %d: got %v, want ErrSchemaTooNew", newer, err)
	}
	var pe *memory.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "upgrade mnemon") {
		t.Errorf("the error does not tell the user what to do: %v", err)
	}
}

// TestWriteRefusedAfterUpgradeUnderneath: a store left open while a newer
// mnemon migrates its schema refuses every write from then on, with
// ErrSchemaTooNew and nothing written, and its pool stays usable.
func TestWriteRefusedAfterUpgradeUnderneath(t *testing.T) {
	url := pgtest.Schema(t)
	st := open(t, url)
	ctx := t.Context()
	m := newMemory("up", "mem_before")
	must(t, st.InTx(ctx, func(tx memory.Executor) error { return tx.CreateMemory(ctx, m) }))

	newer := postgres.SchemaVersion() + 1
	if _, err := st.Pool().Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'from_the_future', now())`, newer); err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // more than once: a refused begin must not poison the pool
		err := st.InTx(ctx, func(tx memory.Executor) error {
			return tx.CreateMemory(ctx, newMemory("up", fmt.Sprintf("mem_after_%d", i)))
		})
		if !errors.Is(err, memory.ErrSchemaTooNew) {
			t.Fatalf("write %d after the upgrade: got %v, want ErrSchemaTooNew", i, err)
		}
		var pe *memory.Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Message, fmt.Sprintf("schema version %d", newer)) || !strings.Contains(pe.Message, "restart this process") {
			t.Errorf("the error does not say what happened and what to do: %v", err)
		}
	}
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM memories WHERE namespace = 'up'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("memories in the namespace: %d (%v), want the one written before", n, err)
	}
	// Reads still work, and writes again once the schema is this build's.
	if _, err := st.Pool().Exec(ctx, `DELETE FROM schema_migrations WHERE version = $1`, newer); err != nil {
		t.Fatal(err)
	}
	must(t, st.InTx(ctx, func(tx memory.Executor) error { return tx.CreateMemory(ctx, newMemory("up", "mem_after")) }))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newMemory(ns, id string) *memory.Memory {
	at := time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	return &memory.Memory{ID: id, Namespace: ns, Kind: memory.KindSemantic, Subject: "user", Key: "k-" + id, CreatedAt: at, UpdatedAt: at}
}

func newVersion(m *memory.Memory, id string) *memory.Version {
	at := m.CreatedAt
	return &memory.Version{
		ID: id, MemoryID: m.ID, Namespace: m.Namespace, Seq: 1, Kind: m.Kind, Type: memory.TypeFact,
		Subject: m.Subject, Key: m.Key, Content: "content of " + id, Criticality: memory.CriticalityNormal,
		Usefulness: memory.NeutralUsefulness, Status: memory.StatusActive, Operation: memory.OpAdd,
		ObservedAt: at, RecordedAt: at, ValidFrom: at, UpdatedAt: at,
	}
}

// follow reads the namespace's change log after *last, as a follower does,
// and moves *last to the newest entry read.
func follow(t *testing.T, st memory.Store, ns string, last *int64) []string {
	t.Helper()
	cs, err := st.ListChanges(t.Context(), memory.ListChangesParams{Namespace: ns, After: *last})
	must(t, err)
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.VersionID)
		*last = c.Seq
	}
	return ids
}

// Two transactions write versions of one namespace; the one that took its
// sequence number second tries to commit first. A follower polling between
// the commits must still see both: the second waits for the first (the
// namespace's change lock), so the log becomes visible in seq order.
func TestChangeLogOutOfOrderCommits(t *testing.T) {
	st := open(t, pgtest.Schema(t))
	ctx := t.Context()
	const ns = "tenant-a"
	first, second := newMemory(ns, "m-first"), newMemory(ns, "m-second")
	must(t, st.CreateMemory(ctx, first))
	must(t, st.CreateMemory(ctx, second))
	var last int64
	if got := follow(t, st, ns, &last); len(got) != 0 {
		t.Fatalf("changes before any version: %v", got)
	}

	firstLogged, releaseFirst := make(chan struct{}), make(chan struct{})
	firstDone, secondDone := make(chan error, 1), make(chan error, 1)
	go func() {
		firstDone <- st.InTx(ctx, func(tx memory.Executor) error {
			if err := tx.CreateVersion(ctx, newVersion(first, "v-first")); err != nil {
				return err
			}
			close(firstLogged)
			<-releaseFirst // still open: its change row holds the lower seq
			return nil
		})
	}()
	<-firstLogged
	secondStarted := make(chan struct{})
	go func() {
		secondDone <- st.InTx(ctx, func(tx memory.Executor) error {
			close(secondStarted)
			return tx.CreateVersion(ctx, newVersion(second, "v-second"))
		})
	}()
	<-secondStarted

	// A transaction of another namespace is not held up.
	other := newMemory("tenant-b", "m-other")
	must(t, st.CreateMemory(ctx, other))
	must(t, st.CreateVersion(ctx, newVersion(other, "v-other")))

	select {
	case err := <-secondDone:
		t.Fatalf("the second transaction committed while the first, holding a lower seq, was open (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	if got := follow(t, st, ns, &last); len(got) != 0 {
		t.Fatalf("a follower saw %v while the first transaction was open", got)
	}

	close(releaseFirst)
	must(t, <-firstDone)
	must(t, <-secondDone)
	var seen []string
	seen = append(seen, follow(t, st, ns, &last)...)
	if strings.Join(seen, ",") != "v-first,v-second" {
		t.Errorf("the follower saw %v, want v-first then v-second", seen)
	}
	newest, err := st.LastChange(ctx, memory.ScanParams{Namespace: ns})
	must(t, err)
	if newest != last {
		t.Errorf("LastChange %d, the follower stands at %d", newest, last)
	}
}

// A rolled-back transaction leaves a gap in the sequence that no follower
// waits for.
func TestChangeLogGapFromRollback(t *testing.T) {
	st := open(t, pgtest.Schema(t))
	ctx := t.Context()
	const ns = "tenant-a"
	m := newMemory(ns, "m-1")
	must(t, st.CreateMemory(ctx, m))
	boom := errors.New("boom")
	err := st.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateVersion(ctx, newVersion(m, "v-rolled-back")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx: %v", err)
	}
	v := newVersion(m, "v-kept")
	v.Seq = 2
	must(t, st.CreateVersion(ctx, v))
	var last int64
	if got := follow(t, st, ns, &last); strings.Join(got, ",") != "v-kept" {
		t.Errorf("follower saw %v, want v-kept", got)
	}
}

// BenchmarkCreateVersion measures one version write on the Store: its own
// transaction, the change log entry under the namespace's lock, the insert.
func BenchmarkCreateVersion(b *testing.B) {
	st := openBench(b)
	ctx := b.Context()
	m := newMemory("bench", "m-1")
	if err := st.CreateMemory(ctx, m); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		v := newVersion(m, "v-"+strconv.Itoa(i))
		v.Seq = i + 1
		if err := st.CreateVersion(ctx, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateEpisodes500 measures a batch of 500 episodes: one
// multi-row INSERT over arrays.
func BenchmarkCreateEpisodes500(b *testing.B) {
	st := openBench(b)
	ctx := b.Context()
	at := time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	b.ResetTimer()
	for i := range b.N {
		eps := make([]*memory.Episode, 500)
		for j := range eps {
			id := "e-" + strconv.Itoa(i) + "-" + strconv.Itoa(j)
			eps[j] = &memory.Episode{ID: id, Kind: memory.EpisodeUserMessage, Content: "I moved to Lisbon in March " + id,
				Scope: memory.Scope{UserID: "u1", SessionID: "s" + strconv.Itoa(i)}, OccurredAt: at, RecordedAt: at, ContentHash: "h" + id}
		}
		if err := st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "bench", Episodes: eps}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "episodes/s")
}

// openBench opens a store in a schema of its own, dropped at the end, whose
// commits wait for the disk as a server's do.
func openBench(b *testing.B) *postgres.Store {
	b.Helper()
	st, err := postgres.Open(context.Background(), pgtest.DurableSchema(b), postgres.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	return st
}

// PostgreSQL text holds neither NUL bytes nor invalid UTF-8; the store
// answers ErrInvalid for them, never a bare driver error.
func TestTextPostgreSQLCannotHold(t *testing.T) {
	st := open(t, reusedSchema(t))
	for name, bad := range map[string]string{"NUL": "a\x00b", "invalid UTF-8": "a\xffb"} {
		m := newMemory("tenant-a", "m-"+strings.ReplaceAll(name, " ", "-"))
		m.Subject = bad
		err := st.CreateMemory(t.Context(), m)
		if !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("%s in a subject: got %v, want ErrInvalid", name, err)
		}
	}
}

// A transaction that deletes a version and logs the deletion, and one that
// holds the namespace and then updates that version, must not deadlock:
// each takes the namespace's write lock before any row.
func TestWritersOfOneNamespaceDoNotDeadlock(t *testing.T) {
	st := open(t, reusedSchema(t))
	ctx := t.Context()
	const ns = "tenant-a"
	doomed, kept := newMemory(ns, "m-doomed"), newMemory(ns, "m-kept")
	must(t, st.CreateMemory(ctx, doomed))
	must(t, st.CreateMemory(ctx, kept))
	x, y := newVersion(doomed, "v-x"), newVersion(kept, "v-y")
	must(t, st.CreateVersion(ctx, x))
	must(t, st.CreateVersion(ctx, y))

	holding, release := make(chan struct{}), make(chan struct{})
	updater := make(chan error, 1)
	var updaterPID int // the updater's backend, set before holding closes
	go func() {
		updater <- st.InTx(ctx, func(tx memory.Executor) error {
			y.Usefulness = 0.7
			if err := tx.UpdateVersionState(ctx, y); err != nil {
				return err
			}
			ptx, err := postgres.Tx(tx)
			if err != nil {
				return err
			}
			if err := ptx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&updaterPID); err != nil {
				return err
			}
			close(holding)
			<-release
			x.Usefulness = 0.7
			err = tx.UpdateVersionState(ctx, x)
			if errors.Is(err, memory.ErrNotFound) {
				return nil // the deleter went first after all
			}
			return err
		})
	}()
	<-holding
	deleter := make(chan error, 1)
	go func() {
		_, err := st.DeleteMemories(ctx, memory.DeleteMemoriesParams{Namespace: ns, MemoryIDs: []string{doomed.ID}, Now: time.Now()})
		deleter <- err
	}()
	// Release the updater once the deleter waits for a lock it holds.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var blocked int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, updaterPID).Scan(&blocked); err != nil {
			t.Fatal(err)
		}
		if blocked > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the deleter never waited for the updater's lock")
		}
	}
	close(release)
	must(t, <-updater)
	must(t, <-deleter)
	if _, err := st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: x.ID}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("v-x after the deletion: %v", err)
	}
}

// Tx hands a job queue the transaction InTx runs, so what it writes there
// commits or rolls back with the store's writes.
func TestTxIsTheStoresTransaction(t *testing.T) {
	st := open(t, reusedSchema(t))
	ctx := t.Context()
	m := newMemory("tenant-a", "m-1")
	must(t, st.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateMemory(ctx, m); err != nil {
			return err
		}
		ptx, err := postgres.Tx(tx)
		if err != nil {
			return err
		}
		var n int
		if err := ptx.QueryRow(ctx, `SELECT count(*) FROM memories WHERE namespace = $1 AND id = $2`, m.Namespace, m.ID).Scan(&n); err != nil {
			return err
		}
		if n != 1 {
			t.Errorf("the pgx transaction does not see the memory written in InTx")
		}
		return nil
	}))
	if _, err := postgres.Tx(st); err == nil {
		t.Error("Tx of the store itself (no transaction) succeeded")
	}
	must(t, st.ReadTx(ctx, func(tx memory.Executor) error {
		if _, err := postgres.Tx(tx); err == nil {
			t.Error("Tx of a read transaction succeeded")
		}
		return nil
	}))
}

// A URL that does not parse is ErrInvalid, and the error does not repeat
// it: it may hold a password.
func TestOpenBadURL(t *testing.T) {
	for _, bad := range []string{"", "postgres://user:s3cret@[::1", "port=notanumber password=s3cret"} {
		_, err := postgres.Open(t.Context(), bad, postgres.Options{})
		if !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("Open(%q): got %v, want ErrInvalid", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q): the error shows the password: %v", bad, err)
		}
	}
}
