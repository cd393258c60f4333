package index_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// fill captures n turns into each namespace through an engine over a real
// SQLite file, and returns the store.
func fill(t *testing.T, nss []string, n int) (*sqlite.Store, *engine.Engine) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlitetest.Path(t), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e, err := engine.New(engine.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, ns := range nss {
		var evs []engine.Event
		for i := range n {
			evs = append(evs, engine.Event{Kind: memory.EpisodeUserMessage, Content: fmt.Sprintf("In week %d of %s I visited museum number %d.", i, ns, i*7), OccurredAt: at.Add(time.Duration(i) * time.Minute)})
		}
		if _, err := e.Capture(ctx, engine.CaptureParams{Namespace: ns, Events: evs}); err != nil {
			t.Fatal(err)
		}
	}
	return st, e
}

// With a cap that holds two of three equal namespaces, loading the third
// evicts the least recently used one, never the one just used; the
// evicted one is read again, whole, on its next use.
func TestMemoryCapEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	st, e := fill(t, []string{"a", "b", "c"}, 40)
	an := search.NewAnalyzer()
	measure := index.New(index.Config{Store: st, Embedder: e.Embedder(), Analyzer: an})
	one, err := measure.Namespace(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	size, bytes := one.Size(), one.Bytes()
	if size == 0 || bytes < int64(size)*1000 {
		t.Fatalf("namespace a: %d versions estimated at %d bytes", size, bytes)
	}

	set := index.New(index.Config{Store: st, Embedder: e.Embedder(), Analyzer: an, MemoryCap: bytes*2 + bytes/2})
	for _, ns := range []string{"a", "b"} {
		if _, err := set.Namespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Millisecond)                       // usedAt is a wall clock reading
	if _, err := set.Namespace(ctx, "a"); err != nil { // a is now the more recent
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	if _, err := set.Namespace(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	held := set.Sizes()
	if _, ok := held["b"]; ok || len(held) != 2 || held["a"] != size || held["c"] != size {
		t.Fatalf("held after loading c: %v (want a and c, %d versions each; b evicted)", held, size)
	}
	if set.Evictions() != 1 || set.MemoryBytes() > bytes*2+bytes/2 {
		t.Fatalf("%d evictions, %d bytes held", set.Evictions(), set.MemoryBytes())
	}
	b, err := set.Namespace(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if b.Size() != size {
		t.Fatalf("b reloaded with %d versions, want %d", b.Size(), size)
	}
	if _, ok := set.Loaded("b"); !ok {
		t.Fatal("the namespace just used was evicted")
	}

	// A cap below one namespace still serves it, alone.
	tiny := index.New(index.Config{Store: st, Embedder: e.Embedder(), Analyzer: an, MemoryCap: 1})
	for _, ns := range []string{"a", "b", "c"} {
		got, err := tiny.Namespace(ctx, ns)
		if err != nil || got.Size() != size {
			t.Fatalf("%s under a tiny cap: %v, %d versions", ns, err, got.Size())
		}
		if held := tiny.Sizes(); len(held) != 1 {
			t.Fatalf("after using %s under a tiny cap: held %v", ns, held)
		}
	}
}

// Lag says nothing of an index that holds every change, and names a
// namespace whose index has missed a committed change for longer than the
// bound; a sync clears it.
func TestLagReportsAnIndexBehind(t *testing.T) {
	ctx := context.Background()
	st, e := fill(t, []string{"ns"}, 3)
	set := index.New(index.Config{Store: st, Embedder: e.Embedder(), Analyzer: search.NewAnalyzer()})
	if _, err := set.Namespace(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	if ns, lag, err := set.Lag(ctx, 0); err != nil || ns != "" || lag != 0 {
		t.Fatalf("a current index: lag %q %v %v", ns, lag, err)
	}
	if _, err := e.Capture(ctx, engine.CaptureParams{Namespace: "ns", Events: []engine.Event{
		{Kind: memory.EpisodeUserMessage, Content: "I moved to Porto.", OccurredAt: time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)},
	}}); err != nil {
		t.Fatal(err)
	}
	if ns, _, err := set.Lag(ctx, time.Hour); err != nil || ns != "" {
		t.Fatalf("behind by less than the bound: reported %q, %v", ns, err)
	}
	time.Sleep(20 * time.Millisecond)
	ns, lag, err := set.Lag(ctx, 10*time.Millisecond)
	if err != nil || ns != "ns" || lag < 20*time.Millisecond {
		t.Fatalf("behind past the bound: reported %q %v %v", ns, lag, err)
	}
	if err := set.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ns, lag, err := set.Lag(ctx, 0); err != nil || ns != "" {
		t.Fatalf("after a sync: lag %q %v %v", ns, lag, err)
	}
}

// BenchmarkIndexBytes measures the heap one indexed version costs, to
// check versionOverhead: go test ./index -run X -bench IndexBytes.
func BenchmarkIndexBytes(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "mnemon.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	e, err := engine.New(engine.Config{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var evs []engine.Event
	for i := range 3000 {
		evs = append(evs, engine.Event{Kind: memory.EpisodeUserMessage, Content: fmt.Sprintf("In week %d I visited museum number %d with my sister.", i, i*7), OccurredAt: at.Add(time.Duration(i) * time.Minute)})
	}
	if _, err := e.Capture(ctx, engine.CaptureParams{Namespace: "ns", Events: evs}); err != nil {
		b.Fatal(err)
	}
	var heap, est, n float64
	for b.Loop() {
		set := index.New(index.Config{Store: st, Embedder: e.Embedder(), Analyzer: search.NewAnalyzer()})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ns, err := set.Namespace(ctx, "ns")
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap += float64(after.HeapAlloc) - float64(before.HeapAlloc)
		est += float64(ns.Bytes())
		n += float64(ns.Size())
		runtime.KeepAlive(set)
	}
	b.ReportMetric(heap/n, "heap-B/version")
	b.ReportMetric(est/n, "estimate-B/version")
}
