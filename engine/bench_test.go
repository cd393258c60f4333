package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// Benchmarks measure the engine on a real SQLite file with the built-in
// embedder. Corpora are seeded, so runs are comparable:
//
//	go test ./engine -run '^$' -bench . -benchtime 2000x
//
// "memories" counts indexed memory items: every remembered statement adds
// a semantic fact and the episodic memory of its episode.

var (
	benchPeople  = []string{"Ana", "Bruno", "Chen", "Dara", "Emil", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kemal", "Lena", "Mika", "Nora", "Omar", "Pia"}
	benchThings  = []string{"the deploy script", "the billing service", "the search cluster", "the mobile app", "the data pipeline", "the auth gateway", "the release train", "the design system", "the CI runners", "the staging database", "the metrics dashboard", "the onboarding flow"}
	benchVerbs   = []string{"owns", "reviewed", "rewrote", "migrated", "benchmarked", "documented", "broke", "fixed", "deprecated", "scaled", "audited", "tested"}
	benchPlaces  = []string{"Lisbon", "Porto", "Berlin", "Tokyo", "Austin", "Nairobi", "Oslo", "Lima", "Seoul", "Dublin", "Cairo", "Perth"}
	benchTools   = []string{"Postgres", "Redis", "Kafka", "pnpm", "Terraform", "Grafana", "Rust", "Go", "Python", "Kubernetes", "Neovim", "Docker"}
	benchReasons = []string{"before the audit", "after the outage", "for the launch", "during the offsite", "to cut latency", "to save money", "for compliance", "on a Friday"}
)

func benchSentence(r *rand.Rand, i int) string {
	return fmt.Sprintf("%s %s %s with %s in %s %s (note %d).",
		benchPeople[r.IntN(len(benchPeople))], benchVerbs[r.IntN(len(benchVerbs))], benchThings[r.IntN(len(benchThings))],
		benchTools[r.IntN(len(benchTools))], benchPlaces[r.IntN(len(benchPlaces))], benchReasons[r.IntN(len(benchReasons))], i)
}

func benchQuery(r *rand.Rand) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("who %s %s?", benchVerbs[r.IntN(len(benchVerbs))], benchThings[r.IntN(len(benchThings))])
	case 1:
		return fmt.Sprintf("what did %s do with %s in %s", benchPeople[r.IntN(len(benchPeople))], benchTools[r.IntN(len(benchTools))], benchPlaces[r.IntN(len(benchPlaces))])
	}
	return fmt.Sprintf("%s %s %s", benchThings[r.IntN(len(benchThings))], benchTools[r.IntN(len(benchTools))], benchReasons[r.IntN(len(benchReasons))])
}

// seedEngineWith opens an engine over a fresh store seeded with n/2
// statements written by statement (n memory items when each is keyed).
func seedEngineWith(b *testing.B, n int, statement benchCorpus) (*engine.Engine, string) {
	b.Helper()
	ctx := context.Background()
	path := seedFileWith(b, n, statement)
	st, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(engine.Config{Store: st, Clock: clock.NewManual(t0.Add(time.Duration(n) * time.Minute))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		e.Close()
		st.Close()
	})
	return e, path
}

func benchRetrieve(b *testing.B, n int) {
	benchRetrieveWith(b, n, benchStatement, benchQuery)
}

// benchRetrieveWith times retrievals of query's questions over a store
// seeded with statement.
func benchRetrieveWith(b *testing.B, n int, statement benchCorpus, query func(*rand.Rand) string) {
	e, _ := seedEngineWith(b, n, statement)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	queries := make([]string, 256)
	for i := range queries {
		queries[i] = query(r)
	}
	// Warm the stem cache and the index as a running server would be, and
	// count the queries whose ranking followed a reply or a change (the
	// first-person path): a benchmark meant to time that path shows it ran.
	followed := 0
	for _, q := range queries {
		res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "bench", Query: q})
		if err != nil {
			b.Fatal(err)
		}
		if rankingFollowed(res) {
			followed++
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "bench", Query: queries[i%len(queries)], TokenBudget: 1000})
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		if len(res.Items) == 0 {
			b.Fatalf("no items for %q", queries[i%len(queries)])
		}
	}
	b.StopTimer()
	e.FlushTraces() // writing the traces is part of the work
	if cpu := processCPU() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu_us/op")
	}
	reportPercentiles(b, lat)
	b.ReportMetric(100*float64(followed)/float64(len(queries)), "followed_%")
	if s, err := e.Stats(ctx, "bench"); err == nil {
		b.ReportMetric(float64(s.Indexed), "indexed")
	}
}

// rankingFollowed reports whether a packed item carries a term that only
// the first-person path adds: a reply followed, a change followed, a
// value demoted as replaced.
func rankingFollowed(res *engine.Result) bool {
	for _, it := range res.Items {
		for _, name := range []string{"reply", "change", "replaced"} {
			if _, ok := it.Terms[name]; ok {
				return true
			}
		}
	}
	return false
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds())
	}
	b.ReportMetric(pct(0.50), "p50_us")
	b.ReportMetric(pct(0.95), "p95_us")
	b.ReportMetric(pct(0.99), "p99_us")
}

func BenchmarkRetrieve10k(b *testing.B)  { benchRetrieve(b, 10_000) }
func BenchmarkRetrieve100k(b *testing.B) { benchRetrieve(b, 100_000) }

// durableEngine opens an engine on a fresh file with the default
// synchronous=FULL, as a user's database is.
func durableEngine(b *testing.B) *engine.Engine {
	b.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(engine.Config{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		e.Close()
		st.Close()
	})
	return e
}

// BenchmarkRememberBatch measures facts per second through the full write
// path (extraction, embedding, reconciliation, one transaction per 500).
func BenchmarkRememberBatch(b *testing.B) {
	ctx := context.Background()
	e := durableEngine(b)
	r := rand.New(rand.NewPCG(5, 6))
	const batch = 500
	b.ResetTimer()
	start := time.Now()
	facts := 0
	for i := 0; i < b.N; i++ {
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
}

// BenchmarkRememberDurable measures single remembers, each its own
// transaction with synchronous=FULL (fsync per acknowledged write).
func BenchmarkRememberDurable(b *testing.B) {
	ctx := context.Background()
	e := durableEngine(b)
	r := rand.New(rand.NewPCG(7, 8))
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := e.Remember(ctx, engine.RememberParams{Namespace: "d", Text: benchSentence(r, i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "remembers/s")
}

// BenchmarkOpen100k measures opening a 100k-memory file and building its
// index from the store, and the memory that index holds: the Go heap it
// retains and the process's resident set after opening, both measured with
// the seeding engine closed and its memory returned to the OS.
func BenchmarkOpen100k(b *testing.B) {
	path := seedFile(b, 100_000)
	ctx := context.Background()
	runtime.GC()
	debug.FreeOSMemory()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	rssBefore, _ := procStatus("VmRSS:")
	var heap, rss float64
	var cpu, bg time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c0 := processCPU()
		st, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		e2, err := engine.New(engine.Config{Store: st})
		if err != nil {
			b.Fatal(err)
		}
		if err := e2.Warm(ctx); err != nil {
			b.Fatal(err)
		}
		c1 := processCPU()
		cpu += c1 - c0
		b.StopTimer()
		// The tail block's axes are computed after Warm returns
		// (search.Settle): their CPU apart, and the heap measured with
		// them installed.
		search.Settle()
		bg += processCPU() - c1
		s, err := e2.Stats(ctx, "bench")
		if err != nil || s.Indexed < 99_000 {
			b.Fatalf("indexed %v, err %v", s, err)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		heap = float64(after.HeapInuse-before.HeapInuse) / (1 << 20)
		rssNow, _ := procStatus("VmRSS:")
		rss = rssNow - rssBefore
		e2.Close()
		st.Close()
		runtime.KeepAlive(e2)
		runtime.GC()
		debug.FreeOSMemory()
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu_ms/op")
	b.ReportMetric(float64(bg.Milliseconds())/float64(b.N), "after_cpu_ms/op")
	b.ReportMetric(heap, "index_heap_MiB")
	b.ReportMetric(rss, "rss_added_MiB")
	if fi, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(fi.Size())/(1<<20), "file_MiB")
	}
}

// seedFile writes a seeded n-memory database and closes it. The clock
// stands after the last statement's observation time.
func seedFile(b *testing.B, n int) string {
	return seedFileWith(b, n, benchStatement)
}

// benchCorpus writes the i-th statement of a seeded corpus: its text, and
// its key when it is remembered as exactly one fact; a statement without a
// key is captured as a turn of the user's, which the extractor reads.
type benchCorpus func(r *rand.Rand, i int) engine.RememberParams

// benchStatement is keyed, so each statement is one fact and its episode.
func benchStatement(r *rand.Rand, i int) engine.RememberParams {
	return engine.RememberParams{Text: benchSentence(r, i), Key: fmt.Sprintf("note:%d", i)}
}

// seedFileWith is seedFile over n/2 statements written by statement.
// With MNEMON_BENCH_SEEDS set to a directory, a benchmark's seeded file is
// kept there and copied on later runs (see seedCached).
func seedFileWith(b *testing.B, n int, statement benchCorpus) string {
	b.Helper()
	if dir := os.Getenv("MNEMON_BENCH_SEEDS"); dir != "" {
		return seedCached(b, dir, n, statement)
	}
	return seedFresh(b, n, statement)
}

// seedFresh writes the seeded file of seedFileWith.
func seedFresh(b *testing.B, n int, statement benchCorpus) string {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "open.db")
	st, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(engine.Config{Store: st, Clock: clock.NewManual(t0.Add(time.Duration(n) * time.Minute))})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const batch = 1000
	for i := 0; i < n/2; i += batch {
		ps := make([]engine.RememberParams, 0, batch)
		var turns []engine.Event
		for j := i; j < i+batch && j < n/2; j++ {
			p := statement(r, j)
			at := t0.Add(time.Duration(j) * time.Minute)
			if p.Key == "" {
				turns = append(turns, engine.Event{Kind: memory.EpisodeUserMessage, Content: p.Text, OccurredAt: at})
				continue
			}
			p.Namespace, p.ObservedAt = "bench", at
			ps = append(ps, p)
		}
		if _, err := e.RememberBatch(ctx, ps); err != nil {
			b.Fatal(err)
		}
		if len(turns) > 0 {
			if _, err := e.Capture(ctx, engine.CaptureParams{Namespace: "bench", Events: turns}); err != nil {
				b.Fatal(err)
			}
		}
	}
	e.Close()
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// procStatus reads a size field of /proc/self/status in MiB (Linux only).
func procStatus(field string) (float64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field) {
			var kb float64
			if _, err := fmt.Sscanf(strings.TrimPrefix(line, field), "%f", &kb); err == nil {
				return kb / 1024, true
			}
		}
	}
	return 0, false
}
