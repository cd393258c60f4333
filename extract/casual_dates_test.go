package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// A correction inside one message keeps the corrected value even when the
// speaker restates it with "it's" and a date, and what one "can't do" of a
// food is a diet however casually it is said.
func TestCasualCorrectionsAndFoods(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"it's and an ordinal", "Noor's birthday is the 3rd, no wait, it's the 13th, the 3rd is my aunt's",
			[]string{"fact noor birthday=the 13th cue=correction"}},
		{"it's and a later ordinal", "the gig is on the 5th, sorry, it's the 15th",
			[]string{"fact user date:gig=the 15th cue=correction"}},
		{"it's the and no date is an aside", "My editor is Helix, sorry, it's the best",
			[]string{"preference user prefers:editor=Helix"}},
		{"it's the before a name is no correction of a place", "I live in Ghent, sorry, it's the rain",
			[]string{"fact user lives_in=Ghent"}},
		{"can't do a food", "I can't do shellfish, rough night last time",
			[]string{"fact user avoids:shellfish=shellfish"}},
		{"can't handle a food anymore", "I can't handle gluten anymore tbh",
			[]string{"fact user avoids:gluten=gluten"}},
		{"can't do a time of day is no diet", "I can't do mornings", nil},
	})
}
