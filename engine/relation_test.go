package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// A question about one of the user's people is not answered by a turn or a
// fact about another of them, however well a key word matched: "what's my
// kid's name?" is not answered by "my manager is Hollis" (its fact's key is
// "name"), nor by the later turn that replaced the manager. A relation of
// the same family answers it: "my daughter ...", "my boss" for "my manager".
func TestAnotherRelationDoesNotAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		turns [][]string // sessions of turns
		query string
		want  string // in the top item
	}{
		{"kid, not the manager's name",
			[][]string{{"my manager is Hollis"}, {"my son Teodor just turned six"}},
			"what's the name of my kid?", "Teodor"},
		{"kid, not the manager's replacement",
			[][]string{{"my manager is Hollis"}, {"my son Teodor just turned six"}, {"Hollis moved over to marketing, so I report to Brigid these days"}},
			"what's my kid called?", "Teodor"},
		{"boss answered by the manager",
			[][]string{{"my manager is Hollis"}, {"my son Teodor just turned six"}},
			"who is my boss?", "Hollis"},
		{"the kid's taste, not the user's",
			[][]string{{"I'm more of a mountains person than a beach person tbh"}, {"my son Teodor is obsessed with trains lately"}},
			"what does my kid like?", "trains"},
		{"partner, not the sister",
			[][]string{{"my sister's name is Oona"}, {"my wife Carys is a vet"}},
			"what's my partner's name?", "Carys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, clk, _ := newEngine(t)
			start := clk.Now().Add(-5 * day)
			for i, turns := range tc.turns {
				captureSession(t, e, "ns", string(rune('a'+i)), start.Add(time.Duration(i)*day), turns...)
			}
			res := askUser(t, e, tc.query)
			if !topSays(res, tc.want) {
				t.Fatalf("top items %v, want %q first", contents(res), tc.want)
			}
		})
	}
}

// A question in the first person about the project's tools is answered by
// what the team uses, and a change said of something else (weakly related
// to the question) takes no change lift over it.
func TestTeamFactsAnswerTheFirstPerson(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-3 * day)
	captureSession(t, e, "ns", "a", start, "the monorepo uses yarn, not npm, please", "we're on python 3.11 for now")
	captureSession(t, e, "ns", "b", start.Add(day), "scratch that, python 3.12 since last week", "my dentist moved to a new office")
	for _, tc := range []struct{ query, want string }{
		{"which package manager should I use?", "yarn"},
		{"what package manager do we use?", "yarn"},
	} {
		res := askUser(t, e, tc.query)
		if !topSays(res, tc.want) {
			t.Errorf("%q: top items %v, want %q first", tc.query, contents(res), tc.want)
		}
		for i, it := range res.Items[:min(2, len(res.Items))] {
			if strings.Contains(it.Content, "python") {
				t.Errorf("%q: the python change is #%d: %s", tc.query, i+1, it.Explanation)
			}
		}
	}
}

// A change said of someone the question names ("Maren quit the band, she's
// coaching now") answers "what is Maren doing now?" before the user's own
// earlier question about her, which states nothing.
func TestNamedPersonsChangeAnswersNow(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-3 * day)
	captureSession(t, e, "ns", "a", start, "my cousin Maren plays bass in a touring band")
	captureSession(t, e, "ns", "b", start.Add(day), "Maren quit the band, she's coaching a youth team now")
	captureSession(t, e, "ns", "c", start.Add(2*day), "can you remind me what Maren is up to these days?")
	res := askUser(t, e, "what is Maren doing now?")
	if !topSays(res, "coaching") {
		t.Fatalf("top items %v, want her change first", contents(res))
	}
}

// The speaker's own news that names a place ("my flight to Bergen is on
// the 3rd") is no news of other people: the next line is no reply to lift
// over it; a correction of it ("correction, … the 4th, not the 3rd") says
// what changed.
func TestOwnNewsIsFollowedByItsCorrectionNotAReply(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-3 * day)
	captureSession(t, e, "ns", "a", start, "my flight to Bergen is on the 3rd", "I work at Lindqvist as a data engineer")
	captureSession(t, e, "ns", "b", start.Add(day), "correction, the Bergen flight is on the 4th, not the 3rd", "handed in my notice at Lindqvist, starting at Osterholm in May")
	res := askUser(t, e, "when do I fly to Bergen?")
	if !topSays(res, "4th") {
		t.Fatalf("top items %v, want the correction first", contents(res))
	}
	for _, it := range res.Items {
		if _, ok := it.Terms["reply"]; ok {
			t.Errorf("%q lifted as a reply: %s", it.Content, it.Explanation)
		}
	}
}

// askUser retrieves for user u1 in namespace "ns", no context turns, as the
// tests of this file ask.
func askUser(t *testing.T, e *engine.Engine, query string) *engine.Result {
	t.Helper()
	return retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: query,
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
}

// A sentence that opens on a name common as a word ("Ravi", "Tom") still
// names someone when a person's verb follows, so a later turn about that
// person is followed: "who should I ask about the billing API this week?"
// after "Ravi owns the billing API", then "Ravi's out on leave …, Dmitri is
// covering billing".
func TestOpeningNameIsFollowed(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-3 * day)
	captureSession(t, e, "ns", "a", start, "Ravi owns the billing API", "for anything network, ping Oda")
	captureSession(t, e, "ns", "b", start.Add(day), "Ravi's out on leave till May, Dmitri is covering billing for him", "Oda moved to the data team last week")
	res := askUser(t, e, "who should I ask about the billing API this week?")
	if !topSays(res, "Dmitri") {
		t.Fatalf("top items %v, want the cover first", contents(res))
	}
}

// topSays reports whether the first item says want.
func topSays(res *engine.Result, want string) bool {
	return len(res.Items) > 0 && strings.Contains(res.Items[0].Content, want)
}
