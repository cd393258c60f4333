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
// four MNEMON_ variables (no key, as for a local server; the chat model at
// the embeddings' base URL) against the fake provider on loopback.
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
		"MNEMON_DB":                    db,
		"MNEMON_EMBEDDINGS_BASE_URL":   fake.URL,
		"MNEMON_EMBEDDINGS_MODEL":      "fake-embed",
		"MNEMON_EMBEDDINGS_DIMENSIONS": "16",
		"MNEMON_CHAT_MODEL":            "fake-chat", // at the embeddings' base URL, extracting with both
		"MNEMON_MODELS_QUERY_BUDGET":   "200ms",     // not the README's: a short budget keeps the test short
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
	fake.Script("/v1/embeddings", openaitest.Reply{Delay: 3 * time.Second}, openaitest.Reply{Delay: 3 * time.Second})
	began := time.Now()
	res := retrieve()
	if took := time.Since(began); took > 2*time.Second {
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
	fake.Script("/v1/chat/completions", openaitest.Reply{Delay: 2 * time.Second, Content: `{"facts":[]}`})
	began = time.Now()
	code, body = call(t, "POST", s.url+"/v1/episodes", map[string]any{"user_id": "ana", "events": []map[string]any{
		{"kind": "user_message", "content": "We ship on Thursdays.", "occurred_at": time.Now().Add(-time.Second).UTC().Format(time.RFC3339)}}})
	if took := time.Since(began); code != http.StatusAccepted || took > time.Second {
		t.Fatalf("capture with a slow chat model: %d after %s; want 202 at once: %s", code, took, body)
	}

	if t.Failed() {
		t.Logf("/metrics:\n%s", metrics)
	}
}
