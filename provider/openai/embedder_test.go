package openai_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

const model = "fake-embed"

func newEmbedder(t *testing.T, fake *openaitest.Server, dims, batch int, edit func(*openai.Config)) *openai.Embedder {
	t.Helper()
	cfg := openai.Config{BaseURL: fake.URL, Model: model, APIKey: openai.NewSecret("sk-embedder-test"), Timeout: 2 * time.Second}
	if edit != nil {
		edit(&cfg)
	}
	c, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	e, err := openai.NewEmbedder(c, dims, batch)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedderBatchesAndNormalises(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, model, 8)
	e := newEmbedder(t, fake, 8, 4, nil)
	if e.Name() != "openai:fake-embed@8" || e.Dim() != 8 {
		t.Fatalf("name %q dim %d", e.Name(), e.Dim())
	}
	texts := []string{"one", "two", "", "three", "four", "  ", "five", "six", "seven", "eight"}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fake.Batches(); len(got) != 2 || got[0] != 4 || got[1] != 4 {
		t.Fatalf("batches %v; want [4 4]: blank texts are not sent", got)
	}
	for i, v := range vs {
		if strings.TrimSpace(texts[i]) == "" {
			if !v.IsZero() {
				t.Fatalf("blank text %d got a vector", i)
			}
			continue
		}
		if v.Dim != 8 || v.Sparse() || len(v.Values) != 8 {
			t.Fatalf("vector %d: %+v", i, v)
		}
		if n := v.Dot(v); math.Abs(float64(n)-1) > 1e-5 {
			t.Fatalf("vector %d has squared norm %g; want 1", i, n)
		}
	}
	if vs[0].Dot(vs[1]) > 0.999 {
		t.Fatal("different texts got the same vector")
	}
	if _, err := openai.NewEmbedder(nil, 0, 0); err == nil {
		t.Fatal("an embedder without dimensions was made")
	}
}

func TestEmbedderRefusesADimensionChange(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, model, 8)
	e := newEmbedder(t, fake, 8, 0, nil)
	if _, err := e.Embed(context.Background(), []string{"before"}); err != nil {
		t.Fatal(err)
	}
	fake.SetDims(12)
	_, err := e.Embed(context.Background(), []string{"after"})
	var pe *memory.Error
	if !errors.As(err, &pe) || pe.Code != memory.CodeModelBadReply || !strings.Contains(err.Error(), "returned 12 dimensions; dimensions is set to 8") {
		t.Fatalf("error %v; want model_bad_reply naming both sizes", err)
	}
}

// openEngine opens the database at path with embedder emb (nil: the
// default one).
func openEngine(t *testing.T, path string, emb embed.Embedder) *engine.Engine {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Config{Store: st, Embedder: emb})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		st.Close()
	})
	return e
}

// TestSwitchingToTheProviderReembeds writes with the built-in embedder,
// opens the database with the provider's: every version is stale, the
// re-embedding the jobs run gives them the provider's vectors, and
// provenance names it.
func TestSwitchingToTheProviderReembeds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemon.db")
	texts := []string{"My favorite editor is Helix.", "I live in Porto.", "My sister plays the cello.", "I am allergic to peanuts."}
	builtin := openEngine(t, path, nil)
	for _, text := range texts {
		if _, err := builtin.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: text}); err != nil {
			t.Fatal(err)
		}
	}

	fake := openaitest.New(t, model, 16)
	e := openEngine(t, path, newEmbedder(t, fake, 16, 3, nil))
	stale, err := e.StaleEmbeddingsAll(ctx)
	if err != nil || stale < len(texts) {
		t.Fatalf("%d stale versions (%v); want every memory of the old embedder", stale, err)
	}
	reps, err := e.ReembedAll(ctx, nil)
	if err != nil || len(reps) != 1 || reps[0].Reembedded != stale || reps[0].Embedder != "openai:fake-embed@16" {
		t.Fatalf("re-embedding: %+v, %v", reps, err)
	}
	if n, _ := e.StaleEmbeddingsAll(ctx); n != 0 {
		t.Fatalf("%d stale after re-embedding", n)
	}
	for _, b := range fake.Batches() {
		if b > 3 {
			t.Fatalf("a request of %d texts; batch_size is 3", b)
		}
	}
	facts, err := e.Facts(ctx, engine.FactsParams{Namespace: "ns"})
	if err != nil || len(facts) == 0 {
		t.Fatalf("facts %v, %v", facts, err)
	}
	for _, v := range facts {
		if v.Provenance.Embedder != "openai:fake-embed@16" || v.Provenance.EmbedderDim != 16 {
			t.Fatalf("%q: provenance %s@%d", v.Content, v.Provenance.Embedder, v.Provenance.EmbedderDim)
		}
	}
	// The semantic channel alone finds a memory by the provider's vectors.
	var off []string
	for _, c := range engine.Channels {
		if c != engine.ChannelSemantic {
			off = append(off, c)
		}
	}
	res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ns", Query: "which editor is my favorite", Disable: off})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range res.Items {
		_, bySemantic := it.Channels[engine.ChannelSemantic]
		found = found || (bySemantic && strings.Contains(it.Content, "Helix"))
	}
	if !found {
		t.Fatalf("the semantic channel did not find the editor: %+v", res.Items)
	}

	// Back to the built-in embedder: the provider's vectors are stale in turn.
	back := openEngine(t, path, nil)
	if n, err := back.StaleEmbeddingsAll(ctx); err != nil || n < len(texts) {
		t.Fatalf("%d stale after switching back (%v)", n, err)
	}
}

// TestProviderDownStoresNothing: a write whose embedding call fails
// reports model_unavailable and leaves no trace.
func TestProviderDownStoresNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := openaitest.New(t, model, 8)
	e := openEngine(t, filepath.Join(t.TempDir(), "mnemon.db"), newEmbedder(t, fake, 8, 0, func(c *openai.Config) { c.MaxRetries = -1 }))
	if _, err := e.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: "I live in Porto."}); err != nil {
		t.Fatal(err)
	}
	before, err := e.Facts(ctx, engine.FactsParams{Namespace: "ns", IncludeHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	fake.Script("/v1/embeddings", openaitest.Reply{Status: 503})
	_, err = e.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: "I moved to Lisbon."})
	var pe *memory.Error
	if !errors.As(err, &pe) || pe.Code != memory.CodeModelUnavailable {
		t.Fatalf("remember with the provider down: %v; want model_unavailable", err)
	}
	after, err := e.Facts(ctx, engine.FactsParams{Namespace: "ns", IncludeHistory: true})
	if err != nil || len(after) != len(before) {
		t.Fatalf("%d versions before, %d after a failed write (%v)", len(before), len(after), err)
	}
}
