package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// A short clause after an ended value that says when or what for ("only at
// weddings", "just for games") limits the old value; it names no new one
// (what the sentence says is the ending alone, as before the tail was
// read). Only a clause that names a thing ("only decaf") takes the slot.
func TestReplacementTailIsNoCircumstance(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"only at an occasion", "I don't drink beer anymore, only at weddings", []string{"preference user prefers:drink=beer cue=negation"}},
		{"just for a use", "I don't use Windows anymore, just for games", []string{"preference user prefers:os=Windows cue=negation"}},
		{"only with people", "I don't drink wine anymore, only with my parents", []string{"preference user prefers:drink=wine cue=negation"}},
		{"a thing still takes the slot", "I don't drink coffee anymore, only decaf lol", []string{
			"preference user prefers:drink=coffee cue=past", "preference user prefers:drink=decaf cue=correction"}},
	})
}
