package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// Casual shapes of issue 16 (round six): a message that opens on its
// speaker's name ("hey, Priyanka here"), and a value closed by "instead"
// that takes the place of the one said just before it. Each writes what
// it says, or nothing.
func TestCasualShapesIssue16Casual6(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		// Introductions.
		{"greeting, name here", "hey, Priyanka here, picking up where we left off", []string{"fact user name=Priyanka"}},
		{"name here alone", "Jun here", []string{"fact user name=Jun"}},
		{"it is name here", "it's Ottilie here", []string{"fact user name=Ottilie"}},
		{"name here again", "Marta here again", []string{"fact user name=Marta"}},
		{"this is name, more", "this is Bram, quick one about the release", []string{"fact user name=Bram"}},
		{"greeted this is name", "hi, this is Dana from finance", []string{"fact user name=Dana"}},
		{"this is name alone shows someone", "This is Bram.", nil},
		{"this is someone else's", "this is Bram's desk, he's out today", nil},
		{"this is someone described", "this is Mika, my new flatmate", nil},
		{"a day here", "it's Tuesday here", nil},
		{"a holiday here", "It's Christmas here", nil},
		{"a place here", "it's Lisbon here", nil},
		{"a place here, more", "Lisbon here is sunny", nil},
		{"weather here", "it's cold here", nil},
		{"same here", "Same here", nil},
		{"a known thing", "this is Python", nil},
		{"a place", "this is Berlin", nil},
		{"a question", "anyone here?", nil},
		{"not the first sentence", "I sent the file. this is Bram, by the way", nil},

		// A value closed by "instead" replaces the one said before it.
		{"a drink instead", "I drink green tea at work. matcha instead", []string{"preference user prefers:drink=matcha cue=correction"}},
		{"a drink with an article instead", "I drink green tea at work. ok, a flat white instead.", []string{"preference user prefers:drink=flat white cue=correction"}},
		{"a tracker instead", "we track bugs in Trello. hmm no, let's go with Asana instead", []string{"fact team uses:issue_tracker=Asana cue=correction"}},
		{"a home instead", "I live in Porto. Lisbon instead", []string{"fact user lives_in=Lisbon cue=correction"}},
		{"no kin instead", "I live in Porto. the train instead", []string{"fact user lives_in=Porto"}},
		{"another category instead", "I drink green tea at work. Python instead", []string{"preference user prefers:drink=green tea"}},
		{"a clause instead", "we track bugs in Trello. I walked instead", []string{"fact team uses:issue_tracker=Trello"}},
		{"instead of", "I drink green tea at work. matcha instead of coffee on fridays", []string{"preference user prefers:drink=green tea"}},

		// "let's do X": a thing decided is the thing, never "X instead".
		{"let's do a thing instead", "let's do Linear instead", []string{"decision team decision:issue_tracker=Linear cue=correction"}},
		{"let's do a verb phrase", "let's do standups at 10", []string{"decision team decision:standups_at_10=standups at 10"}},
	})
}

// PutsInstead tells a turn that only puts a value in place of the one
// before; CorrectsPrevious counts it among corrections.
func TestPutsInstead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"let's go with Asana instead", true},
		{"ok, a flat white instead.", true},
		{"matcha instead", true},
		{"took the bus instead of the train", false},
		{"I stayed home and read instead because the weather turned", false},
		{"instead", false},
		{"we use Asana", false},
	} {
		if got := PutsInstead(c.in); got != c.want {
			t.Errorf("PutsInstead(%q) = %v, want %v", c.in, got, c.want)
		}
		if got := CorrectsPrevious(c.in); c.want && !got {
			t.Errorf("CorrectsPrevious(%q) = false, want true", c.in)
		}
	}
}
