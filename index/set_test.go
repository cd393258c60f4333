package index_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// A Set over a real SQLite file that an engine writes to, as another
// process would: it loads a namespace on first use, follows the engine's
// later writes through the change log, and after an eviction loads the
// same state again.
func TestSetLoadSyncEvict(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlitetest.Path(t), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := engine.New(engine.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	capture := func(text string) {
		t.Helper()
		if _, err := e.Capture(ctx, engine.CaptureParams{Namespace: "ns", Events: []engine.Event{
			{Kind: memory.EpisodeUserMessage, Content: text, OccurredAt: at},
		}}); err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Minute)
	}
	an := search.NewAnalyzer()
	// finds reports whether the lexical channel finds a version saying text.
	finds := func(ns *index.Namespace, query, text string) bool {
		t.Helper()
		ns.RLock()
		defer ns.RUnlock()
		for _, h := range ns.Lexical(an.QueryTerms(query), 10, func(string) bool { return true }) {
			if en, ok := ns.EntryLocked(h.ID); ok && strings.Contains(en.V.Content, text) {
				return true
			}
		}
		return false
	}

	capture("I work at Acme.")
	set := index.New(index.Config{Store: st, Embedder: e.Embedder(), Analyzer: an})
	if _, ok := set.Loaded("ns"); ok {
		t.Fatal("a namespace is held before its first use")
	}
	ns, err := set.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if !finds(ns, "acme", "Acme") {
		t.Fatal("the load missed a committed write")
	}
	loaded := ns.Size()

	capture("I live in Lisbon.")
	if finds(ns, "lisbon", "Lisbon") {
		t.Fatal("the index saw a write before syncing (the test proves nothing)")
	}
	if err := set.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if !finds(ns, "lisbon", "Lisbon") {
		t.Fatal("a write read from the change log was not applied")
	}
	synced := ns.Size()
	if synced <= loaded {
		t.Fatalf("%d versions indexed after the sync, %d before", synced, loaded)
	}

	set.Evict("ns")
	if _, ok := set.Loaded("ns"); ok {
		t.Fatal("an evicted namespace is still held")
	}
	if got := set.Sizes(); len(got) != 0 {
		t.Fatalf("sizes after the eviction: %v", got)
	}
	again, err := set.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if again == ns || again.Size() != synced || !finds(again, "lisbon", "Lisbon") {
		t.Fatalf("reloaded after the eviction: %d versions (want %d), a new index: %v", again.Size(), synced, again != ns)
	}
}
