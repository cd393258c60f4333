package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

// fakeChat is a chat client for a fake provider, without retries.
func fakeChat(t *testing.T) (*openaitest.Server, *openai.Client) {
	t.Helper()
	fake := openaitest.New(t, "fake-embed", 8)
	c, err := openai.New(openai.Config{BaseURL: fake.URL, Model: "fake-chat", MaxRetries: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return fake, c
}

// traces is how many traces the default namespace holds.
func (f *e2eFixture) traces(t *testing.T) int {
	t.Helper()
	f.eng.FlushTraces()
	ts, err := f.store.ListTraces(context.Background(), memory.ListTracesParams{Namespace: memory.DefaultNamespace, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return len(ts)
}

// POST /v1/agent/respond answers from the packed context, names the
// memories it used, marks them in the trace, and its retrieval takes
// feedback; a model that fails writes nothing.
func TestE2ERespond(t *testing.T) {
	t.Parallel()
	fake, chat := fakeChat(t)
	f := e2eOpen(t, e2eOptions{chat: chat})
	f.e2eRemember(t, map[string]any{"text": "I live in Madrid."})
	f.e2eRemember(t, map[string]any{"text": "My sister plays the cello."})

	fake.Script("/v1/chat/completions", openaitest.Reply{Content: `{"answer":"You live in Madrid.","used":[1]}`})
	var out wire.RespondResponse
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/agent/respond", map[string]any{"query": "where do I live?"}), http.StatusOK, &out)
	if out.Answer != "You live in Madrid." || out.RetrievalID == "" || out.Model != "fake-chat" || out.Usage.PromptTokens != 3 {
		t.Fatalf("respond: %+v", out)
	}
	if len(out.Used) != 1 || out.Used[0].MemoryID != out.Items[0].MemoryID || !strings.Contains(out.Context, "Madrid") {
		t.Fatalf("used %+v, items %+v", out.Used, out.Items)
	}
	var tr wire.Trace
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/retrievals/"+out.RetrievalID, nil), http.StatusOK, &tr)
	for _, it := range tr.Items {
		if it.Used != (it.VersionID == out.Used[0].VersionID) {
			t.Fatalf("trace item %s used=%v; the answer used %s", it.VersionID, it.Used, out.Used[0].VersionID)
		}
	}
	var fb wire.FeedbackResult
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/retrievals/"+out.RetrievalID+"/feedback",
		map[string]any{"outcome": "helpful", "memory_ids": []string{out.Used[0].MemoryID}}), http.StatusOK, &fb)

	before := f.traces(t)
	fake.Script("/v1/chat/completions", openaitest.Reply{Content: `{"answer": 42`})
	e2eProblem(t, f.e2eDo(t, "POST", "/v1/agent/respond", map[string]any{"query": "where do I live?"}), http.StatusBadGateway, httpapi.CodeModelBadReply)
	fake.Script("/v1/chat/completions", openaitest.Reply{Status: 503, Body: `{"error":{"message":"overloaded at 10.0.0.7"}}`})
	p := e2eProblem(t, f.e2eDo(t, "POST", "/v1/agent/respond", map[string]any{"query": "where do I live?"}), http.StatusServiceUnavailable, httpapi.CodeModelUnavailable)
	if strings.Contains(p.Detail, "10.0.0.7") {
		t.Fatalf("the provider's words reached the client: %q", p.Detail)
	}
	if after := f.traces(t); after != before {
		t.Fatalf("failed answers wrote %d traces", after-before)
	}
	e2eProblem(t, f.e2eDo(t, "POST", "/v1/agent/respond", map[string]any{"query": "where?", "max_tokens": -1}), http.StatusBadRequest, httpapi.CodeInvalidRequest)
}

// The MCP tool respond: the same answer over /mcp, and the same stable
// code without a chat model.
func TestE2EMCPRespond(t *testing.T) {
	t.Parallel()
	none := e2eOpen(t, e2eOptions{mcp: true})
	s, err := mcpConnect(t, none, "")
	if err != nil {
		t.Fatal(err)
	}
	if out, isErr := mcpCall(t, s, "respond", map[string]any{"query": "where do I live?"}); !isErr || !strings.HasPrefix(out, "model_not_configured:") {
		t.Fatalf("respond without a chat model: error %v, %q", isErr, out)
	}

	fake, chat := fakeChat(t)
	f := e2eOpen(t, e2eOptions{mcp: true, chat: chat})
	f.e2eRemember(t, map[string]any{"text": "I live in Madrid."})
	s, err = mcpConnect(t, f, "")
	if err != nil {
		t.Fatal(err)
	}
	fake.Script("/v1/chat/completions", openaitest.Reply{Content: `{"answer":"In Madrid.","used":[1]}`})
	out, isErr := mcpCall(t, s, "respond", map[string]any{"query": "where do I live?"})
	if isErr || !strings.Contains(out, "In Madrid.") || !strings.Contains(out, "(used mem_") || !strings.Contains(out, "retrieval ret_") {
		t.Fatalf("respond: error %v, %q", isErr, out)
	}
	fake.Script("/v1/chat/completions", openaitest.Reply{Content: "not json"})
	if out, isErr := mcpCall(t, s, "respond", map[string]any{"query": "where do I live?"}); !isErr || !strings.HasPrefix(out, "model_bad_reply:") {
		t.Fatalf("respond with a bad reply: error %v, %q", isErr, out)
	}
}
