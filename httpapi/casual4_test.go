package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Said casually over two sessions: a friend's event date, a team's CI
// moved with "moved our builds over to", a new manager after the old one
// left, a diet changed with "I guess ... now", a job got with the "I"
// dropped, an editor switched. Asked later from no session: what holds
// now comes first and the stale value does not; asked what came before
// the current editor, the old one comes first without history; a task
// about food reaches the user's allergy though it names a friend.
func TestE2ECasual4ChangesReadAndRanked(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 9, 7, 19, 0, 0, 0, time.UTC)
	hdr := []string{"X-Mnemon-Namespace", "casual-four"}
	var week1 []map[string]any
	for i, s := range []string{
		"our CI runs on Jenkins, it's ancient",
		"my manager is Henrike",
		"I'm vegetarian",
		"I'm a teacher",
		"my editor is Sublime",
		"I'm allergic to shellfish, learned that at a wedding",
		"Ottilie loves sushi",
		"Ottilie and I go climbing on Sundays",
	} {
		week1 = append(week1, e2eEvent("user_message", s, day.Add(time.Duration(i)*time.Minute)))
	}
	f.e2eCapture(t, "week-one", week1, hdr...)
	later := day.Add(9 * 24 * time.Hour)
	var second []map[string]any
	for i, s := range []string{
		"Ilse's graduation is on the 12th",
		"we moved our builds over to Buildkite for CI",
		"Henrike left the company, reporting to Marcus now",
		"so I guess pescatarian now",
		"got a job as a nurse",
		"switched to Zed, way snappier",
	} {
		second = append(second, e2eEvent("user_message", s, later.Add(time.Duration(i)*time.Minute)))
	}
	f.e2eCapture(t, "week-two", second, hdr...)

	facts := f.e2eFacts(t, "casual-four")
	for _, c := range []struct{ subject, now, before string }{
		{"ilse", "the 12th", ""},
		{"team", "Buildkite", "Jenkins"},
		{"manager", "Marcus", "Henrike"},
		{"user", "pescatarian", "vegetarian"},
		{"user", "nurse", "teacher"},
		{"user", "Zed", "Sublime"},
	} {
		if fact := factWithValue(facts, c.subject, c.now); fact == nil || fact.Status != "active" {
			t.Errorf("%s: no active %q: %+v", c.subject, c.now, facts)
		}
		if c.before == "" {
			continue
		}
		if fact := factWithValue(facts, c.subject, c.before); fact == nil || fact.Status != "superseded" {
			t.Errorf("%s: %q is not superseded: %+v", c.subject, c.before, fact)
		}
	}

	for _, c := range []struct{ q, want, stale string }{
		{"when is Ilse's graduation?", "12th", ""},
		{"what do we use for CI?", "Buildkite", "Jenkins"},
		{"who's my manager now?", "Marcus", ""},
		{"what's my diet?", "pescatarian", "vegetarian"},
		{"what is my occupation?", "nurse", "teacher"},
		// Asked what came before the current one: the old editor
		// first, with no history asked for.
		{"what editor did I use before Zed?", "Sublime", ""},
	} {
		res := f.e2eRetrieve(t, c.q, hdr...)
		if top := first(res); !strings.Contains(top, c.want) || c.stale != "" && strings.Contains(top, c.stale) {
			t.Errorf("%q: top %q, want %q first (%v)", c.q, top, c.want, e2eContents(res.Items))
		}
	}

	// A task about food that names a friend: the user's allergy comes
	// first, above what merely names the friend.
	var rr e2eRetrieveResp
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{
		"query": "book a seafood place for dinner with Ottilie", "limit": 4, "token_budget": 800,
	}, hdr...), http.StatusOK, &rr)
	if len(rr.Items) == 0 || !strings.Contains(rr.Items[0].Content, "shellfish") {
		t.Errorf("the shellfish allergy is not first: %v", e2eContents(rr.Items))
	}
}
