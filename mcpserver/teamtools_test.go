package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A coding agent remembers what the project uses and asks in the first
// person: "which package manager should I use?" is answered by "the repo
// uses pnpm", not by a later change of something else the question barely
// touches.
func TestRecallFirstPersonFindsTheTeamsTool(t *testing.T) {
	cs := connect(t, testEngine(t), false)
	for _, text := range []string{
		"the repo uses pnpm, not npm, please",
		"we're on node 20 for now",
		"scratch that, node 22 since last week",
		"my on-call week is the 9th to the 16th",
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": text, "session_id": "setup"}})
		if err != nil || res.IsError {
			t.Fatalf("remember %q: %v %+v", text, err, res)
		}
	}
	if got := recallContents(t, cs, "which package manager should I use?", "task-7"); len(got) == 0 || !strings.Contains(got[0], "pnpm") {
		t.Errorf("top %q, want pnpm first", got)
	}
}
