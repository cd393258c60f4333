package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/internal/pgtest"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/postgres"
)

// pacedRate is the offered load of the paced benchmarks: 400 requests a
// second from 8 independent clients (the figure for capture
// acknowledgement and for change visibility).
const (
	pacedRate    = 400.0
	pacedClients = 8
)

// paced runs fn from clients goroutines, each sending at rate/clients per
// second on average with exponentially distributed gaps, open loop (a
// slow answer does not delay the next send's schedule), until n calls have
// been made in all or stop is closed. It returns each call's latency, the
// achieved rate and the first error.
func paced(n int, rate float64, clients int, stop <-chan struct{}, fn func(client, i int) error) ([]time.Duration, float64, error) {
	var (
		next atomic.Int64
		mu   sync.Mutex
		lat  = make([]time.Duration, 0, n)
		fail atomic.Pointer[error]
		wg   sync.WaitGroup
	)
	mean := float64(time.Second) * float64(clients) / rate
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(c+1), 7))
			slot := start.Add(time.Duration(rnd.ExpFloat64() * mean))
			for {
				i := int(next.Add(1)) - 1
				if i >= n || fail.Load() != nil {
					return
				}
				select {
				case <-stop: // also when behind schedule
					return
				default:
				}
				if wait := time.Until(slot); wait > 0 {
					select {
					case <-stop:
						return
					case <-time.After(wait):
					}
				}
				slot = slot.Add(time.Duration(rnd.ExpFloat64() * mean))
				began := time.Now()
				if err := fn(c, i); err != nil {
					fail.Store(&err)
					return
				}
				d := time.Since(began)
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	rate = float64(len(lat)) / time.Since(start).Seconds()
	if err := fail.Load(); err != nil {
		return lat, rate, *err
	}
	return lat, rate, nil
}

// benchCapturePacedOn times capture acknowledgements under a steady 400
// captures a second from 8 clients (one session each, one namespace), open
// loop: the engine-level counterpart of httpapi's
// BenchmarkHTTPCapture8Paced, on either backend. Each capture is one
// user turn, stored with its backlog entry in one durable transaction; the
// job queue is the stub benchCaptureOn uses, and no extraction runs
// alongside (BenchmarkPostgresExtraction measures that).
func benchCapturePacedOn(b *testing.B, backend string) {
	ctx := context.Background()
	e, rt := backendEngine(b, backend)
	enqueue := func(context.Context, memory.Executor, engine.ExtractJob) (string, error) { return "job-bench", nil }
	var texts []string
	r := rand.New(rand.NewPCG(11, 12))
	for i := range b.N + 1 {
		texts = append(texts, benchSentence(r, i))
	}
	at := time.Now().Add(-time.Hour)
	capture := func(client, i int) error {
		_, err := e.CaptureDeferred(ctx, engine.CaptureParams{Namespace: "c", Scope: memory.Scope{SessionID: fmt.Sprintf("s%d", client)},
			Events: []engine.Event{{Kind: memory.EpisodeUserMessage, Content: texts[i], OccurredAt: at.Add(time.Duration(i) * time.Millisecond)}}}, enqueue)
		return err
	}
	if err := capture(0, b.N); err != nil { // the namespace's index and the pool warm
		b.Fatal(err)
	}
	from := rt.now()
	b.ResetTimer()
	lat, achieved, err := paced(b.N, pacedRate, pacedClients, nil, capture)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	rt.report(b, from, len(lat), "capture")
	rt.log(b)
	b.ReportMetric(achieved, "captures/s")
	reportPercentiles(b, lat)
}

// BenchmarkReplicaVisibilityUnder400 is BenchmarkReplicaVisibility with a
// steady background of 400 remembers a second (8 writers on replica a,
// paced, open loop, one namespace each, which replica b holds and follows
// too): the lag from a probe write's acknowledgement on a to the first
// retrieval on b that finds it, one probe every 20 ms in a namespace of its
// own.
//
//	go test ./engine -run X -bench ReplicaVisibilityUnder400 -benchtime 200x
func BenchmarkReplicaVisibilityUnder400(b *testing.B) {
	ra, rb := replicas(b, true)
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for w := range pacedClients {
		ns := fmt.Sprintf("bg%d", w)
		remember(b, ra, ns, "I live in Lisbon.", at)
		if !sees(b, rb, ns, "where do I live", "Lisbon") {
			b.Fatalf("replica b does not see %s's first write", ns)
		}
	}
	remember(b, ra, "probe", "I live in Lisbon.", at)
	if !sees(b, rb, "probe", "where do I live", "Lisbon") {
		b.Fatal("replica b does not see the first probe")
	}
	followEvery(b, rb, 500*time.Millisecond)
	time.Sleep(200 * time.Millisecond)

	r := rand.New(rand.NewPCG(13, 14))
	texts := make([]string, 1<<16)
	for i := range texts {
		texts[i] = benchSentence(r, i)
	}
	stop := make(chan struct{})
	var bgDone sync.WaitGroup
	var (
		bgRate float64
		bgErr  error
	)
	bgDone.Go(func() {
		// Far more writes than the probes need: stopped when they end.
		_, bgRate, bgErr = paced(len(texts), pacedRate, pacedClients, stop, func(c, i int) error {
			_, err := ra.Remember(ctx, engine.RememberParams{Namespace: fmt.Sprintf("bg%d", c), Text: texts[i],
				ObservedAt: at.Add(time.Duration(i+1) * time.Second)})
			return err
		})
	})
	time.Sleep(time.Second) // the background at its pace
	var lags []time.Duration
	i := 0
	for b.Loop() {
		i++
		word := fmt.Sprintf("zq%dx", i)
		if _, err := ra.Remember(ctx, engine.RememberParams{Namespace: "probe", Text: "The code word is " + word + ".", ObservedAt: at.Add(time.Duration(i) * time.Minute)}); err != nil {
			b.Fatal(err)
		}
		start := time.Now() // acknowledged
		for !sees(b, rb, "probe", word, word) {
			if time.Since(start) > 10*time.Second {
				b.Fatalf("write %d not visible on replica b after 10 s", i)
			}
			time.Sleep(500 * time.Microsecond)
		}
		lags = append(lags, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	bgDone.Wait()
	if bgErr != nil {
		b.Fatal(bgErr)
	}
	slices.Sort(lags)
	q := func(p float64) float64 { return float64(lags[int(p*float64(len(lags)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.95), "p95-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(bgRate, "background_writes/s")
}

// BenchmarkPostgresOpen100k is BenchmarkOpen100k on PostgreSQL: the time a
// new process takes to build the index of a 100,000-memory namespace
// (50,000 keyed statements and their episodes, seeded once by
// RememberBatch into a schema of its own) from the database, as a replica
// does on a namespace's first use.
//
//	go test ./engine -run '^$' -bench PostgresOpen100k -benchtime 3x -timeout 20m
//
// MNEMON_BENCH_PG_OPEN_URL names a database (with its search_path) to use
// instead of a schema of its own: seeded only when it holds nothing, and
// kept, so two builds can load the same data.
func BenchmarkPostgresOpen100k(b *testing.B) {
	ctx := context.Background()
	url, reuse := os.Getenv("MNEMON_BENCH_PG_OPEN_URL"), true
	if url == "" {
		url, reuse = pgtest.Schema(b), false
	}
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("MNEMON_BENCH_PG_OPEN_N")); err == nil && v > 0 {
		n = v // a smaller namespace, to look into the load
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	seeded := time.Now()
	func() {
		st, err := postgres.Open(ctx, url, postgres.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		if nss, err := st.Namespaces(ctx); err != nil {
			b.Fatal(err)
		} else if reuse && len(nss) > 0 {
			return
		}
		e, err := engine.New(engine.Config{Store: st, Clock: clock.NewManual(t0.Add(time.Duration(n) * time.Minute))})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		r := rand.New(rand.NewPCG(1, 2))
		const batch = 1000
		for i := 0; i < n/2; i += batch {
			ps := make([]engine.RememberParams, 0, batch)
			for j := i; j < i+batch && j < n/2; j++ {
				p := benchStatement(r, j)
				p.Namespace, p.ObservedAt = "bench", t0.Add(time.Duration(j)*time.Minute)
				ps = append(ps, p)
			}
			if _, err := e.RememberBatch(ctx, ps); err != nil {
				b.Fatal(err)
			}
		}
	}()
	b.Logf("seeded %d memory items in %s", n, time.Since(seeded).Round(time.Second))
	b.ResetTimer()
	rt := &roundTrips{}
	if os.Getenv("MNEMON_BENCH_SQL") == "1" {
		rt.bySQL = map[string]*sqlStat{}
	}
	var cpu time.Duration // this process's, not the server's
	for b.Loop() {
		c0 := processCPU()
		st, err := postgres.Open(ctx, url, postgres.Options{Tracer: rt})
		if err != nil {
			b.Fatal(err)
		}
		e, err := engine.New(engine.Config{Store: st})
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Warm(ctx); err != nil {
			b.Fatal(err)
		}
		cpu += processCPU() - c0
		b.StopTimer()
		s, err := e.Stats(ctx, "bench")
		if err != nil || s.Indexed < n*99/100 {
			b.Fatalf("indexed %v, err %v", s, err)
		}
		e.Close()
		st.Close()
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu_ms/op")
	rt.log(b)
}
