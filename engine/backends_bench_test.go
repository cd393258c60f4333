package engine_test

import (
	"context"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/pgtest"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/postgres"
)

// BenchmarkBackends runs the same write and read paths on SQLite (a file,
// synchronous=FULL) and on PostgreSQL (a schema of its own on the test
// server, commits waiting for the disk), for docs/benchmarks/backends.md:
//
//	go test ./engine -run '^$' -bench Backends -benchtime 10x
//
// On PostgreSQL each also reports the round trips it made (statements
// and batches sent) per fact, per capture or per retrieval. Without a
// PostgreSQL server the postgres half skips.
func BenchmarkBackends(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend+"/RememberBatch500", func(b *testing.B) { benchRememberBatchOn(b, backend) })
		b.Run(backend+"/Capture", func(b *testing.B) { benchCaptureOn(b, backend) })
		b.Run(backend+"/Retrieve2k", func(b *testing.B) { benchRetrieveOn(b, backend) })
	}
}

// roundTrips counts what a PostgreSQL pool sends: each statement, and each
// batch once (a batch is one round trip).
type roundTrips struct {
	n atomic.Int64
	// bySQL counts statements by their first words, when
	// MNEMON_BENCH_SQL=1 asks which statements the round trips are.
	mu    sync.Mutex
	bySQL map[string]int
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	if r.bySQL != nil {
		r.mu.Lock()
		r.bySQL[strings.Join(strings.Fields(d.SQL), " ")[:min(len(strings.Join(strings.Fields(d.SQL), " ")), 90)]]++
		r.mu.Unlock()
	}
	return ctx
}

// log prints the statements counted, most frequent first.
func (r *roundTrips) log(b *testing.B) {
	if r == nil || r.bySQL == nil {
		return
	}
	type kv struct {
		sql string
		n   int
	}
	var all []kv
	for k, v := range r.bySQL {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n })
	for _, x := range all[:min(len(all), 15)] {
		b.Logf("%7d  %s", x.n, x.sql)
	}
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// backendEngine opens an engine on a fresh store of backend, and the
// round-trip counter of a PostgreSQL store (nil on SQLite).
func backendEngine(b *testing.B, backend string) (*engine.Engine, *roundTrips) {
	b.Helper()
	if backend != "postgres" {
		return durableEngine(b), nil
	}
	rt := &roundTrips{}
	if os.Getenv("MNEMON_BENCH_SQL") == "1" {
		rt.bySQL = map[string]int{}
	}
	st, err := postgres.Open(context.Background(), pgtest.DurableSchema(b), postgres.Options{Tracer: rt})
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(engine.Config{Store: st})
	if err != nil {
		st.Close()
		b.Fatal(err)
	}
	b.Cleanup(func() {
		e.Close()
		st.Close()
	})
	return e, rt
}

// report reports the round trips made since from, per unit.
func (r *roundTrips) report(b *testing.B, from int64, units int, unit string) {
	if r == nil || units == 0 {
		return
	}
	b.ReportMetric(float64(r.n.Load()-from)/float64(units), "roundtrips/"+unit)
}

func (r *roundTrips) now() int64 {
	if r == nil {
		return 0
	}
	return r.n.Load()
}

// benchRememberBatchOn is BenchmarkRememberBatch on backend: facts per
// second through extraction, embedding and reconciliation, 500 to a
// transaction.
func benchRememberBatchOn(b *testing.B, backend string) {
	ctx := context.Background()
	e, rt := backendEngine(b, backend)
	r := rand.New(rand.NewPCG(5, 6))
	const batch = 500
	facts := 0
	from := rt.now()
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		ps := make([]engine.RememberParams, batch)
		for j := range ps {
			ps[j] = engine.RememberParams{Namespace: "w", Text: benchSentence(r, i*batch+j)}
		}
		if _, err := e.RememberBatch(ctx, ps); err != nil {
			b.Fatal(err)
		}
		facts += batch
	}
	b.ReportMetric(float64(facts)/time.Since(start).Seconds(), "facts/s")
	rt.report(b, from, facts, "fact")
	rt.log(b)
}

// benchCaptureOn times the acknowledgement of single-turn captures, one
// after another: the episode stored, its backlog entry and change-log row
// in one durable transaction (the job queue is left out: under load one
// waiting job serves many captures, see CaptureDeferred).
func benchCaptureOn(b *testing.B, backend string) {
	ctx := context.Background()
	e, rt := backendEngine(b, backend)
	enqueue := func(context.Context, memory.Executor, engine.ExtractJob) (string, error) { return "job-bench", nil }
	r := rand.New(rand.NewPCG(7, 8))
	at := time.Now().Add(-time.Hour)
	var lat []time.Duration
	from := rt.now()
	for i := 0; b.Loop(); i++ {
		p := engine.CaptureParams{Namespace: "c", Scope: memory.Scope{SessionID: "s1"}, Events: []engine.Event{{
			Kind: memory.EpisodeUserMessage, Content: benchSentence(r, i), OccurredAt: at.Add(time.Duration(i) * time.Millisecond)}}}
		began := time.Now()
		if _, err := e.CaptureDeferred(ctx, p, enqueue); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(began))
	}
	rt.report(b, from, len(lat), "capture")
	rt.log(b)
	reportPercentiles(b, lat)
}

// benchRetrieveOn times retrievals over 1,000 remembered statements (2,000
// memory items: each fact and its episode). Both backends search the same
// in-process index; PostgreSQL adds the reads of the packed versions'
// evidence and the change-log check.
func benchRetrieveOn(b *testing.B, backend string) {
	ctx := context.Background()
	e, rt := backendEngine(b, backend)
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 2 {
		ps := make([]engine.RememberParams, 500)
		for j := range ps {
			ps[j] = engine.RememberParams{Namespace: "r", Text: benchSentence(r, i*500+j)}
		}
		if _, err := e.RememberBatch(ctx, ps); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = benchQuery(r)
		if _, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "r", Query: queries[i]}); err != nil { // warm
			b.Fatal(err)
		}
	}
	var lat []time.Duration
	from := rt.now()
	for i := 0; b.Loop(); i++ {
		began := time.Now()
		res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "r", Query: queries[i%len(queries)], TokenBudget: 1000})
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(began))
		if len(res.Items) == 0 {
			b.Fatalf("no items for %q", queries[i%len(queries)])
		}
	}
	rt.report(b, from, len(lat), "retrieval")
	reportPercentiles(b, lat)
}
