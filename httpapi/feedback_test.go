package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/memory"
)

type e2eFeedbackResp struct {
	RetrievalID string `json:"retrieval_id"`
	Applied     []struct {
		VersionID        string   `json:"version_id"`
		Outcome          string   `json:"outcome"`
		Used             bool     `json:"used"`
		Overlap          *float64 `json:"overlap"`
		Reinforced       bool     `json:"reinforced"`
		UsefulnessBefore float64  `json:"usefulness_before"`
		UsefulnessAfter  float64  `json:"usefulness_after"`
		TrustBefore      float64  `json:"trust_before"`
		TrustAfter       float64  `json:"trust_after"`
		StatusAfter      string   `json:"status_after"`
	} `json:"applied"`
	Duplicates []string `json:"duplicates"`
}

// TestE2EFeedbackAndExplain walks POST /v1/retrievals/{id}/feedback and
// GET /v1/memories/{id}/explain over real HTTP: the happy path, the
// problems with their stable codes, nothing written on bad input, and
// namespaces kept apart.
func TestE2EFeedbackAndExplain(t *testing.T) {
	f := e2eOpen(t, e2eOptions{})
	rem := f.e2eRemember(t, map[string]any{"text": "I live in Lisbon."})
	f.e2eRemember(t, map[string]any{"text": "I live in Porto."}, "X-Mnemon-Namespace", "other")
	ret := f.e2eRetrieve(t, "where does the user live?")
	var item *e2eItem
	for i := range ret.Items {
		if ret.Items[i].MemoryID == rem.MemoryID {
			item = &ret.Items[i]
		}
	}
	if item == nil {
		t.Fatalf("the fact is not served: %+v", ret.Items)
	}
	var rawItem map[string]json.RawMessage
	for _, raw := range ret.raw {
		if strings.Contains(string(raw), rem.MemoryID) {
			_ = json.Unmarshal(raw, &rawItem)
		}
	}
	if rawItem["trust"] == nil || rawItem["uncertainty"] == nil {
		t.Fatalf("retrieve items lack trust and uncertainty: %v", rawItem)
	}
	path := "/v1/retrievals/" + ret.RetrievalID + "/feedback"
	other := f.e2eRetrieve(t, "where does the user live?", "X-Mnemon-Namespace", "other")
	versionsBefore := f.e2eState(t, "default", "other")

	bad := []struct {
		name   string
		path   string
		body   any
		status int
		code   string
	}{
		{"malformed", path, `{"outcome":`, http.StatusBadRequest, httpapi.CodeMalformedJSON},
		{"unknown field", path, map[string]any{"outcome": "helpful", "verdict": "yes"}, http.StatusBadRequest, httpapi.CodeInvalidRequest},
		{"no outcome", path, map[string]any{}, http.StatusBadRequest, httpapi.CodeInvalidOutcome},
		{"bad outcome", path, map[string]any{"outcome": "great"}, http.StatusBadRequest, httpapi.CodeInvalidOutcome},
		{"severity above 1", path, map[string]any{"outcome": "harmful", "severity": 2}, http.StatusBadRequest, httpapi.CodeInvalidSeverity},
		{"negative severity", path, map[string]any{"outcome": "harmful", "severity": -0.5}, http.StatusBadRequest, httpapi.CodeInvalidSeverity},
		{"bad source", path, map[string]any{"outcome": "helpful", "source": "oracle"}, http.StatusBadRequest, httpapi.CodeInvalidSource},
		{"not a memory id", path, map[string]any{"outcome": "helpful", "memory_ids": []string{"ep_1"}}, http.StatusBadRequest, httpapi.CodeInvalidRequest},
		{"memory not in the retrieval", path, map[string]any{"outcome": "helpful", "memory_ids": []string{rem.MemoryID, "mem_nope"}}, http.StatusUnprocessableEntity, httpapi.CodeNotInRetrieval},
		{"unknown retrieval", "/v1/retrievals/ret_nope/feedback", map[string]any{"outcome": "helpful"}, http.StatusNotFound, httpapi.CodeRetrievalNotFound},
		{"another namespace's retrieval", "/v1/retrievals/" + other.RetrievalID + "/feedback", map[string]any{"outcome": "helpful"}, http.StatusNotFound, httpapi.CodeRetrievalNotFound},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			e2eProblem(t, f.e2eDo(t, "POST", c.path, c.body), c.status, c.code)
		})
	}
	// Nothing was written by any of them.
	if after := f.e2eState(t, "default", "other"); after != versionsBefore {
		t.Fatalf("bad feedback changed the store:\n%s\n---\n%s", versionsBefore, after)
	}
	if fbs, err := f.store.ListFeedback(context.Background(), memory.ListFeedbackParams{Namespace: "default"}); err != nil || len(fbs) != 0 {
		t.Fatalf("feedback rows after bad requests: %d (%v)", len(fbs), err)
	}

	// A reader may not send feedback.
	f2 := e2eOpen(t, e2eOptions{requireKeys: true})
	f2.e2eRemember(t, map[string]any{"text": "I live in Lisbon."}, "Authorization", "Bearer "+e2eMustKey(t, f2, "default", memory.RoleWriter))
	reader := "Bearer " + e2eMustKey(t, f2, "default", memory.RoleReader)
	r2 := f2.e2eRetrieve(t, "where does the user live?", "Authorization", reader)
	e2eProblem(t, f2.e2eDo(t, "POST", "/v1/retrievals/"+r2.RetrievalID+"/feedback", map[string]any{"outcome": "helpful"}, "Authorization", reader),
		http.StatusForbidden, httpapi.CodeForbidden)

	// Helpful, with an output that uses the fact: reinforced.
	var fb e2eFeedbackResp
	e2eJSON(t, f.e2eDo(t, "POST", path, map[string]any{"outcome": "helpful", "output": "Since you live in Lisbon, try the tram.",
		"memory_ids": []string{rem.MemoryID}, "source": "evaluator"}), http.StatusOK, &fb)
	if len(fb.Applied) != 1 || !fb.Applied[0].Reinforced || fb.Applied[0].Overlap == nil || fb.Applied[0].UsefulnessAfter <= fb.Applied[0].UsefulnessBefore {
		t.Fatalf("helpful: %+v", fb)
	}
	// The same again is a no-op.
	var again e2eFeedbackResp
	r := f.e2eDo(t, "POST", path, map[string]any{"outcome": "helpful", "output": "Since you live in Lisbon, try the tram.",
		"memory_ids": []string{rem.MemoryID}, "source": "evaluator"})
	e2eJSON(t, r, http.StatusOK, &again)
	e2eSameKeys(t, "feedback response", r.body, "retrieval_id", "applied", "duplicates")
	if len(again.Applied) != 0 || len(again.Duplicates) != 1 {
		t.Fatalf("repeat: %s", r.body)
	}

	// Explain the memory: why it is stored and how feedback moved it.
	r = f.e2eDo(t, "GET", "/v1/memories/"+rem.MemoryID+"/explain", nil)
	var ex struct {
		Memory struct {
			Memory   json.RawMessage `json:"memory"`
			Versions []struct {
				Version struct {
					ID        string `json:"id"`
					Embedding []byte `json:"embedding"`
				} `json:"version"`
				Operation  string `json:"operation"`
				Admissions []struct {
					Reasons []string `json:"reasons"`
				} `json:"admissions"`
				Feedback []struct {
					Reinforced bool `json:"reinforced"`
				} `json:"feedback"`
				Trust       float64  `json:"trust"`
				Uncertainty float64  `json:"uncertainty"`
				Action      string   `json:"action"`
				Why         []string `json:"why"`
			} `json:"versions"`
			Chain    []string          `json:"chain"`
			Episodes []json.RawMessage `json:"episodes"`
		} `json:"memory"`
	}
	e2eJSON(t, r, http.StatusOK, &ex)
	e2eSameKeys(t, "explanation", r.body, "memory")
	if len(ex.Memory.Versions) != 1 {
		t.Fatalf("explain: %s", r.body)
	}
	v := ex.Memory.Versions[0]
	if v.Operation != "ADD" || len(v.Admissions) == 0 || len(v.Admissions[0].Reasons) == 0 || len(v.Feedback) != 1 || !v.Feedback[0].Reinforced ||
		v.Version.Embedding != nil || len(ex.Memory.Chain) != 1 || len(ex.Memory.Episodes) != 1 || v.Action == "" || len(v.Why) == 0 {
		t.Fatalf("explain: %s", r.body)
	}

	// Explain the retrieval: every candidate and why it ranked.
	r = f.e2eDo(t, "GET", "/v1/memories/"+ret.RetrievalID+"/explain", nil)
	var rex struct {
		Retrieval struct {
			Items []struct {
				Rank int    `json:"rank"`
				Why  string `json:"why"`
			} `json:"items"`
			Feedback []json.RawMessage `json:"feedback"`
		} `json:"retrieval"`
	}
	e2eJSON(t, r, http.StatusOK, &rex)
	if len(rex.Retrieval.Items) == 0 || len(rex.Retrieval.Feedback) != 1 || !strings.Contains(rex.Retrieval.Items[0].Why, "found by") {
		t.Fatalf("explain retrieval: %s", r.body)
	}

	// Unknown and foreign ids are 404; an episode id is a bad request.
	e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories/mem_nope/explain", nil), http.StatusNotFound, httpapi.CodeNotFound)
	e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories/"+rem.MemoryID+"/explain", nil, "X-Mnemon-Namespace", "other"), http.StatusNotFound, httpapi.CodeNotFound)
	e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories/"+other.RetrievalID+"/explain", nil), http.StatusNotFound, httpapi.CodeNotFound)
	e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories/ep_1/explain", nil), http.StatusBadRequest, httpapi.CodeInvalidRequest)
}

func e2eMustKey(t *testing.T, f *e2eFixture, ns string, role memory.Role) string {
	t.Helper()
	raw, _ := f.e2eKey(t, ns, role)
	return raw
}

// TestImportConflictDetail: an import whose rows collide in the store
// (two feedback rows for the same judgement) is a 409 that names the row
// but none of the database's text, and writes nothing.
func TestImportConflictDetail(t *testing.T) {
	f := e2eOpen(t, e2eOptions{})
	f.e2eRemember(t, map[string]any{"text": "I live in Lisbon."})
	ret := f.e2eRetrieve(t, "where does the user live?")
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/retrievals/"+ret.RetrievalID+"/feedback", map[string]any{"outcome": "helpful"}), http.StatusOK, nil)
	exp := f.e2eDo(t, "GET", "/v1/export", nil)
	if exp.status != http.StatusOK {
		t.Fatalf("export: %d %s", exp.status, exp.body)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(exp.body)), "\n") {
		lines = append(lines, line)
		if strings.Contains(line, `"record":"feedback"`) {
			// The same judgement again under another id.
			var rec struct {
				Feedback map[string]any `json:"feedback"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			rec.Feedback["id"] = fmt.Sprintf("fb_twin%d", len(lines))
			twin, _ := json.Marshal(map[string]any{"record": "feedback", "feedback": rec.Feedback})
			lines = append(lines, string(twin))
		}
	}
	r := f.e2eDo(t, "POST", "/v1/import", strings.Join(lines, "\n")+"\n", "Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "copy")
	p := e2eProblem(t, r, http.StatusConflict, httpapi.CodeConflict)
	for _, internal := range []string{"sqlite", "constraint", "UNIQUE", "feedback."} {
		if strings.Contains(p.Detail, internal) {
			t.Errorf("409 detail shows the database's text (%q): %s", internal, p.Detail)
		}
	}
	if !strings.Contains(p.Detail, "stored already") {
		t.Errorf("409 detail says nothing useful: %s", p.Detail)
	}
	st, err := f.store.Stats(context.Background(), memory.StatsParams{Namespace: "copy"})
	if err != nil || st.Memories+st.Episodes != 0 {
		t.Fatalf("a refused import wrote: %+v %v", st, err)
	}
}
