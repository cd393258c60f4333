package engine_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

// TestTraceKeepsModelCalls: the stored trace keeps the retrieval's notes
// and what its model calls cost. Without a provider it keeps neither; with
// a provider embedder it keeps the query's embedding call (and, on
// fallback, the failed call and the note); an answer of Respond adds its
// chat call, with the provider's tokens.
func TestTraceKeepsModelCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stored := func(e *engine.Engine, st memory.Store, id string) *memory.Trace {
		t.Helper()
		e.FlushTraces()
		tr, err := st.GetTrace(ctx, memory.GetParams{Namespace: "ns", ID: id})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	remember := func(e *engine.Engine) {
		t.Helper()
		if _, err := e.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: "Greta drives a blue car to work."}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("NoProvider", func(t *testing.T) {
		e, st := openEngineStore(t, engine.Config{})
		remember(e)
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "Greta car"})
		if tr := stored(e, st, res.RetrievalID); tr.Notes != nil || tr.Models != nil {
			t.Fatalf("a retrieval without models keeps notes %q, models %+v", tr.Notes, tr.Models)
		}
	})

	t.Run("Embedder", func(t *testing.T) {
		fake := openaitest.New(t, "fake-embed", 32)
		e, st := openEngineStore(t, engine.Config{Embedder: providerEmbedder(t, fake, 32, -1), QueryBudget: 5 * time.Second}) // no retry: a 500 is one failed call, whatever the machine's load
		remember(e)
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "Greta car"})
		tr := stored(e, st, res.RetrievalID)
		if tr.Notes != nil || len(tr.Models) != 1 || tr.Models[0].Endpoint != "embeddings" || tr.Models[0].Model != "fake-embed" ||
			tr.Models[0].Calls != 1 || tr.Models[0].Errors != 0 || tr.Models[0].TokensIn <= 0 {
			t.Fatalf("provider up: notes %q, models %+v; want one embeddings call with its tokens", tr.Notes, tr.Models)
		}
		fake.Script("/v1/embeddings", openaitest.Reply{Status: 500})
		res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "Greta car"})
		tr = stored(e, st, res.RetrievalID)
		if !slices.Equal(tr.Notes, res.Notes) || hasNote(tr.Notes, engine.NoteEmbedderFallback) == "" {
			t.Fatalf("failing provider: the trace keeps notes %q; the response said %q", tr.Notes, res.Notes)
		}
		if len(tr.Models) != 1 || tr.Models[0].Calls != 1 || tr.Models[0].Errors != 1 {
			t.Fatalf("failing provider: models %+v; want one failed call", tr.Models)
		}
	})

	t.Run("Respond", func(t *testing.T) {
		fake := openaitest.New(t, "fake-embed", 32)
		e, st := openEngineStore(t, engine.Config{Chat: chatClient(t, fake)})
		remember(e)
		fake.Script("/v1/chat/completions", openaitest.Reply{Content: `{"answer": "A blue car.", "used": [1]}`})
		out, err := e.Respond(ctx, engine.RespondParams{RetrieveParams: engine.RetrieveParams{Namespace: "ns", Query: "What car does Greta drive?"}})
		if err != nil {
			t.Fatal(err)
		}
		tr := stored(e, st, out.Retrieval.RetrievalID)
		if len(tr.Models) != 1 || tr.Models[0].Endpoint != "chat" || tr.Models[0].Calls != 1 ||
			tr.Models[0].TokensIn != out.TokensIn || tr.Models[0].TokensOut != out.TokensOut || tr.Models[0].DurationMicros <= 0 {
			t.Fatalf("respond: the trace keeps models %+v; want the answer's chat call (%d in, %d out)", tr.Models, out.TokensIn, out.TokensOut)
		}
	})
}
