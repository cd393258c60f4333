package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// Casual shapes of issue 16 (round seven): a change or a pet said with
// its "I" left out, the young of a pet named in its kind's slot, and a
// value closed by "instead" with a tail that says it holds now. Each
// writes what it says, or nothing.
func TestCasualShapesIssue16Casual7(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		// Greetings before an introduction.
		{"hiya, name here", "hiya, Ottoline here", []string{"fact user name=Ottoline"}},
		{"howdy, this is name", "howdy, this is Rosalind from accounts", []string{"fact user name=Rosalind"}},
		{"a greeting alone", "hullo", nil},

		// An upgrade with no subject reads as "switched to" does.
		{"upgraded, no subject", "upgraded to svelte 5 last night", []string{"preference user prefers:framework=svelte 5 cue=correction"}},
		{"finally upgraded, no subject", "finally upgraded to postgres 16", []string{"preference user prefers:database=postgres 16 cue=correction"}},
		{"upgraded a device", "upgraded my phone to 256gb", nil},
		{"upgraded a seat", "upgraded to business class on the way home", nil},
		{"upgraded a plan", "upgraded to the family plan", nil},

		// A pet got and named, no "I"; the name is its capitalised words.
		{"got a puppy named", "got a puppy named Juno", []string{"fact user name_of:dog=Juno"}},
		{"got a kitten, a day after", "got a rescue kitten named Pip on saturday", []string{"fact user name_of:cat=Pip"}},
		{"a two-word name", "we adopted a dog called Captain Biscuit last week", []string{"fact user name_of:dog=Captain Biscuit"}},
		{"got a pet, no name", "got a puppy last month", nil},
		{"got a pet for someone", "got a kitten called Noodle for my nephew", nil},
		{"got a pet for a named someone", "got a puppy named Juno for Oskar", nil},
		{"a for after the name is left", "got a puppy named Juno for a few weeks now", nil},
		{"got two", "got two kittens called Salt and Pepper", nil},
		{"got a cold", "got a cold called the office flu", nil},
		{"a young pet is of its kind", "my puppy is called Juno", []string{"fact user name_of:dog=Juno"}},

		// "instead" with a tail of now.
		{"instead these days", "I drink green tea in the afternoons. oat latte instead these days", []string{"preference user prefers:drink=oat latte cue=correction"}},
		{"instead now", "I drink green tea in the afternoons. matcha instead now", []string{"preference user prefers:drink=matcha cue=correction"}},
		{"instead, then a comma and the tail", "I live in Porto. Lisbon instead, these days", []string{"fact user lives_in=Lisbon cue=correction"}},
		{"a head noun of no kin", "I drink green tea in the afternoons. the night bus instead now", []string{"preference user prefers:drink=green tea"}},
		// A bare "well" corrects the value before it when a closer ends
		// the new one ("actually", "really", "technically").
		{"well X actually, a home", "I live in Derby, well Belper actually", []string{"fact user lives_in=Belper cue=correction"}},
		{"well X really, the next sentence", "I live in Derby. well Belper really", []string{"fact user lives_in=Belper cue=correction"}},
		{"well X technically, a tool", "my editor is vim, well helix technically", []string{"preference user prefers:editor=helix cue=correction"}},
		{"well X actually, a longer value", "we track bugs in jira, well jira cloud actually", []string{"fact team uses:issue_tracker=jira cloud cue=correction"}},
		{"well and no closer", "I live in Derby, well near it", []string{"fact user lives_in=Derby"}},
		{"well, an aside with a closer", "I live in Derby, well just outside it really", []string{"fact user lives_in=Derby"}},
		{"well, a remark with a closer", "I work at Acme. well done really", []string{"fact user works_at=Acme"}},
		{"well, a hedge with a closer", "I live in Derby, well mostly actually", []string{"fact user lives_in=Derby"}},
		{"a lead of meh", "we track bugs in Trello. meh, let's go with Linear instead", []string{"fact team uses:issue_tracker=Linear cue=correction"}},
		{"a lead of ok fine", "I drink green tea in the afternoons. ok fine, matcha instead", []string{"preference user prefers:drink=matcha cue=correction"}},
		{"instead of, then now", "I drink green tea in the afternoons. matcha instead of coffee now", []string{"preference user prefers:drink=green tea"}},
	})
}
