package httpapi_test

import (
	"net/http"
	"slices"
	"testing"
)

// A capture without occurred_at stamps every event with the time it
// arrived, so two turns of one batch that say the same words ("ok" to two
// questions) share kind, speaker, text and time. They are still two turns:
// an event without a time of its own is never recognised as a retry (the
// field's documentation), so nothing of the batch may fold into another.
func TestE2ECaptureWithoutTimesKeepsRepeatedTurns(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	hdr := []string{"X-Mnemon-Namespace", "repeats"}
	var c e2eCaptureResp
	r := f.e2eDo(t, "POST", "/v1/episodes?wait=true", map[string]any{"session_id": "deploy-chat",
		"events": []map[string]any{
			{"kind": "user_message", "content": "ok"},
			{"kind": "agent_message", "content": "Staging is green, shall I roll out to prod as well?"},
			{"kind": "user_message", "content": "ok"},
		}}, hdr...)
	e2eJSON(t, r, http.StatusOK, &c)
	if len(c.EpisodeIDs) != 3 || c.EpisodeIDs[0] == c.EpisodeIDs[2] || slices.Contains(c.EpisodeIDs, "") {
		t.Fatalf("three turns, want three episodes: %s", r.body)
	}
	for _, id := range c.EpisodeIDs {
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories/"+id, nil, hdr...), http.StatusOK, nil)
	}
}
