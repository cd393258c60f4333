package cli

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

// TestServeTraceKeepsModelCalls: what a retrieval's response says and what
// its model calls cost stay with its stored trace, and an extraction's
// model usage with its episode's admission. Through `mnemon serve` against
// the fake provider on loopback, with an API key: a capture extracted by
// the chat model shows its calls and tokens on the episode's admission
// (GET /v1/admissions, `mnemon show`); a retrieval with the provider up
// keeps one embeddings call; one whose query embedding outruns its budget
// keeps the fallback note and the failed call (GET /v1/retrievals/{id},
// `mnemon explain`); the key is in none of it.
func TestServeTraceKeepsModelCalls(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, "fake-embed", 16)
	fake.RequireKey(fakeKey)
	fake.Answer(func(_, user string) string {
		if strings.Contains(user, "Lisbon") {
			return `{"facts":[{"subject":"I","key":"home city","value":"Lisbon","type":"fact","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"add","content":"Ana lives in Lisbon."}]}`
		}
		return `{"facts":[]}`
	})
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	env := map[string]string{
		"MNEMON_DB":                     db,
		"MNEMON_EMBEDDINGS_BASE_URL":    fake.URL,
		"MNEMON_EMBEDDINGS_MODEL":       "fake-embed",
		"MNEMON_EMBEDDINGS_DIMENSIONS":  "16", // no probe from the CLI runs below
		"MNEMON_EMBEDDINGS_API_KEY_ENV": "FAKE_PROVIDER_KEY",
		"FAKE_PROVIDER_KEY":             fakeKey,
		"MNEMON_CHAT_MODEL":             "fake-chat",
		"MNEMON_MODELS_QUERY_BUDGET":    "200ms",
	}
	s := startServe(t, env, "--addr", "127.0.0.1:0", "--workers", "1")
	var seen []string // every body and output, searched for the key

	get := func(url string, out any) {
		t.Helper()
		code, body := call(t, "GET", url, nil)
		seen = append(seen, string(body))
		if code != http.StatusOK || json.Unmarshal(body, out) != nil {
			t.Fatalf("GET %s: %d %s", url, code, body)
		}
	}
	code, body := call(t, "POST", s.url+"/v1/episodes?wait=true", map[string]any{"user_id": "ana", "events": []map[string]any{
		{"kind": "user_message", "content": "I live in Lisbon these days.", "occurred_at": time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)}}})
	var capt wire.CaptureResponse
	if code != http.StatusOK || json.Unmarshal(body, &capt) != nil || capt.JobState != "succeeded" || len(capt.EpisodeIDs) != 1 {
		t.Fatalf("capture: %d %s", code, body)
	}
	ep := capt.EpisodeIDs[0]

	// The extraction's usage: on the episode's own admission.
	var adms wire.AdmissionList
	get(s.url+"/v1/admissions?limit=100", &adms)
	i := slices.IndexFunc(adms.Admissions, func(a *wire.Admission) bool { return a.EpisodeID == ep && a.Extractor == "episode" })
	if i < 0 {
		t.Fatalf("no admission of the episode itself: %s", seen[len(seen)-1])
	}
	if ms := adms.Admissions[i].Models; len(ms) != 1 || ms[0].Model != "fake-chat" || ms[0].Endpoint != "chat" ||
		ms[0].Calls != 1 || ms[0].Errors != 0 || ms[0].TokensIn <= 0 || ms[0].TokensOut <= 0 || ms[0].DurationMicros <= 0 {
		t.Fatalf("the episode's admission keeps model usage %+v; want one chat call of fake-chat with its tokens", ms)
	}
	for _, a := range adms.Admissions {
		if a.Extractor != "episode" && len(a.Models) > 0 {
			t.Fatalf("a fact's admission carries the extraction's usage too (counted twice): %+v", a)
		}
	}

	retrieve := func() wire.Trace {
		t.Helper()
		code, body := call(t, "POST", s.url+"/v1/memories/retrieve", map[string]any{"query": "where do I live?", "user_id": "ana"})
		var res wire.RetrieveResponse
		if code != http.StatusOK || json.Unmarshal(body, &res) != nil || res.RetrievalID == "" {
			t.Fatalf("retrieve: %d %s", code, body)
		}
		var tr wire.Trace
		get(s.url+"/v1/retrievals/"+res.RetrievalID, &tr)
		if !slices.Equal(tr.Notes, res.Notes) {
			t.Fatalf("the trace keeps notes %q; the response said %q", tr.Notes, res.Notes)
		}
		return tr
	}
	up := retrieve()
	if len(up.Notes) != 0 || len(up.Models) != 1 || up.Models[0].Model != "fake-embed" || up.Models[0].Endpoint != "embeddings" ||
		up.Models[0].Calls != 1 || up.Models[0].Errors != 0 {
		t.Fatalf("provider up: trace notes %q, models %+v; want one embeddings call and no note", up.Notes, up.Models)
	}

	fake.Script("/v1/embeddings", openaitest.Reply{Delay: 5 * time.Second}, openaitest.Reply{Delay: 5 * time.Second})
	slow := retrieve()
	if !slices.ContainsFunc(slow.Notes, func(n string) bool {
		return strings.HasPrefix(n, "models.embedder_fallback: openai:fake-embed@16 no reply within the 200ms budget")
	}) {
		t.Fatalf("slow provider: the trace keeps notes %q; want the fallback", slow.Notes)
	}
	if ms := slow.Models; len(ms) != 1 || ms[0].Endpoint != "embeddings" || ms[0].Calls != 1 || ms[0].Errors != 1 ||
		ms[0].DurationMicros < 150_000 {
		t.Fatalf("slow provider: the trace keeps models %+v; want one failed embeddings call of about the budget", ms)
	}

	// The same, as the CLI shows them, from the database serve wrote
	// (stopped first: it writes its last traces as it stops).
	s.stop(t)
	run := func(args ...string) string {
		t.Helper()
		code, out, errs := runEnv(t, t.Context(), env, "", args...)
		seen = append(seen, out, errs)
		if code != 0 {
			t.Fatalf("mnemon %v: exit %d\n%s%s", args, code, out, errs)
		}
		return out
	}
	ex := run("explain", slow.ID)
	for _, want := range []string{"notes:", "models.embedder_fallback: openai:fake-embed@16 no reply within the 200ms budget",
		"model calls:", "fake-embed embeddings: 1 call (1 failed), 0 tokens in, 0 out,"} {
		if !strings.Contains(ex, want) {
			t.Fatalf("explain lacks %q:\n%s", want, ex)
		}
	}
	if show := run("show", ep); !strings.Contains(show, "extraction's model calls:") || !strings.Contains(show, "fake-chat chat: 1 call, ") {
		t.Fatalf("show of the episode lacks the extraction's model calls:\n%s", show)
	}
	run("explain", up.ID, "--json")
	for _, s := range seen {
		if strings.Contains(s, fakeKey) {
			t.Fatalf("the API key shows in:\n%s", s)
		}
	}
}
