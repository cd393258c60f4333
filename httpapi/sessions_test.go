package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestE2ESessionsAreConversations plays an agent the way agent code drives
// mnemon: each conversation captured with its session id, questions asked
// from a later conversation. A session is a conversation, not a wall: its
// turns are recalled later; agent, user and project stay hard filters.
func TestE2ESessionsAreConversations(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{mcp: true})
	now := time.Now().UTC()
	day1, day2 := now.Add(-49*time.Hour), now.Add(-25*time.Hour)
	capture := func(session, user string, at time.Time, lines ...string) {
		t.Helper()
		events := make([]map[string]any, len(lines))
		for i, l := range lines {
			kind := "user_message"
			if i%2 == 1 {
				kind = "agent_message"
			}
			events[i] = e2eEvent(kind, l, at.Add(time.Duration(i)*time.Minute))
		}
		body := map[string]any{"user_id": user, "agent_id": "helper", "events": events}
		if session != "" {
			body["session_id"] = session
		}
		var c e2eCaptureResp
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/episodes?wait=true", body), http.StatusOK, &c)
	}
	capture("chat-0412", "u1", day1,
		"ugh, the fridge at the cabin died again",
		"That's annoying. Do you want me to find a repair service near the cabin?",
		"nah my brother-in-law Teodor fixes those, he's coming over on the weekend")
	capture("chat-0413", "u1", day2,
		"quick one: the cabin wifi password is on the back of the router, not the fridge magnet",
		"Got it, the router's back label, not the magnet.")
	capture("chat-0413", "u2", day2, "my cabin is in the mountains, no fridge at all")

	type item struct {
		Kind    string `json:"kind"`
		Content string `json:"content"`
	}
	ask := func(body map[string]any) []string {
		t.Helper()
		var rr struct {
			Context string `json:"context"`
			Items   []item `json:"items"`
		}
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", body), http.StatusOK, &rr)
		if rr.Context == "" {
			return nil
		}
		// The context the agent reads: packed turns with their neighbours.
		turns := []string{rr.Context}
		for _, it := range rr.Items {
			if it.Kind == "episodic" {
				turns = append(turns, it.Content)
			}
		}
		return turns
	}
	has := func(turns []string, word string) bool {
		return slices.ContainsFunc(turns, func(s string) bool { return strings.Contains(s, word) })
	}

	t.Run("a third session recalls turns of both earlier ones", func(t *testing.T) {
		turns := ask(map[string]any{"query": "who fixes the cabin fridge? and where is the wifi password?",
			"user_id": "u1", "agent_id": "helper", "session_id": "chat-0420", "context_turns": 0})
		if !has(turns, "Teodor") || !has(turns, "router") {
			t.Fatalf("got %q, want the turn naming Teodor (day 1) and the router (day 2)", turns)
		}
		if has(turns, "mountains") {
			t.Fatalf("another user's turn was served: %q", turns)
		}
	})
	t.Run("without a session id too", func(t *testing.T) {
		turns := ask(map[string]any{"query": "cabin fridge repair", "user_id": "u1", "agent_id": "helper"})
		if !has(turns, "Teodor") {
			t.Fatalf("got %q", turns)
		}
	})
	t.Run("owners stay hard filters", func(t *testing.T) {
		if turns := ask(map[string]any{"query": "cabin fridge", "session_id": "chat-0412"}); len(turns) != 0 {
			t.Fatalf("a request naming no user or agent got user-owned turns: %q", turns)
		}
		if turns := ask(map[string]any{"query": "cabin fridge", "user_id": "u1", "agent_id": "other"}); len(turns) != 0 {
			t.Fatalf("another agent got this agent's turns: %q", turns)
		}
	})
	t.Run("session_only restricts to the named session", func(t *testing.T) {
		turns := ask(map[string]any{"query": "cabin fridge wifi password", "user_id": "u1", "agent_id": "helper",
			"session_id": "chat-0413", "session_only": true, "context_turns": 0})
		if len(turns) == 0 || has(turns, "Teodor") || has(turns, "mountains") {
			t.Fatalf("got %q, want only u1's turns of chat-0413", turns)
		}
	})
	t.Run("session_only needs a session", func(t *testing.T) {
		r := f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "cabin", "session_only": true})
		p := e2eProblem(t, r, http.StatusBadRequest, "invalid_request")
		if !strings.Contains(p.Detail, "session_id") {
			t.Fatalf("detail %q", p.Detail)
		}
	})
	t.Run("over MCP too", func(t *testing.T) {
		s, err := mcpConnect(t, f, "")
		if err != nil {
			t.Fatal(err)
		}
		scope := map[string]any{"query": "who fixes the cabin fridge?", "user_id": "u1", "agent_id": "helper", "session_id": "chat-0420"}
		if text, isErr := mcpCall(t, s, "recall", scope); isErr || !strings.Contains(text, "Teodor") {
			t.Fatalf("recall from a later session: %v %s", isErr, text)
		}
		scope["session_only"] = true
		if text, isErr := mcpCall(t, s, "recall", scope); isErr || strings.Contains(text, "Teodor") {
			t.Fatalf("recall kept to a session with nothing said in it: %v %s", isErr, text)
		}
		delete(scope, "session_id")
		if text, isErr := mcpCall(t, s, "recall", scope); !isErr || !strings.Contains(text, "session_id") {
			t.Fatalf("session_only without a session: %v %s", isErr, text)
		}
	})
	t.Run("a capture without a session id", func(t *testing.T) {
		capture("", "u1", now.Add(-time.Hour), "the cabin key is under the blue flowerpot")
		if turns := ask(map[string]any{"query": "where is the cabin key?", "user_id": "u1", "agent_id": "helper"}); !has(turns, "flowerpot") {
			t.Fatalf("got %q", turns)
		}
	})
	t.Run("one limit for session ids everywhere", func(t *testing.T) {
		long := strings.Repeat("s", 257)
		ev := []map[string]any{e2eEvent("user_message", "hello there", now)}
		for _, c := range []struct {
			path string
			body map[string]any
		}{
			{"/v1/episodes", map[string]any{"session_id": long, "events": ev}},
			{"/v1/memories", map[string]any{"session_id": long, "text": "I like figs."}},
			{"/v1/memories/retrieve", map[string]any{"session_id": long, "query": "figs"}},
			{"/v1/sessions/" + long + "/consolidate", nil},
		} {
			r := f.e2eDo(t, "POST", c.path, c.body)
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "256") {
				t.Errorf("%s with a 257-byte session id: %s", c.path, r)
			}
		}
		ok := strings.Repeat("s", 256)
		var c e2eCaptureResp
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/episodes?wait=true", map[string]any{"session_id": ok, "events": ev}), http.StatusOK, &c)
	})
}
