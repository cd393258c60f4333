package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/internal/testutil"
	"github.com/mnemon-dev/mnemon/mcpserver"
)

// mcpChild runs `mnemon mcp` args in a child process (this test binary,
// as TestMain dispatches serveChildEnv) and connects an MCP client to its
// stdin and stdout: the conversation an agent host has with it.
func mcpChild(t *testing.T, ctx context.Context, args ...string) *mcp.ClientSession {
	t.Helper()
	argsJSON, err := json.Marshal(append([]string{"mcp"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MNEMON_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, serveChildEnv+"="+string(argsJSON))
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "mnemon-test", Version: "1"}, nil)
	sess, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to mnemon %v: %v; stderr:\n%s", args, err, stderr.String())
	}
	t.Cleanup(func() {
		if err := sess.Close(); err != nil {
			t.Errorf("close mnemon mcp: %v; stderr:\n%s", err, stderr.String())
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("mnemon mcp exited %v; stderr:\n%s", cmd.ProcessState, stderr.String())
		}
	})
	return sess
}

// callTool calls a tool that must succeed and decodes its structured
// output into out; it returns the readable text.
func callTool(t *testing.T, ctx context.Context, s *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	txt := toolText(res)
	if res.IsError {
		t.Fatalf("%s %v: tool error %s", name, args, txt)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: structured output %s: %v", name, data, err)
	}
	if txt == "" {
		t.Fatalf("%s: no readable text", name)
	}
	return txt
}

// toolError calls a tool that must fail as a tool (not as the protocol)
// and returns the error's text.
func toolError(t *testing.T, ctx context.Context, s *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v, want a tool error", name, args, err)
	}
	if !res.IsError {
		t.Fatalf("%s %v: succeeded (%s), want a tool error", name, args, toolText(res))
	}
	return toolText(res)
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPStdio holds a real MCP conversation with `mnemon mcp` over a
// child process's stdio: initialize, tools/list, every tool, bad
// arguments, and the namespace binding.
func TestMCPStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns mnemon mcp child processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db := filepath.Join(t.TempDir(), "m.db")
	a := mcpChild(t, ctx, "--db", db, "--namespace", "alice")

	// initialize
	init := a.InitializeResult()
	if init.ServerInfo.Name != "mnemon" || !strings.Contains(init.Instructions, "namespace alice") {
		t.Fatalf("initialize: %+v", init)
	}

	// tools/list: every tool with typed input and output schemas.
	list, err := a.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		if tool.Description == "" || !strings.Contains(string(in), `"properties"`) || !strings.Contains(string(out), `"properties"`) {
			t.Errorf("tool %s: description %q, input %s, output %s", tool.Name, tool.Description, in, out)
		}
		if tool.Name == "recall" && !strings.Contains(string(in), `"required":["query"]`) {
			t.Errorf("recall input schema does not require query: %s", in)
		}
	}
	slices.Sort(names)
	if want := []string{"forget", "history", "list_facts", "recall", "remember"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	// remember
	var rem mcpserver.RememberOutput
	txt := callTool(t, ctx, a, "remember", map[string]any{"text": "Atlas uses pnpm", "project_id": "atlas"}, &rem)
	if len(rem.Memories) == 0 || rem.Memories[0].Operation != "ADD" || !strings.HasPrefix(rem.Memories[0].MemoryID, "mem_") ||
		!strings.Contains(txt, "ADD") {
		t.Fatalf("remember: %+v %q", rem, txt)
	}
	pnpm := rem.Memories[0].MemoryID
	var ed1, ed2 mcpserver.RememberOutput
	callTool(t, ctx, a, "remember", map[string]any{"text": "I prefer vim", "key": "prefers:editor", "subject": "user", "value": "vim", "type": "preference"}, &ed1)
	callTool(t, ctx, a, "remember", map[string]any{"text": "I now prefer helix", "key": "prefers:editor", "subject": "user", "value": "helix", "type": "preference"}, &ed2)
	if ed2.Memories[0].Operation != "SUPERSEDE" || ed2.Memories[0].MemoryID != ed1.Memories[0].MemoryID {
		t.Fatalf("second editor: %+v after %+v", ed2, ed1)
	}
	editor := ed1.Memories[0].MemoryID

	// recall
	var rec mcpserver.RecallOutput
	txt = callTool(t, ctx, a, "recall", map[string]any{"query": "which package manager does Atlas use?", "budget": 200, "limit": 3, "project_id": "atlas"}, &rec)
	if !strings.HasPrefix(rec.RetrievalID, "ret_") || len(rec.Items) == 0 || rec.Items[0].MemoryID != pnpm || !strings.Contains(txt, "pnpm") {
		t.Fatalf("recall: %+v %q", rec, txt)
	}
	callTool(t, ctx, a, "recall", map[string]any{"query": "which editor do I prefer?", "as_of": "2020-01-01", "include_history": true}, &rec)

	// list_facts and history
	var facts mcpserver.FactsOutput
	callTool(t, ctx, a, "list_facts", map[string]any{"subject": "user"}, &facts)
	if len(facts.Facts) != 1 || facts.Facts[0].Value != "helix" {
		t.Fatalf("list_facts: %+v", facts)
	}
	callTool(t, ctx, a, "list_facts", map[string]any{"subject": "user", "include_history": true}, &facts)
	if len(facts.Facts) != 2 {
		t.Fatalf("list_facts with history: %+v", facts)
	}
	var hist mcpserver.HistoryOutput
	txt = callTool(t, ctx, a, "history", map[string]any{"id": editor}, &hist)
	if len(hist.Versions) != 2 || hist.Versions[0].Value != "vim" || hist.Versions[0].Status != "superseded" ||
		hist.Versions[1].Value != "helix" || hist.Versions[1].Operation != "SUPERSEDE" || !strings.Contains(txt, "v2 SUPERSEDE") {
		t.Fatalf("history: %+v %q", hist, txt)
	}

	// Bad arguments are tool errors, and the server keeps serving.
	for _, bad := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"recall", map[string]any{"query": 42}, "query"},
		{"recall", map[string]any{}, "query"},
		{"recall", map[string]any{"query": "x", "limit": 5000}, "limit"},
		{"recall", map[string]any{"query": "x", "as_of": "last tuesday"}, "as_of"},
		{"recall", map[string]any{"query": "   "}, "empty"},
		{"remember", map[string]any{"text": ""}, "empty"},
		{"remember", map[string]any{"text": "x", "unknown": 1}, "unknown"},
		{"forget", map[string]any{"id": "mem_nope"}, "not found"},
		{"history", map[string]any{"id": ""}, "empty"},
		{"list_facts", map[string]any{"limit": -1}, "limit"},
	} {
		if msg := toolError(t, ctx, a, bad.tool, bad.args); !strings.Contains(msg, bad.want) {
			t.Errorf("%s %v: error %q does not mention %q", bad.tool, bad.args, msg, bad.want)
		}
	}
	if _, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "purge_everything", Arguments: map[string]any{}}); err == nil {
		t.Error("an unknown tool answered without error")
	}

	// Namespace binding: a server bound to bob on the same file cannot
	// see, recall or forget alice's memories.
	b := mcpChild(t, ctx, "--db", db, "--namespace", "bob")
	if msg := toolError(t, ctx, b, "forget", map[string]any{"id": pnpm}); !strings.Contains(msg, "not found in namespace bob") {
		t.Errorf("bob forgets alice's memory: %q", msg)
	}
	if msg := toolError(t, ctx, b, "history", map[string]any{"id": editor}); !strings.Contains(msg, "not found") {
		t.Errorf("bob reads alice's history: %q", msg)
	}
	var bobFacts mcpserver.FactsOutput
	callTool(t, ctx, b, "list_facts", map[string]any{}, &bobFacts)
	var bobRec mcpserver.RecallOutput
	callTool(t, ctx, b, "recall", map[string]any{"query": "which package manager does Atlas use?"}, &bobRec)
	if len(bobFacts.Facts) != 0 || len(bobRec.Items) != 0 {
		t.Fatalf("bob sees alice: facts %+v, recall %+v", bobFacts, bobRec)
	}

	// forget, in alice's own namespace
	var gone mcpserver.ForgetOutput
	callTool(t, ctx, a, "forget", map[string]any{"id": pnpm}, &gone)
	if gone.MemoryID != pnpm || len(gone.Versions) != 1 {
		t.Fatalf("forget: %+v", gone)
	}
	callTool(t, ctx, a, "forget", map[string]any{"id": pnpm}, &gone)
	if len(gone.Versions) != 0 {
		t.Fatalf("second forget changed something: %+v", gone)
	}
	callTool(t, ctx, a, "recall", map[string]any{"query": "which package manager does Atlas use?", "project_id": "atlas"}, &rec)
	for _, it := range rec.Items {
		if it.MemoryID == pnpm {
			t.Fatalf("a forgotten memory was recalled: %+v", rec)
		}
	}
}
