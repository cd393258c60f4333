package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/internal/clock"
)

// TestRetrieveContextTurns: context_turns absent takes the default (one
// turn either side of a packed episode, cited by its item); 0 shows the
// episode alone; out of range is a 400 problem.
func TestRetrieveContextTurns(t *testing.T) {
	f := e2eOpen(t, e2eOptions{})
	at := time.Now().Add(-time.Hour)
	c := f.e2eCapture(t, "s1", []map[string]any{
		e2eEvent("user_message", "How was the weekend?", at),
		e2eEvent("agent_message", "We took the kayak to the lake.", at.Add(time.Minute)),
		e2eEvent("user_message", "Lovely! Did it leak again?", at.Add(2*time.Minute)),
	})
	lake := func(body map[string]any) []string {
		t.Helper()
		var rr e2eRetrieveResp
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", body), http.StatusOK, &rr)
		for _, it := range rr.Items {
			if strings.Contains(it.Content, "lake") {
				return it.EpisodeIDs
			}
		}
		t.Fatalf("the lake turn was not retrieved: %s", rr.Context)
		return nil
	}
	if got := lake(map[string]any{"query": "lake kayak", "session_id": "s1"}); len(got) != 3 || !slices.Contains(got, c.EpisodeIDs[0]) || !slices.Contains(got, c.EpisodeIDs[2]) {
		t.Errorf("default context: the lake item cites %v, want all three turns %v", got, c.EpisodeIDs)
	}
	if got := lake(map[string]any{"query": "lake kayak", "session_id": "s1", "context_turns": 0}); len(got) != 1 || got[0] != c.EpisodeIDs[1] {
		t.Errorf("context_turns 0: the lake item cites %v, want only %s", got, c.EpisodeIDs[1])
	}
	for _, bad := range []any{-1, 4, "one"} {
		r := f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "lake", "context_turns": bad})
		if r.status != http.StatusBadRequest {
			t.Errorf("context_turns %v: status %d %s", bad, r.status, r.body)
		}
	}
}

// TestRetrieveKnownAt: known_at answers with what was held at that record
// time; a malformed one is a 400 invalid_timestamp.
func TestRetrieveKnownAt(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	f := e2eOpen(t, e2eOptions{clock: clk})
	f.e2eRemember(t, map[string]any{"text": "I live in Lisbon."})
	clk.Advance(time.Minute)
	then := clk.Now()
	clk.Advance(time.Minute)
	f.e2eRemember(t, map[string]any{"text": "I moved to Porto."})
	facts := func(body map[string]any) string {
		t.Helper()
		var rr e2eRetrieveResp
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", body), http.StatusOK, &rr)
		var out []string
		for _, it := range rr.Items {
			if it.Kind == "semantic" {
				out = append(out, it.Content)
			}
		}
		return strings.Join(out, " | ")
	}
	if got := facts(map[string]any{"query": "where does the user live", "known_at": then.Format(time.RFC3339Nano)}); !strings.Contains(got, "Lisbon") || strings.Contains(got, "Porto") {
		t.Errorf("known then: %s", got)
	}
	if got := facts(map[string]any{"query": "where does the user live"}); !strings.Contains(got, "Porto") || strings.Contains(got, "Lisbon") {
		t.Errorf("now: %s", got)
	}
	e2eProblem(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "x", "known_at": "yesterday"}), http.StatusBadRequest, httpapi.CodeInvalidTimestamp)
}
