package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/internal/clock"
)

var updateWire = flag.Bool("update-wire", false, "rewrite httpapi/testdata/wire from the server's answers")

// TestWireGolden drives every endpoint (and every MCP tool) of a real
// server on loopback through one story and compares each answer, byte for
// byte, with testdata/wire. It is the proof that the wire format does not
// move when the types behind it do: field names, field order, omitempty,
// time and number formats. Only what differs from run to run is
// normalised: ids (numbered by first appearance, so which id is which
// still shows), River's job times and a trace's duration.
//
// A deliberate change of the wire format is rewritten with
// go test ./httpapi -run TestWireGolden -update-wire, and shows in the diff.
func TestWireGolden(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 30, 0, 123456789, time.UTC)
	f := e2eOpen(t, e2eOptions{clock: clock.NewManual(now), mcp: true})
	g := &wireGolden{t: t, ids: map[string]string{}, seq: map[string]int{}}
	at := func(day, minute int) string {
		return time.Date(2026, 2, day, 10, minute, 0, 0, time.UTC).Format(time.RFC3339)
	}

	// Three successful deploy sessions and a failing one, for procedures;
	// the first is consolidated later.
	var firstJob, firstSession string
	for i, outcome := range []string{"success", "success", "success", "failure"} {
		session := fmt.Sprintf("deploy-%d", i+1)
		r := f.e2eDo(t, "POST", "/v1/episodes?wait=true", map[string]any{
			"session_id": session, "user_id": "u1", "project_id": "atlas",
			"events": []map[string]any{
				{"kind": "user_message", "content": "I work at Initech and I prefer vim as my editor.", "occurred_at": at(10+i, 0)},
				{"kind": "agent_message", "content": "Noted: vim it is.", "occurred_at": at(10+i, 1), "speaker": "assistant"},
				{"kind": "tool_call", "content": "run make build && make test <fast>", "occurred_at": at(10+i, 2), "metadata": map[string]string{"tool": "shell"}},
				{"kind": "tool_call", "content": "run make deploy", "occurred_at": at(10+i, 3)},
				{"kind": "task_result", "content": "deploy " + outcome, "occurred_at": at(10+i, 4),
					"metadata": map[string]string{"task_type": "deploy_atlas", "outcome": outcome}},
			},
		})
		g.check("capture_"+session, r)
		if i == 0 {
			firstJob, firstSession = g.field(r, "job_id"), session
		}
	}
	noWait := f.e2eDo(t, "POST", "/v1/episodes", map[string]any{
		"events": []map[string]any{{"kind": "observation", "content": "The build server is slow on Mondays.", "occurred_at": at(20, 0)}},
	})
	g.check("capture_no_wait", noWait)
	// Ids sort by creation: let the extraction finish before anything
	// else is written, so the export's order is the same every run.
	waitCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := f.queue.Wait(waitCtx, "default", g.field(noWait, "job_id")); err != nil {
		t.Fatal(err)
	}
	g.check("job", f.e2eDo(t, "GET", "/v1/jobs/"+firstJob, nil))

	rem := f.e2eDo(t, "POST", "/v1/memories", map[string]any{
		"text": "I use pnpm as my package manager.", "user_id": "u1", "observed_at": at(21, 0)})
	g.check("remember_statement", rem)
	g.check("remember_keyed", f.e2eDo(t, "POST", "/v1/memories", map[string]any{
		"text": "Bob lives in Berlin.", "subject": "bob", "key": "lives_in", "value": "Berlin",
		"type": "fact", "criticality": "high", "confidence": 0.8, "valid_from": at(1, 0), "observed_at": at(22, 0)}))
	moved := f.e2eDo(t, "POST", "/v1/memories", map[string]any{
		"text": "Bob lives in Lisbon now.", "subject": "bob", "key": "lives_in", "value": "Lisbon", "observed_at": at(23, 0)})
	g.check("remember_supersede", moved)
	g.check("remember_question", f.e2eDo(t, "POST", "/v1/memories", map[string]any{"text": "Where does Bob live?", "observed_at": at(23, 5)}))
	mem := g.field(rem, "memory_id")
	bob := g.field(moved, "memory_id")

	ret := f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{
		"query": "which editor and package manager does the user prefer", "user_id": "u1", "project_id": "atlas", "limit": 5})
	g.check("retrieve", ret)
	g.check("retrieve_history", f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{
		"query": "where does bob live", "include_history": true, "as_of": at(22, 30), "context_turns": 0}))
	retID := g.field(ret, "retrieval_id")
	g.check("trace", f.e2eDo(t, "GET", "/v1/retrievals/"+retID, nil))

	g.check("memories", f.e2eDo(t, "GET", "/v1/memories", nil))
	g.check("memories_history", f.e2eDo(t, "GET", "/v1/memories?include_history=true&subject=bob&limit=10", nil))
	g.check("memory", f.e2eDo(t, "GET", "/v1/memories/"+bob, nil))
	g.check("memory_by_version", f.e2eDo(t, "GET", "/v1/memories/"+g.field(moved, "version.id"), nil))
	g.check("memory_episode", f.e2eDo(t, "GET", "/v1/memories/"+g.field(rem, "episode_id"), nil))

	g.check("feedback", f.e2eDo(t, "POST", "/v1/retrievals/"+retID+"/feedback", map[string]any{
		"outcome": "helpful", "output": "Use vim and pnpm.", "source": "user"}))
	g.check("feedback_repeat", f.e2eDo(t, "POST", "/v1/retrievals/"+retID+"/feedback", map[string]any{
		"outcome": "helpful", "output": "Use vim and pnpm.", "source": "user"}))
	g.check("explain_memory", f.e2eDo(t, "GET", "/v1/memories/"+bob+"/explain", nil))
	g.check("explain_retrieval", f.e2eDo(t, "GET", "/v1/memories/"+retID+"/explain", nil))

	g.check("graph", f.e2eDo(t, "GET", "/v1/graph/neighborhood?entity=bob&hops=2&include_history=true", nil))
	g.check("graph_as_of", f.e2eDo(t, "GET", "/v1/graph/neighborhood?entity=user&as_of="+at(22, 30), nil))

	g.check("procedures_promote", f.e2eDo(t, "POST", "/v1/procedures/promote", nil))
	g.check("procedures", f.e2eDo(t, "GET", "/v1/procedures", nil))

	g.check("lifecycle", f.e2eDo(t, "POST", "/v1/lifecycle/run", map[string]any{"dry_run": true, "dedupe": true, "dedupe_threshold": 0.5}))
	g.check("lifecycle_empty", f.e2eDo(t, "POST", "/v1/lifecycle/run", nil))
	g.check("consolidate", f.e2eDo(t, "POST", "/v1/sessions/"+firstSession+"/consolidate", map[string]any{"force": true}))
	g.check("consolidate_too_recent", f.e2eDo(t, "POST", "/v1/sessions/deploy-2/consolidate", nil))

	// MCP tool results, structured content and text.
	s, err := mcpConnect(t, f, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range []struct {
		file, name string
		args       map[string]any
	}{
		{"mcp_recall", "recall", map[string]any{"query": "what editor does the user prefer", "user_id": "u1"}},
		{"mcp_remember", "remember", map[string]any{"text": "Carol works at Globex.", "subject": "carol", "key": "works_at", "value": "Globex"}},
		{"mcp_list_facts", "list_facts", map[string]any{"subject": "bob", "include_history": true}},
		{"mcp_history", "history", map[string]any{"id": bob}},
		{"mcp_explain_memory", "explain", map[string]any{"id": mem}},
		{"mcp_explain_retrieval", "explain", map[string]any{"id": retID}},
		{"mcp_feedback", "feedback", map[string]any{"retrieval_id": retID, "outcome": "unused"}},
		{"mcp_forget", "forget", map[string]any{"id": mem}},
	} {
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: call.name, Arguments: call.args})
		if err != nil {
			t.Fatalf("%s: %v", call.name, err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		structured, err := json.MarshalIndent(res.StructuredContent, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		g.compare(call.file, fmt.Sprintf("error: %v\n%s\n\n%s\n", res.IsError, text.String(), structured))
	}

	g.check("forget", f.e2eDo(t, "DELETE", "/v1/memories/"+bob, nil))
	g.check("forget_again", f.e2eDo(t, "DELETE", "/v1/memories/"+bob, nil))
	export := f.e2eDo(t, "GET", "/v1/export", nil)
	g.check("export", export)
	g.check("import", f.e2eDo(t, "POST", "/v1/import", export.body, "X-Mnemon-Namespace", "copy", "Content-Type", "application/x-ndjson"))
	g.check("not_found", f.e2eDo(t, "GET", "/v1/memories/mem_nothing", nil))
	g.check("healthz", f.e2eDo(t, "GET", "/healthz", nil))
	g.check("readyz", f.e2eDo(t, "GET", "/readyz", nil))
}

// wireGolden compares answers with testdata/wire.
type wireGolden struct {
	t   *testing.T
	ids map[string]string // real id -> placeholder
	seq map[string]int    // prefix -> placeholders handed out
}

var (
	wireID = regexp.MustCompile(`\b(mem|ver|ep|adm|ret|fb|job)_[0-9a-z]{26}\b`)
	// River stamps jobs with the wall clock.
	wireJobTime  = regexp.MustCompile(`"(created_at|scheduled_at|finished_at)": "[^"]+"`)
	wireDuration = regexp.MustCompile(`"duration_us":\s?\d+`)
	wireReqID    = regexp.MustCompile(`"request_id":"[^"]+"`)
)

// normalise replaces what changes from run to run.
func (g *wireGolden) normalise(s string, job bool) string {
	s = wireID.ReplaceAllStringFunc(s, func(id string) string {
		if p, ok := g.ids[id]; ok {
			return p
		}
		prefix, _, _ := strings.Cut(id, "_")
		g.seq[prefix]++
		p := fmt.Sprintf("%s_<%d>", prefix, g.seq[prefix])
		g.ids[id] = p
		return p
	})
	if job {
		s = wireJobTime.ReplaceAllString(s, `"$1": "<river time>"`)
	}
	s = wireDuration.ReplaceAllString(s, `"duration_us":<n>`)
	return wireReqID.ReplaceAllString(s, `"request_id":"<request id>"`)
}

// check compares a response's status, content type and body.
func (g *wireGolden) check(name string, r *e2eResp) {
	g.t.Helper()
	body := string(r.body)
	job := name == "job"
	if job {
		// Only the job's times are River's: indent to find them.
		var b bytes.Buffer
		if err := json.Indent(&b, r.body, "", "  "); err != nil {
			g.t.Fatalf("%s: %v: %s", name, err, r.body)
		}
		body = b.String()
	}
	g.compare(name, fmt.Sprintf("%d %s\n%s", r.status, r.header.Get("Content-Type"), g.normalise(body, job)))
}

func (g *wireGolden) compare(name, got string) {
	g.t.Helper()
	got = g.normalise(got, false)
	path := filepath.Join("testdata", "wire", name+".txt")
	if *updateWire {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			g.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		g.t.Fatalf("%s: %v (rewrite with -update-wire)", name, err)
	}
	if got != string(want) {
		g.t.Errorf("%s: the answer changed:\n%s", name, firstDifference(got, string(want)))
	}
}

// firstDifference shows the first line where got and want part.
func firstDifference(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			at := 0
			for at < min(len(g), len(w)) && g[at] == w[at] {
				at++
			}
			from := max(0, at-200)
			return fmt.Sprintf("line %d, byte %d:\n got: …%s\nwant: …%s", i+1, at, g[from:min(len(g), at+300)], w[from:min(len(w), at+300)])
		}
	}
	return "(equal)"
}

// field reads a string member (a.b for nested) of a JSON answer.
func (g *wireGolden) field(r *e2eResp, path string) string {
	g.t.Helper()
	var v any
	if err := json.Unmarshal(r.body, &v); err != nil {
		g.t.Fatalf("%s: %v", r.body, err)
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			g.t.Fatalf("no %s in %s", path, r.body)
		}
		v = m[k]
	}
	s, ok := v.(string)
	if !ok || s == "" {
		g.t.Fatalf("no %s in %s", path, r.body)
	}
	return s
}
