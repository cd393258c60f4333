package synthetic

import (
	"context"
	"testing"

	"github.com/mnemon-dev/mnemon/extract"
)

func TestEveryStatementListHoldsOutAQuarter(t *testing.T) {
	t.Parallel()
	split := newTemplateSplit(attributes())
	for _, list := range statementLists(attributes()) {
		held := 0
		for _, tmpl := range list {
			if split[tmpl] {
				held++
			}
		}
		if 4*held < len(list) || held == len(list) {
			t.Errorf("%d of %d templates held out of %q: want at least a quarter, and some left for tuning", held, len(list), list)
		}
	}
	// The rule reads the text only: the list's order does not matter.
	list := attributes()[0].State
	reversed := make([]string, len(list))
	for i, s := range list {
		reversed[len(list)-1-i] = s
	}
	a, b := heldOutTemplates(list), heldOutTemplates(reversed)
	if len(a) != len(b) || a[0] != b[0] {
		t.Errorf("held out %q, or %q for the same list reversed", a, b)
	}
}

func TestTuningSeedsNeverSayAHeldOutTemplate(t *testing.T) {
	t.Parallel()
	for _, u := range Generate(Spec{Seed: TuneSeedMin + 1, Users: 20, Sessions: 12}) {
		for _, turn := range u.Turns {
			if turn.HeldOut {
				t.Fatalf("tuning seed: %s said held-out %q", u.ID, turn.Text)
			}
		}
	}
	roles, questions := map[Role]bool{}, 0
	for _, u := range Generate(Spec{Seed: 1, Users: 20, Sessions: 12}) {
		for _, turn := range u.Turns {
			if turn.HeldOut {
				roles[turn.Role] = true
			}
		}
		for _, q := range u.Questions {
			if q.HeldOut {
				questions++
			}
		}
	}
	for _, r := range []Role{RoleState, RoleChange, RoleRestate, RoleOther, RoleMention, RoleTentative} {
		if !roles[r] {
			t.Errorf("test seed: no held-out %s turn", r)
		}
	}
	if questions == 0 {
		t.Error("test seed: no question answered by a held-out statement")
	}
}

func TestCandidateHoldsJudgesWhatTheTurnSays(t *testing.T) {
	t.Parallel()
	state := Turn{Role: RoleState, Value: "Rust"}
	change := Turn{Role: RoleChange, Value: "Zig", Old: "Rust"}
	cases := []struct {
		name string
		turn Turn
		c    extract.Candidate
		want bool
	}{
		{"the stated value", state, extract.Candidate{Subject: "user", Value: "Rust"}, true},
		{"the value inside a phrase", state, extract.Candidate{Subject: "user", Value: "coding in Rust"}, true},
		{"a hedged statement", state, extract.Candidate{Subject: "user", Value: "Rust", Hedged: true}, false},
		{"ended on a statement", state, extract.Candidate{Subject: "user", Value: "Rust", Cue: extract.CueNegation}, false},
		{"the new value", change, extract.Candidate{Subject: "user", Value: "Zig", Cue: extract.CueCorrection}, true},
		{"the old value as history", change, extract.Candidate{Subject: "user", Value: "Rust", Cue: extract.CuePast}, true},
		{"the old value as current", change, extract.Candidate{Subject: "user", Value: "Rust"}, false},
		{"someone else's value", Turn{Role: RoleOther, Value: "Rust"}, extract.Candidate{Subject: "sister", Value: "Rust"}, true},
		{"someone else's value as the user's", Turn{Role: RoleOther, Value: "Rust"}, extract.Candidate{Subject: "user", Value: "Rust"}, false},
		{"a plan", Turn{Role: RoleTentative, Value: "Rust"}, extract.Candidate{Subject: "user", Value: "Rust", Hedged: true}, false},
		{"a question", Turn{Role: RoleMention, Value: "Rust"}, extract.Candidate{Subject: "user", Value: "Rust"}, false},
	}
	for _, tc := range cases {
		if got := candidateHolds(tc.turn, tc.c); got != tc.want {
			t.Errorf("%s: candidateHolds = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestScoreExtractionCountsBothSplits(t *testing.T) {
	t.Parallel()
	scores, err := scoreExtraction(context.Background(), Generate(Spec{Seed: 1, Users: 10, Sessions: 6}))
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != 2 || scores[0].Templates != "tuning" || scores[1].Templates != "held-out" {
		t.Fatalf("scores = %+v, want tuning then held-out", scores)
	}
	for _, s := range scores {
		if s.Turns == 0 || s.Statements == 0 || s.Facts == 0 || s.Right > s.Facts || s.Stated > s.Statements {
			t.Errorf("%s: implausible counts %+v", s.Templates, s)
		}
	}
}
