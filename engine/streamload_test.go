package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// scanOnly hides a store's optional interfaces (memory.VersionStreamer
// among them), so the index loads through ScanVersions as it did before
// stores could stream.
type scanOnly struct{ memory.Store }

// A namespace loaded from the store's stream (memory.VersionStreamer) is the
// index the scan builds: the same entries, every field of every version
// (evidence lists decoded alike, nil and empty kept apart), the same
// metadata, and the same answers from every channel and from the engine.
// Run on SQLite here and on PostgreSQL under TestOnPostgres.
func TestStreamedLoadMatchesScan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openTestStore(t)
	if _, ok := st.(memory.VersionStreamer); !ok {
		t.Fatalf("%T does not stream versions", st)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	w, err := engine.New(engine.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var ps []engine.RememberParams
	for i := range 60 {
		// Keyed facts, several restated with a new value (superseded
		// versions), and notes no rule reads.
		ps = append(ps, engine.RememberParams{Namespace: "ns", ObservedAt: at.Add(time.Duration(i) * time.Minute),
			Key: fmt.Sprintf("prefers:tool_%d", i%20), Subject: "user", Value: fmt.Sprintf("tool %d", i),
			Text: fmt.Sprintf("I prefer tool %d for job %d.", i, i%20)})
		ps = append(ps, engine.RememberParams{Namespace: "ns", ObservedAt: at.Add(time.Duration(i)*time.Minute + time.Second),
			Text: fmt.Sprintf("Valve %d on rig %d needs a new gasket.", i, i%7)})
	}
	if _, err := w.RememberBatch(ctx, ps); err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{
		"I work at Acme now.", "My sister Lena lives in Ghent.", "I'm allergic to peanuts.",
		"We moved the build pipeline to GitHub Actions.", "ok cool", "Call me on my phone only, never email.",
	} {
		if _, err := w.Capture(ctx, engine.CaptureParams{Namespace: "ns", Events: []engine.Event{
			{Kind: memory.EpisodeUserMessage, Content: text, OccurredAt: at.Add(time.Duration(100+i) * time.Minute)},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	// A forgotten memory: its versions are deleted and leave the index.
	facts := factByKey(t, w, "ns", "prefers:tool_3", false)
	if len(facts) == 0 {
		t.Fatal("no prefers:tool_3")
	}
	if _, err := w.Forget(ctx, "ns", facts[0].MemoryID); err != nil {
		t.Fatal(err)
	}

	var scanned []*memory.Version
	if err := st.ScanVersions(ctx, memory.ScanParams{Namespace: "ns"}, func(v *memory.Version) error {
		if index.Indexable(v) {
			scanned = append(scanned, v)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	deleted, cited := 0, 0
	for _, v := range scanned {
		cited += len(v.EvidenceSpans)
	}
	if err := st.ScanVersions(ctx, memory.ScanParams{Namespace: "ns"}, func(v *memory.Version) error {
		if !index.Indexable(v) {
			deleted++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if deleted == 0 || cited == 0 || len(scanned) < 100 {
		t.Fatalf("the fixture lacks variety: %d versions, %d deleted, %d evidence spans", len(scanned), deleted, cited)
	}

	an := search.NewAnalyzer()
	load := func(s index.Store) *index.Namespace {
		t.Helper()
		ns, err := index.New(index.Config{Store: s, Embedder: w.Embedder(), Analyzer: an}).Namespace(ctx, "ns")
		if err != nil {
			t.Fatal(err)
		}
		return ns
	}
	old, streamed := load(scanOnly{st}), load(st)
	// And the index a writer builds one Put at a time, as the engine does
	// on every remember, over the same versions in the same order.
	set := index.New(index.Config{Store: emptyIndexStore{}, Embedder: w.Embedder(), Analyzer: an})
	for _, v := range scanned {
		doc, err := set.Doc(v)
		if err != nil {
			t.Fatal(err)
		}
		ns, unlock, err := set.Lock(ctx, "ns")
		if err != nil {
			t.Fatal(err)
		}
		ns.Put(v, doc)
		unlock()
	}
	inc, err := set.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	old.RLock()
	defer old.RUnlock()
	streamed.RLock()
	defer streamed.RUnlock()
	if a, b := old.SizeLocked(), streamed.SizeLocked(); a != b || a != len(scanned) {
		t.Fatalf("sizes: scan %d, stream %d, indexable %d", a, b, len(scanned))
	}
	sameIndex(t, "put one by one", "loaded", inc, streamed, scanned, w.Embedder())
	keyTerms := map[string]bool{}
	for _, v := range scanned {
		a, _ := old.EntryLocked(v.ID)
		b, ok := streamed.EntryLocked(v.ID)
		if !ok {
			t.Fatalf("%s is not in the streamed index", v.ID)
		}
		if !reflect.DeepEqual(a.V, b.V) {
			t.Errorf("%s differs:\n scan   %+v\n stream %+v", v.ID, a.V, b.V)
		}
		if !reflect.DeepEqual(a.KeyTerms, b.KeyTerms) || !reflect.DeepEqual(a.AliasTerms, b.AliasTerms) ||
			a.SubjectTerm != b.SubjectTerm || a.Status != b.Status || a.Ownerless != b.Ownerless || a.Shape != b.Shape {
			t.Errorf("%s: entry metadata differs", v.ID)
		}
		for _, k := range a.KeyTerms {
			keyTerms[k] = true
		}
	}
	if !slices.Equal(old.EpisodesLocked(), streamed.EpisodesLocked()) {
		t.Error("episode order differs")
	}
	for _, ep := range old.EpisodesLocked() {
		if !slices.Equal(old.FactsOfEpisodeLocked(ep), streamed.FactsOfEpisodeLocked(ep)) {
			t.Errorf("facts citing %s differ", ep)
		}
	}
	for k := range keyTerms {
		if !slices.Equal(old.KeyPostingsLocked(k), streamed.KeyPostingsLocked(k)) {
			t.Errorf("key postings of %q differ", k)
		}
	}
	all := func(string) bool { return true }
	queries := []string{"gasket", "valve gasket rig 3", "tool 7", "where do I work", "sister Ghent", "peanuts", "build pipeline", "phone"}
	for _, q := range queries {
		if a, b := old.Lexical(an.QueryTerms(q), 20, all), streamed.Lexical(an.QueryTerms(q), 20, all); !reflect.DeepEqual(a, b) {
			t.Errorf("lexical %q:\n scan   %v\n stream %v", q, a, b)
		}
		vecs, err := w.Embedder().Embed(ctx, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		qv := vecs[0]
		if a, b := old.Semantic(qv, 20, 0, all), streamed.Semantic(qv, 20, 0, all); !reflect.DeepEqual(a, b) {
			t.Errorf("semantic %q:\n scan   %v\n stream %v", q, a, b)
		}
	}

	// And the engine answers alike over either.
	open := func(s memory.Store) *engine.Engine {
		e, err := engine.New(engine.Config{Store: s})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	es, ee := open(scanOnly{st}), open(st)
	for _, q := range queries {
		a := retrieve(t, es, engine.RetrieveParams{Namespace: "ns", Query: q, Limit: 10})
		b := retrieve(t, ee, engine.RetrieveParams{Namespace: "ns", Query: q, Limit: 10})
		if len(a.Items) == 0 || len(a.Items) != len(b.Items) {
			t.Fatalf("%q: %d items over the scan, %d over the stream", q, len(a.Items), len(b.Items))
		}
		for i := range a.Items {
			x, y := a.Items[i], b.Items[i]
			if x.VersionID != y.VersionID || x.Score != y.Score || x.Content != y.Content || !slices.Equal(x.EpisodeIDs, y.EpisodeIDs) {
				t.Errorf("%q item %d: scan %s %v, stream %s %v", q, i, x.VersionID, x.Score, y.VersionID, y.Score)
			}
		}
		if a.Context != b.Context {
			t.Errorf("%q: packed context differs", q)
		}
	}
}

// emptyIndexStore is a store with nothing in it, for an index built by
// Put alone.
type emptyIndexStore struct{}

func (emptyIndexStore) ScanVersions(context.Context, memory.ScanParams, func(*memory.Version) error) error {
	return nil
}
func (emptyIndexStore) ListVersions(context.Context, memory.ListVersionsParams) ([]*memory.Version, error) {
	return nil, nil
}
func (emptyIndexStore) Stats(context.Context, memory.StatsParams) (*memory.Stats, error) {
	return &memory.Stats{}, nil
}
func (emptyIndexStore) ListChanges(context.Context, memory.ListChangesParams) ([]memory.Change, error) {
	return nil, nil
}
func (emptyIndexStore) LastChange(context.Context, memory.ScanParams) (int64, error) { return 0, nil }

// sameIndex fails unless two indexes of the versions vs hold the same
// entries (every field the read path reads), episode order, evidence links
// and key postings, and answer every channel's query with the same hits
// and the same scores, bit for bit.
func sameIndex(t *testing.T, aName, bName string, a, b *index.Namespace, vs []*memory.Version, emb embed.Embedder) {
	t.Helper()
	a.RLock()
	defer a.RUnlock()
	if x, y := a.SizeLocked(), b.SizeLocked(); x != y || x != len(vs) {
		t.Fatalf("sizes: %s %d, %s %d, versions %d", aName, x, bName, y, len(vs))
	}
	keyTerms := map[string]bool{}
	for _, v := range vs {
		x, _ := a.EntryLocked(v.ID)
		y, ok := b.EntryLocked(v.ID)
		if !ok {
			t.Fatalf("%s is not in the %s index", v.ID, bName)
		}
		if !reflect.DeepEqual(x.V, y.V) {
			t.Errorf("%s differs:\n %s %+v\n %s %+v", v.ID, aName, x.V, bName, y.V)
		}
		if !reflect.DeepEqual(x.KeyTerms, y.KeyTerms) || !reflect.DeepEqual(x.AliasTerms, y.AliasTerms) ||
			x.SubjectTerm != y.SubjectTerm || x.Status != y.Status || x.Ownerless != y.Ownerless || x.Shape != y.Shape ||
			x.Episodic != y.Episodic || x.Projectable != y.Projectable || x.Solid != y.Solid || x.NameKey != y.NameKey {
			t.Errorf("%s: entry metadata differs: %s %+v, %s %+v", v.ID, aName, x, bName, y)
		}
		for _, k := range x.KeyTerms {
			keyTerms[k] = true
		}
	}
	if !slices.Equal(a.EpisodesLocked(), b.EpisodesLocked()) {
		t.Error("episode order differs")
	}
	for _, ep := range a.EpisodesLocked() {
		if !slices.Equal(a.FactsOfEpisodeLocked(ep), b.FactsOfEpisodeLocked(ep)) {
			t.Errorf("facts citing %s differ", ep)
		}
	}
	for k := range keyTerms {
		if !slices.Equal(a.KeyPostingsLocked(k), b.KeyPostingsLocked(k)) {
			t.Errorf("key postings of %q differ", k)
		}
	}
	an := search.NewAnalyzer()
	all := func(string) bool { return true }
	for _, q := range []string{"gasket", "valve gasket rig 3", "tool 7", "where do I work", "sister Ghent", "peanuts",
		"build pipeline", "phone", "new gasket for the valve on rig 5", "which tool for job 12"} {
		terms := an.QueryTerms(q)
		if x, y := a.Lexical(terms, 30, all), b.Lexical(terms, 30, all); len(x) == 0 && q == "gasket" || !reflect.DeepEqual(x, y) {
			t.Errorf("lexical %q:\n %s %v\n %s %v", q, aName, x, bName, y)
		}
		if x, y := a.LexicalCommon(terms, 30, true), b.LexicalCommon(terms, 30, true); !reflect.DeepEqual(x, y) {
			t.Errorf("lexical, all terms, %q:\n %s %v\n %s %v", q, aName, x, bName, y)
		}
		vecs, err := emb.Embed(context.Background(), []string{q})
		if err != nil {
			t.Fatal(err)
		}
		if x, y := a.Semantic(vecs[0], 30, 0, all), b.Semantic(vecs[0], 30, 0, all); len(x) == 0 || !reflect.DeepEqual(x, y) {
			t.Errorf("semantic %q:\n %s %v\n %s %v", q, aName, x, bName, y)
		}
	}
}
