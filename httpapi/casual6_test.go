package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Casual speech of issue 16, round six, through the API as an agent's
// hook sends it: each case is one user's chat, a session per line group,
// days apart, asked from a later session. want is a phrase the first
// item must hold; facts are subject/key=value pairs that must be live
// (or, with a leading "!", must not be).
func TestE2ECasualSixUpdatesWhatIsTrueNow(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC)
	cases := []sittingsCase{
		// A change of a thing one part of the project uses is that part's.
		{"one part upgraded", [][]string{{"fwiw our api is on mysql 5.7"}, {"we moved to mysql 8 over the weekend"}},
			"which mysql version is the api on?", "mysql 8", []string{"team/uses:database:api=mysql 8", "!team/uses:database:api=mysql 5.7"}},
		{"two parts: which one is not said", [][]string{{"our api is on mysql 5.7", "our worker is on mysql 5.6"}, {"we moved to mysql 8 over the weekend"}},
			"", "", []string{"team/uses:database:api=mysql 5.7", "team/uses:database:worker=mysql 5.6", "team/uses:database=mysql 8"}},
		// "X instead" puts X in place of the value before it.
		{"a tracker instead", [][]string{{"we track bugs in Trello these days", "hmm no, let's go with Asana instead"}},
			"where do we track bugs?", "Asana", []string{"team/uses:issue_tracker=Asana", "!team/uses:issue_tracker=Trello"}},
		{"a drink instead", [][]string{{"I drink green tea at my desk", "ok a flat white instead"}},
			"what do I drink at my desk?", "flat white", []string{"user/prefers:drink=flat white"}},
		{"instead of no kin", [][]string{{"I drink green tea at my desk", "took the bus instead"}},
			"what do I drink at my desk?", "green tea", []string{"user/prefers:drink=green tea"}},
		// A casual quit contests the fact it names.
		{"off a drink", [][]string{{"I drink espresso every morning"}, {"I'm off espresso for a while, doctor's orders"}},
			"what do I drink in the mornings now?", "off espresso", []string{"!user/prefers:drink=espresso"}},
		{"off to a place", [][]string{{"I drink espresso every morning"}, {"I'm off to the espresso bar on the corner"}},
			"what do I drink in the mornings now?", "every morning", []string{"user/prefers:drink=espresso"}},
		// A message that opens on its speaker's name.
		{"name here", [][]string{{"hey, Priyanka here, picking up where we left off"}}, "what's my name?", "Priyanka", []string{"user/name=Priyanka"}},
		{"no names", [][]string{{"this is Bram's desk, he's out today", "it's Tuesday here", "Lisbon here is sunny"}},
			"", "", []string{"!user/name=Bram", "!user/name=Tuesday", "!user/name=Lisbon"}},
		// For now questions, a later turn needs a change or a stand-in.
		{"a trip is no change", [][]string{{"Ines runs our Madrid office"}, {"flying to Madrid on Thursday for the offsite"}},
			"who runs the Madrid office now?", "Ines runs", nil},
		{"a stand-in is", [][]string{{"Ines runs our Madrid office"}, {"Ines is off sick, Tomas is covering the Madrid office till she's back"}},
			"who runs the Madrid office now?", "Tomas", nil},
	}
	runSittings(t, f, "six", day, cases)
}

// The words that frame a rule as said ("set a rule:", "new rule,",
// "always") are no topic a task shares with it: "set up my new laptop"
// is answered by what the user said of the laptop first, not by "new
// rule, never force-push to main", which still follows it as a rule
// every task must respect.
func TestE2ETaskIgnoresRuleTemplateWords(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC)
	hdr := []string{"X-Mnemon-Namespace", "ruletemplate"}
	var evs []map[string]any
	for i, l := range []string{
		"set a rule: always run the linter before committing",
		"new rule, never force-push to main",
		"my laptop is a ThinkPad and I like dark mode everywhere",
		"I keep forgetting birthdays, my sister's is in June",
	} {
		evs = append(evs, e2eEvent("user_message", l, day.Add(time.Duration(i)*time.Hour)))
	}
	f.e2eCapture(t, "rules-1", evs, hdr...)
	for q, want := range map[string]string{
		"set up my new laptop for me":       "ThinkPad",
		"help me always remember birthdays": "birthdays",
	} {
		res := f.e2eRetrieve(t, q, hdr...)
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, want) {
			t.Errorf("%q: top %q, want %q first (%v)", q, first(res), want, e2eContents(res.Items))
		}
	}
	// A question about the rules still finds them by their words.
	res := f.e2eRetrieve(t, "what's the rule about force-pushing?", hdr...)
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "force-push") {
		t.Errorf("top %q, want the force-push rule first (%v)", first(res), e2eContents(res.Items))
	}
}

// sittingsCase is one user's chat through the API, a session per line
// group, days apart, asked from a later session: want is a phrase the
// first item must hold; facts are subject/key=value pairs that must be
// live (or, with a leading "!", must not be).
type sittingsCase struct {
	name     string
	sessions [][]string
	q, want  string
	facts    []string
}

// runSittings captures each case's sessions into a namespace of its own
// (prefix and its index), starting on day, and checks its facts and its
// first item.
func runSittings(t *testing.T, f *e2eFixture, prefix string, day time.Time, cases []sittingsCase) {
	t.Helper()
	for i, c := range cases {
		ns := fmt.Sprintf("%s%d", prefix, i)
		hdr := []string{"X-Mnemon-Namespace", ns}
		for si, s := range c.sessions {
			var evs []map[string]any
			for ti, line := range s {
				evs = append(evs, e2eEvent("user_message", line, day.Add(time.Duration(si)*72*time.Hour+time.Duration(ti)*time.Minute)))
			}
			f.e2eCapture(t, fmt.Sprintf("%s-s%d", ns, si), evs, hdr...)
		}
		checkSitting(t, f, ns, c.name, c.facts, c.q, c.want, hdr...)
	}
}

// checkSitting checks what a sitting left in namespace ns: each of facts
// ("subject/key=value", "!" first for one that must not be live, "*" for
// any subject or key) live or not, and, when q is set, an item stating
// want first for q.
func checkSitting(t *testing.T, f *e2eFixture, ns, name string, facts []string, q, want string, hdr ...string) {
	t.Helper()
	live := f.e2eFacts(t, ns)
	for _, w := range facts {
		absent := strings.HasPrefix(w, "!")
		subjKey, value, _ := strings.Cut(strings.TrimPrefix(w, "!"), "=")
		subject, key, _ := strings.Cut(subjKey, "/")
		found := false
		for _, fc := range live {
			if (subject == "*" || fc.Subject == subject) && (key == "*" || fc.Key == key) && strings.EqualFold(fc.Value, value) && fc.Status == "active" {
				found = true
			}
		}
		if found == absent {
			t.Errorf("%s: fact %s live=%v, want %v (%+v)", name, w, found, !absent, live)
		}
	}
	if q == "" {
		return
	}
	res := f.e2eRetrieve(t, q, hdr...)
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, want) {
		t.Errorf("%s: %q: top %q, want %q first (%v)", name, q, first(res), want, e2eContents(res.Items))
	}
}
