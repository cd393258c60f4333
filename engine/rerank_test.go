package engine_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

var rerankFacts = []string{"Greta drives a blue car to work.", "Greta's sister lives in Lisbon.", "Greta drinks green tea every morning."}

// rerankEngines opens two engines on one file: one plain, one with rr.
func rerankEngines(t *testing.T, rr engine.Reranker, budget time.Duration) (plain, reranked *engine.Engine) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.db")
	plain = openEngine(t, path, engine.Config{})
	for _, text := range rerankFacts {
		if _, err := plain.Remember(context.Background(), engine.RememberParams{Namespace: "ns", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	return plain, openEngine(t, path, engine.Config{Reranker: rr, RerankBudget: budget})
}

func itemTexts(res *engine.Result) []string {
	out := make([]string, len(res.Items))
	for i, it := range res.Items {
		out[i] = it.Content
	}
	return out
}

var numbered = regexp.MustCompile(`(?m)^\[(\d+)\] (.*)$`)

// lisbonFirst answers the chat reranker: 1 for memories naming Lisbon,
// 0.1 for the rest.
func lisbonFirst(_, user string) string {
	var scores []string
	for _, m := range numbered.FindAllStringSubmatch(user, -1) {
		if strings.Contains(m[2], "Lisbon") {
			scores = append(scores, "1")
		} else {
			scores = append(scores, "0.1")
		}
	}
	return `{"scores": [` + strings.Join(scores, ", ") + `]}`
}

// The chat model's scores reorder the top candidates; the moved ones
// carry the term "rerank" in the result and the trace.
func TestRerankWithChatModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := openaitest.New(t, "fake-embed", 8)
	fake.Answer(lisbonFirst)
	plain, e := rerankEngines(t, engine.ChatReranker{Chat: chatClient(t, fake)}, 0)
	q := engine.RetrieveParams{Namespace: "ns", Query: "What car does Greta drive?"}
	before := retrieve(t, plain, q)
	if !strings.Contains(before.Items[0].Content, "blue car") {
		t.Fatalf("fused order %q: want the car first", itemTexts(before))
	}
	res := retrieve(t, e, q)
	if !strings.Contains(res.Items[0].Content, "Lisbon") || hasNote(res.Notes, engine.NoteReranked) == "" {
		t.Fatalf("reranked %q, notes %q: want Lisbon first", itemTexts(res), res.Notes)
	}
	if _, ok := res.Items[0].Terms["rerank"]; !ok || res.Items[0].Terms["rerank"] <= 0 {
		t.Fatalf("the raised item's terms %v lack a positive rerank", res.Items[0].Terms)
	}
	tr, err := e.Trace(ctx, "ns", res.RetrievalID)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := tr.Items[0].Terms.Get("rerank"); !ok || v <= 0 || tr.Items[0].VersionID != res.Items[0].VersionID {
		t.Fatalf("trace item 1 %+v: want the rerank term", tr.Items[0])
	}
}

// A cross-encoder /rerank endpoint, in both reply shapes.
func TestRerankEndpoint(t *testing.T) {
	t.Parallel()
	for _, tei := range []bool{false, true} {
		t.Run(fmt.Sprintf("tei=%v", tei), func(t *testing.T) {
			t.Parallel()
			fake := openaitest.New(t, "fake-embed", 8)
			if tei {
				fake.RerankAsTEI()
			}
			c, err := openai.New(openai.Config{BaseURL: fake.URL, Model: "fake-rerank", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			_, e := rerankEngines(t, engine.RerankEndpoint{Client: c}, 0)
			// Only the tea item holds "green" and "tea".
			res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "Greta green tea"})
			if hasNote(res.Notes, engine.NoteReranked) == "" || !strings.Contains(res.Items[0].Content, "green tea") {
				t.Fatalf("reranked %q, notes %q", itemTexts(res), res.Notes)
			}
			if fake.Requests("/v1/rerank") != 1 {
				t.Fatalf("%d rerank requests", fake.Requests("/v1/rerank"))
			}
		})
	}
}

// A reranker that fails, answers late or unusably leaves the fused order,
// within the budget, and says so.
func TestRerankFallsBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		reply openaitest.Reply
		want  string
	}{
		{"slow", openaitest.Reply{Delay: 3 * time.Second}, "budget"},
		{"server error", openaitest.Reply{Status: 500}, "failed"},
		{"malformed", openaitest.Reply{Content: `{"scores": [1, 0.5`}, "failed"},
		{"too few scores", openaitest.Reply{Content: `{"scores": [1]}`}, "failed"},
		{"out of range", openaitest.Reply{Content: `{"scores": [7, 0, 0]}`}, "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Only the slow reply is about time: the others get a budget
			// a loaded machine cannot overrun, so they fail for their
			// reply (at load 20 a 200 ms budget ran out first).
			budget := 5 * time.Second
			if tc.want == "budget" {
				budget = 200 * time.Millisecond
			}
			fake := openaitest.New(t, "fake-embed", 8)
			fake.Answer(lisbonFirst)
			fake.Script("/v1/chat/completions", tc.reply)
			plain, e := rerankEngines(t, engine.ChatReranker{Chat: chatClient(t, fake)}, budget)
			q := engine.RetrieveParams{Namespace: "ns", Query: "What car does Greta drive?"}
			began := time.Now()
			res := retrieve(t, e, q)
			took := time.Since(began)
			if n := hasNote(res.Notes, engine.NoteRerankFallback); !strings.Contains(n, tc.want) {
				t.Fatalf("notes %q: want %s with %q", res.Notes, engine.NoteRerankFallback, tc.want)
			}
			if got, want := itemTexts(res), itemTexts(retrieve(t, plain, q)); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("order %q, want the fused order %q", got, want)
			}
			for _, it := range res.Items {
				if _, ok := it.Terms["rerank"]; ok {
					t.Fatalf("a failed rerank left a term: %+v", it.Terms)
				}
			}
			if took > budget+2*time.Second {
				t.Fatalf("the retrieval took %s with a %s rerank budget", took, budget)
			}
		})
	}
}

// The rerank endpoint's replies are checked: every document scored once.
func TestRerankEndpointBadReplies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"results": [{"index": 0, "relevance_score": 0.5}]}`,
		`[{"index": 0, "score": 0.5}, {"index": 0, "score": 0.4}]`,
		`[{"index": 5, "score": 0.5}, {"index": 1, "score": 0.4}]`,
		`[{"index": 0}, {"index": 1, "score": 0.4}]`,
		`{"data": []}`,
	} {
		fake := openaitest.New(t, "fake-embed", 8)
		c, err := openai.New(openai.Config{BaseURL: fake.URL, Model: "fake-rerank", MaxRetries: -1})
		if err != nil {
			t.Fatal(err)
		}
		fake.Script("/v1/rerank", openaitest.Reply{Body: body})
		_, _, err = c.Rerank(context.Background(), "q", []string{"a", "b"})
		var pe *memory.Error
		if !errors.As(err, &pe) || pe.Code != memory.CodeModelBadReply {
			t.Errorf("%s: err %v, want model_bad_reply", body, err)
		}
		c.Close()
	}
}
