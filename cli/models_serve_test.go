package cli

import (
	"encoding/json"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

// TestServeLocalModelByVariables is the README's Ollama setup, end to end
// through the HTTP API: `mnemon serve` configured only by the README's
// three MNEMON_ variables (no key, as for a local server; the vector
// length asked of the endpoint; the chat model at the embeddings' base
// URL) against the fake provider on loopback.
// Captures are extracted in the background job by the chat model, the
// rules filling the slots it left out (extraction: both, the default); a
// value the episode does not say is rejected into the admission log and
// never stored; a retrieval whose embedding call outruns its budget
// still answers and says so; /metrics counts the calls.
func TestServeLocalModelByVariables(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, "fake-embed", 16)
	fake.Answer(func(_, user string) string {
		switch {
		case strings.Contains(user, "Lisbon"):
			// Only the city: the editor is left to the rules.
			return `{"facts":[{"subject":"I","key":"home city","value":"Lisbon","type":"fact","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"add","content":"Ana lives in Lisbon."}]}`
		case strings.Contains(user, "new job"):
			// A value the episode does not say.
			return `{"facts":[{"subject":"user","key":"employer","value":"Globex","type":"fact","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"add","content":"Ana works at Globex."}]}`
		}
		return `{"facts":[]}`
	})
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	s := startServe(t, map[string]string{
		"MNEMON_DB":                  db,
		"MNEMON_EMBEDDINGS_BASE_URL": fake.URL,
		"MNEMON_EMBEDDINGS_MODEL":    "fake-embed", // its vector length asked of the endpoint
		"MNEMON_CHAT_MODEL":          "fake-chat",  // at the embeddings' base URL, extracting with both
		"MNEMON_MODELS_QUERY_BUDGET": "200ms",      // not the README's: a short budget keeps the test short
	}, "--addr", "127.0.0.1:0", "--workers", "1")
	defer s.stop(t)

	capture := func(texts ...string) string {
		t.Helper()
		var events []map[string]any
		for i, text := range texts {
			events = append(events, map[string]any{"kind": "user_message", "content": text,
				"occurred_at": time.Now().Add(time.Duration(i-10) * time.Second).UTC().Format(time.RFC3339)})
		}
		code, body := call(t, "POST", s.url+"/v1/episodes?wait=true", map[string]any{"user_id": "ana", "events": events})
		var res wire.CaptureResponse
		if code != http.StatusOK || json.Unmarshal(body, &res) != nil || res.JobState != "succeeded" || len(res.EpisodeIDs) != len(texts) {
			t.Fatalf("capture %q: %d %s", texts, code, body)
		}
		return res.EpisodeIDs[0]
	}
	before := fake.Requests("/v1/embeddings")
	capture("I live in Lisbon these days, and my favorite editor is Helix.", "My sister plays the cello on weekends.")
	if n := fake.Requests("/v1/embeddings") - before; n != 1 {
		t.Fatalf("the extraction job made %d embeddings requests; want one round trip for its episodes and their facts", n)
	}
	jobEp := capture("I started a new job last week.")
	if n := fake.Requests("/v1/chat/completions"); n != 3 {
		t.Fatalf("%d chat requests; want one per captured episode", n)
	}

	var page wire.VersionPage
	if code, body := call(t, "GET", s.url+"/v1/versions?kind=semantic&limit=100", nil); code != http.StatusOK || json.Unmarshal(body, &page) != nil {
		t.Fatalf("versions: %d %s", code, body)
	}
	by := map[string]*wire.Version{}
	for _, v := range page.Versions {
		by[v.Key] = v
	}
	if v := by["lives_in"]; v == nil || v.Value != "Lisbon" || v.Provenance.Extractor != "llm:fake-chat" || v.Provenance.Embedder != "openai:fake-embed@16" {
		t.Fatalf("lives_in: %+v; want Lisbon from llm:fake-chat, embedded by openai:fake-embed@16 (versions %v)", v, slices.Collect(maps.Keys(by)))
	}
	if v := by["prefers:editor"]; v == nil || !strings.EqualFold(v.Value, "helix") || v.Provenance.Extractor == "llm:fake-chat" {
		t.Fatalf("prefers:editor: %+v; want Helix from the rules, which fill the slot the model left out", v)
	}
	for _, v := range page.Versions {
		if strings.Contains(v.Value+v.Content, "Globex") {
			t.Fatalf("the hallucinated value was stored: %+v", v)
		}
	}
	var adm wire.AdmissionList
	if code, body := call(t, "GET", s.url+"/v1/admissions?decision=reject", nil); code != http.StatusOK || json.Unmarshal(body, &adm) != nil {
		t.Fatalf("admissions: %d %s", code, body)
	}
	if !slices.ContainsFunc(adm.Admissions, func(a *wire.Admission) bool {
		return a.EpisodeID == jobEp && a.VersionID == "" && strings.Contains(a.Content, "Globex") &&
			slices.ContainsFunc(a.Reasons, func(r string) bool { return strings.HasPrefix(r, "model_value_unsupported: ") })
	}) {
		t.Fatalf("no rejection of the hallucinated employer in the admission log: %+v", adm.Admissions)
	}

	// The embeddings provider answers after the query's budget: the
	// retrieval answers from the channels that need no model, and says so.
	retrieve := func() wire.RetrieveResponse {
		t.Helper()
		code, body := call(t, "POST", s.url+"/v1/memories/retrieve", map[string]any{"query": "where do I live?", "user_id": "ana"})
		var res wire.RetrieveResponse
		if code != http.StatusOK || json.Unmarshal(body, &res) != nil {
			t.Fatalf("retrieve: %d %s", code, body)
		}
		return res
	}
	if res := retrieve(); !strings.Contains(res.Context, "Lisbon") || len(res.Notes) != 0 {
		t.Fatalf("provider up: context %q, notes %q", res.Context, res.Notes)
	}
	// (Bounds below the provider's delay, loose for a loaded machine.)
	fake.Script("/v1/embeddings", openaitest.Reply{Delay: 5 * time.Second}, openaitest.Reply{Delay: 5 * time.Second})
	began := time.Now()
	res := retrieve()
	if took := time.Since(began); took > 4*time.Second {
		t.Fatalf("the retrieval took %s with a 200ms budget", took)
	}
	if !strings.Contains(res.Context, "Lisbon") || !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, "models.embedder_fallback: openai:fake-embed@16 no reply within the 200ms budget")
	}) {
		t.Fatalf("slow provider: context %q, notes %q", res.Context, res.Notes)
	}

	code, body := call(t, "GET", s.url+"/metrics", nil)
	metrics := string(body)
	for _, want := range []string{
		`mnemon_model_calls_total{endpoint="chat",model="fake-chat"} 3`,
		`mnemon_model_tokens_total{direction="in",endpoint="chat",model="fake-chat"} 9`,
		`mnemon_model_calls_total{endpoint="embeddings",model="fake-embed"}`,
		`mnemon_retrieval_notes_total{note="models.embedder_fallback"} 1`,
	} {
		if code != http.StatusOK || !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// The acknowledgement does not wait for the model: a chat model taking
	// seconds leaves the capture's answer as fast as without one.
	fake.Script("/v1/chat/completions", openaitest.Reply{Delay: 5 * time.Second, Content: `{"facts":[]}`})
	began = time.Now()
	code, body = call(t, "POST", s.url+"/v1/episodes", map[string]any{"user_id": "ana", "events": []map[string]any{
		{"kind": "user_message", "content": "We ship on Thursdays.", "occurred_at": time.Now().Add(-time.Second).UTC().Format(time.RFC3339)}}})
	if took := time.Since(began); code != http.StatusAccepted || took > 4*time.Second {
		t.Fatalf("capture with a slow chat model: %d after %s; want 202 at once: %s", code, took, body)
	}

	if t.Failed() {
		t.Logf("/metrics:\n%s", metrics)
	}
}

// TestServeJudgeAndSummariesByVariables drives the duplicate judge and the
// model summariser through serve's HTTP API, configured by variables,
// against the fake provider: a pair of facts in the ambiguous band is
// asked about once and merged on "same", with the report counting it;
// consolidating a session writes the chat model's summary, its provenance
// naming the model.
func TestServeJudgeAndSummariesByVariables(t *testing.T) {
	t.Parallel()
	const summary = "The user likes jazz and plays it on weekends."
	fake := openaitest.New(t, "fake-embed", 16)
	fake.Answer(func(system, _ string) string {
		switch {
		case strings.Contains(system, "verdict"):
			return `{"verdict":"same"}`
		case strings.Contains(system, "long-term memory summary"):
			return summary
		}
		return "?"
	})
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	s := startServe(t, map[string]string{
		"MNEMON_DB":                     db,
		"MNEMON_EMBEDDINGS_BASE_URL":    fake.URL,
		"MNEMON_EMBEDDINGS_MODEL":       "fake-embed",
		"MNEMON_EMBEDDINGS_DIMENSIONS":  "16",
		"MNEMON_CHAT_MODEL":             "fake-chat",
		"MNEMON_MODELS_EXTRACTION":      "rules", // the chat model only judges and summarises here
		"MNEMON_MODELS_DUPLICATE_JUDGE": "true",
		"MNEMON_MODELS_SUMMARIES":       "model",
	}, "--addr", "127.0.0.1:0", "--workers", "1")
	defer s.stop(t)

	// The fake's vectors of these two texts have a cosine of 0.82: in the
	// band below the merge threshold (0.92) where the judge is asked.
	remember := func(text, key string) wire.RememberResponse {
		t.Helper()
		code, body := call(t, "POST", s.url+"/v1/memories", map[string]any{"text": text, "subject": "user", "key": key, "value": "jazz", "type": "preference"})
		var res wire.RememberResponse
		if code != http.StatusCreated || json.Unmarshal(body, &res) != nil {
			t.Fatalf("remember %q: %d %s", text, code, body)
		}
		return res
	}
	remember("The user likes jazz.", "likes:jazz")
	remember("The user likes jazz music.", "prefers:music")
	code, body := call(t, "POST", s.url+"/v1/lifecycle/run", map[string]any{"dedupe": true})
	var run wire.LifecycleRunResponse
	if code != http.StatusOK || json.Unmarshal(body, &run) != nil || run.Dedupe == nil {
		t.Fatalf("lifecycle run: %d %s", code, body)
	}
	if d := run.Dedupe; d.Judged != 1 || d.JudgedSame != 1 || d.Superseded != 1 {
		t.Fatalf("dedupe report %+v; want one pair judged the same and merged", d)
	}
	if !strings.Contains(string(body), "judged the same fact by fake-chat") {
		t.Fatalf("the merge does not say the model judged it: %s", body)
	}

	// A session ten days old, consolidated: the chat model's summary.
	var events []map[string]any
	for i, text := range []string{"I like jazz.", "I play jazz piano on weekends.", "My favorite editor is Helix."} {
		events = append(events, map[string]any{"kind": "user_message", "content": text,
			"occurred_at": time.Now().Add(-240*time.Hour + time.Duration(i)*time.Minute).UTC().Format(time.RFC3339)})
	}
	if code, body := call(t, "POST", s.url+"/v1/episodes?wait=true", map[string]any{"session_id": "s1", "events": events}); code != http.StatusOK {
		t.Fatalf("capture: %d %s", code, body)
	}
	code, body = call(t, "POST", s.url+"/v1/sessions/s1/consolidate", map[string]any{})
	var cons wire.ConsolidateResponse
	if code != http.StatusOK || json.Unmarshal(body, &cons) != nil || len(cons.Sessions) != 1 || cons.Sessions[0].SummaryMemoryID == "" {
		t.Fatalf("consolidate: %d %s", code, body)
	}
	code, body = call(t, "GET", s.url+"/v1/memories/"+cons.Sessions[0].SummaryMemoryID, nil)
	var view wire.MemoryView
	if code != http.StatusOK || json.Unmarshal(body, &view) != nil || len(view.Versions) == 0 {
		t.Fatalf("summary memory: %d %s", code, body)
	}
	v := view.Versions[len(view.Versions)-1]
	if v.Provenance.Model != "openai:fake-chat" || !strings.HasSuffix(v.Content, "\n"+summary) {
		t.Fatalf("the summary was written by %q: %q; want the chat model's text", v.Provenance.Model, v.Content)
	}
}

// TestServeDailyTokenBudget: past models.tokens_per_day (set by variable)
// a namespace's captures are extracted by the rules without a chat call,
// its queries are embedded by the built-in embedder (the response says
// so), and respond answers 503 model_unavailable; another namespace still
// has its own day.
func TestServeDailyTokenBudget(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, "fake-embed", 16)
	fake.Answer(func(_, user string) string {
		if strings.Contains(user, "Lisbon") {
			return `{"facts":[{"subject":"I","key":"home city","value":"Lisbon","type":"fact","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"add","content":"Ana lives in Lisbon."}]}`
		}
		return `{"facts":[]}`
	})
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	s := startServe(t, map[string]string{
		"MNEMON_DB":                    db,
		"MNEMON_EMBEDDINGS_BASE_URL":   fake.URL,
		"MNEMON_EMBEDDINGS_MODEL":      "fake-embed",
		"MNEMON_EMBEDDINGS_DIMENSIONS": "16",
		"MNEMON_CHAT_MODEL":            "fake-chat",
		"MNEMON_MODELS_TOKENS_PER_DAY": "4", // one fake chat call (3 in, 1 out)
	}, "--addr", "127.0.0.1:0", "--workers", "1")
	defer s.stop(t)
	ns := func(name string) []string { return []string{"X-Mnemon-Namespace", name} }
	capture := func(namespace, text string) {
		t.Helper()
		code, body := call(t, "POST", s.url+"/v1/episodes?wait=true", map[string]any{"events": []map[string]any{
			{"kind": "user_message", "content": text, "occurred_at": time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)}}}, ns(namespace)...)
		if code != http.StatusOK {
			t.Fatalf("capture: %d %s", code, body)
		}
	}
	capture("a", "I live in Lisbon these days.") // the model's call spends the day
	calls := fake.Requests("/v1/chat/completions")
	capture("a", "My favorite editor is Helix.")
	if n := fake.Requests("/v1/chat/completions"); n != calls {
		t.Fatalf("%d chat calls after the budget was spent", n-calls)
	}
	var page wire.VersionPage
	if code, body := call(t, "GET", s.url+"/v1/versions?kind=semantic", nil, ns("a")...); code != http.StatusOK || json.Unmarshal(body, &page) != nil {
		t.Fatalf("versions: %d %s", code, body)
	}
	by := map[string]string{}
	for _, v := range page.Versions {
		by[v.Key] = v.Provenance.Extractor
	}
	if by["lives_in"] != "llm:fake-chat" || by["prefers:editor"] == "" || by["prefers:editor"] == "llm:fake-chat" {
		t.Fatalf("extractors by key %v; want the model before the budget was spent, the rules after", by)
	}
	code, body := call(t, "POST", s.url+"/v1/memories/retrieve", map[string]any{"query": "which editor do I use?"}, ns("a")...)
	var res wire.RetrieveResponse
	if code != http.StatusOK || json.Unmarshal(body, &res) != nil || !strings.Contains(res.Context, "Helix") ||
		!slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "models.budget_exceeded: ") }) {
		t.Fatalf("retrieve past the budget: %d %s", code, body)
	}
	code, body = call(t, "POST", s.url+"/v1/agent/respond", map[string]any{"query": "which editor do I use?"}, ns("a")...)
	if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "model_unavailable") {
		t.Fatalf("respond past the budget: %d %s", code, body)
	}
	// Namespace b has its own budget.
	capture("b", "I live in Lisbon these days.")
	if n := fake.Requests("/v1/chat/completions"); n != calls+1 {
		t.Fatalf("namespace b made %d chat calls; want its own day's one", n-calls)
	}
}
