package mcpserver

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/engine/enginetest"
)

// connect serves a server of eng on in-memory transports and returns a
// client session; viaSDK registers its tools with mcp.AddTool.
func connect(t *testing.T, eng *engine.Engine, viaSDK bool) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	registerViaSDK = viaSDK
	srv := New(eng, Binding{Namespace: "team", CanWrite: true}, Options{})
	registerViaSDK = false
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func testEngine(t *testing.T) *engine.Engine { return enginetest.Temp(t) }

// ids are the generated parts of an answer (memory, version, episode,
// retrieval and change ids), which differ between two calls.
var ids = regexp.MustCompile(`\b(mem|ver|ep|ret|chg|adm)_[0-9A-Za-z]+`)

func callJSON(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "protocol error: " + err.Error()
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return ids.ReplaceAllString(string(raw), "$1_X")
}

// TestToolsMatchSDK checks that a server whose tools addTool registers is
// what mcp.AddTool would have made: the same tools/list (schemas
// included), and the same answers to good and bad calls.
func TestToolsMatchSDK(t *testing.T) {
	eng := testEngine(t)
	ours, sdk := connect(t, eng, false), connect(t, eng, true)
	ctx := context.Background()

	listOurs, err := ours.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listSDK, err := sdk.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(listOurs)
	b, _ := json.Marshal(listSDK)
	if string(a) != string(b) {
		t.Fatalf("tools/list differs:\nours %s\nsdk  %s", a, b)
	}

	// Both servers share one engine: each remember is made through one of
	// them, and the other's answer to the same text then reinforces
	// instead of adding, so remembers are compared on fresh texts.
	for i, c := range []struct {
		name string
		args any
	}{
		{"recall", map[string]any{"query": "which database do we run?"}},
		{"recall", map[string]any{"query": "database", "limit": 3, "token_budget": 500}},
		{"recall", map[string]any{}},
		{"recall", nil},
		{"recall", map[string]any{"query": 42}},
		{"recall", map[string]any{"query": "x", "limit": "ten"}},
		{"recall", map[string]any{"query": "x", "Limit": 3}},
		{"recall", map[string]any{"query": "x", "surprise": true}},
		{"recall", map[string]any{"query": "x", "as_of": "yesterday"}},
		{"recall", map[string]any{"query": "x", "limit": 1000}},
		{"list_facts", map[string]any{}},
		{"list_facts", map[string]any{"subject": "user", "include_history": true}},
		{"history", map[string]any{"id": "mem_nothing"}},
		{"history", map[string]any{}},
		{"explain", map[string]any{"id": "ret_nothing"}},
		{"forget", map[string]any{"id": "mem_nothing"}},
		{"feedback", map[string]any{"retrieval_id": "ret_nothing", "outcome": "helpful"}},
		{"feedback", map[string]any{"outcome": 3}},
		{"respond", map[string]any{"query": "what do we run?"}},
		{"remember", map[string]any{"text": 7}},
		{"remember", map[string]any{}},
		{"no_such_tool", map[string]any{}},
	} {
		if c.name == "recall" && i == 0 {
			// Something to find, stored once.
			callJSON(t, ours, "remember", map[string]any{"text": "We run PostgreSQL 16 for the billing service."})
			callJSON(t, ours, "remember", map[string]any{"text": "I prefer short answers."})
		}
		got, want := callJSON(t, ours, c.name, c.args), callJSON(t, sdk, c.name, c.args)
		if m, ok := c.args.(map[string]any); ok && (m["Limit"] != nil || m["surprise"] != nil) {
			// An argument the tool does not take: ours names it and the
			// arguments it takes (TestUnknownArgumentNamesTheMeantOne);
			// the SDK says only "unexpected additional properties".
			if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "invalid_request: recall takes no argument") {
				t.Errorf("%s %v: %s", c.name, c.args, got)
			}
			continue
		}
		if got != want {
			t.Errorf("%s %v:\nours %s\nsdk  %s", c.name, c.args, got, want)
		}
	}
	for i, text := range []string{"Our staging cluster moved to Frankfurt last month.", "I can't eat peanuts."} {
		got := callJSON(t, ours, "remember", map[string]any{"text": text, "session_id": "s1"})
		eng2 := testEngine(t)
		want := callJSON(t, connect(t, eng2, true), "remember", map[string]any{"text": text, "session_id": "s1"})
		if got != want {
			t.Errorf("remember %d:\nours %s\nsdk  %s", i, got, want)
		}
	}
}

// TestToolOutputsConform checks every structured answer against the
// output schema its tool lists: addTool no longer checks it on each call.
func TestToolOutputsConform(t *testing.T) {
	eng := testEngine(t)
	cs := connect(t, eng, false)
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		raw, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s %v: %+v", name, args, res.Content)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		var anyV any = v
		if err := schemas[name].Validate(&anyV); err != nil {
			t.Errorf("%s: structured content does not conform to its output schema: %v\n%s", name, err, raw)
		}
		return v
	}
	// An empty namespace first: the recall's hint.
	call("recall", map[string]any{"query": "anything"})
	call("remember", map[string]any{"text": "I moved to Lisbon in March.", "session_id": "s1"})
	call("remember", map[string]any{"text": "Actually it was Porto, not Lisbon.", "session_id": "s1"})
	call("remember", map[string]any{"text": "Deploys go out on Tuesdays."})
	got := call("recall", map[string]any{"query": "where do I live?", "session_id": "s2"})
	items, _ := got["items"].([]any)
	if len(items) == 0 {
		t.Fatalf("recall found nothing: %v", got)
	}
	call("list_facts", map[string]any{"include_history": true})
	first := items[0].(map[string]any)
	call("history", map[string]any{"id": first["memory_id"]})
	call("explain", map[string]any{"id": first["memory_id"]})
	call("explain", map[string]any{"id": got["retrieval_id"]})
	call("feedback", map[string]any{"retrieval_id": got["retrieval_id"], "outcome": "helpful"})
	call("forget", map[string]any{"id": first["memory_id"]})
}
