package extract

import "testing"

// Chat drops the subject and the verb of a state ("Vegetarian since
// uni."), names a tool one is "on", and tacks a reason onto a list after a
// comma; each reads as the speaker's fact, and lookalikes write nothing.
func TestCasualStatesWithoutSubject(t *testing.T) {
	t.Parallel()
	runCases(t, Event{}, []extractCase{
		{"bare diet", "Pescatarian since last spring.", []string{"fact user diet=pescatarian"}},
		{"bare two-word diet", "Lactose intolerant, so no lattes.", []string{"fact user diet=lactose intolerant"}},
		{"bare diet, hedged", "Vegan I suppose, mostly.", []string{"fact user diet=vegan hedged"}},
		{"a diet adjective before a noun", "Vegan brownies are underrated.", nil},
		{"went + diet", "Went dairy-free after the scan.", []string{"fact user diet=dairy-free cue=correction"}},
		{"bare allergy", "Bad cashew allergy here.", []string{"fact user allergic_to:cashews=cashews crit=high"}},
		{"an allergy in general", "Cashew allergy is rarer than you'd think.", nil},
		{"no allergen", "Seasonal allergies, ugh.", nil},
		{"been on a tool", "Been on Vivaldi for a year now.", []string{"preference user prefers:browser=Vivaldi cue=correction"}},
		{"on a tool now", "I'm on Zsh now.", []string{"preference user prefers:shell=Zsh cue=correction"}},
		{"been on something else", "Been on leave all week.", nil},
		{"went + a two-word diet", "went lactose intolerant in my thirties", []string{"fact user diet=lactose intolerant cue=correction"}},
		{"a gerund with its I dropped", "Enjoying Kotlin more than I expected.", []string{"preference user likes:kotlin=Kotlin"}},
		{"a gerund that is the subject", "Enjoying Kotlin makes the job easier.", nil},
		{"a fandom with its I dropped", "Longtime fan of Zig.", []string{"preference user likes:zig=Zig"}},
		{"a two-word team noun opens an aside", "In our dev team we track bugs in Linear.", []string{"fact team uses:issue_tracker=Linear"}},
		{"a reason after the comma", "Stopped using Trello, the board got messy.", []string{"preference user prefers:issue_tracker=Trello cue=negation"}},
		{"a participle before a noun", "I like pho, fried chicken and laksa.", []string{
			"preference user likes:pho=pho", "preference user likes:fried_chicken=fried chicken", "preference user likes:laksa=laksa"}},
	})
}

// A whole stack said as "everything" or "it all", and a component with
// "'s" for "is", run on a known host.
func TestWhereTheStackRuns(t *testing.T) {
	t.Parallel()
	runCases(t, Event{}, []extractCase{
		{"everything runs on", "Everything runs on Render now.", []string{"fact team uses:hosting=Render cue=correction"}},
		{"it all lives on", "It all lives on Hetzner.", []string{"fact team uses:cloud=Hetzner"}},
		{"a component's", "The docs' site is on Netlify.", nil},
		{"the site's on", "The site's on Netlify.", []string{"fact team uses:hosting:site=Netlify"}},
		{"everything is on something else", "Everything is on the wiki.", nil},
		{"a household lives on", "We live on a narrowboat.", nil},
	})
}

// A team names its tool by what it does in it; places and one-off events
// say nothing.
func TestTeamToolNamedByWhatItDoes(t *testing.T) {
	t.Parallel()
	runCases(t, Event{}, []extractCase{
		{"tracker", "We log every outage in Linear.", []string{"fact team uses:issue_tracker=Linear"}},
		{"notes", "We keep the runbooks in Obsidian.", []string{"fact team uses:notes=Obsidian"}},
		{"a place", "We meet in Leeds on Fridays.", nil},
		{"about a tool", "We joked about Jira.", nil},
		{"one past event", "We chatted on Slack this morning.", nil},
		{"negated", "We don't track anything in Jira.", nil},
	})
}

// "I'm in <language or editor> all day" names what the speaker works in;
// a place or no span of time says nothing.
func TestWorkedInAllDay(t *testing.T) {
	t.Parallel()
	runCases(t, Event{}, []extractCase{
		{"a language", "I'm in Kotlin all day.", []string{"preference user prefers:programming_language=Kotlin"}},
		{"an editor", "I'm in Helix most of the time.", []string{"preference user prefers:editor=Helix"}},
		{"no span of time", "I'm in Go.", nil},
		{"a place", "I'm in Madrid all day.", nil},
	})
}
