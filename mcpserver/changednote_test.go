package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Statements no rule reads are kept by remember as notes; a later note
// that says the value changed answers "… now?" and "do I still …?" before
// the note it replaced, as a later turn does.
func TestRecallNowPutsTheChangedNoteFirst(t *testing.T) {
	cs := connect(t, testEngine(t), false)
	ctx := context.Background()
	cases := []struct{ before, after, q, want string }{
		{"the alarm code at the studio is 5512", "changed the studio alarm code to 3307, the old one leaked", "what's the studio alarm code now?", "3307"},
		{"I do the crossword every morning with my coffee", "quit doing crosswords last month, too frustrating", "do I still do crosswords?", "quit"},
	}
	for _, c := range cases {
		for _, text := range []string{c.before, c.after} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": text, "session_id": "chat-1"}})
			if err != nil || res.IsError {
				t.Fatalf("remember %q: %v %+v", text, err, res)
			}
		}
		got := recallContents(t, cs, c.q, "chat-2")
		if len(got) == 0 || !strings.Contains(got[0], c.want) {
			t.Errorf("%q: top %q, want the one saying %q first (%q)", c.q, got, c.want, got)
		}
	}
}

// recallContents calls recall as an agent does, from session, and returns
// its items' contents in order.
func recallContents(t *testing.T, cs *mcp.ClientSession, query, session string) []string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": query, "session_id": session}})
	if err != nil || res.IsError {
		t.Fatalf("recall %q: %v %+v", query, err, res)
	}
	var out RecallOutput
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range out.Items {
		got = append(got, it.Content)
	}
	return got
}
