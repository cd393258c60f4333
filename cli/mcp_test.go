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
)

// mcpSession starts `mnemon mcp` as a subprocess (this test binary, see
// TestMain) and connects an MCP client to its stdin/stdout.
func mcpSession(t *testing.T, db, ns string) *mcp.ClientSession {
	t.Helper()
	args, err := json.Marshal([]string{"mcp", "--db", db, "--namespace", ns})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MNEMON_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, serveChildEnv+"="+string(args))
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	client := mcp.NewClient(&mcp.Implementation{Name: "mnemon-test", Version: "v0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := session.Close(); err != nil {
			t.Logf("close: %v (stderr: %s)", err, stderr.String())
		}
	})
	return session
}

// callTool calls a tool and decodes its structured output into out (when
// out is not nil); it returns the result for its text and error flag.
func callTool(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	if out != nil && !res.IsError {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: structured output %s: %v", name, raw, err)
		}
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPStdio holds a real MCP conversation with `mnemon mcp` over a
// subprocess's stdio: initialize, tools/list, and tools/call of every
// tool, including bad arguments and another namespace's ids.
func TestMCPStdio(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mnemon.db")
	alice := mcpSession(t, db, "alice")

	if got := alice.InitializeResult().ServerInfo.Name; got != "mnemon" {
		t.Errorf("server name %q", got)
	}
	list, err := alice.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s lacks a typed input or output schema", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"explain", "feedback", "forget", "history", "list_facts", "recall", "remember"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	var rem struct {
		Outcomes []struct {
			MemoryID  string `json:"memory_id"`
			Operation string
		}
	}
	res := callTool(t, alice, "remember", map[string]any{"text": "I live in Lisbon."}, &rem)
	if res.IsError || len(rem.Outcomes) == 0 || rem.Outcomes[0].MemoryID == "" {
		t.Fatalf("remember: %s %+v", resultText(res), rem)
	}
	memID := rem.Outcomes[0].MemoryID
	if !strings.Contains(resultText(res), memID) {
		t.Errorf("remember text %q does not name %s", resultText(res), memID)
	}

	var rec struct {
		RetrievalID string `json:"retrieval_id"`
		Items       []struct {
			MemoryID string `json:"memory_id"`
			Action   string
		}
	}
	res = callTool(t, alice, "recall", map[string]any{"query": "where do I live?", "token_budget": 300}, &rec)
	if res.IsError || !strings.Contains(resultText(res), "Lisbon") || !strings.HasPrefix(rec.RetrievalID, "ret_") {
		t.Fatalf("recall: %s %+v", resultText(res), rec)
	}
	if !slices.ContainsFunc(rec.Items, func(it struct {
		MemoryID string `json:"memory_id"`
		Action   string
	}) bool {
		return it.MemoryID == memID
	}) {
		t.Errorf("recall items %+v lack %s", rec.Items, memID)
	}

	var fb struct {
		Applied []struct {
			MemoryID        string  `json:"memory_id"`
			UsefulnessAfter float64 `json:"usefulness_after"`
		}
	}
	res = callTool(t, alice, "feedback", map[string]any{"retrieval_id": rec.RetrievalID, "outcome": "helpful", "memory_ids": []string{memID}}, &fb)
	if res.IsError || len(fb.Applied) != 1 || fb.Applied[0].UsefulnessAfter <= 0.5 {
		t.Fatalf("feedback: %s %+v", resultText(res), fb)
	}
	res = callTool(t, alice, "explain", map[string]any{"id": memID}, nil)
	if res.IsError || !strings.Contains(resultText(res), rec.RetrievalID) || res.StructuredContent == nil {
		t.Fatalf("explain does not show the feedback: %s", resultText(res))
	}
	res = callTool(t, alice, "explain", map[string]any{"id": rec.RetrievalID}, nil)
	if res.IsError || !strings.Contains(resultText(res), memID) {
		t.Fatalf("explain of the retrieval: %s", resultText(res))
	}

	var facts struct {
		Facts []struct {
			MemoryID string `json:"memory_id"`
			Value    string
		}
	}
	res = callTool(t, alice, "list_facts", map[string]any{"subject": "user"}, &facts)
	if res.IsError || len(facts.Facts) != 1 || facts.Facts[0].MemoryID != memID {
		t.Fatalf("list_facts: %s %+v", resultText(res), facts)
	}

	callTool(t, alice, "remember", map[string]any{"text": "I moved to Porto."}, nil)
	var hist struct {
		Versions []struct{ Value, Status string }
	}
	res = callTool(t, alice, "history", map[string]any{"id": memID}, &hist)
	if res.IsError || len(hist.Versions) != 2 || hist.Versions[0].Status != "superseded" {
		t.Fatalf("history: %s %+v", resultText(res), hist)
	}

	// Bad arguments are tool errors the model can read, not crashes.
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"recall", map[string]any{"query": 5}, "query"},
		{"recall", map[string]any{}, "query"},
		{"recall", map[string]any{"query": "x", "as_of": "yesterday"}, "RFC 3339"},
		{"recall", map[string]any{"query": "x", "known_at": "yesterday"}, "known_at"},
		{"recall", map[string]any{"query": "x", "limit": -3}, "limit"},
		{"remember", map[string]any{"text": "I use vim", "criticality": "urgent"}, "criticality"},
		{"history", map[string]any{"id": "mem_01m8qeea91c3d3mf3kfe00zzzz"}, "not found"},
		{"forget", map[string]any{"id": "not an id"}, ""},
		{"feedback", map[string]any{"retrieval_id": rec.RetrievalID, "outcome": "great"}, "outcome"},
		{"feedback", map[string]any{"retrieval_id": "ret_01m8qeea91c3d3mf3kfe00zzzz", "outcome": "helpful"}, "not found"},
		{"explain", map[string]any{}, "id"},
	} {
		res := callTool(t, alice, tc.tool, tc.args, nil)
		if !res.IsError || !strings.Contains(resultText(res), tc.want) {
			t.Errorf("%s %v: error=%v %q, want a tool error mentioning %q", tc.tool, tc.args, res.IsError, resultText(res), tc.want)
		}
	}

	// A session bound to another namespace cannot see or forget alice's
	// memories, and alice cannot reach bob's.
	bob := mcpSession(t, db, "bob")
	var bobRem struct {
		Outcomes []struct {
			MemoryID string `json:"memory_id"`
		}
	}
	callTool(t, bob, "remember", map[string]any{"text": "I prefer tea."}, &bobRem)
	if len(bobRem.Outcomes) == 0 || bobRem.Outcomes[0].MemoryID == "" {
		t.Fatalf("bob remember: %+v", bobRem)
	}
	bobID := bobRem.Outcomes[0].MemoryID
	for _, tc := range []struct {
		s    *mcp.ClientSession
		tool string
		id   string
	}{{bob, "forget", memID}, {bob, "history", memID}, {alice, "forget", bobID}} {
		res := callTool(t, tc.s, tc.tool, map[string]any{"id": tc.id}, nil)
		if !res.IsError || !strings.Contains(resultText(res), "not found in namespace") {
			t.Errorf("%s of a foreign id: error=%v %q", tc.tool, res.IsError, resultText(res))
		}
	}
	res = callTool(t, bob, "recall", map[string]any{"query": "where do I live?"}, nil)
	if strings.Contains(resultText(res), "Lisbon") || strings.Contains(resultText(res), "Porto") {
		t.Errorf("bob recalled alice's memory: %s", resultText(res))
	}
	res = callTool(t, bob, "history", map[string]any{"id": bobID}, nil)
	if res.IsError || !strings.Contains(resultText(res), "tea") {
		t.Errorf("bob's memory after alice's forget attempt: %s", resultText(res))
	}

	var gone struct{ Versions []string }
	res = callTool(t, alice, "forget", map[string]any{"id": memID}, &gone)
	if res.IsError || len(gone.Versions) != 2 {
		t.Fatalf("forget: %s %+v", resultText(res), gone)
	}
	res = callTool(t, alice, "recall", map[string]any{"query": "where do I live?"}, nil)
	if strings.Contains(resultText(res), "Porto") {
		t.Errorf("recall after forget still has it: %s", resultText(res))
	}
}
