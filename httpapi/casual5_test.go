package httpapi_test

import (
	"strings"
	"testing"
	"time"
)

// Said casually, one turn a request as a chat client sends them: a name
// with the team the speaker runs, a runtime, a daughter named in passing,
// an unrelated habit and allergy, then "scratch that, node 22 since last
// week" on its own. The correction replaces the runtime it is of (not the
// allergy or the name said in the turns between), the team run names the
// employer, the daughter's name is a fact; asked from another session, the
// current values come first.
func TestE2ECasual5CorrectionsAcrossTurns(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC)
	hdr := []string{"X-Mnemon-Namespace", "casual-five"}
	for i, s := range []string{
		"I'm Wren, I run the growth team at Tallyho",
		"we're on node 18 for the api",
		"my son Emil just started judo",
		"I'm allergic to kiwi",
		"scratch that, node 22 since last week",
	} {
		f.e2eCapture(t, "chat-1", []map[string]any{e2eEvent("user_message", s, day.Add(time.Duration(i)*time.Minute))}, hdr...)
	}
	facts := f.e2eFacts(t, "casual-five")
	for _, c := range []struct{ subject, value, status string }{
		{"user", "Wren", "active"},
		{"user", "Tallyho", "active"},
		{"son", "Emil", "active"},
		{"user", "kiwi", "active"},
		{"team", "node 22", "active"},
		{"team", "node 18", "superseded"},
	} {
		if fact := factWithValue(facts, c.subject, c.value); fact == nil || fact.Status != c.status {
			t.Errorf("%s %q: want %s, got %+v", c.subject, c.value, c.status, fact)
		}
	}
	for _, fact := range facts {
		if strings.Contains(fact.Value, "22") && fact.Subject != "team" {
			t.Errorf("the correction landed on another slot: %+v", fact)
		}
	}
	for _, c := range []struct{ q, want, stale string }{
		{"which node version are we running?", "node 22", "node 18"},
		{"where do I work?", "Tallyho", ""},
		{"what's my son called?", "Emil", ""},
	} {
		res := f.e2eRetrieve(t, c.q, hdr...)
		var top []string
		for i, it := range res.Items {
			if i < 2 {
				top = append(top, it.Content)
			}
		}
		joined := strings.Join(top, " | ")
		if !strings.Contains(joined, c.want) || c.stale != "" && strings.Contains(first(res), c.stale) {
			t.Errorf("%q: top %q, want %q in the first two and not %q first", c.q, joined, c.want, c.stale)
		}
	}
}
