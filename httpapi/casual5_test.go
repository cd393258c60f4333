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
		"I lift at the Ironclad gym by the river most mornings",
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
		// "work out" is exercise, not a job.
		{"where do I work out?", "gym", "Tallyho"},
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

// Limits on food (an allergy, a diet, "no cilantro") bind tasks about
// food or a meal; a task about anything else ("book me a hotel for the
// offsite") is not led by them, while a rule about the task's own kind
// ("never book anything before 9") still is.
func TestE2ECasual5FoodLimitsOnlyForFoodTasks(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 10, 6, 9, 0, 0, 0, time.UTC)
	hdr := []string{"X-Mnemon-Namespace", "casual-five-limits"}
	var evs []map[string]any
	for i, s := range []string{
		"I'm allergic to shellfish, found out the hard way",
		"doing keto since January",
		"no cilantro ever, it tastes like soap",
		"I'm speaking at the infra meetup in Ghent next month",
		"I like window seats",
		"my hotel budget is about 140 a night",
		"never schedule anything before 9am",
	} {
		evs = append(evs, e2eEvent("user_message", s, day.Add(time.Duration(i)*time.Minute)))
	}
	f.e2eCapture(t, "setup", evs, hdr...)
	food := func(s string) bool {
		s = strings.ToLower(s)
		return strings.Contains(s, "shellfish") || strings.Contains(s, "keto") || strings.Contains(s, "cilantro")
	}
	for _, q := range []string{"book me a hotel for the meetup", "book a taxi to the station", "draft an email about the meetup", "reserve a desk for tomorrow"} {
		res := f.e2eRetrieve(t, q, hdr...)
		for i, it := range res.Items {
			if i < 3 && food(it.Content) {
				t.Errorf("%q: a food limit is item %d: %v", q, i+1, e2eContents(res.Items))
			}
		}
	}
	for _, q := range []string{"order me dinner tonight", "find a restaurant near the venue for lunch"} {
		res := f.e2eRetrieve(t, q, hdr...)
		found := false
		for i, it := range res.Items {
			if i < 3 && strings.Contains(it.Content, "shellfish") {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: the shellfish allergy is not in the top 3: %v", q, e2eContents(res.Items))
		}
	}
	res := f.e2eRetrieve(t, "schedule a call with the meetup organisers", hdr...)
	if !strings.Contains(strings.Join(e2eContents(res.Items[:min(3, len(res.Items))]), " "), "9am") {
		t.Errorf("the scheduling rule is not in the top 3: %v", e2eContents(res.Items))
	}
}

// A tool dropped in a sentence that goes on about "lesson plans" is
// still dropped: a plan word used as a noun is no plan.
func TestE2ECasual5DroppedToolBesideAPlanNoun(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 10, 7, 9, 0, 0, 0, time.UTC)
	hdr := []string{"X-Mnemon-Namespace", "casual-five-plans"}
	f.e2eCapture(t, "a", []map[string]any{e2eEvent("user_message", "we use Trello for school stuff but honestly it's a mess", day)}, hdr...)
	f.e2eCapture(t, "b", []map[string]any{e2eEvent("user_message", "we ditched Trello, Notion now for lesson plans", day.Add(48*time.Hour))}, hdr...)
	if fact := factWithValue(f.e2eFacts(t, "casual-five-plans"), "team", "Trello"); fact == nil || fact.Status != "contested" {
		t.Errorf("Trello: want contested, got %+v", fact)
	}
}
