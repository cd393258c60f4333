package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// A list said with commas only, no "and", is still a list: its lower-case
// items of two words ("sulfa drugs", "tree nuts") are items, not a remark
// after the list (an aside such as "found out the hard way" is a clause:
// a verb, an article, a pronoun). Each allergen is a fact of its own.
func TestCommaListKeepsTwoWordItems(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"two items, the second of two words", "I'm allergic to penicillin, sulfa drugs", []string{
			"fact user allergic_to:penicillin=penicillin crit=high", "fact user allergic_to:sulfa_drugs=sulfa drugs crit=high"}},
		{"three items without and", "I'm allergic to peanuts, tree nuts, sesame seeds", []string{
			"fact user allergic_to:peanuts=peanuts crit=high", "fact user allergic_to:tree_nuts=tree nuts crit=high", "fact user allergic_to:sesame_seeds=sesame seeds crit=high"}},
		{"an aside still ends the list", "I'm allergic to penicillin, found out the hard way", []string{
			"fact user allergic_to:penicillin=penicillin crit=high"}},
		{"an aside with a pronoun", "I'm allergic to shellfish, learned that at a wedding", []string{
			"fact user allergic_to:shellfish=shellfish crit=high"}},
	})
}
