package search_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/search/searchtest"
)

// corpus is a seeded synthetic corpus of realistic short sentences with
// their analyzed terms and built-in embeddings, and a query set.
type corpus struct {
	texts   []string
	docs    []search.Doc
	queries []string
}

func makeCorpus(tb testing.TB, n int) corpus {
	tb.Helper()
	an := search.NewAnalyzer()
	emb := embed.NewBuiltin()
	g := searchtest.NewGenerator(1)
	c := corpus{texts: g.Sentences(n), docs: make([]search.Doc, n)}
	for i, t := range c.texts {
		c.docs[i] = search.Doc{ID: fmt.Sprintf("m%07d", i), Terms: an.Terms(t), Vector: emb.Vector(t)}
	}
	// Queries: a window of 3–7 words from unseen sentences, the length of
	// what an agent asks.
	qg := searchtest.NewGenerator(2)
	r := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		w := strings.Fields(qg.Sentence())
		size := min(len(w), 3+r.IntN(5))
		start := r.IntN(len(w) - size + 1)
		c.queries = append(c.queries, strings.Join(w[start:start+size], " "))
	}
	return c
}

// latency runs fn over every query repeatedly for the benchmark's iterations
// and reports p50 and p95 per query in microseconds: wall time, and the
// thread's CPU time (cpu_p50_us, cpu_p95_us), which is what the query costs
// on an idle core. On a shared machine the two differ by the time spent
// waiting to be scheduled.
func latency(b *testing.B, queries int, fn func(i int)) {
	b.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var wall, cpu []time.Duration
	i := 0
	for b.Loop() {
		t0, c0 := time.Now(), searchtest.ThreadCPU()
		fn(i % queries)
		cpu = append(cpu, searchtest.ThreadCPU()-c0)
		wall = append(wall, time.Since(t0))
		i++
	}
	report := func(ds []time.Duration, prefix string) {
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds())/1e3, prefix+"p50_us")
		b.ReportMetric(float64(ds[len(ds)*95/100].Nanoseconds())/1e3, prefix+"p95_us")
	}
	report(wall, "")
	report(cpu, "cpu_")
}

func benchLexical(b *testing.B, n int) {
	c := makeCorpus(b, n)
	ix := search.NewIndex()
	ix.Build(c.docs)
	an := search.NewAnalyzer()
	qs := make([][]string, len(c.queries))
	for i, q := range c.queries {
		qs[i] = an.QueryTerms(q)
	}
	keep := func(id string) bool { return id[len(id)-1] != '9' } // a realistic map-lookup-free filter
	b.ReportAllocs()
	latency(b, len(qs), func(i int) { ix.Lexical(qs[i], 50, keep) })
}

func benchSemantic(b *testing.B, n int) {
	c := makeCorpus(b, n)
	ix := search.NewIndex()
	ix.Build(c.docs)
	emb := embed.NewBuiltin()
	qs := make([]search.Vector, len(c.queries))
	for i, q := range c.queries {
		qs[i] = emb.Vector(q)
	}
	keep := func(id string) bool { return id[len(id)-1] != '9' }
	b.ReportAllocs()
	latency(b, len(qs), func(i int) { ix.Semantic(qs[i], 50, 0.2, keep) })
}

func BenchmarkLexical10k(b *testing.B)   { benchLexical(b, 10_000) }
func BenchmarkLexical100k(b *testing.B)  { benchLexical(b, 100_000) }
func BenchmarkSemantic10k(b *testing.B)  { benchSemantic(b, 10_000) }
func BenchmarkSemantic100k(b *testing.B) { benchSemantic(b, 100_000) }

// BenchmarkBuild100k bulk-loads 100k analyzed and embedded documents, as the
// engine does when it opens a namespace, and reports the index's heap
// footprint per document.
func BenchmarkBuild100k(b *testing.B) {
	c := makeCorpus(b, 100_000)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cpu time.Duration
	for b.Loop() {
		c0 := searchtest.ThreadCPU()
		ix := search.NewIndex()
		ix.Build(c.docs)
		cpu += searchtest.ThreadCPU() - c0
		runtime.KeepAlive(ix)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/build")
	// Thread CPU excludes waiting for a core and the collector's background
	// workers: the build's own cost on an idle machine.
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu_ms/build")
	b.ReportMetric(float64(heapOf(func() any { x := search.NewIndex(); x.Build(c.docs); return x }))/float64(len(c.docs)), "bytes/doc")
}

// BenchmarkUpsert100k measures the one-at-a-time path on the same corpus.
func BenchmarkUpsert100k(b *testing.B) {
	c := makeCorpus(b, 100_000)
	for b.Loop() {
		ix := search.NewIndex()
		for _, d := range c.docs {
			ix.Upsert(d)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/build")
}

// heapOf returns the live heap retained by what build returns: the heap
// with it alive minus the heap once it is dropped, both after a full
// collection, so garbage from earlier work cannot skew the difference.
func heapOf(build func() any) uint64 {
	var with, without runtime.MemStats
	x := build()
	runtime.GC()
	runtime.ReadMemStats(&with)
	runtime.KeepAlive(x)
	x = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	if with.HeapAlloc < without.HeapAlloc {
		return 0
	}
	return with.HeapAlloc - without.HeapAlloc
}
