package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/memory"
)

func TestLifecycleRun(t *testing.T) {
	f := e2eOpen(t, e2eOptions{})
	now := time.Now().UTC()
	// A fact whose validity ended an hour ago is still served until the
	// lifecycle runs.
	ended := f.e2eRemember(t, map[string]any{
		"text": "The user is in Berlin this week.", "key": "visiting", "value": "Berlin",
		"valid_from": now.Add(-48 * time.Hour).Format(time.RFC3339), "valid_to": now.Add(-time.Hour).Format(time.RFC3339),
	})
	f.e2eRemember(t, map[string]any{"text": "The user lives in Lisbon.", "key": "lives_in", "value": "Lisbon"})

	run := func(body any) wire.LifecycleRunResponse {
		t.Helper()
		var res wire.LifecycleRunResponse
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/lifecycle/run", body), http.StatusOK, &res)
		return res
	}
	dry := run(map[string]any{"dry_run": true})
	if !dry.Lifecycle.DryRun || dry.Lifecycle.Expired != 1 || dry.Dedupe != nil {
		t.Fatalf("dry run: %+v", dry.Lifecycle)
	}
	res := run(nil) // an empty body takes the defaults
	if res.Lifecycle.Expired != 1 || len(res.Lifecycle.Changes) != 1 {
		t.Fatalf("run: %+v", res.Lifecycle)
	}
	c := res.Lifecycle.Changes[0]
	if c.Reason != "expired_valid_to" || c.From != string(memory.StatusActive) || c.To != string(memory.StatusExpired) || c.MemoryID != ended.MemoryID {
		t.Fatalf("change %+v", c)
	}
	again := run(map[string]any{"dedupe": true, "dedupe_threshold": 0.95})
	if len(again.Lifecycle.Changes) != 0 || again.Dedupe == nil || again.Dedupe.Threshold != 0.95 || len(again.Dedupe.Changes) != 0 {
		t.Fatalf("second run: %+v %+v", again.Lifecycle, again.Dedupe)
	}
	// The expired fact is history now.
	var list wire.MemoryList
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories?include_history=true", nil), http.StatusOK, &list)
	found := false
	for _, v := range list.Memories {
		if v.MemoryID == ended.MemoryID {
			found = v.Status == string(memory.StatusExpired)
		}
	}
	if !found {
		t.Fatalf("the ended fact is not listed as expired history: %+v", list.Memories)
	}

	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"unknown field", map[string]any{"dryrun": true}, http.StatusBadRequest, "invalid_request"},
		{"not JSON", "{", http.StatusBadRequest, "malformed_json"},
		{"negative limit", map[string]any{"limit": -1}, http.StatusBadRequest, "invalid_request"},
		{"threshold without dedupe", map[string]any{"dedupe_threshold": 0.9}, http.StatusBadRequest, "invalid_request"},
		{"threshold above 1", map[string]any{"dedupe": true, "dedupe_threshold": 1.5}, http.StatusBadRequest, "invalid_request"},
		{"threshold 0", map[string]any{"dedupe": true, "dedupe_threshold": 0}, http.StatusBadRequest, "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e2eProblem(t, f.e2eDo(t, "POST", "/v1/lifecycle/run", tc.body), tc.status, tc.code)
		})
	}
	e2eProblem(t, f.e2eDo(t, "POST", "/v1/lifecycle/run", nil, "X-Mnemon-Namespace", "empty"), http.StatusNotFound, "namespace_not_found")
}
