package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// More casual shapes of issue 16: a change said after an aside, "no more
// X for me", the new value after it ("Y only"), and "more of a X person"
// for an X the lexicon does not know.
func TestCasualShapesIssue16Casual3(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		// An aside and a comma before a change whose "I" is dropped: the
		// change opens the sentence as if the aside were not there.
		{"heads up, moved off X to Y", "heads up, moved off Evernote to Joplin for notes last month", []string{
			"preference user prefers:notes=Evernote cue=past", "preference user prefers:notes=Joplin cue=correction"}},
		{"for the record, switched from X to Y", "for the record, switched from Asana to Linear", []string{
			"preference user prefers:issue_tracker=Linear cue=correction", "preference user prefers:issue_tracker=Asana cue=past"}},
		{"heads up, ditched X for Y", "heads up, ditched Asana for Linear lol", []string{
			"preference user prefers:issue_tracker=Asana cue=past", "preference user prefers:issue_tracker=Linear cue=correction"}},
		{"to be honest, moved to a city", "to be honest, moved to Leeds in the spring", []string{"fact user lives_in=Leeds cue=correction"}},
		{"an aside before someone else's move", "heads up, the standup moved to 10", nil},
		{"an aside before a question", "heads up, moved off Evernote?", nil},

		// "no more X for me": X ends; what follows ("Y only", "only Y",
		// "just Y") takes its place. An X the lexicon cannot place is
		// left as said.
		{"no more X for me, Y only", "no more soda for me, sparkling water only", []string{
			"preference user prefers:drink=soda cue=past", "preference user prefers:drink=sparkling water cue=correction"}},
		{"no more X, only Y", "no more Vim, only Helix these days", []string{
			"preference user prefers:editor=Vim cue=past", "preference user prefers:editor=Helix cue=correction"}},
		{"no more X for me, alone", "no more espresso for me lol", []string{"preference user prefers:drink=espresso cue=negation"}},
		{"no more of an unknown thing", "no more late nights for me", nil},
		{"no more of someone else's", "no more soda for my son", nil},
		{"no more, asked", "no more soda for me?", nil},
		{"Y only after a plain ending", "I don't drink soda anymore, sparkling water only", []string{
			"preference user prefers:drink=soda cue=past", "preference user prefers:drink=sparkling water cue=correction"}},

		// "more of a X person" with X a noun the lexicon does not know: a
		// liking. A trait ("a night person") or an adjective ("a
		// spontaneous person") is no liking, nor is "a X person" without
		// "more of", which as often says what someone is like ("a quiet
		// person").
		{"more of an unknown X person", "I'm more of a dumpling person", []string{"preference user likes:dumpling=dumpling"}},
		{"more of a X person, dropped I'm", "more of a crossword person tbh", []string{"preference user likes:crossword=crossword"}},
		{"more of a gerund person", "honestly I'm more of a hiking person", []string{"preference user likes:hiking=hiking"}},
		{"a trait", "I'm more of a night person", nil},
		{"another trait", "more of a people person really", nil},
		{"an adjective", "I'm more of a spontaneous person", nil},
		{"another adjective", "I'm more of a creative person", nil},
		{"a capitalised word", "I'm more of a Tuesday person", nil},
		{"no more of", "I'm a quiet person", nil},
	})
}
