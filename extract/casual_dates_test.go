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

// A comparison with then says the value holds now, and words after a
// comma that compare the thing are no second thing.
func TestCasualComparisonsAreNoHistory(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"than before", "our CI runs on Drone now, way less flaky than before",
			[]string{"fact team uses:ci=Drone cue=correction"}},
		{"than in the past", "I live in Utrecht now, way calmer than in the past",
			[]string{"fact user lives_in=Utrecht cue=correction"}},
		{"before alone is still history", "I lived in Utrecht before",
			[]string{"fact user lives_in=Utrecht cue=past"}},
		{"same as before", "I still use Kakoune, same as before",
			[]string{"preference user prefers:editor=Kakoune"}},
		{"faster than ever", "I use Helix, faster than ever",
			[]string{"preference user prefers:editor=Helix"}},
	})
}

// A correction marker corrects the value said just before it: with
// another clause in between it names something else, and the value stays.
func TestCorrectionAfterAnotherClause(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"right after the value", "I live in Ghent, sorry, Leuven",
			[]string{"fact user lives_in=Leuven cue=correction"}},
		{"a filler between", "I live in Ghent, honestly, sorry, Leuven",
			[]string{"fact user lives_in=Leuven cue=correction"}},
		{"another clause between", "we bought a house in Ghent, I still commute to Leuven, sorry, Mechelen",
			[]string{"fact user lives_in=Ghent cue=correction"}},
		{"another person's clause between", "Mira can't do dairy, I'll eat anything, sorry, Porto",
			[]string{"fact mira avoids:dairy=dairy"}},
	})
}

// A job got as a post, by the speaker or someone they name, is a new role;
// someone named who got or landed a job somewhere works there now.
func TestJobGotAsAPost(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"the speaker", "I finally got a job as a sound engineer!!",
			[]string{"fact user role=sound engineer cue=correction"}},
		{"a named person", "Ayo got a job as a pharmacist, so no more retail for her",
			[]string{"fact ayo role=pharmacist cue=correction"}},
		{"a relative", "my cousin got a job as a welder",
			[]string{"fact cousin role=welder cue=correction"}},
		{"a named person's new employer", "Ayo landed a job at Brightwater",
			[]string{"fact ayo works_at=Brightwater cue=correction"}},
		{"an offer is no job", "Ayo got an offer from Brightwater", nil},
	})
}

// Whom the speaker reports to is their manager; a plan to, a bug reported
// to someone or someone else's manager is not.
func TestReportingToIsTheManager(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"now", "I report to Odile now", []string{"fact manager name=Odile cue=correction"}},
		{"dropped I", "reporting to Odile now", []string{"fact manager name=Odile cue=correction"}},
		{"a plan", "I'll report to Odile from next month", nil},
		{"a bug reported", "I reported the outage to Odile", nil},
		{"not a name", "I report to the board", nil},
		{"someone else", "Tomas reports to Odile", nil},
	})
}

// "our CI is on X": the preposition is no part of the tool; a state after
// it names no tool at all.
func TestCategoryIsOnAThing(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"is on", "our CI is on Woodpecker runners", []string{"fact team uses:ci=Woodpecker runners"}},
		{"is in", "the team's CI is in Bamboo", []string{"fact team uses:ci=Bamboo"}},
		{"is with", "our database is with Neon", []string{"fact team uses:database=Neon"}},
		{"plain", "our CI is Drone", []string{"fact team uses:ci=Drone"}},
		{"a state is no tool", "our database is in a bad state", nil},
	})
}
