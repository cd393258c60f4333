package engine

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// A question asks for the user's limits with a limit word, or with a
// modal before a verb of having; a modal alone asks for none.
func TestAsksForRule(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"anything I can't eat?":                  true,
		"what should I not eat at the bbq?":      true,
		"is there stuff I shouldn't have?":       true,
		"what am I allergic to again":            true,
		"any dietary restrictions I mentioned?":  true,
		"why can't I log into the vpn?":          false,
		"what don't I know about the move yet?":  false,
		"shouldn't I be at the office tomorrow?": false,
		"do I still smoke?":                      false,
	} {
		if got := asksForRule(lowerWords(q)); got != want {
			t.Errorf("asksForRule(%q) = %v, want %v", q, got, want)
		}
	}
}

// A limit is a turn's constraint shape; a taste said with a rule word is
// not. A habit left is a change; an activity around a kept tool is not.
func TestLimitAndHabitShapes(t *testing.T) {
	t.Parallel()
	an := search.NewAnalyzer()
	shape := func(text string) turnShape {
		return shapeOf(&memory.Version{Kind: memory.KindEpisodic, Content: text}, an)
	}
	for text, want := range map[string]bool{
		"allergic to hazelnuts fyi":                true,
		"I can't have lactose, it wrecks me":       true,
		"house rule: no shoes inside, ever":        true,
		"I don't eat shellfish":                    true,
		"I dont drink soda anymore, only kombucha": false,
		"I only take the window seat now":          false,
		"we'd rather meet on thursdays":            false,
	} {
		if got := shape(text)&shapeConstraint != 0; got != want {
			t.Errorf("shapeOf(%q) constraint = %v, want %v", text, got, want)
		}
	}
	for text, want := range map[string]bool{
		"quit vaping in january":                 true,
		"gave up drinking":                       true,
		"stopped biting my nails":                true,
		"stopped using Trello":                   true,
		"quit tuning Postgres for the night":     false,
		"gave up on fixing the flaky test in CI": false,
		"stopped expecting anything from them":   false,
		"stopped by the bakery on the way home":  false,
	} {
		if got := shape(text)&shapeChange != 0; got != want {
			t.Errorf("shapeOf(%q) change = %v, want %v", text, got, want)
		}
	}
}
