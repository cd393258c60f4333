package httpapi_test

import (
	"strings"
	"testing"
	"time"
)

// Captured over the API in two sessions, in passing: a date corrected
// with "no wait, it's the …", a food one "can't do", a team's CI. Later
// questions in other words find what holds now: the corrected date, the
// food for a task about dinner, the CI for a question about the pipeline.
func TestE2ECasualCorrectionFoodAndPipeline(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 5, 4, 18, 0, 0, 0, time.UTC)
	hdr := []string{"X-Mnemon-Namespace", "casual-lead"}
	f.e2eCapture(t, "evening-1", []map[string]any{
		e2eEvent("user_message", "the graduation is on the 2nd, no wait, it's the 12th, the 2nd is the rehearsal", day),
		e2eEvent("user_message", "fyi I can't do shellfish, found out the hard way", day.Add(time.Minute)),
	}, hdr...)
	f.e2eCapture(t, "evening-2", []map[string]any{
		e2eEvent("user_message", "our CI runs on Buildkite now, way less flaky than before", day.Add(3*24*time.Hour)),
	}, hdr...)

	facts := f.e2eFacts(t, "casual-lead")
	if fact := factWithValue(facts, "user", "the 12th"); fact == nil || fact.Status != "active" {
		t.Errorf("no active graduation date of the 12th: %+v", facts)
	}
	if fact := factWithValue(facts, "user", "the 2nd"); fact != nil {
		t.Errorf("the date said before the correction was stored: %+v", fact)
	}
	if fact := factWithValue(facts, "user", "shellfish"); fact == nil || fact.Status != "active" {
		t.Errorf("no active shellfish diet fact: %+v", facts)
	}
	for q, want := range map[string]string{
		"when's the graduation again?":      "12th",
		"any food I need to watch out for?": "shellfish",
		"what's our build pipeline on now?": "Buildkite",
	} {
		res := f.e2eRetrieve(t, q, hdr...)
		if !strings.Contains(first(res), want) {
			t.Errorf("%q: top %q, want %q first (%v)", q, first(res), want, e2eContents(res.Items))
		}
	}
}

// A manager changed by "I report to X now" in a later session supersedes
// the one named before, and a change said with a comparison ("way less
// flaky than before") is the value now, not history.
func TestE2EReportingLineAndComparisons(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	hdr := []string{"X-Mnemon-Namespace", "casual-lead-2"}
	f.e2eCapture(t, "monday", []map[string]any{
		e2eEvent("user_message", "my manager is Rosa, she's lovely tbh", day),
	}, hdr...)
	f.e2eCapture(t, "thursday", []map[string]any{
		e2eEvent("user_message", "reorg happened lol, I report to Anton now", day.Add(3*24*time.Hour)),
		e2eEvent("user_message", "our CI runs on Woodpecker now, way less flaky than before", day.Add(3*24*time.Hour+time.Minute)),
	}, hdr...)
	facts := f.e2eFacts(t, "casual-lead-2")
	if fact := factWithValue(facts, "manager", "Anton"); fact == nil || fact.Status != "active" {
		t.Errorf("no active manager Anton: %+v", facts)
	}
	if fact := factWithValue(facts, "manager", "Rosa"); fact == nil || fact.Status != "superseded" {
		t.Errorf("manager Rosa not superseded: %+v", fact)
	}
	if fact := factWithValue(facts, "team", "Woodpecker"); fact == nil || fact.Status != "active" {
		t.Errorf("the CI said with a comparison is not active: %+v", facts)
	}
	if res := f.e2eRetrieve(t, "what's our pipeline running on?", hdr...); !strings.Contains(first(res), "Woodpecker") {
		t.Errorf("pipeline: top %q (%v)", first(res), e2eContents(res.Items))
	}
}

// Over the API, with each line its own session: a question about one of
// the user's people is answered by what was said of that person, not by
// what was said of another (whose fact's key word matched the question).
func TestE2EAnotherRelationDoesNotAnswer(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	f.userSays(t, "people",
		"quick intro, I look after the data team at Pelorus",
		"my manager is Anselm",
		"oh and my daughter Ysolde starts school in the autumn",
		"Anselm moved to the sales side, so I report to Rhiannon these days")
	for _, tc := range []struct{ q, want string }{
		{"what's the name of my kid?", "Ysolde"},
		{"what's my daughter called?", "Ysolde"},
	} {
		res := f.e2eRetrieve(t, tc.q, "X-Mnemon-Namespace", "people")
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, tc.want) {
			t.Errorf("%q: top %q, want %q first (%v)", tc.q, first(res), tc.want, e2eContents(res.Items))
		}
	}
}

// Over the API: a question after what to mind before doing something, and
// a task, reach the user's limits though they share no word with them, and
// a line said after a friend's news is no answer to such a question.
func TestE2ELimitsReachAQuestionWithNoSharedWord(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	f.e2eCapture(t, "chat-a", []map[string]any{
		{"kind": "user_message", "content": "I'm in Tartu these days btw"},
		{"kind": "user_message", "content": "my pal Evert lives up in Narva and keeps inviting me over"},
		{"kind": "user_message", "content": "if I ever adopt a cat I'm naming it Mochi lol"},
	}, "X-Mnemon-Namespace", "limits2")
	f.userSays(t, "limits2",
		"been using Sublime for everything lately",
		"no gluten for me this month, trying an elimination diet")
	for _, q := range []string{
		"anything to keep in mind if I cook for myself tonight?",
		"what should I watch out for at the dinner party?",
		"plan my meals for the week",
	} {
		res := f.e2eRetrieve(t, q, "X-Mnemon-Namespace", "limits2")
		if len(res.Items) == 0 || !strings.Contains(strings.ToLower(res.Items[0].Content), "gluten") {
			t.Errorf("%q: top %q, want the gluten limit first (%v)", q, first(res), e2eContents(res.Items))
			for _, it := range res.Items {
				t.Log(it.Content, " :: ", it.Explanation)
			}
		}
		for _, it := range res.Items {
			if strings.Contains(it.Explanation, "reply") {
				t.Errorf("%q: %q lifted as a reply: %s", q, it.Content, it.Explanation)
			}
		}
	}
}

// A task reaches the user's diet, the fact the rules read and the turn
// that said it, though the task shares no word with either.
func TestE2ETaskReachesTheDiet(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	f.userSays(t, "diet",
		"fyi I'm pescatarian, have been for ages",
		"our CI is on Woodpecker runners",
		"the quarterly review got moved to the 14th")
	res := f.e2eRetrieve(t, "pick a place for dinner tonight", "X-Mnemon-Namespace", "diet")
	fact, turn := -1, -1
	for i, it := range res.Items {
		switch {
		case it.Kind == "semantic" && strings.Contains(it.Content, "pescatarian"):
			fact = i
		case strings.Contains(it.Content, "pescatarian"):
			turn = i
		}
	}
	if fact < 0 || turn < 0 || min(fact, turn) > 1 {
		t.Errorf("the diet fact at %d, its turn at %d; want both, one in the first two (%v)", fact, turn, e2eContents(res.Items))
	}
}
