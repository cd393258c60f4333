package engine_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/engine"
)

// TestReembedResumesAfterKill opens a database written with the old hashed
// embedder under the word-vector one: retrieval serves meanwhile, a
// re-embedding run killed after its first batch keeps what it committed,
// another process finishes it, and the first process's index follows.
func TestReembedResumesAfterKill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemon.db")
	old := openEngine(t, path, engine.Config{Embedder: embed.NewBuiltin()})
	var ps []engine.RememberParams
	// Enough versions (each statement is an episode and a memory) for
	// three batches (reembedBatch, lowered to 16 from 128 so that 40
	// statements are enough, not 140): the kill comes after the first.
	const batch = 16
	for i := range 40 {
		ps = append(ps, engine.RememberParams{Namespace: "ns", Text: fmt.Sprintf("Ticket %d was closed by the night shift.", i)})
	}
	ps = append(ps, engine.RememberParams{Namespace: "ns", Text: "Greta drives a car to work."})
	if _, err := old.RememberBatch(ctx, ps); err != nil {
		t.Fatal(err)
	}

	a := openEngine(t, path, engine.Config{})
	engine.SetReembedBatchForTest(a, batch)
	total, err := a.StaleEmbeddings(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if total < len(ps) || total <= 2*batch {
		t.Fatalf("%d stale versions, want at least %d (every episode and memory) and three batches", total, len(ps))
	}
	semantic := func(e *engine.Engine) bool {
		var off []string
		for _, c := range engine.Channels {
			if c != engine.ChannelSemantic {
				off = append(off, c)
			}
		}
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "what vehicle does Greta have", Disable: off})
		for _, it := range res.Items {
			if strings.Contains(it.Content, "drives a car") {
				return true
			}
		}
		return false
	}
	// Retrieval serves meanwhile: the words still match.
	if res := retrieve(t, a, engine.RetrieveParams{Namespace: "ns", Query: "Greta car"}); len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "Greta") {
		t.Fatalf("before re-embedding: %+v", res.Items)
	}
	if semantic(a) {
		t.Fatal("the old vectors meet the new embedder's query: the test shows nothing")
	}

	// Killed after the first batch.
	kctx, kill := context.WithCancel(ctx)
	rep, err := a.Reembed(kctx, engine.ReembedParams{Namespace: "ns", Progress: func(done, n int) {
		if n != total {
			t.Errorf("progress total %d, want %d", n, total)
		}
		kill()
	}})
	kill()
	if !errors.Is(err, context.Canceled) || rep.Reembedded == 0 || rep.Reembedded >= total {
		t.Fatalf("killed run: %+v, %v", rep, err)
	}
	done := rep.Reembedded

	// Another process finds what is left and finishes it.
	b := openEngine(t, path, engine.Config{})
	engine.SetReembedBatchForTest(b, batch)
	if n, err := b.StaleEmbeddings(ctx, "ns"); err != nil || n != total-done {
		t.Fatalf("after the kill: %d stale (%v), want %d", n, err, total-done)
	}
	rep, err = b.Reembed(ctx, engine.ReembedParams{Namespace: "ns"})
	if err != nil || rep.Reembedded != total-done || rep.More || rep.Embedder != embed.WordVectorsName {
		t.Fatalf("resumed run: %+v, %v", rep, err)
	}
	if n, _ := b.StaleEmbeddings(ctx, "ns"); n != 0 {
		t.Fatalf("%d stale after finishing", n)
	}
	if rep, err := b.Reembed(ctx, engine.ReembedParams{Namespace: "ns"}); err != nil || rep.Reembedded != 0 {
		t.Fatalf("second run: %+v, %v", rep, err)
	}
	if !semantic(b) {
		t.Fatal("after re-embedding the semantic channel does not find the paraphrase")
	}
	facts, err := b.Facts(ctx, engine.FactsParams{Namespace: "ns"})
	if err != nil || len(facts) == 0 {
		t.Fatal(facts, err)
	}
	for _, f := range facts {
		if p := f.Provenance; p.Embedder != embed.WordVectorsName || p.EmbedderDim != embed.NewWordVectors().Dim() {
			t.Fatalf("%s: provenance %s/%d", f.ID, p.Embedder, p.EmbedderDim)
		}
	}
	// The first process follows the other's writes.
	if err := a.SyncChanges(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := a.StaleEmbeddings(ctx, "ns"); n != 0 || !semantic(a) {
		t.Fatalf("the first process still has %d stale vectors after following", n)
	}
}
