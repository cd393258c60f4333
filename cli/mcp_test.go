package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
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
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "mnemon.db"))
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
	if want := []string{"explain", "feedback", "forget", "history", "list_facts", "recall", "remember", "respond"}; !slices.Equal(names, want) {
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
		// A guessed argument name: the error names the one meant.
		{"recall", map[string]any{"q": "what's my cat called"}, `invalid_request: recall takes no argument "q" (did you mean "query"?)`},
		{"remember", map[string]any{"content": "my cat is called Pistachio"}, `(did you mean "text"?); its arguments are text (required)`},
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

// TestMCPStdioBadLines feeds `mnemon mcp` lines an MCP client should not
// send: each gets its JSON-RPC error (-32700 for what is not JSON, -32600
// for a batch or a message that is not JSON-RPC, or one over the size
// limit), and the server keeps answering the lines after it.
func TestMCPStdioBadLines(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "mnemon.db"))
	args, err := json.Marshal([]string{"mcp", "--db", db})
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
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	replies := bufio.NewScanner(stdout)
	replies.Buffer(nil, 1<<20)

	type reply struct {
		ID     json.RawMessage
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	send := func(line string) reply {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write %.40q: %v (stderr: %s)", line, err, stderr.String())
		}
		if !replies.Scan() {
			t.Fatalf("no answer to %.40q: %v (stderr: %s)", line, replies.Err(), stderr.String())
		}
		var r reply
		if err := json.Unmarshal(replies.Bytes(), &r); err != nil {
			t.Fatalf("answer to %.40q is not one JSON-RPC response: %s", line, replies.Bytes())
		}
		return r
	}

	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if r := send("not json"); r.Error == nil || r.Error.Code != -32700 || string(r.ID) != "null" {
		t.Fatalf("a line that is not JSON: %+v", r)
	}
	if r := send(initialize); r.Error != nil || string(r.ID) != "1" {
		t.Fatalf("initialize after a bad line: %+v", r)
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n\n  \n"+
		// A response to nothing the server asked is dropped, unanswered.
		`{"jsonrpc":"2.0","id":99,"result":{}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		code int
		id   string
	}{
		{`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600, "null"},
		{`[]`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":4,"method":`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":5}`, -32600, "5"},
		{`{"jsonrpc":"1.0","id":"six","method":"ping"}`, -32600, `"six"`},
		{`{"id":{"x":1},"method":"ping"}`, -32600, "null"},
		{`"just a string"`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":7,"method":"ping"} {"jsonrpc":"2.0","id":8,"method":"ping"}`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("x", mcp.DefaultMaxLineLength) + `"}}`, -32600, "null"},
	} {
		r := send(tc.line)
		if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
			t.Errorf("%.60s: answer %+v, want error %d with id %s", tc.line, r, tc.code, tc.id)
		}
		// The server still serves: a ping after each bad line is answered.
		if r := send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`); r.Error != nil || string(r.ID) != `"p"` {
			t.Fatalf("ping after %.60s: %+v", tc.line, r)
		}
	}
	r := send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"remember","arguments":{"text":"I live in Lisbon."}}}`)
	if r.Error != nil || !strings.Contains(string(r.Result), "Lisbon") {
		t.Fatalf("remember after the bad lines: %+v %s", r, r.Result)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mnemon mcp exit: %v (stderr: %s)", err, stderr.String())
	}
}
