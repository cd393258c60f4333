package httpapi_test

// The OpenAPI document: valid OpenAPI 3.1 by a real validator (libopenapi),
// internally consistent, equal to the committed docs/openapi.json, and true
// to the server: every response of every endpoint of a real server (SQLite
// file, River workers, loopback HTTP) validates against it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/jsonschema/v6"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/content"
	vErrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi/datamodel"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/jobs/jobstest"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

var oaUpdate = flag.Bool("update", false, "rewrite docs/openapi.json from the generated OpenAPI document")

// oaCommitted is the committed copy of the document, relative to this
// package's directory (where go test runs).
const oaCommitted = "../docs/openapi.json"

// oaEndpoints are the operations the API must document and serve (issue
// #3; SPEC §5 as far as the engine supports it now).
var oaEndpoints = []string{
	"POST /v1/episodes", "POST /v1/memories", "POST /v1/memories/retrieve",
	"GET /v1/memories", "GET /v1/memories/{id}", "DELETE /v1/memories/{id}",
	"GET /v1/retrievals/{id}", "GET /v1/jobs/{id}", "GET /v1/graph/neighborhood", "GET /v1/export", "POST /v1/import",
	"GET /healthz", "GET /readyz", "GET /metrics", "GET /openapi.json",
}

// oaFixture is a real server over its own SQLite file, with River workers.
type oaFixture struct {
	eng   *engine.Engine
	store *sqlite.Store
	queue *jobs.Queue
	api   *httpapi.Server
	srv   *httptest.Server
	// chat is the engine's chat model, a fake provider (agent/respond).
	chat *openaitest.Server
}

func oaOpen(t *testing.T) *oaFixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, jobstest.Path(t), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fake, chat := fakeChat(t)
	eng, err := engine.New(engine.Config{Store: st, Chat: chat})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	q, err := jobs.Open(ctx, jobs.Config{Driver: riversqlite.New(st.WriterDB()), TxOf: sqlite.SQLTx, Engine: eng,
		Workers: 2, PollInterval: 10 * time.Millisecond})
	if err == nil {
		err = q.Start(ctx)
	}
	if err != nil {
		eng.Close()
		st.Close()
		t.Fatal(err)
	}
	api, err := httpapi.New(httpapi.Config{Engine: eng, Keys: st, Queue: q, Ready: q.Ready,
		Logger: slog.New(slog.DiscardHandler), Limits: httpapi.Limits{RatePerSecond: 1e6, RateBurst: 1e6}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api) // loopback
	t.Cleanup(func() {
		srv.Close()
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := q.Stop(stop); err != nil {
			t.Error(err)
		}
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return &oaFixture{eng: eng, store: st, queue: q, api: api, srv: srv, chat: fake}
}

// TestOpenAPIDocument is the CI check that docs/openapi.json is current,
// and that the document is valid OpenAPI 3.1 and consistent.
func TestOpenAPIDocument(t *testing.T) {
	f := oaOpen(t)
	doc := f.api.OpenAPI() // Config.Version "" documents version "dev"

	served := oaGet(t, f.srv.URL+"/openapi.json")
	if !bytes.Equal(served, doc) {
		t.Error("GET /openapi.json differs from Server.OpenAPI()")
	}

	if *oaUpdate {
		if err := os.MkdirAll(filepath.Dir(oaCommitted), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(oaCommitted, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", oaCommitted)
	}
	committed, err := os.ReadFile(oaCommitted)
	switch {
	case errors.Is(err, os.ErrNotExist):
		t.Errorf("docs/openapi.json is missing; run: go test ./httpapi -run TestOpenAPIDocument -update")
	case err != nil:
		t.Fatal(err)
	case !bytes.Equal(committed, doc):
		t.Errorf("docs/openapi.json is not the generated document (first difference: %s); run: go test ./httpapi -run TestOpenAPIDocument -update",
			oaFirstDiff(committed, doc))
	}

	for _, p := range oaValidate(doc) {
		t.Error(p)
	}

	var d oaDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if d.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q, want 3.1.0", d.OpenAPI)
	}

	// Every endpoint is documented, and everything documented is served.
	ops := d.operations()
	for _, ep := range oaEndpoints {
		if _, ok := ops[ep]; !ok {
			t.Errorf("%s is not in the document", ep)
		}
	}
	for ep := range ops {
		method, path, _ := strings.Cut(ep, " ")
		status, code := oaProbe(t, f.srv.URL, method, strings.ReplaceAll(path, "{id}", "x_missing"))
		if status == http.StatusMethodNotAllowed || (status == http.StatusNotFound && code == httpapi.CodeNotFound && !strings.Contains(path, "{")) {
			t.Errorf("%s is documented but not served (%d %s)", ep, status, code)
		}
	}
	// And the server serves no other method on a documented path: the
	// catch-all answers 405.
	for _, path := range d.pathNames() {
		concrete := strings.ReplaceAll(path, "{id}", "x_missing")
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if d.serves(method, concrete) {
				continue
			}
			status, code := oaProbe(t, f.srv.URL, method, concrete)
			if status != http.StatusMethodNotAllowed || code != httpapi.CodeMethodNotAllowed {
				t.Errorf("%s %s answers %d %s, want 405 %s: served but not documented, or the catch-all route is wrong",
					method, concrete, status, code, httpapi.CodeMethodNotAllowed)
			}
		}
	}
	if status, code := oaProbe(t, f.srv.URL, "GET", "/v1/no-such-endpoint"); status != http.StatusNotFound || code != httpapi.CodeNotFound {
		t.Errorf("GET /v1/no-such-endpoint answers %d %s, want 404 %s", status, code, httpapi.CodeNotFound)
	}

	// operationIds are unique; path parameters are declared.
	ids := map[string]string{}
	for ep, op := range ops {
		if op.OperationID == "" {
			t.Errorf("%s has no operationId", ep)
		}
		if prev, ok := ids[op.OperationID]; ok {
			t.Errorf("operationId %q of %s is also %s's", op.OperationID, ep, prev)
		}
		ids[op.OperationID] = ep
		_, path, _ := strings.Cut(ep, " ")
		for _, m := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(path, -1) {
			found := false
			for _, p := range op.Parameters {
				found = found || (p.In == "path" && p.Name == m[1] && p.Required)
			}
			if !found {
				t.Errorf("%s: path parameter %s is not declared as a required path parameter", ep, m[1])
			}
		}
		if _, ok := op.Responses["default"]; !ok {
			t.Errorf("%s has no default (problem) response", ep)
		}
	}

	// Every $ref resolves, and every component schema is reachable from an
	// operation.
	var raw map[string]any
	if err := json.Unmarshal(doc, &raw); err != nil {
		t.Fatal(err)
	}
	for _, ref := range oaRefs(raw) {
		if _, ok := oaResolve(raw, ref); !ok {
			t.Errorf("$ref %s does not resolve", ref)
		}
	}
	reached := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		for _, ref := range oaRefs(v) {
			name, ok := strings.CutPrefix(ref, "#/components/schemas/")
			if !ok || reached[name] {
				continue
			}
			reached[name] = true
			if s, ok := oaResolve(raw, ref); ok {
				walk(s)
			}
		}
	}
	walk(raw["paths"])
	for name := range d.Components.Schemas {
		if !reached[name] {
			t.Errorf("components.schemas.%s is not used by any operation", name)
		}
	}
}

// oaValidate checks doc with libopenapi and returns what is wrong: it
// must parse as OpenAPI 3.1, build a v3 model without errors, index
// without reference errors, and validate against the OpenAPI 3.1
// specification schema.
func oaValidate(doc []byte) []string {
	cfg := datamodel.NewDocumentConfiguration()
	cfg.Logger = slog.New(slog.DiscardHandler) // what it finds comes back as errors
	d, err := libopenapi.NewDocumentWithConfiguration(doc, cfg)
	if err != nil {
		return []string{"libopenapi: " + err.Error()}
	}
	var out []string
	if v := d.GetSpecInfo().VersionNumeric; v != 3.1 {
		out = append(out, fmt.Sprintf("libopenapi reads version %v, want 3.1", v))
	}
	m, err := d.BuildV3Model()
	if err != nil {
		return append(out, "libopenapi: building the v3 model: "+err.Error())
	}
	for _, err := range m.Index.GetReferenceIndexErrors() {
		out = append(out, "libopenapi index: "+err.Error())
	}
	for _, err := range m.Index.GetOperationParametersIndexErrors() {
		out = append(out, "libopenapi index: "+err.Error())
	}
	v, errs := validator.NewValidator(d)
	if len(errs) > 0 {
		return append(out, fmt.Sprintf("libopenapi-validator: %v", errs))
	}
	ok, verrs := v.ValidateDocument()
	for _, e := range verrs {
		out = append(out, "OpenAPI 3.1: "+oaErr(e))
	}
	if !ok && len(verrs) == 0 {
		out = append(out, "OpenAPI 3.1: the document does not validate (no reason given)")
	}
	return append(out, oaSchemas(doc)...)
}

// oaSchemas checks that every schema in doc (components and inline) is
// valid JSON Schema 2020-12, which the OpenAPI 3.1 specification schema
// leaves to the schema dialect: it gathers them as $defs of one schema and
// compiles that, which validates it against the 2020-12 meta-schema.
func oaSchemas(doc []byte) []string {
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return []string{err.Error()}
	}
	defs := map[string]any{}
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "schema" && !strings.HasPrefix(at, ".components.schemas") {
					defs["inline"+at] = x
				} else {
					walk(at+"."+k, x)
				}
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", at, i), x)
			}
		}
	}
	walk("", raw)
	if comps, ok := raw.(map[string]any)["components"].(map[string]any); ok {
		if schemas, ok := comps["schemas"].(map[string]any); ok {
			for name, s := range schemas {
				defs[name] = s
			}
		}
	}
	b, err := json.Marshal(map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs})
	if err != nil {
		return []string{err.Error()}
	}
	b = bytes.ReplaceAll(b, []byte(`"#/components/schemas/`), []byte(`"#/$defs/`))
	all, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return []string{err.Error()}
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///openapi-schemas.json", all); err != nil {
		return []string{err.Error()}
	}
	if _, err := c.Compile("mem:///openapi-schemas.json"); err != nil {
		return []string{"JSON Schema 2020-12: " + err.Error()}
	}
	return nil
}

// TestOpenAPIValidatorCatches shows the document checks are live: broken
// copies of the document fail them.
func TestOpenAPIValidatorCatches(t *testing.T) {
	doc, err := os.ReadFile(oaCommitted)
	if err != nil {
		t.Skipf("%v (TestOpenAPIDocument reports it)", err)
	}
	for name, broken := range map[string]func(map[string]any){
		"no info": func(d map[string]any) { delete(d, "info") },
		"dangling $ref": func(d map[string]any) {
			d["components"].(map[string]any)["schemas"].(map[string]any)["Health"] = map[string]any{"$ref": "#/components/schemas/Nowhere"}
		},
		"bad schema type": func(d map[string]any) {
			d["components"].(map[string]any)["schemas"].(map[string]any)["Health"] = map[string]any{"type": 42}
		},
		"bad response": func(d map[string]any) {
			d["paths"].(map[string]any)["/healthz"].(map[string]any)["get"].(map[string]any)["responses"] = "none"
		},
	} {
		var d map[string]any
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatal(err)
		}
		broken(d)
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if probs := oaValidate(b); len(probs) == 0 {
			t.Errorf("%s: the validator found nothing wrong", name)
		}
	}
}

// TestOpenAPIResponses runs every endpoint of a real server once or more
// and validates each request and response (status, content type, body)
// against the document the server serves.
func TestOpenAPIResponses(t *testing.T) {
	f := oaOpen(t)
	c := oaNewClient(t, f.srv.URL, oaGet(t, f.srv.URL+"/openapi.json"))
	now := time.Now().UTC().Truncate(time.Second)
	at := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339) }

	c.call("GET /healthz", "/healthz", nil, 200)
	c.call("GET /readyz", "/readyz", nil, 200)
	c.call("GET /openapi.json", "/openapi.json", nil, 200)

	// Capture: queued (202) and waited for (200).
	var capd struct {
		EpisodeIDs []string `json:"episode_ids"`
		JobID      string   `json:"job_id"`
	}
	c.decode(c.call("POST /v1/episodes", "/v1/episodes", map[string]any{
		"session_id": "s1", "agent_id": "a1",
		"events": []any{
			map[string]any{"kind": "user_message", "content": "I prefer vim as my editor.", "occurred_at": at(-3 * time.Hour), "speaker": "user"},
			map[string]any{"kind": "agent_message", "content": "Noted: vim.", "occurred_at": at(-3*time.Hour + time.Second),
				"speaker": "agent", "metadata": map[string]string{"source": "chat"}},
		},
	}, 202), &capd)
	c.call("GET /v1/jobs/{id}", "/v1/jobs/"+capd.JobID, nil, 200) // pending or running or done
	c.call("POST /v1/episodes", "/v1/episodes?wait=true", map[string]any{
		"session_id": "s1", "user_id": "u1", "project_id": "p1",
		"events": []any{map[string]any{"kind": "user_message", "content": "Actually I use emacs now. Deploys happen on Fridays.",
			"occurred_at": at(-2 * time.Hour)}},
	}, 200)
	c.call("GET /v1/jobs/{id}", "/v1/jobs/"+capd.JobID, nil, 200)
	c.call("POST /v1/sessions/{id}/consolidate", "/v1/sessions/s1/consolidate", map[string]any{"force": true}, 200)

	// Remember: a keyed fact, its successor (supersedes it), a statement.
	var rem struct {
		MemoryID string `json:"memory_id"`
	}
	c.decode(c.call("POST /v1/memories", "/v1/memories", map[string]any{
		"text": "The team's deploy day is Friday.", "key": "deploy:day", "value": "Friday", "type": "fact",
		"subject": "team", "criticality": "high", "confidence": 0.8, "observed_at": at(-time.Hour), "valid_from": at(-time.Hour),
	}, 201), &rem)
	c.call("POST /v1/memories", "/v1/memories", map[string]any{
		"text": "The team's deploy day is Thursday.", "key": "deploy:day", "value": "Thursday", "type": "fact", "subject": "team",
	}, 201)
	c.call("POST /v1/memories", "/v1/memories", map[string]any{"text": "I like my coffee black.", "session_id": "s1"}, 201)
	c.call("POST /v1/memories", "/v1/memories", map[string]any{"text": "ok"}, 201) // may remember nothing

	// Retrieve, and its trace.
	var ret struct {
		RetrievalID string `json:"retrieval_id"`
		Items       []any  `json:"items"`
	}
	c.decode(c.call("POST /v1/memories/retrieve", "/v1/memories/retrieve", map[string]any{
		"query": "which editor do I use and when do we deploy?", "limit": 5, "token_budget": 500, "agent_id": "a1", "user_id": "u1",
		"project_id": "p1", "session_id": "s1", "task_type": "chat",
	}, 200), &ret)
	if len(ret.Items) == 0 {
		t.Error("retrieve found nothing: the item schema went unchecked")
	}
	c.call("POST /v1/memories/retrieve", "/v1/memories/retrieve", map[string]any{
		"query": "deploy day", "as_of": at(-30 * time.Minute), "include_history": true}, 200)
	f.eng.FlushTraces()
	var trace struct {
		Items []struct {
			Channels map[string]any `json:"channels"`
		} `json:"items"`
	}
	c.decode(c.call("GET /v1/retrievals/{id}", "/v1/retrievals/"+ret.RetrievalID, nil, 200), &trace)
	if len(trace.Items) == 0 || len(trace.Items[0].Channels) == 0 {
		t.Error("the trace has no items with channels: the trace item schema went unchecked")
	}

	// An answer from the chat model; its trace marks the item used.
	f.chat.Script("/v1/chat/completions", openaitest.Reply{Content: `{"answer": "You use emacs.", "used": [1]}`})
	var ans struct {
		RetrievalID string `json:"retrieval_id"`
		Used        []any  `json:"used"`
	}
	c.decode(c.call("POST /v1/agent/respond", "/v1/agent/respond", map[string]any{
		"query": "which editor do I use?", "limit": 5, "token_budget": 500, "max_tokens": 100, "user_id": "u1"}, 200), &ans)
	if len(ans.Used) != 1 {
		t.Errorf("respond used %v: the use schema went unchecked", ans.Used)
	}
	f.eng.FlushTraces()
	c.call("GET /v1/retrievals/{id}", "/v1/retrievals/"+ans.RetrievalID, nil, 200)

	// Feedback on it, and explanations of a memory and of the retrieval.
	c.call("POST /v1/retrievals/{id}/feedback", "/v1/retrievals/"+ret.RetrievalID+"/feedback", map[string]any{
		"outcome": "helpful", "output": "You use emacs; deploys are on Thursday.", "source": "evaluator", "severity": 0.5}, 200)
	c.call("POST /v1/retrievals/{id}/feedback", "/v1/retrievals/ret_doesnotexist/feedback", map[string]any{"outcome": "helpful"}, 404)
	c.call("GET /v1/memories/{id}/explain", "/v1/memories/"+rem.MemoryID+"/explain", nil, 200)
	c.call("GET /v1/memories/{id}/explain", "/v1/memories/"+ret.RetrievalID+"/explain", nil, 200)

	// Read memories.
	c.call("GET /v1/memories", "/v1/memories", nil, 200)
	c.call("GET /v1/memories", "/v1/memories?include_history=true&subject=team&limit=10", nil, 200)
	c.call("GET /v1/memories/{id}", "/v1/memories/"+rem.MemoryID, nil, 200)
	var graph struct {
		Claims []any `json:"claims"`
	}
	c.decode(c.call("GET /v1/graph/neighborhood", "/v1/graph/neighborhood?entity=team&hops=2&include_history=true", nil, 200), &graph)
	if len(graph.Claims) == 0 {
		t.Error("the graph has no claims: the claim schema went unchecked")
	}
	c.call("GET /v1/graph/neighborhood", "/v1/graph/neighborhood?entity=team&as_of="+at(-30*time.Minute), nil, 200)
	c.call("GET /v1/graph/neighborhood", "/v1/graph/neighborhood?entity=team&hops=3", nil, 400)

	// The inspector's reads (web UI): a page of versions and the next, the
	// admission log, jobs, activity, the caller.
	var page struct {
		Versions   []any  `json:"versions"`
		NextCursor string `json:"next_cursor"`
	}
	c.decode(c.call("GET /v1/versions", "/v1/versions?limit=1", nil, 200), &page)
	if len(page.Versions) != 1 || page.NextCursor == "" {
		t.Errorf("first page: %d versions, cursor %q", len(page.Versions), page.NextCursor)
	}
	c.call("GET /v1/versions", "/v1/versions?kind=semantic,procedural&status=active,superseded&subject=team&q=deploy&since="+
		at(-24*time.Hour)+"&until="+at(time.Hour)+"&cursor="+page.NextCursor, nil, 200)
	c.call("GET /v1/versions", "/v1/versions?status=alive", nil, 400)
	c.call("GET /v1/admissions", "/v1/admissions?decision=accept&limit=5", nil, 200)
	c.call("GET /v1/jobs", "/v1/jobs?state=succeeded", nil, 200)
	c.call("GET /v1/stats", "/v1/stats?days=7&hours=48", nil, 200)
	c.call("GET /v1/caller", "/v1/caller", nil, 200)
	c.call("GET /v1/namespaces", "/v1/namespaces", nil, 200)
	// A job that fails for good (its payload is too large to run), retried.
	var failing string
	if err := f.store.InTx(t.Context(), func(tx memory.Executor) error {
		var err error
		failing, err = f.queue.Enqueue(t.Context(), tx, engine.ExtractJob{Namespace: "default", EpisodeIDs: make([]string, engine.MaxEvents+1)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if j, err := f.queue.Wait(t.Context(), "default", failing); err != nil || j.State != jobs.StateFailed {
		t.Fatalf("the failing job: %+v, %v", j, err)
	}
	c.call("POST /v1/jobs/{id}/retry", "/v1/jobs/"+failing+"/retry", nil, 200)

	// Maintenance: nothing to expire yet, but every schema is checked.
	c.call("POST /v1/lifecycle/run", "/v1/lifecycle/run", map[string]any{"dedupe": true, "dry_run": true}, 200)

	// Procedures (engine/procedures.go).
	c.call("POST /v1/procedures/promote", "/v1/procedures/promote", nil, 200)
	c.call("GET /v1/reports", "/v1/reports", nil, 200) // after the runs: every report kept
	c.call("GET /v1/procedures", "/v1/procedures", nil, 200)

	// Export, and import into an empty namespace.
	export := c.call("GET /v1/export", "/v1/export", nil, 200)
	c.callRaw("POST /v1/import", "POST", "/v1/import", export, "application/x-ndjson", []string{"X-Mnemon-Namespace", "copy"}, 200, true)

	c.call("DELETE /v1/memories/{id}", "/v1/memories/"+rem.MemoryID, nil, 200)
	c.call("DELETE /v1/memories/{id}", "/v1/memories/"+rem.MemoryID, nil, 200) // again: nothing left to forget
	c.call("GET /v1/memories/{id}", "/v1/memories/"+rem.MemoryID, nil, 200)    // a tombstone
	c.call("GET /metrics", "/metrics", nil, 200)

	// Problems: each a documented application/problem+json.
	c.call("GET /v1/memories/{id}", "/v1/memories/mem_doesnotexist", nil, 404)
	c.call("GET /v1/jobs/{id}", "/v1/jobs/job_999999", nil, 404)
	c.call("GET /v1/memories", "/v1/memories?limit=-1", nil, 400)
	c.callRaw("GET /v1/memories", "GET", "/v1/memories", nil, "", []string{"X-Mnemon-Namespace", "never-used"}, 404, true)
	c.callRaw("GET /v1/memories", "GET", "/v1/memories", nil, "", []string{"Authorization", "Bearer mn_not_a_key"}, 401, true)
	c.callRaw("POST /v1/memories/retrieve", "POST", "/v1/memories/retrieve", []byte(`{"query": `), "application/json", nil, 400, false)
	c.callRaw("POST /v1/episodes", "POST", "/v1/episodes", []byte(`{"session_id": "s", "events": [{"kind": "user_message", "content": "x", "occurred_at": "yesterday"}]}`),
		"application/json", nil, 400, false)

	// Not ready: /readyz answers 503 with the same body type.
	notReady, err := httpapi.New(httpapi.Config{Engine: f.eng, Keys: f.store, Queue: f.queue,
		Ready: func(context.Context) error { return errors.New("workers stopped") }})
	if err != nil {
		t.Fatal(err)
	}
	nr := httptest.NewServer(notReady)
	defer nr.Close()
	c2 := *c // shares seen
	c2.base = nr.URL
	c2.call("GET /readyz", "/readyz", nil, 503)

	// Every documented response of every operation was seen, and problems
	// of several.
	problems := 0
	for _, want := range c.documented() {
		switch {
		case strings.HasSuffix(want, " default"):
			if c.seen[want] {
				problems++
			}
		case !c.seen[want]:
			t.Errorf("never validated: %s", want)
		}
	}
	if problems < 4 {
		t.Errorf("problems validated for %d operations, want 4 or more", problems)
	}
}

// oaClient sends requests and validates them and their responses against
// the document.
type oaClient struct {
	t    *testing.T
	base string
	v    validator.Validator
	doc  oaDoc
	seen map[string]bool // "METHOD /path status"
}

func oaNewClient(t *testing.T, base string, doc []byte) *oaClient {
	t.Helper()
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(d, config.WithBodyDecoder("application/x-ndjson", content.DecoderFunc(oaNDJSON)))
	if len(errs) > 0 {
		t.Fatalf("libopenapi-validator: %v", errs)
	}
	c := &oaClient{t: t, base: base, v: v, seen: map[string]bool{}}
	if err := json.Unmarshal(doc, &c.doc); err != nil {
		t.Fatal(err)
	}
	return c
}

// call sends a JSON body (or none) and returns the response body.
func (c *oaClient) call(op, target string, body any, status int) []byte {
	c.t.Helper()
	method, _, _ := strings.Cut(op, " ")
	var b []byte
	ct := ""
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			c.t.Fatal(err)
		}
		ct = "application/json"
	}
	return c.callRaw(op, method, target, b, ct, nil, status, true)
}

// callRaw sends a request for the documented operation op, checks its
// status, validates the request when validRequest, and always validates
// the response.
func (c *oaClient) callRaw(op, method, target string, body []byte, contentType string, hdr []string, status int, validRequest bool) []byte {
	c.t.Helper()
	build := func(base string) *http.Request {
		r, err := http.NewRequest(method, base+target, bytes.NewReader(body))
		if err != nil {
			c.t.Fatal(err)
		}
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		return r
	}
	if validRequest {
		if ok, errs := c.v.ValidateHttpRequestSync(build("http://localhost")); !ok {
			for _, e := range errs {
				c.t.Errorf("%s %s: request: %s", method, target, oaErr(e))
			}
		}
	}
	resp, err := http.DefaultClient.Do(build(c.base))
	if err != nil {
		c.t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		c.t.Fatal(err)
	}
	if resp.StatusCode != status {
		c.t.Fatalf("%s %s: status %d, want %d: %s", method, target, resp.StatusCode, status, got)
	}
	resp.Body = io.NopCloser(bytes.NewReader(got))
	if ok, errs := c.v.ValidateHttpResponse(build("http://localhost"), resp); !ok {
		for _, e := range errs {
			c.t.Errorf("%s %s → %d: response: %s\nbody: %.2000s", method, target, status, oaErr(e), got)
		}
		if len(errs) == 0 {
			c.t.Errorf("%s %s → %d: response does not validate (no reason given)", method, target, status)
		}
	}
	if resp.Header.Get("X-Request-Id") == "" {
		c.t.Errorf("%s %s: no X-Request-Id", method, target)
	}
	key := op + " " + fmt.Sprint(status)
	if _, ok := c.doc.operations()[op].Responses[fmt.Sprint(status)]; !ok {
		key = op + " default"
	}
	c.seen[key] = true
	return got
}

func (c *oaClient) decode(b []byte, v any) {
	c.t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		c.t.Fatalf("%v: %s", err, b)
	}
}

// documented lists every "METHOD /path status" the document declares.
func (c *oaClient) documented() []string {
	var out []string
	for ep, op := range c.doc.operations() {
		for status := range op.Responses {
			out = append(out, ep+" "+status)
		}
	}
	sort.Strings(out)
	return out
}

// oaDoc is the part of the document the structural checks read.
type oaDoc struct {
	OpenAPI    string                            `json:"openapi"`
	Paths      map[string]map[string]oaOperation `json:"paths"`
	Components struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`
}

type oaOperation struct {
	OperationID string `json:"operationId"`
	Parameters  []struct {
		Name     string `json:"name"`
		In       string `json:"in"`
		Required bool   `json:"required"`
	} `json:"parameters"`
	Responses map[string]json.RawMessage `json:"responses"`
}

// operations returns the operations by "METHOD /path".
func (d *oaDoc) operations() map[string]oaOperation {
	out := map[string]oaOperation{}
	for path, item := range d.Paths {
		for method, op := range item {
			out[strings.ToUpper(method)+" "+path] = op
		}
	}
	return out
}

// serves reports whether a documented operation of method matches the
// concrete path.
func (d *oaDoc) serves(method, path string) bool {
	for ep := range d.operations() {
		m, tmpl, _ := strings.Cut(ep, " ")
		if m != method {
			continue
		}
		ts, ps := strings.Split(tmpl, "/"), strings.Split(path, "/")
		match := len(ts) == len(ps)
		for i := 0; match && i < len(ts); i++ {
			match = ts[i] == ps[i] || (strings.HasPrefix(ts[i], "{") && ps[i] != "")
		}
		if match {
			return true
		}
	}
	return false
}

func (d *oaDoc) pathNames() []string {
	var out []string
	for p := range d.Paths {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// oaNDJSON decodes a JSON-lines body for validation: every line must be
// one JSON object; the schema then sees the text as the string it
// documents.
func oaNDJSON(in *content.DecodeInput) (any, error) {
	b, err := io.ReadAll(in.Body)
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("line %d is not a JSON object: %v", i+1, err)
		}
	}
	return string(b), nil
}

// oaRefs returns every $ref under v.
func oaRefs(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				out = append(out, s)
			} else {
				out = append(out, oaRefs(x)...)
			}
		}
	case []any:
		for _, x := range v {
			out = append(out, oaRefs(x)...)
		}
	}
	return out
}

// oaResolve follows a local JSON pointer ref in doc.
func oaResolve(doc map[string]any, ref string) (any, bool) {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, false
	}
	var cur any = doc
	for _, part := range strings.Split(p, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, cur != nil
}

// oaProbe sends an empty request and returns the status and problem code.
func oaProbe(t *testing.T, base, method, path string) (int, string) {
	t.Helper()
	r, err := http.NewRequest(method, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p wire.Problem
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
		_ = json.NewDecoder(resp.Body).Decode(&p)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, p.Code
}

func oaGet(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v: %s", url, resp.StatusCode, err, b)
	}
	return b
}

// oaErr renders a validation error with its schema failures.
func oaErr(e *vErrors.ValidationError) string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	for _, f := range e.SchemaValidationErrors {
		fmt.Fprintf(&b, "\n    at %s (%s): %s", f.FieldPath, f.KeywordLocation, f.Reason)
	}
	if e.SpecLine > 0 {
		fmt.Fprintf(&b, " [document line %d]", e.SpecLine)
	}
	return b.String()
}

// oaFirstDiff describes where two documents first differ, by line.
func oaFirstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: committed %q, generated %q", i+1, strings.TrimSpace(x), strings.TrimSpace(y))
		}
	}
	return "none"
}
