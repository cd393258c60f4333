package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/provider/openai"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

// providerEmbedder is an embedder backed by the fake provider.
func providerEmbedder(t testing.TB, fake *openaitest.Server, dims int, retries int) *openai.Embedder {
	t.Helper()
	c, err := openai.New(openai.Config{BaseURL: fake.URL, Model: "fake-embed", MaxRetries: retries, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	emb, err := openai.NewEmbedder(c, dims, 0)
	if err != nil {
		t.Fatal(err)
	}
	return emb
}

func hasNote(notes []string, code string) string {
	for _, n := range notes {
		if strings.HasPrefix(n, code+": ") {
			return n
		}
	}
	return ""
}

// TestQueryEmbeddingFallsBack: a provider that answers late or fails does
// not fail the retrieval; the query is served by the channels that need no
// model, within the budget, and the result says so.
func TestQueryEmbeddingFallsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := openaitest.New(t, "fake-embed", 32)
	// The budget is well above what a loopback call costs on a busy
	// machine (150 ms made "provider up" fall back under -race on 2 loaded
	// cores) and well below the slow provider's delay.
	const budget = time.Second
	e := openEngine(t, filepath.Join(t.TempDir(), "m.db"), engine.Config{Embedder: providerEmbedder(t, fake, 32, 2), QueryBudget: budget})
	if _, err := e.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: "Greta drives a blue car to work."}); err != nil {
		t.Fatal(err)
	}
	found := func(res *engine.Result) bool {
		for _, it := range res.Items {
			if strings.Contains(it.Content, "blue car") {
				return true
			}
		}
		return false
	}

	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "Greta car"})
	if !found(res) || len(res.Notes) != 0 {
		t.Fatalf("provider up: found %v, notes %q", found(res), res.Notes)
	}

	fake.Script("/v1/embeddings", openaitest.Reply{Delay: 3 * time.Second})
	began := time.Now()
	res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "Greta car"})
	took := time.Since(began)
	if n := hasNote(res.Notes, engine.NoteEmbedderFallback); !strings.Contains(n, "budget") || !found(res) {
		t.Fatalf("slow provider: notes %q, found %v", res.Notes, found(res))
	}
	if took > budget+time.Second {
		t.Fatalf("slow provider: the retrieval took %s with a %s budget", took, budget)
	}

	// A 500 is retried only while the budget allows; then the fallback.
	fake.Script("/v1/embeddings", openaitest.Reply{Status: 500}, openaitest.Reply{Status: 500}, openaitest.Reply{Status: 500})
	res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "Greta car"})
	if n := hasNote(res.Notes, engine.NoteEmbedderFallback); n == "" || !found(res) {
		t.Fatalf("failing provider: notes %q, found %v", res.Notes, found(res))
	}

	// A provider that is gone entirely.
	fake.Close()
	res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "Greta car"})
	if n := hasNote(res.Notes, engine.NoteEmbedderFallback); n == "" || !found(res) {
		t.Fatalf("provider gone: notes %q, found %v", res.Notes, found(res))
	}
	if strings.Contains(strings.Join(res.Notes, " "), "127.0.0.1") {
		t.Fatalf("a note names the endpoint: %q", res.Notes)
	}
}

// TestRetrievalServesOldVectorsWhileReembedding: a database written with
// the built-in embedder, opened with a provider's: until the namespace is
// re-embedded, the semantic channel still finds versions by their old
// vectors; once it is, the old vectors are not searched any more.
func TestRetrievalServesOldVectorsWhileReembedding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	old := openEngine(t, path, engine.Config{})
	if _, err := old.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: "Greta drives a car to work."}); err != nil {
		t.Fatal(err)
	}
	fake := openaitest.New(t, "fake-embed", 32)
	e := openEngine(t, path, engine.Config{Embedder: providerEmbedder(t, fake, 32, 0)})
	var off []string
	for _, c := range engine.Channels {
		if c != engine.ChannelSemantic {
			off = append(off, c)
		}
	}
	// "vehicle" shares no word with the text: only the built-in
	// embedder's word vectors relate it to "car".
	q := engine.RetrieveParams{Namespace: "ns", Query: "what vehicle does she own", Disable: off}
	res := retrieve(t, e, q)
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "drives a car") {
		t.Fatalf("before re-embedding the old vectors are not served: %+v", res.Items)
	}
	if hasNote(res.Notes, engine.NoteReembedIncomplete) == "" {
		t.Fatalf("notes %q: want %s", res.Notes, engine.NoteReembedIncomplete)
	}
	rep, err := e.Reembed(ctx, engine.ReembedParams{Namespace: "ns"})
	if err != nil || rep.More || rep.Reembedded == 0 {
		t.Fatalf("reembed: %+v, %v", rep, err)
	}
	res = retrieve(t, e, q)
	if len(res.Notes) != 0 {
		t.Fatalf("after re-embedding: notes %q", res.Notes)
	}
	for _, it := range res.Items {
		if strings.Contains(it.Content, "drives a car") {
			t.Fatalf("after re-embedding the old vector still answers: %+v", it)
		}
	}
	// The same words still meet through the provider's vectors.
	res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "Greta drives", Disable: off})
	if len(res.Items) == 0 {
		t.Fatal("the provider's vectors find nothing after re-embedding")
	}
}

// Part way through a re-embedding (a run stopped at its limit, to be
// resumed), both kinds of vectors answer: the versions done through the
// provider's query vector, the rest through the built-in one.
func TestRetrievalServesBothDuringPartialReembed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	old := openEngine(t, path, engine.Config{})
	texts := []string{"Greta drives a car to work.", "Jonas rides a bicycle to school."}
	for _, text := range texts {
		if _, err := old.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	fake := openaitest.New(t, "fake-embed", 32)
	e := openEngine(t, path, engine.Config{Embedder: providerEmbedder(t, fake, 32, 0)})
	var off []string
	for _, c := range engine.Channels {
		if c != engine.ChannelSemantic {
			off = append(off, c)
		}
	}
	// Each text is one note (standing in for its episode): two versions.
	rep, err := e.Reembed(ctx, engine.ReembedParams{Namespace: "ns", Limit: 1})
	if err != nil || !rep.More || rep.Reembedded != 1 {
		t.Fatalf("first run: %+v, %v; want it to stop at its limit", rep, err)
	}
	for _, q := range []string{"Greta drives a car", "Jonas rides a bicycle"} {
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Disable: off})
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, q[:5]) || hasNote(res.Notes, engine.NoteReembedIncomplete) == "" {
			t.Fatalf("mid re-embedding, %q: %q, notes %q", q, itemTexts(res), res.Notes)
		}
	}
	rep, err = e.Reembed(ctx, engine.ReembedParams{Namespace: "ns"})
	if err != nil || rep.More {
		t.Fatalf("resumed run: %+v, %v", rep, err)
	}
	for _, q := range []string{"Greta drives a car", "Jonas rides a bicycle"} {
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Disable: off})
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, q[:5]) || len(res.Notes) != 0 {
			t.Fatalf("after re-embedding, %q: %q, notes %q", q, itemTexts(res), res.Notes)
		}
	}
}

// Switching between two providers whose vectors have one length: the old
// model's vectors are not compared with the new model's queries (their
// cosines mean nothing) until they are re-embedded; the other channels
// still find those memories meanwhile.
func TestSwitchingProvidersOfOneLengthKeepsSpacesApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	embedderFor := func(model string) *openai.Embedder {
		fake := openaitest.New(t, model, 32)
		c, err := openai.New(openai.Config{BaseURL: fake.URL, Model: model, MaxRetries: -1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		emb, err := openai.NewEmbedder(c, 32, 0)
		if err != nil {
			t.Fatal(err)
		}
		return emb
	}
	a := openEngine(t, path, engine.Config{Embedder: embedderFor("model-a")})
	if _, err := a.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: "Greta drives a car to work."}); err != nil {
		t.Fatal(err)
	}
	b := openEngine(t, path, engine.Config{Embedder: embedderFor("model-b")})
	var off []string
	for _, c := range engine.Channels {
		if c != engine.ChannelSemantic {
			off = append(off, c)
		}
	}
	q := engine.RetrieveParams{Namespace: "ns", Query: "Greta drives a car"}
	if res := retrieve(t, b, engine.RetrieveParams{Namespace: q.Namespace, Query: q.Query, Disable: off}); len(res.Items) != 0 {
		t.Fatalf("model-b's query was compared with model-a's vectors: %q", itemTexts(res))
	}
	if res := retrieve(t, b, q); len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "Greta drives") {
		t.Fatalf("the other channels lost the memory meanwhile: %q", itemTexts(res))
	}
	if _, err := b.Reembed(ctx, engine.ReembedParams{Namespace: "ns"}); err != nil {
		t.Fatal(err)
	}
	if res := retrieve(t, b, engine.RetrieveParams{Namespace: q.Namespace, Query: q.Query, Disable: off}); len(res.Items) == 0 {
		t.Fatal("after re-embedding, model-b's vectors find nothing")
	}
}
