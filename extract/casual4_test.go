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

		// The speaker's new manager after the clause of someone who
		// left: the one gone is not the one reporting.
		{"someone left, reporting to X now", "Priya left the company, reporting to Marcus now", []string{"fact manager name=Marcus cue=correction"}},
		{"my manager left, reporting to X now", "my old boss quit, reporting to Marcus now", []string{"fact manager name=Marcus cue=correction"}},
		{"someone left a job, reporting to X now", "Priya left Acme, reporting to Marcus now", []string{
			"fact priya works_at=Acme cue=negation", "fact manager name=Marcus cue=correction"}},
		{"someone else reporting", "Priya is reporting to Marcus now", nil},
		{"someone moved teams, reporting: theirs", "Priya moved to Sales, reporting to Marcus now", nil},
		{"someone did not leave", "Priya didn't leave, reporting to Marcus now", nil},
		{"someone left a town", "Priya left Lisbon, reporting to Marcus now", []string{"fact priya lives_in=Lisbon cue=negation"}},

		// "I guess" before a change the speaker accepts ("so I guess X
		// now") is no hedge; before a plain state, a plan or beside
		// another hedge it still is.
		{"so I guess X now, a diet", "so I guess pescatarian now", []string{"fact user diet=pescatarian cue=correction"}},
		{"I guess I'm X now", "I guess I'm the team lead now lol", []string{"fact user role=team lead cue=correction"}},
		{"I guess, a plain state", "I guess I'm vegan", []string{"fact user diet=vegan hedged"}},
		{"I guess, a plan", "I guess I'll be vegan now", []string{"fact user diet=vegan hedged"}},
		{"I guess, and maybe", "I guess maybe pescatarian now", []string{"fact user diet=pescatarian hedged"}},
		{"I guess, a taste", "I guess I prefer tea", []string{"preference user prefers:drink=tea hedged"}},

		// A job got, or a change made, with the "I" dropped, an adverb
		// before it or not.
		{"got a job as X, dropped I", "got a job as a nurse", []string{"fact user role=nurse cue=correction"}},
		{"just got a job as X", "just got a job as a nurse lol", []string{"fact user role=nurse cue=correction"}},
		{"got a new job at X", "got a new job at Globex", []string{"fact user works_at=Globex cue=correction"}},
		{"finally switched to X", "finally switched to Neovim", []string{"preference user prefers:editor=Neovim cue=correction"}},
		{"just joined X", "just joined Globex", []string{"fact user works_at=Globex cue=correction"}},
		{"got something else", "got a cold", nil},
		{"got an offer, no job", "got a job offer from Globex", nil},
		{"got a job, asked", "got a job as a nurse?", nil},
		{"someone else got a job", "my sister got a job as a nurse", []string{"fact sister role=nurse cue=correction"}},
	})
}
