package engine_test

import (
	"context"
	"fmt"
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
		b.Run(backend+"/CapturePaced400", func(b *testing.B) { benchCapturePacedOn(b, backend) })
		b.Run(backend+"/Retrieve2k", func(b *testing.B) { benchRetrieveOn(b, backend, 1_000) })
		// 5,000 statements index 10k items (each a fact and its episode):
		// the size the replica target (p95 ≤ 1 ms in process) is set at.
		b.Run(backend+"/Retrieve10k", func(b *testing.B) { benchRetrieveOn(b, backend, 5_000) })
	}
}

// roundTrips counts what a PostgreSQL pool sends: each statement, and each
// batch once (a batch is one round trip).
type roundTrips struct {
	n atomic.Int64
	// bySQL counts statements (and batches, by their first statement) by
	// their first words, and the wall time from sending each to reading its
	// end, when MNEMON_BENCH_SQL=1 asks which statements the round trips
	// are and where the time waiting for the server went.
	mu    sync.Mutex
	bySQL map[string]*sqlStat
}

type sqlStat struct {
	n   int
	dur time.Duration
}

// traceKey carries a statement's start through pgx's tracer context.
type traceKey struct{}

type traceStart struct {
	sql   string
	began time.Time
}

func shortSQL(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	return s[:min(len(s), 90)]
}

func (r *roundTrips) start(ctx context.Context, sql string) context.Context {
	r.n.Add(1)
	if r.bySQL == nil {
		return ctx
	}
	return context.WithValue(ctx, traceKey{}, &traceStart{sql: shortSQL(sql), began: time.Now()})
}

func (r *roundTrips) end(ctx context.Context) {
	t, ok := ctx.Value(traceKey{}).(*traceStart)
	if !ok || r.bySQL == nil {
		return
	}
	d := time.Since(t.began)
	r.mu.Lock()
	st := r.bySQL[t.sql]
	if st == nil {
		st = &sqlStat{}
		r.bySQL[t.sql] = st
	}
	st.n++
	st.dur += d
	r.mu.Unlock()
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	return r.start(ctx, d.SQL)
}

func (r *roundTrips) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	r.end(ctx)
}

func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	sql := "batch"
	if d.Batch != nil && len(d.Batch.QueuedQueries) > 0 {
		sql = "batch: " + d.Batch.QueuedQueries[0].SQL
	}
	return r.start(ctx, sql)
}

func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (r *roundTrips) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchEndData) {
	r.end(ctx)
}

// log prints the statements counted, most time first.
func (r *roundTrips) log(b *testing.B) {
	if r == nil || r.bySQL == nil {
		return
	}
	type kv struct {
		sql string
		st  sqlStat
	}
	var all []kv
	for k, v := range r.bySQL {
		all = append(all, kv{k, *v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].st.dur > all[j].st.dur })
	// To stderr: a benchmark's log is cut to a few lines.
	fmt.Fprintf(os.Stderr, "%s: statements by time waiting for them\n", b.Name())
	for _, x := range all[:min(len(all), 20)] {
		fmt.Fprintf(os.Stderr, "%7d  %9.1f ms  %s\n", x.st.n, float64(x.st.dur.Microseconds())/1000, x.sql)
	}
}

// backendEngine opens an engine on a fresh store of backend, and the
// round-trip counter of a PostgreSQL store (nil on SQLite).
func backendEngine(b *testing.B, backend string) (*engine.Engine, *roundTrips) {
	b.Helper()
	if backend != "postgres" {
		return durableEngine(b), nil
	}
	rt := &roundTrips{}
	if os.Getenv("MNEMON_BENCH_SQL") == "1" {
		rt.bySQL = map[string]*sqlStat{}
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
func benchRetrieveOn(b *testing.B, backend string, statements int) {
	ctx := context.Background()
	e, rt := backendEngine(b, backend)
	r := rand.New(rand.NewPCG(9, 10))
	for i := range statements / 500 {
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
