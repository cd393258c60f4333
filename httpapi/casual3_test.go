package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// userSays captures each line as its own chat turn with no occurred_at
// (the server's time of receipt), as a user's agent sends them.
func (f *e2eFixture) userSays(t *testing.T, ns string, lines ...string) {
	t.Helper()
	for i, line := range lines {
		f.e2eCapture(t, fmt.Sprintf("chat-%s-%d", ns, i), []map[string]any{{"kind": "user_message", "content": line}},
			"X-Mnemon-Namespace", ns)
	}
}

// A question about what the user may not eat is answered by their limits
// (an allergy said in passing), not by the latest change of taste, even
// one said with a rule word ("don't … anymore, only …"). The question's
// "can't" asks for a rule only with a verb of having: "why can't I …"
// asks for none.
func TestE2ELimitQuestionRanksTheAllergyOverATasteChange(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	f.userSays(t, "limits",
		"oh and I'm allergic to sesame, found out last summer",
		"ngl I don't really drink soda anymore, only kombucha",
		"moved my standing desk next to the window now")
	for _, q := range []string{"anything I can't eat?", "what should I not eat at the party?", "is there food I shouldn't have?"} {
		res := f.e2eRetrieve(t, q, "X-Mnemon-Namespace", "limits")
		if len(res.Items) < 2 || !strings.Contains(strings.ToLower(res.Items[0].Content), "sesame") {
			t.Errorf("%q: top %q, want the sesame allergy first (%v)", q, first(res), e2eContents(res.Items))
		}
		for i, it := range res.Items {
			if strings.Contains(it.Content, "kombucha") && i < 2 && strings.Contains(it.Explanation, "change") {
				t.Errorf("%q: the taste change #%d was lifted as a change: %s", q, i, it.Explanation)
			}
		}
	}
	// The change still answers a question about the current drink.
	res := f.e2eRetrieve(t, "what do I drink these days?", "X-Mnemon-Namespace", "limits")
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "kombucha") {
		t.Errorf("top %q, want kombucha first (%v)", first(res), e2eContents(res.Items))
	}
}

// "still" and "now" ask for the value after a change: the turn that left
// a habit or changed a value comes before the one it replaced.
func TestE2EStillAndNowPutTheChangedValueFirst(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	cases := []struct {
		before, after, q, want string
	}{
		{"I vape a little on weekends, bad habit I know", "finally quit vaping in january!!", "do I still vape?", "quit"},
		{"I bite my nails when I'm stressed lol", "stopped biting my nails a month ago, so proud", "do I still bite my nails?", "stopped"},
		{"the garage door code is 4471", "changed the garage code to 9902 after the break-in", "what's the garage code now?", "9902"},
		{"my locker at the gym is number 112", "switched lockers, I'm on 87 now", "what's my gym locker now?", "87"},
	}
	for i, c := range cases {
		ns := fmt.Sprintf("still%d", i)
		f.userSays(t, ns, c.before, c.after)
		res := f.e2eRetrieve(t, c.q, "X-Mnemon-Namespace", ns)
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, c.want) {
			t.Errorf("%q: top %q, want the turn saying %q first (%v)", c.q, first(res), c.want, e2eContents(res.Items))
		}
	}
}

// Casual changes and leanings store the fact they say: a change after an
// aside supersedes the tool, "no more X for me, Y only" ends X and states
// Y, "more of a X person" is a liking of X.
func TestE2ECasualChangesAfterAsidesAndNoMore(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	cases := []struct {
		before, after          string
		subject, key, old, now string
	}{
		{"I keep all my notes in Evernote", "heads up, moved off Evernote to Joplin for notes a few days ago lol", "user", "prefers:notes", "Evernote", "Joplin"},
		{"I track my todos in Asana", "fyi ditched Asana for Linear, way snappier", "user", "prefers:issue_tracker", "Asana", "Linear"},
		{"I drink soda with every meal, terrible I know", "no more soda for me, sparkling water only", "user", "prefers:drink", "soda", "sparkling water"},
		{"", "I'm more of a dumpling person tbh", "user", "likes:dumpling", "", "dumpling"},
	}
	for i, c := range cases {
		ns := fmt.Sprintf("casual3y%d", i)
		lines := []string{c.after}
		if c.before != "" {
			lines = []string{c.before, c.after}
		}
		f.userSays(t, ns, lines...)
		facts := f.e2eFacts(t, ns)
		var live, old *e2eFact
		for j := range facts {
			fc := &facts[j]
			if fc.Subject != c.subject || fc.Key != c.key {
				continue
			}
			if strings.EqualFold(fc.Value, c.now) && fc.Status == "active" {
				live = fc
			}
			if c.old != "" && strings.EqualFold(fc.Value, c.old) {
				old = fc
			}
		}
		if live == nil {
			t.Errorf("%q: no active %s = %q: %+v", c.after, c.key, c.now, facts)
		}
		if c.old != "" && (old == nil || old.Status == "active" || old.Status == "contested") {
			t.Errorf("%q: the old value %q is not superseded: %+v", c.after, c.old, old)
		}
	}
}
