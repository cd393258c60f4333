package httpapi_test

import (
	"testing"
	"time"
)

// Casual speech of issue 16, round seven, through the API: a change said
// with no subject, a pet got and named, "X instead" with a tail, and
// questions whose words are not the stored line's ("call me", "get to
// work"). Each case is one user's chat, a session per line group, days
// apart, asked from a later session; want is a phrase the first item
// must hold; facts are subject/key=value pairs that must be live (or,
// with a leading "!", must not be).
func TestE2ECasualSevenSubjectlessAndAskedOtherwise(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 5, 11, 9, 0, 0, 0, time.UTC)
	cases := []sittingsCase{
		// A speaker's change with no subject, of a thing only the team is on.
		{"upgraded, no subject", [][]string{{"fwiw our dashboard is on svelte 4"}, {"upgraded to svelte 5 last night, went fine"}},
			"which svelte are we on?", "svelte 5", []string{"team/uses:framework:dashboard=svelte 5", "!team/uses:framework:dashboard=svelte 4", "!user/prefers:framework=svelte 5"}},
		{"the speaker's own slot stays the speaker's", [][]string{{"I use svelte 4 for my side projects", "our dashboard is on svelte 4"}, {"upgraded to svelte 5 last night"}},
			"", "", []string{"team/uses:framework:dashboard=svelte 4", "user/prefers:framework=svelte 5"}},
		{"another thing is no change of it", [][]string{{"our dashboard is on svelte 4"}, {"upgraded to vue 3 on my laptop"}},
			"", "", []string{"team/uses:framework:dashboard=svelte 4"}},
		// A pet got and named, no "I"; its young is of its kind.
		{"a kitten got, no subject", [][]string{{"got a rescue kitten named Pip on saturday"}},
			"what's my cat called?", "Pip", []string{"user/name_of:cat=Pip"}},
		// "instead" and a tail that says it holds now.
		{"instead these days", [][]string{{"I drink green tea in the afternoons", "oat latte instead these days"}},
			"what do I drink in the afternoons?", "oat latte", []string{"user/prefers:drink=oat latte", "!user/prefers:drink=green tea"}},
		{"a drink instead, then now", [][]string{{"I drink green tea at my desk", "matcha instead now"}},
			"what do I drink at my desk?", "matcha", []string{"user/prefers:drink=matcha", "!user/prefers:drink=green tea"}},
		// "instead" in a later sitting than the value it replaces.
		{"instead, a sitting later", [][]string{{"I drink green tea at my desk"}, {"hmm, matcha instead lately"}},
			"what do I drink at my desk?", "matcha", []string{"user/prefers:drink=matcha", "!user/prefers:drink=green tea"}},
		{"a tracker instead, a sitting later", [][]string{{"we track bugs in Trello"}, {"ok let's go with Linear instead"}},
			"where do we track bugs?", "Linear", []string{"team/uses:issue_tracker=Linear", "!team/uses:issue_tracker=Trello"}},
		{"instead of no kin, a sitting later", [][]string{{"I drink green tea at my desk"}, {"the night bus instead"}},
			"", "", []string{"user/prefers:drink=green tea"}},
		{"instead of another kind, a sitting later", [][]string{{"I drink green tea at my desk"}, {"Rust instead"}},
			"", "", []string{"user/prefers:drink=green tea"}},
		// Asked in other words than were said.
		{"what to call the user", [][]string{{"I'm Wilhelmina but Mina is fine", "got a puppy called Biscuit"}},
			"what should you call me?", "Wilhelmina", nil},
		{"getting to work", [][]string{{"I commute by bike most days, rain or shine", "my dentist moved to the high street"}},
			"how do I get to work?", "by bike", nil},
	}
	runSittings(t, f, "seven", day, cases)
}
