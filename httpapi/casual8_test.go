package httpapi_test

import (
	"testing"
	"time"
)

// Casual speech of issue 16, round eight, through the API: an
// announcement before what it announces, a pet named in the clause or
// sentence after it came, a tool bumped to a version, a diet ended with
// no "I'm", and where someone is now after their home was said. Each case
// is one user's chat, a session per line group, days apart, asked from a
// later session; want is a phrase the first item must hold; facts are
// subject/key=value pairs that must be live (or, with "!", must not be).
func TestE2ECasualEightChangesPetsAndStays(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 6, 2, 18, 0, 0, 0, time.UTC)
	cases := []sittingsCase{
		{"an announcement, then a pet", [][]string{{"big news, adopted a kitten called Nutmeg"}},
			"what's my cat called?", "Nutmeg", []string{"user/name_of:cat=Nutmeg"}},
		{"named her, after a comma", [][]string{{"so we got a cat, named her Soot"}},
			"what's the cat's name?", "Soot", []string{"user/name_of:cat=Soot"}},
		{"named him, the next sentence", [][]string{{"ok we got a dog!! named him Pretzel"}},
			"what is my dog called?", "Pretzel", []string{"user/name_of:dog=Pretzel"}},
		{"someone else's pet", [][]string{{"my cousin got a dog, named him Bruno"}},
			"", "", []string{"!user/name_of:dog=Bruno"}},
		{"bumped to a version", [][]string{{"the api runs on node 18"}, {"bumped node to 22 yesterday, tests still green"}},
			"which node does the api run on?", "node 22", []string{"team/uses:runtime:api=node 22", "!team/uses:runtime:api=node 18"}},
		{"bumped into someone", [][]string{{"the api runs on node 18"}, {"bumped into Sam at the farmers market, he says hi"}},
			"", "", []string{"team/uses:runtime:api=node 18", "!user/uses:sam=Sam"}},
		{"a diet ended, no I'm", [][]string{{"I'm pescatarian"}, {"not pescatarian anymore tbh, eating everything again"}},
			"", "", []string{"!user/diet=pescatarian"}},
		{"where she is now, her home known", [][]string{{"my sister Ines lives in Leeds"}, {"Ines is in Glasgow now, she moved for the new job"}},
			"where does Ines live?", "Glasgow", []string{"ines/lives_in=Glasgow", "!ines/lives_in=Leeds"}},
		{"where I am now, in one sitting", [][]string{{"hiya again", "I live in Derby", "im in Nottingham now, closer to work"}},
			"where do I live?", "Nottingham", []string{"user/lives_in=Nottingham", "!user/lives_in=Derby"}},
		{"where he is now, no home known", [][]string{{"my brother Tomas is in Madrid now"}},
			"", "", []string{"!tomas/lives_in=Madrid"}},
		{"a trip after a home", [][]string{{"my brother Tomas lives in Lyon"}, {"Tomas is in Madrid now for a conference"}},
			"where does Tomas live?", "Lyon", []string{"tomas/lives_in=Lyon", "!tomas/lives_in=Madrid"}},
		{"a plan to move off is no move yet", [][]string{{"we host everything on heroku"}, {"moving off heroku this month, probably to render"}},
			"", "", []string{"team/uses:hosting=heroku"}},
	}
	runSittings(t, f, "eight", day, cases)
}
