package synthetic

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestGenerateIsDeterministicPerSeed(t *testing.T) {
	t.Parallel()
	a := Generate(Spec{Seed: 7, Users: 3, Sessions: 6})
	b := Generate(Spec{Seed: 7, Users: 3, Sessions: 6})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same spec generated different users")
	}
	c := Generate(Spec{Seed: 8, Users: 3, Sessions: 6})
	if reflect.DeepEqual(a, c) {
		t.Fatal("seeds 7 and 8 generated the same users")
	}
	// A user does not depend on how many users are generated after it.
	d := Generate(Spec{Seed: 7, Users: 1, Sessions: 6})
	if !reflect.DeepEqual(a[0], d[0]) {
		t.Fatal("user 0 changed with the number of users")
	}
}

func TestGenerateAnswersFollowTheChanges(t *testing.T) {
	t.Parallel()
	for _, spec := range []Spec{
		{Seed: 1, Users: 30, Sessions: 12},
		{Seed: 2, Users: 10, Sessions: 2},
		{Seed: 3, Users: 10, Sessions: 1},
	} {
		for _, u := range Generate(spec) {
			checkUser(t, spec, u)
		}
	}
}

// checkUser replays a user's statements in time order and checks every
// question's answer and evidence against them.
func checkUser(t *testing.T, spec Spec, u User) {
	t.Helper()
	history := map[string][]string{} // attribute → values in the order they became true
	for i, turn := range u.Turns {
		if turn.Index != i {
			t.Fatalf("%s: turn %d has index %d", u.ID, i, turn.Index)
		}
		if i > 0 && !turn.At.After(u.Turns[i-1].At) {
			t.Fatalf("%s: turn %d is not after turn %d", u.ID, i, i-1)
		}
		if turn.Value != "" && !containsFold(turn.Text, turn.Value) {
			t.Fatalf("%s: turn %q does not name its value %q", u.ID, turn.Text, turn.Value)
		}
		switch turn.Role {
		case RoleState, RoleChange:
			history[turn.Attr] = append(history[turn.Attr], turn.Value)
		case RoleRestate:
			if h := history[turn.Attr]; len(h) == 0 || h[len(h)-1] != turn.Value {
				t.Fatalf("%s: restatement %q of a value not held", u.ID, turn.Text)
			}
		case RoleOther, RoleMention, RoleTentative:
			// A distractor never names the value the user holds then.
			if h := history[turn.Attr]; len(h) > 0 && h[len(h)-1] == turn.Value {
				t.Fatalf("%s: distractor %q names the user's own value", u.ID, turn.Text)
			}
		}
	}
	if len(u.Questions) == 0 {
		t.Fatalf("%s: no questions", u.ID)
	}
	for _, q := range u.Questions {
		h := history[q.Attr]
		want := h[len(h)-1]
		if q.Asks == Previous {
			if len(h) < 2 {
				t.Fatalf("%s: previous question about %s with no change", q.ID, q.Attr)
			}
			want = h[len(h)-2]
		}
		if q.Answer != want {
			t.Fatalf("%s: answer %q, replay says %q (history %v)", q.ID, q.Answer, want, h)
		}
		if !slices.Contains(q.Candidates, q.Answer) {
			t.Fatalf("%s: answer %q is not a candidate", q.ID, q.Answer)
		}
		if len(q.Evidence) == 0 {
			t.Fatalf("%s: no evidence", q.ID)
		}
		for _, e := range q.Evidence {
			if !containsFold(u.Turns[e].Text, q.Answer) || u.Turns[e].Attr != q.Attr {
				t.Fatalf("%s: evidence turn %q does not state %q", q.ID, u.Turns[e].Text, q.Answer)
			}
		}
		if spec.Sessions == 1 && q.Asks == Previous {
			t.Fatalf("%s: a change within one session", q.ID)
		}
	}
}

func TestGenerateHasEveryKindOfTurn(t *testing.T) {
	t.Parallel()
	users := Generate(Spec{Seed: 1, Users: 5, Sessions: 12})
	roles := map[Role]int{}
	asks := map[Asks]int{}
	for _, u := range users {
		for _, turn := range u.Turns {
			roles[turn.Role]++
		}
		for _, q := range u.Questions {
			asks[q.Asks]++
		}
	}
	for _, r := range []Role{RoleState, RoleChange, RoleRestate, RoleOther, RoleMention, RoleTentative, RoleSmallTalk, RoleReply} {
		if roles[r] == 0 {
			t.Errorf("no %s turns in 5 users", r)
		}
	}
	if asks[Current] == 0 || asks[Previous] == 0 {
		t.Errorf("questions: %v", asks)
	}
}

// Questions are asked in other words than statements use: no question
// template repeats its attribute's statement wording verbatim.
func TestQuestionsParaphrase(t *testing.T) {
	t.Parallel()
	for _, a := range attributes() {
		if len(a.Paraphrases) == 0 {
			t.Errorf("%s lists no paraphrases", a.Name)
		}
		for _, q := range append(slices.Clone(a.AskCurrent), a.AskPrevious...) {
			for _, v := range a.Values {
				if strings.Contains(q, v) {
					t.Errorf("question %q names the value %q", q, v)
				}
			}
		}
	}
}

func TestFill(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ tmpl, v, old, want string }{
		{"I switched from {old} to {new}.", "Rust", "Python", "I switched from Python to Rust."},
		{"{v} is my go-to language.", "Rust", "", "Rust is my go-to language."},
		{"{v} is what I play while working.", "jazz", "", "Jazz is what I play while working."},
	} {
		if got := fill(tc.tmpl, tc.v, tc.old); got != tc.want {
			t.Errorf("fill(%q) = %q, want %q", tc.tmpl, got, tc.want)
		}
	}
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
