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

		// A verb said alone is an exclamation, no rule; with what it
		// asks for it still is one.
		{"a verb alone, admiring", "Respect. My arms ache just thinking about it.", nil},
		{"a verb alone, cheering", "Merge!", nil},
		{"a verb alone, agreeing", "Reply? Sure.", nil},
		{"a verb with its object", "Use yarn!", []string{"constraint user constraint:use_yarn=Use yarn crit=high"}},

		// A thing moved onto a tool: a switch of tools, keyed by the
		// purpose when one is said.
		{"moved our builds over to a CI, for CI", "we moved our builds over to Buildkite for CI", []string{"fact team uses:ci=Buildkite cue=correction"}},
		{"moved our CI over to", "we moved our CI over to Buildkite", []string{"fact team uses:ci=Buildkite cue=correction"}},
		{"moved our builds over to a CI, no purpose", "we moved our builds over to Buildkite", []string{"fact team uses:ci=Buildkite cue=correction"}},
		{"moved our builds to a build tool", "we migrated our builds to Bazel", []string{"fact team uses:build_tool=Bazel cue=correction"}},
		{"moved our cache to a database", "we moved our cache to Redis", []string{"fact team uses:cache=Redis cue=correction"}},
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
		{"got a job as X, no subject", "got a job as a nurse", []string{"fact user role=nurse cue=correction"}},
		{"just got a job as X", "just got a job as a nurse lol", []string{"fact user role=nurse cue=correction"}},
		{"got a new role at X", "got a new role at Globex", []string{"fact user works_at=Globex cue=correction"}},
		{"finally switched to X", "finally switched to Neovim", []string{"preference user prefers:editor=Neovim cue=correction"}},
		{"just joined X", "just joined Globex", []string{"fact user works_at=Globex cue=correction"}},
		{"got something else", "got a cold", nil},
		{"got an offer, no job", "got a job offer from Globex", nil},
		{"got a job, asked", "got a job as a nurse?", nil},
		{"someone else got a job", "my sister got a job as a nurse", []string{"fact sister role=nurse cue=correction"}},

		// A report of belief that closes the sentence is no part of the
		// value (it was: "the 3rd of May I think").
		{"a date, I think", "Marit's birthday is on the 3rd of May I think", []string{"fact marit birthday=the 3rd of May"}},
		{"my date, I guess", "my birthday is the 3rd of May i guess", []string{"fact user birthday=the 3rd of May hedged"}},

		// An event's date moved, said with "'s", or set against another.
		{"X's event got moved to a date", "Okke's wedding got moved to the 21st, ugh", []string{"fact okke date:wedding=the 21st cue=correction"}},
		{"an event pushed back", "the recital was pushed back to the 19th", []string{"fact user date:recital=the 19th cue=correction"}},
		{"an event is now on", "Okke's wedding is now on the 21st", []string{"fact okke date:wedding=the 21st cue=correction"}},
		{"my X's on a date, not another", "oops, my flight's on the 14th not the 15th", []string{"fact user date:flight=the 14th cue=correction"}},
		{"a meeting moved to a room", "the standup got moved to the big room", nil},
		{"my X's something else", "my flight's gate is B12", nil},
		{"my X's not on a date", "my flight's not on the 14th", nil},
		{"a move that may come", "Okke's wedding might get moved to the 21st", nil},

		// A limit or a state said casually, the "I" dropped or not.
		{"gluten free, two words", "btw I'm gluten free, not by choice", []string{"fact user diet=gluten free"}},
		{"can't do X, dropped I", "can't do dairy anymore, my stomach hates it", []string{"fact user avoids:dairy=dairy"}},
		{"can't do a time of day", "can't do mornings", nil},
		{"not on an OS anymore, another now", "tbh I'm not on Windows anymore, Fedora now", []string{
			"preference user prefers:os=Windows cue=past", "preference user prefers:os=Fedora cue=correction"}},
		{"not using X anymore, Y now", "I don't use Vim anymore, Helix now", []string{
			"preference user prefers:editor=Vim cue=past", "preference user prefers:editor=Helix cue=correction"}},
		{"an ending, then Y only these days", "stopped drinking coffee, green tea only these days", []string{
			"preference user prefers:drink=coffee cue=past", "preference user prefers:drink=green tea cue=correction"}},
		{"an ending, then no value now", "I don't drink coffee anymore, too jittery now", []string{"preference user prefers:drink=coffee cue=negation"}},
		{"hosting everything on X now", "yeah so we're hosting everything on Hetzner now, AWS was too pricey", []string{
			"fact team uses:hosting=Hetzner cue=correction"}},
		{"hosting everything, a plan", "we're going to host everything on Hetzner", nil},

		// "the X's on a date" is the speaker's event, as "the X is".
		{"the X's on a date, not another", "scratch that, the party's on Saturday not Friday", []string{"fact user date:party=Saturday cue=correction"}},

		// "kinda", "sort of": a hedge, not the plain state.
		{"kinda a diet", "I'm kinda vegetarian but eat fish sometimes", []string{"fact user diet=vegetarian hedged"}},
		{"what kind of, asked", "what kind of editor do I use", nil},
		{"my kind of X", "my kind of shell is fish", []string{"preference user prefers:shell=fish"}},

		// "no more X for us": the team's tool ends; what follows takes
		// its place.
		{"no more X for us, Y now", "so, no more Jira for us, Linear now", []string{
			"fact team uses:issue_tracker=Jira cue=past", "fact team uses:issue_tracker=Linear cue=correction"}},
		{"no more X for us", "no more Jira for us", []string{"fact team uses:issue_tracker=Jira cue=negation"}},
		{"no more of the team's unknown", "no more late nights for us", nil},

		// How a thing is, not which it is: no value (each was a wrong
		// fact: "The team uses flaky as its CI system").
		{"our CI is an adjective", "our CI is flaky, the integration tests time out a lot", nil},
		{"our CI is broken", "our CI is broken again", nil},
		{"my editor is slow", "my editor is slow", nil},
		{"our database is down", "our database is down", nil},
		{"our CI is terrible, a filler after", "our CI is terrible tbh", nil},
		{"a lower-case thing the lexicon knows", "my shell is fish", []string{"preference user prefers:shell=fish"}},
		{"my editor is on something", "my editor is on the fritz", nil},
		{"my shell is in a state", "my shell is in a weird state", nil},
		{"a name", "our CI is Buildkite lol", []string{"fact team uses:ci=Buildkite"}},
		{"a name with a number", "our database is Postgres 16", []string{"fact team uses:database=Postgres 16"}},

		// Where a release goes is no host (it was "production", and
		// "staging first").
		{"deploy to production", "we deploy to production on Fridays", nil},
		{"deploy to staging, an adverb after", "we deploy to staging first", nil},
		{"deploy everything to prod", "we deploy everything to prod", nil},
		{"deploy to a host", "we deploy to Render on Fridays", []string{"fact team uses:hosting=Render"}},

		// "I've been X": the state, as "I'm X" (it was read only with the
		// "I've" dropped).
		{"I've been a diet for a while", "I've been vegan for like two years", []string{"fact user diet=vegan"}},
		{"I've been, an adverb", "I've been basically vegetarian since May", []string{"fact user diet=vegetarian"}},
		{"I had been, history", "I had been vegan for years", []string{"fact user diet=vegan cue=past"}},
		{"someone else has been", "my sister has been vegan since March", []string{"fact sister diet=vegan"}},
		{"I've been somewhere, a visit", "I've been to Lisbon twice", nil},
		{"I've been, a mood", "I've been sick all week", nil},
		{"I've been someone's flatmate", "I've been Marta's flatmate for a year", nil},

		// A correction that restates the old value with what became of
		// it: the new one after "it's", or none (it was "Dr Ames
		// retired", a wrong fact).
		{"restated and replaced", "my dentist is Dr Ames, no wait, Dr Ames retired, it's Dr Pike now", []string{"fact user dentist=Dr Pike cue=correction"}},
		{"restated, an employer", "I work at Globex, no wait, Globex closed, it's Initech now", []string{"fact user works_at=Initech cue=correction"}},
		{"restated, no new value", "my dentist is Dr Ames, no wait, Dr Ames retired", nil},
		{"a plain correction still reads", "my dentist is Dr Ames, no wait, Dr Pike", []string{"fact user dentist=Dr Pike cue=correction"}},

		// "Tom's X" is "Tom is X" before an allergy or a diet that ends
		// the clause, and Tom's own thing otherwise.
		{"X's allergic", "Tom's allergic to nuts so no satay", []string{"fact tom allergic_to:nuts=nuts crit=high"}},
		{"X's a diet, then when", "Tom's vegan, apparently", []string{"fact tom diet=vegan"}},
		{"X's diet-word thing", "Mia's vegan cookbook just came out", nil},
		{"X's allergic reaction", "Mia's allergic reaction was scary", nil},

		// A sentence that takes back the one before ("scratch that",
		// "oops, no") withdraws what it said, unless it says the same
		// slot again; a value corrected keeps no key of the old one (it
		// was allergic_to:peanuts = sesame).
		{"taken back, then someone else's words", "Mira's allergic to peanuts. Oh wait, scratch that, her GP reckons sesame", nil},
		{"taken back, the same slot again", "I live in Graz. Scratch that, I live in Linz", []string{"fact user lives_in=Graz", "fact user lives_in=Linz cue=correction"}},
		{"taken back, nothing after", "I'm vegan. Oops, no, forget that.", nil},
		{"no take-back", "I live in Graz. Actually, I love it here.", []string{"fact user lives_in=Graz"}},
		{"a corrected allergen is its own slot", "Mira is allergic to peanuts. Sorry, sesame", []string{"fact mira allergic_to:sesame=sesame cue=correction crit=high"}},
		{"a corrected language in place", "I speak Dutch, sorry, Danish", []string{"fact user speaks:danish=Danish cue=correction"}},
	})
}
