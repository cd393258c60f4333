package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/memory"
)

// mcpStructured calls a tool and decodes its structured output into out;
// it returns the text and whether the call failed.
func mcpStructured(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any, out any) (string, bool) {
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
	if out != nil && !res.IsError {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: structured output %s: %v", tool, raw, err)
		}
	}
	return b.String(), res.IsError
}

// TestE2EFirstRetrievalOnEmptyNamespace plays an agent's very first calls,
// before anything was stored: the retrieval succeeds with no items and a
// hint, over the API and over MCP, and leaves nothing behind (no trace, no
// namespace), so feedback has nothing to name.
func TestE2EFirstRetrievalOnEmptyNamespace(t *testing.T) {
	f := e2eOpen(t, e2eOptions{requireKeys: true, mcp: true})
	writer, _ := f.e2eKey(t, "fresh", memory.RoleWriter)
	auth := []string{"Authorization", "Bearer " + writer}
	ctx := context.Background()

	before := f.e2eState(t, "fresh")
	var res struct {
		RetrievalID *string           `json:"retrieval_id"`
		Context     string            `json:"context"`
		TokensUsed  int               `json:"tokens_used"`
		Items       []json.RawMessage `json:"items"`
		Hint        string            `json:"hint"`
	}
	r := f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "which editor does the user prefer?"}, auth...)
	e2eJSON(t, r, http.StatusOK, &res)
	if res.RetrievalID == nil || *res.RetrievalID != "" || res.Items == nil || len(res.Items) != 0 || res.Context != "" || res.TokensUsed != 0 {
		t.Errorf("first retrieval: %s", r.body)
	}
	if want := `namespace "fresh" holds nothing yet; capture or remember first`; res.Hint != want {
		t.Errorf("hint %q, want %q", res.Hint, want)
	}

	// Bad input is still refused on an empty namespace.
	e2eProblem(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": " "}, auth...), http.StatusBadRequest, "invalid_request")

	// MCP's recall answers the same way.
	s, err := mcpConnect(t, f, writer)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		RetrievalID string            `json:"retrieval_id"`
		Items       []json.RawMessage `json:"items"`
		Hint        string            `json:"hint"`
	}
	text, isErr := mcpStructured(t, s, "recall", map[string]any{"query": "which editor does the user prefer?"}, &rec)
	if isErr || rec.RetrievalID != "" || len(rec.Items) != 0 || !strings.Contains(rec.Hint, "holds nothing yet") || !strings.Contains(text, "holds nothing yet") {
		t.Errorf("MCP recall on an empty namespace: %v %q %+v", isErr, text, rec)
	}
	// The empty retrieval id names nothing to rate, and says so.
	if text, isErr := mcpCall(t, s, "feedback", map[string]any{"retrieval_id": "", "outcome": "helpful"}); !isErr || !strings.Contains(text, "retrieval id is empty") || !strings.Contains(text, "held nothing") {
		t.Errorf("feedback on an empty retrieval id: %v %q", isErr, text)
	}

	// Reads on nothing leave nothing: no trace, and the namespace still
	// does not exist.
	for _, path := range []string{"/v1/memories", "/v1/graph/neighborhood?entity=user", "/v1/procedures"} {
		e2eProblem(t, f.e2eDo(t, "GET", path, nil, auth...), http.StatusNotFound, "namespace_not_found")
	}
	if after := f.e2eState(t, "fresh"); after != before {
		t.Errorf("reads of an empty namespace wrote:\n%s\n%s", before, after)
	}
	nss, err := f.store.Namespaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(nss, "fresh") {
		t.Errorf("the empty namespace exists after reads: %v", nss)
	}
	if sizes := f.eng.IndexSizes(); len(sizes) != 0 {
		t.Errorf("reads built indexes: %v", sizes)
	}

	// Once something is stored, retrievals are traced as before, without
	// a hint.
	f.e2eRemember(t, map[string]any{"text": "My favorite editor is Vim."}, auth...)
	res.Hint, res.RetrievalID = "", nil
	r = f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "which editor does the user prefer?"}, auth...)
	e2eJSON(t, r, http.StatusOK, &res)
	if res.RetrievalID == nil || !strings.HasPrefix(*res.RetrievalID, "ret_") || res.Hint != "" || len(res.Items) == 0 {
		t.Fatalf("retrieval once something is stored: %s", r.body)
	}
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/retrievals/"+*res.RetrievalID, nil, auth...), http.StatusOK, nil)
}
