package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A model that guesses an argument's name ({"q": ...} for recall,
// {"content": ...} for remember) gets a tool error it can act on: the
// stable code, the name it sent, the name it meant and every argument the
// tool takes. Nothing is stored or retrieved by the bad call.
func TestUnknownArgumentNamesTheMeantOne(t *testing.T) {
	cs := connect(t, testEngine(t), false)
	ctx := context.Background()
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"recall", map[string]any{"q": "where does my brother live these days"},
			[]string{"invalid_request: ", `"q"`, `(did you mean "query"?)`, "query (required)", "token_budget", "session_id"}},
		{"recall", map[string]any{"question": "what's my dog called", "top_k": 3},
			[]string{"invalid_request: ", `"question", "top_k"`, `(did you mean "query"?)`}},
		{"recall", map[string]any{"query": "gym schedule", "Limit": 4},
			[]string{"invalid_request: ", `"Limit"`, `(did you mean "limit"?)`}},
		{"recall", map[string]any{"query": "gym schedule", "sesion_id": "chat-9"},
			[]string{`"sesion_id"`, `(did you mean "session_id"?)`}},
		{"remember", map[string]any{"content": "my dentist moved her practice to Leith"},
			[]string{"invalid_request: ", "remember takes no argument", `"content"`, `(did you mean "text"?)`, "text (required)", "criticality"}},
		{"remember", map[string]any{"text": "I bike to work", "importance": "high"},
			[]string{"invalid_request: ", `"importance"`, "criticality"}},
		{"forget", map[string]any{"memory_id": "mem_whatever"},
			[]string{"invalid_request: ", `"memory_id"`, `(did you mean "id"?)`}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s %v: protocol error %v", c.tool, c.args, err)
		}
		var text strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if !res.IsError {
			t.Errorf("%s %v: no error: %s", c.tool, c.args, text.String())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(text.String(), w) {
				t.Errorf("%s %v: %q does not say %q", c.tool, c.args, text.String(), w)
			}
		}
	}
	// The bad remember stored nothing.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_facts", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_facts: %v %+v", err, res)
	}
	if s := res.Content[0].(*mcp.TextContent).Text; strings.Contains(s, "Leith") || strings.Contains(s, "bike") {
		t.Errorf("a refused call stored something: %s", s)
	}
}
