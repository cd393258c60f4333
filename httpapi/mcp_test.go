package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

// bearer adds an API key to every request of an MCP client.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func mcpConnect(t *testing.T, f *e2eFixture, key string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: f.srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{key}}, MaxRetries: -1,
	}, nil)
	if err == nil {
		t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

func mcpCall(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func mcpTools(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// TestE2EMCP talks MCP over streamable HTTP at /mcp: authenticated like the
// API, bound to the key's namespace, with a reader's key listing only the
// reading tools.
func TestE2EMCP(t *testing.T) {
	f := e2eOpen(t, e2eOptions{requireKeys: true, mcp: true})
	writerA, _ := f.e2eKey(t, "a", memory.RoleWriter)
	readerA, _ := f.e2eKey(t, "a", memory.RoleReader)
	writerB, _ := f.e2eKey(t, "b", memory.RoleWriter)

	if _, err := mcpConnect(t, f, ""); err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(strings.ToLower(err.Error()), "unauthorized") {
		t.Errorf("connect without a key: %v, want a 401", err)
	}

	a, err := mcpConnect(t, f, writerA)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mcpTools(t, a), []string{"explain", "feedback", "forget", "history", "list_facts", "recall", "remember", "respond"}; !slices.Equal(got, want) {
		t.Errorf("writer's tools %v, want %v", got, want)
	}
	text, isErr := mcpCall(t, a, "remember", map[string]any{"text": "Our staging database listens on port 5433."})
	if isErr {
		t.Fatalf("remember: %s", text)
	}
	memID := text[strings.Index(text, "mem_"):][:30]
	if text, isErr := mcpCall(t, a, "recall", map[string]any{"query": "which port does staging use?"}); isErr || !strings.Contains(text, "5433") {
		t.Errorf("recall: %v %s", isErr, text)
	}

	r, err := mcpConnect(t, f, readerA)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mcpTools(t, r), []string{"explain", "history", "list_facts", "recall", "respond"}; !slices.Equal(got, want) {
		t.Errorf("reader's tools %v, want %v", got, want)
	}
	if text, isErr := mcpCall(t, r, "history", map[string]any{"id": memID}); isErr || !strings.Contains(text, "5433") {
		t.Errorf("reader history: %v %s", isErr, text)
	}
	if res, err := r.CallTool(context.Background(), &mcp.CallToolParams{Name: "forget", Arguments: map[string]any{"id": memID}}); err == nil && !res.IsError {
		t.Errorf("a reader called forget: %+v", res)
	}

	b, err := mcpConnect(t, f, writerB)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"history", "forget"} {
		if text, isErr := mcpCall(t, b, tool, map[string]any{"id": memID}); !isErr || !strings.Contains(text, "not found in namespace") {
			t.Errorf("namespace b %s of a's memory: %v %s", tool, isErr, text)
		}
	}
	if text, _ := mcpCall(t, b, "recall", map[string]any{"query": "which port does staging use?"}); strings.Contains(text, "5433") {
		t.Errorf("namespace b recalled a's memory: %s", text)
	}
	if text, isErr := mcpCall(t, a, "history", map[string]any{"id": memID}); isErr || !strings.Contains(text, "active") {
		t.Errorf("a's memory after b's forget attempt: %v %s", isErr, text)
	}
}

// A model provider's failure reaches an MCP client as its stable code, with
// nothing stored and none of the provider's own words.
func TestE2EMCPModelProviderDown(t *testing.T) {
	t.Parallel()
	fake, emb := fakeProviderEmbedder(t)
	f := e2eOpen(t, e2eOptions{mcp: true, embedder: emb})
	s, err := mcpConnect(t, f, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		reply openaitest.Reply
		code  string
	}{
		{openaitest.Reply{Status: 500, Body: `{"error":{"message":"upstream exploded at 10.0.0.7"}}`}, "model_unavailable"},
		{openaitest.Reply{Body: "not json"}, "model_bad_reply"},
	} {
		fake.Script("/v1/embeddings", tc.reply)
		out, isErr := mcpCall(t, s, "remember", map[string]any{"text": "I like figs."})
		if !isErr || !strings.HasPrefix(out, tc.code+":") || strings.Contains(out, "10.0.0.7") {
			t.Errorf("remember with the provider failing: error %v, %q; want %s", isErr, out, tc.code)
		}
	}
	// Nothing was stored: the namespace does not exist yet.
	e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories", nil), http.StatusNotFound, httpapi.CodeNamespaceNotFound)
}
