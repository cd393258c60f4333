package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// Casual shapes of issue 16 (round four): a named person's event date,
// a thing moved onto a tool, the speaker's new manager after someone
// else's clause, a hedged diet change, a job got with the "I" dropped,
// and the casual statements written to probe them, each with what it
// must store (nil: nothing, never a wrong fact).
func TestCasualShapesIssue16Casual4(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		// A person's event has a date of its own, theirs, not the
		// speaker's.
		{"a named person's event date", "Ilse's graduation is on the 12th", []string{"fact ilse date:graduation=the 12th"}},
		{"a named person's event, a month day", "Tomas's wedding is June 3", []string{"fact tomas date:wedding=June 3"}},
		{"a relation's event date", "my brother's recital is the 9th", []string{"fact brother date:recital=the 9th"}},
		{"a named person's event, corrected", "Ilse's graduation is on the 12th, no wait, the 14th", []string{"fact ilse date:graduation=the 14th cue=correction"}},
		{"a named person's event, no date", "Ilse's graduation is on the agenda", nil},
		{"a named person's event, asked", "is Ilse's graduation on the 12th?", nil},

		// A thing moved onto a tool: a switch of tools, keyed by the
		// purpose when one is said.
		{"moved our builds over to a CI, for CI", "we moved our builds over to Buildkite for CI", []string{"fact team uses:ci=Buildkite cue=correction"}},
		{"moved our CI over to", "we moved our CI over to Buildkite", []string{"fact team uses:ci=Buildkite cue=correction"}},
		{"moved my notes to", "moved my notes over to Obsidian lol", []string{"preference user prefers:notes=Obsidian cue=correction"}},
		{"moved a meeting, no tool", "we moved the standup to Friday", nil},
		{"moved my things to a town, no tool", "I moved my stuff to Berlin", nil},
		{"moving our builds, a plan", "we're moving our builds to Buildkite next month", nil},
		{"did not move our builds", "we didn't move our builds to Buildkite", nil},
	})
}
