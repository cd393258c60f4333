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
		"anything I can't eat?":                               true,
		"what should I not eat at the bbq?":                   true,
		"is there stuff I shouldn't have?":                    true,
		"what am I allergic to again":                         true,
		"any dietary restrictions I mentioned?":               true,
		"why can't I log into the vpn?":                       false,
		"what don't I know about the move yet?":               false,
		"shouldn't I be at the office tomorrow?":              false,
		"do I still smoke?":                                   false,
		"anything to keep in mind if I cook tonight?":         true,
		"what should I watch out for when ordering?":          true,
		"anything I need to know before I book the cabin?":    true,
		"what should I be careful about at the market?":       true,
		"does Marta know where we keep the spare keys?":       false,
		"who do I know at the Antwerp office?":                false,
		"keep me posted, where did I park the van last time?": false,
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

// A "no" that answers or corrects ("wait no, it's the 21st", "no worries")
// states no rule; one that refuses does ("no shellfish, ever").
func TestDiscourseNoIsNoRule(t *testing.T) {
	t.Parallel()
	an := search.NewAnalyzer()
	for text, want := range map[string]bool{
		"the recital is on the 5th, wait no, it's the 15th": false,
		"no worries, I'll grab the keys later":              false,
		"oh no the train is late again":                     false,
		"no idea why the build broke":                       false,
		"haha no":                                           false,
		"no shellfish for me, ever":                         true,
		"no meetings before 10 please":                      true,
		"I said no to the offer, no regrets":                true,
	} {
		got := shapeOfText(text, an)&shapeRule != 0
		if got != want {
			t.Errorf("shapeOfText(%q) rule = %v, want %v", text, got, want)
		}
	}
}
