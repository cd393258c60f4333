package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/pgtest"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/postgres"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// onPostgresPrefix names the tests newEngine opens on PostgreSQL.
const onPostgresPrefix = "TestOnPostgres/"

// openTestStore opens the store a test's engine runs on: a real SQLite file
// in a temp dir, or, under TestOnPostgres, a fresh PostgreSQL schema.
// Either is closed when the test ends.
func openTestStore(t testing.TB) memory.Store {
	t.Helper()
	ctx := context.Background()
	var (
		st  memory.Store
		err error
	)
	if strings.HasPrefix(t.Name(), onPostgresPrefix) {
		st, err = postgres.Open(ctx, pgtest.Schema(t), postgres.Options{MaxConns: 4})
	} else {
		opts := sqlite.Options{}
		if _, ok := t.(*testing.B); ok {
			opts.Synchronous = "FULL" // benchmarks keep the product's default
		}
		return sqlitetest.Open(t, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestOnPostgres runs a representative set of the engine's end-to-end
// tests, unchanged, on PostgreSQL: each opens a schema of its own (see
// newEngine). Without a server it skips with one line.
func TestOnPostgres(t *testing.T) {
	pgtest.Require(t)
	for _, tc := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"EditorStory", TestEditorStory},
		{"StreamedLoadMatchesScan", TestStreamedLoadMatchesScan},
		{"NearDuplicateReinforces", TestNearDuplicateReinforces},
		{"SlotHeadSameOutcomes", TestSlotHeadSameOutcomes},
		{"Quarantine", TestQuarantine},
		{"NamespaceIsolationPerChannel", TestNamespaceIsolationPerChannel},
		{"PackingBudget", TestPackingBudget},
		{"TracePersisted", TestTracePersisted},
		{"AsOf", TestAsOf},
		{"ExportImportRoundTrip", TestExportImportRoundTrip},
		{"BadInput", TestBadInput},
		{"CaptureRetryIsIdempotent", TestCaptureRetryIsIdempotent},
		{"RetrieveKnownAt", TestRetrieveKnownAt},
		{"CaptureDeferred", TestCaptureDeferred},
		{"FeedbackIdempotent", TestFeedbackIdempotent},
		{"ConsolidateSessionSummarisesOnce", TestConsolidateSessionSummarisesOnce},
		{"ProcedurePromotedAfterThreeSuccesses", TestProcedurePromotedAfterThreeSuccesses},
	} {
		t.Run(tc.name, tc.run)
	}
}

// replicas opens two engines on one fresh PostgreSQL schema, each with a
// pool and an index of its own, as two 'mnemon serve' processes have. With
// watch false, b's store hides that it can watch (b only polls).
func replicas(t testing.TB, watch bool) (a, b *engine.Engine) {
	t.Helper()
	url := pgtest.Schema(t)
	open := func(watch bool) *engine.Engine {
		pg, err := postgres.Open(context.Background(), url, postgres.Options{MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		var st memory.Store = struct{ memory.Store }{pg}
		if watch {
			st = newListenSignal(pg)
		}
		e, err := engine.New(engine.Config{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		if watch {
			listeners.Store(e, st)
		}
		t.Cleanup(func() {
			listeners.Delete(e)
			e.Close()
			pg.Close()
		})
		return e
	}
	return open(true), open(watch)
}

// listenSignal is a PostgreSQL store whose change watch says when it
// LISTENs, so a test can wait for that instead of sleeping.
type listenSignal struct {
	*postgres.Store
	once      sync.Once
	listening chan struct{} // closed once the first watch listens
}

func newListenSignal(pg *postgres.Store) *listenSignal {
	return &listenSignal{Store: pg, listening: make(chan struct{})}
}

func (s *listenSignal) WatchChanges(ctx context.Context, ready func(), fn func(string)) error {
	return s.Store.WatchChanges(ctx, func() {
		if ready != nil {
			ready()
		}
		s.once.Do(func() { close(s.listening) })
	}, fn)
}

// listeners maps the engines on a listenSignal store to it.
var listeners sync.Map // *engine.Engine → *listenSignal

// waitListening waits until e's follower LISTENs for changes: a commit
// after that wakes it. e must run on a listenSignal store (replicas with
// watch, or registered in listeners).
func waitListening(t testing.TB, e *engine.Engine) {
	t.Helper()
	v, ok := listeners.Load(e)
	if !ok {
		t.Fatal("the engine's store does not report when it listens")
	}
	ls := v.(*listenSignal)
	select {
	case <-ls.listening:
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not LISTEN within 10 s")
	}
}

// follow runs e.Follow every poll until the test ends.
func followEvery(t testing.TB, e *engine.Engine, poll time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Follow(ctx, poll)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// sees reports whether e's retrieval in ns finds an episode saying text.
func sees(t testing.TB, e *engine.Engine, ns, query, text string) bool {
	t.Helper()
	res, err := e.Retrieve(context.Background(), engine.RetrieveParams{Namespace: ns, Query: query, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if strings.Contains(it.Content, text) {
			return true
		}
	}
	return false
}

// A write on one replica wakes the other's follower through LISTEN/NOTIFY:
// with polling set to an hour, the other replica's retrieval still finds
// it within a second.
func TestReplicaSeesWriteOnNotify(t *testing.T) {
	a, b := replicas(t, true)
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	remember(t, a, "ns", "I live in Lisbon.", at)
	if !sees(t, b, "ns", "where do I live", "Lisbon") { // loads b's index
		t.Fatal("replica b does not see a write committed before it loaded")
	}
	followEvery(t, b, time.Hour)
	waitListening(t, b) // a commit after this wakes b (polling is at an hour)
	for i, city := range []string{"Porto", "Braga", "Faro"} {
		text := fmt.Sprintf("My cousin number %d lives in %s.", i, city)
		if _, err := a.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: text, ObservedAt: at.Add(time.Duration(i+1) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for !sees(t, b, "ns", "cousin "+city, city) {
			if time.Now().After(deadline) {
				t.Fatalf("replica b did not see %q within 5 s with polling at an hour: no notification woke it", text)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// What b wrote itself it reads at once (read-your-writes).
	remember(t, b, "ns", "I drive a blue van.", at.Add(5*time.Hour))
	if !sees(t, b, "ns", "what do I drive", "van") {
		t.Fatal("replica b does not read its own write")
	}
}

// BenchmarkReplicaVisibility measures how long after its acknowledgement
// a write on
// replica a is found by a retrieval on replica b (two engines,
// each with its own pool and index, on one PostgreSQL database), with the
// follower woken by LISTEN/NOTIFY and with polling alone (every 500 ms, as
// 'mnemon serve' polls):
//
//	go test ./engine -run X -bench ReplicaVisibility -benchtime 200x
func BenchmarkReplicaVisibility(b *testing.B) {
	for _, mode := range []string{"notify", "poll"} {
		b.Run(mode, func(b *testing.B) {
			ra, rb := replicas(b, mode == "notify")
			ctx := context.Background()
			at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
			remember(b, ra, "ns", "I live in Lisbon.", at)
			if !sees(b, rb, "ns", "where do I live", "Lisbon") {
				b.Fatal("replica b does not see the first write")
			}
			followEvery(b, rb, 500*time.Millisecond)
			if mode == "notify" {
				waitListening(b, rb)
			}
			var lags []time.Duration
			i := 0
			for b.Loop() {
				i++
				word := fmt.Sprintf("zq%dx", i)
				if _, err := ra.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: "The code word is " + word + ".", ObservedAt: at.Add(time.Duration(i) * time.Minute)}); err != nil {
					b.Fatal(err)
				}
				start := time.Now() // acknowledged
				for !sees(b, rb, "ns", word, word) {
					if time.Since(start) > 10*time.Second {
						b.Fatalf("write %d not visible on replica b after 10 s", i)
					}
					time.Sleep(500 * time.Microsecond)
				}
				lags = append(lags, time.Since(start))
			}
			slices.Sort(lags)
			q := func(p float64) float64 { return float64(lags[int(p*float64(len(lags)-1))].Microseconds()) / 1000 }
			b.ReportMetric(q(0.5), "p50-ms")
			b.ReportMetric(q(0.95), "p95-ms")
			b.ReportMetric(q(0.99), "p99-ms")
		})
	}
}

// A reader replica: an engine on a read-only PostgreSQL store serves what
// a writer stores, kept current by NOTIFY like any replica, and refuses
// to remember with store_read_only, writing nothing.
func TestReadOnlyReplica(t *testing.T) {
	url := pgtest.Schema(t)
	ctx := context.Background()
	wst, err := postgres.Open(ctx, url, postgres.Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer wst.Close()
	w, err := engine.New(engine.Config{Store: wst})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	remember(t, w, "ns", "I live in Lisbon.", at)

	rst, err := postgres.Open(ctx, url, postgres.Options{MaxConns: 4, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rst.Close()
	rls := newListenSignal(rst)
	r, err := engine.New(engine.Config{Store: rls})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	listeners.Store(r, rls)
	defer listeners.Delete(r)
	if !sees(t, r, "ns", "where do I live", "Lisbon") {
		t.Fatal("the reader does not serve the writer's fact")
	}
	followEvery(t, r, time.Hour)
	waitListening(t, r) // a commit after this wakes the reader
	remember(t, w, "ns", "I drive a blue van.", at.Add(time.Hour))
	deadline := time.Now().Add(5 * time.Second)
	for !sees(t, r, "ns", "what do I drive", "van") {
		if time.Now().After(deadline) {
			t.Fatal("the reader did not follow the writer's new fact within 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}

	var before int
	if err := wst.Pool().QueryRow(ctx, `SELECT count(*) FROM versions`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	_, err = r.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: "I prefer tea.", ObservedAt: at.Add(2 * time.Hour)})
	var pe *memory.Error
	if !errors.As(err, &pe) || pe.Code != memory.CodeStoreReadOnly {
		t.Fatalf("remember on the reader: %v, want store_read_only", err)
	}
	// Its retrievals store no trace, and say so.
	res, err := r.Retrieve(ctx, engine.RetrieveParams{Namespace: "ns", Query: "where do I live", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Notes, engine.NoteTraceNotStored) {
		t.Errorf("retrieval on the reader: notes %q, want the note that no trace was stored", res.Notes)
	}
	r.FlushTraces()
	var after int
	if err := wst.Pool().QueryRow(ctx, `SELECT count(*) FROM versions`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("versions %d -> %d after a refused remember", before, after)
	}
}

// Eight writers on two replicas (four on each, each replica with its own
// pool and index) restate one slot with different values at once: one
// memory for the slot (no duplicate ADD), one version per statement, one
// of them current, every other superseded (no lost supersession).
func TestEightWritersTwoReplicasOneSlot(t *testing.T) {
	url := pgtest.Schema(t)
	ctx := context.Background()
	var stores []*postgres.Store
	var engines []*engine.Engine
	for range 2 {
		st, err := postgres.Open(ctx, url, postgres.Options{MaxConns: 6})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		e, err := engine.New(engine.Config{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		stores, engines = append(stores, st), append(engines, e)
	}
	for _, e := range engines {
		followEvery(t, e, 500*time.Millisecond) // as each 'mnemon serve' follows
	}
	editors := []string{"Vim", "Emacs", "Helix", "Kakoune", "Nano", "Zed", "Sublime", "Atom"}
	const each = 4
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	errs := make(chan error, len(editors)*each)
	var wg sync.WaitGroup
	for w := range editors {
		wg.Go(func() {
			e := engines[w%2]
			for i := range each {
				text := fmt.Sprintf("My favorite editor is %s%d.", editors[w], i)
				_, err := e.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: text, ObservedAt: at.Add(time.Duration(w*each+i) * time.Minute)})
				if err != nil {
					errs <- fmt.Errorf("%s: %w", text, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	vs, err := stores[0].ListVersions(ctx, memory.ListVersionsParams{Namespace: "ns", Subject: "user", Key: "prefers:editor"})
	if err != nil {
		t.Fatal(err)
	}
	mems := map[string]bool{}
	seqs := map[int]bool{}
	active := 0
	for _, v := range vs {
		mems[v.MemoryID] = true
		seqs[v.Seq] = true
		switch v.Status {
		case memory.StatusActive:
			active++
		case memory.StatusSuperseded:
		default:
			t.Errorf("version %s (%s) is %s", v.ID, v.Value, v.Status)
		}
	}
	if len(mems) != 1 || len(vs) != len(editors)*each || len(seqs) != len(vs) || active != 1 {
		t.Fatalf("%d memories, %d versions (want %d) with %d distinct seqs, %d active; want one memory and one active version",
			len(mems), len(vs), len(editors)*each, len(seqs), active)
	}
	// One chain: the active version is the latest observed statement, and
	// every other was superseded by a version of the same memory observed
	// after it (a statement that arrives late but was observed earlier is
	// superseded at once), so following superseded_by from any version
	// ends at the active one; every statement is in it once.
	byID := map[string]*memory.Version{}
	values := map[string]bool{}
	var current *memory.Version
	for _, v := range vs {
		byID[v.ID] = v
		values[v.Value] = true
		if current == nil || v.ObservedAt.After(current.ObservedAt) {
			current = v
		}
	}
	if current.Status != memory.StatusActive {
		t.Errorf("the latest observed statement %q is %s; want it active", current.Value, current.Status)
	}
	for _, v := range vs {
		seen := map[string]bool{}
		for x := v; x.Status != memory.StatusActive; {
			next, ok := byID[x.SupersededBy]
			switch {
			case !ok:
				t.Fatalf("version %s (%s) is superseded by %q, not a version of the slot", x.ID, x.Value, x.SupersededBy)
			case !next.ObservedAt.After(x.ObservedAt):
				t.Errorf("version %s (%s) is superseded by %s (%s), observed no later", x.ID, x.Value, next.ID, next.Value)
			case seen[next.ID]:
				t.Fatalf("superseded_by loops at %s", next.ID)
			}
			seen[next.ID] = true
			x = next
		}
	}
	if len(values) != len(editors)*each {
		t.Errorf("%d distinct values in the chain, want %d", len(values), len(editors)*each)
	}
	// Both replicas' indexes serve the one current value, each having
	// followed the other's writes (NOTIFY, polling as the floor).
	for i, e := range engines {
		deadline := time.Now().Add(5 * time.Second)
		for !servesOnly(t, e, "ns", "my favorite editor", current.Value) {
			if time.Now().After(deadline) {
				t.Errorf("replica %d does not serve the current value %q alone within 5 s", i, current.Value)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// servesOnly reports whether e's retrieval in ns finds a current fact
// saying text and no other current fact of the same memory.
func servesOnly(t testing.TB, e *engine.Engine, ns, query, text string) bool {
	t.Helper()
	res, err := e.Retrieve(context.Background(), engine.RetrieveParams{Namespace: ns, Query: query, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range res.Items {
		if it.Kind != memory.KindSemantic || it.Status != memory.StatusActive {
			continue
		}
		if !strings.Contains(it.Content, text) {
			return false // a superseded value still served as current
		}
		found = true
	}
	return found
}
