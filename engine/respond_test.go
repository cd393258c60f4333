package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// openEngineStore is openEngine on a new file, with its store.
func openEngineStore(t testing.TB, cfg engine.Config) (*engine.Engine, memory.Store) {
	t.Helper()
	st := sqlitetest.OpenAt(t, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	cfg.Store = st
	e, err := engine.New(cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		st.Close()
	})
	return e, st
}

// chatClient is a chat client for the fake provider, without retries.
func chatClient(t testing.TB, fake *openaitest.Server) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{BaseURL: fake.URL, Model: "fake-chat", MaxRetries: -1, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// traceCount is how many traces the namespace holds, written ones and
// queued ones alike.
func traceCount(t testing.TB, e *engine.Engine, st memory.Store, ns string) int {
	t.Helper()
	e.FlushTraces()
	ts, err := st.ListTraces(context.Background(), memory.ListTracesParams{Namespace: ns, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return len(ts)
}

func TestRespondNeedsAChatModel(t *testing.T) {
	t.Parallel()
	e := openEngine(t, filepath.Join(t.TempDir(), "m.db"), engine.Config{})
	_, err := e.Respond(context.Background(), engine.RespondParams{RetrieveParams: engine.RetrieveParams{Namespace: "ns", Query: "what car?"}})
	var pe *memory.Error
	if !errors.As(err, &pe) || pe.Code != memory.CodeModelNotConfigured || !errors.Is(err, memory.ErrModelNotConfigured) {
		t.Fatalf("err %v: want %s", err, memory.CodeModelNotConfigured)
	}
	if !strings.Contains(pe.Message, "models.chat") {
		t.Fatalf("message %q does not say how to configure one", pe.Message)
	}
}

// The answer comes from the chat model, given the packed context; the
// items it cites are returned and marked used in the trace; a cited
// number it was not given is dropped with a note; tokens count against
// the namespace's daily budget.
func TestRespondAnswersAndRecordsUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := openaitest.New(t, "fake-embed", 32)
	e, st := openEngineStore(t, engine.Config{Chat: chatClient(t, fake), TokensPerDay: 1000})
	for _, text := range []string{"Greta drives a blue car to work.", "Greta's sister lives in Lisbon."} {
		if _, err := e.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	fake.Script("/v1/chat/completions", openaitest.Reply{Content: `{"answer": "A blue car.", "used": [1, 1, 9]}`})
	out, err := e.Respond(ctx, engine.RespondParams{RetrieveParams: engine.RetrieveParams{Namespace: "ns", Query: "What car does Greta drive?"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "A blue car." || out.Retrieval.RetrievalID == "" || out.Model != "fake-chat" {
		t.Fatalf("answer %q, retrieval %q, model %q", out.Answer, out.Retrieval.RetrievalID, out.Model)
	}
	if len(out.Used) != 1 || out.Used[0].VersionID != out.Retrieval.Items[0].VersionID {
		t.Fatalf("used %+v: want the first item once", out.Used)
	}
	if n := hasNote(out.Notes, engine.NoteRespondCitation); !strings.Contains(n, "9") {
		t.Fatalf("notes %q: want the dropped citation 9", out.Notes)
	}
	bodies := fake.Bodies()
	prompt := bodies[len(bodies)-1]
	for _, want := range []string{"blue car", "What car does Greta drive?", "[1]", "json_schema"} {
		if !strings.Contains(prompt, want) {
			t.Fatalf("the chat request lacks %q: %s", want, prompt)
		}
	}
	tr, err := e.Trace(ctx, "ns", out.Retrieval.RetrievalID)
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, it := range tr.Items {
		if it.Used {
			used++
			if it.VersionID != out.Used[0].VersionID || !it.Packed {
				t.Fatalf("trace marks %s used, want %s", it.VersionID, out.Used[0].VersionID)
			}
		}
	}
	if used != 1 {
		t.Fatalf("trace marks %d items used, want 1", used)
	}
	e.FlushTraces()
	stored, err := st.GetTrace(ctx, memory.GetParams{Namespace: "ns", ID: out.Retrieval.RetrievalID})
	if err != nil {
		t.Fatal(err)
	}
	if !stored.Items[0].Used && !stored.Items[1].Used {
		t.Fatalf("the stored trace lost the used mark: %+v", stored.Items[:2])
	}
	if got := e.ModelTokensToday("ns"); got != 4 { // the fake reports 3 in, 1 out
		t.Fatalf("tokens today %d, want 4", got)
	}
	// The answer's retrieval takes feedback like any other.
	if _, err := e.Feedback(ctx, engine.FeedbackParams{Namespace: "ns", RetrievalID: out.Retrieval.RetrievalID,
		Outcome: memory.OutcomeHelpful, MemoryIDs: []string{out.Used[0].MemoryID}}); err != nil {
		t.Fatalf("feedback on the answer's retrieval: %v", err)
	}
}

// A model that fails or answers with something unusable leaves nothing
// behind: no trace, and a typed error.
func TestRespondModelFailureWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := openaitest.New(t, "fake-embed", 32)
	e, st := openEngineStore(t, engine.Config{Chat: chatClient(t, fake), TokensPerDay: 16})
	if _, err := e.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: "Greta drives a blue car to work."}); err != nil {
		t.Fatal(err)
	}
	before := traceCount(t, e, st, "ns")
	for _, tc := range []struct {
		name  string
		reply openaitest.Reply
		code  string
	}{
		{"server error", openaitest.Reply{Status: 500}, memory.CodeModelUnavailable},
		{"rate limited", openaitest.Reply{Status: 429, RetryAfter: "1"}, memory.CodeModelUnavailable},
		{"malformed JSON", openaitest.Reply{Content: `{"answer": "A blue`}, memory.CodeModelBadReply},
		{"wrong schema", openaitest.Reply{Content: `{"reply": "A blue car."}`}, memory.CodeModelBadReply},
		{"empty answer", openaitest.Reply{Content: `{"answer": "  ", "used": []}`}, memory.CodeModelBadReply},
		{"used not numbers", openaitest.Reply{Content: `{"answer": "A car.", "used": ["mem_1"]}`}, memory.CodeModelBadReply},
	} {
		fake.Script("/v1/chat/completions", tc.reply)
		_, err := e.Respond(ctx, engine.RespondParams{RetrieveParams: engine.RetrieveParams{Namespace: "ns", Query: "What car does Greta drive?"}})
		var pe *memory.Error
		if !errors.As(err, &pe) || pe.Code != tc.code {
			t.Fatalf("%s: err %v, want %s", tc.name, err, tc.code)
		}
	}
	if after := traceCount(t, e, st, "ns"); after != before {
		t.Fatalf("failed answers wrote %d traces", after-before)
	}
	// The bad replies' tokens counted (4 each): the budget of 16 is spent, and the
	// next answer is refused without calling the model.
	calls := fake.Requests("/v1/chat/completions")
	_, err := e.Respond(ctx, engine.RespondParams{RetrieveParams: engine.RetrieveParams{Namespace: "ns", Query: "What car?"}})
	if !errors.Is(err, memory.ErrModelUnavailable) || !strings.Contains(err.Error(), "daily model tokens") {
		t.Fatalf("over budget: %v", err)
	}
	if fake.Requests("/v1/chat/completions") != calls {
		t.Fatal("over budget, the model was called")
	}
}
