package extract

import (
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// Casual shapes of issue 16 (round eight): an announcement before what it
// announces, a pet named in the clause or sentence after it was got, a
// tool bumped to a version, a diet ended with its "I'm" left out and
// fillers around it. Each writes what it says, or nothing.
func TestCasualShapesIssue16Casual8(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		// An announcement opens the message; what follows reads as its start.
		{"big news, a pet", "big news, adopted a kitten called Nutmeg", []string{"fact user name_of:cat=Nutmeg"}},
		{"guess what, a switch", "guess what: switched to helix", []string{"preference user prefers:editor=helix cue=correction"}},
		{"good news, a home now", "good news, i live in Tartu now", []string{"fact user lives_in=Tartu cue=correction"}},
		{"quick update, a team tool", "quick update - we use linear for tickets now", []string{"fact team uses:issue_tracker=linear cue=correction"}},
		{"news as a subject", "big news travels fast in this village", nil},
		{"guess what as a question", "guess what turned up in the post", nil},

		// A pet got, then named.
		{"named her after a comma", "we got a cat, named her Soot", []string{"fact user name_of:cat=Soot"}},
		{"a breed, a time, then called him", "adopted a greyhound last weekend, called him Rocket", []string{"fact user name_of:dog=Rocket"}},
		{"the name in the next sentence", "so we got a dog!! named him Pretzel", []string{"fact user name_of:dog=Pretzel"}},
		{"and named her", "we got a kitten yesterday and named her Figgy", []string{"fact user name_of:cat=Figgy"}},
		{"a reason after the name", "we got a cat. named her Soot because of the chimney", []string{"fact user name_of:cat=Soot"}},
		{"an announcement, then the pet", "big news, got a cat, named her Ember", []string{"fact user name_of:cat=Ember"}},
		{"a coat names a cat", "I have a tabby called Moth", []string{"fact user name_of:cat=Moth"}},
		{"a breed names a dog", "got a beagle named Biscuit", []string{"fact user name_of:dog=Biscuit"}},
		{"rescued from a shelter, named after", "we rescued a tabby from the shelter, named her Clementine", []string{"fact user name_of:cat=Clementine"}},
		{"rescued, no subject", "rescued a greyhound called Dash", []string{"fact user name_of:dog=Dash"}},
		{"rescued by others", "the firefighters rescued a cat named Tom", nil},
		{"rescued a thing", "rescued the project from disaster", nil},
		{"named after someone", "we got a cat, named her after my nan", nil},
		{"called her something else", "we got a cat, called her vet twice already", nil},
		{"someone else's pet", "my friend got a dog, named him Bruno", nil},
		{"a pet maybe", "we might get a cat, named her Soot", nil},
		{"a name for now", "adopted a puppy. named him Otis for now", nil},
		{"named by someone else", "we got a cat. my sister named her Soot", nil},
		{"a pet, no name", "we got a dog.", nil},

		// A tool bumped to a version is a change to it.
		{"bumped, no subject", "bumped node to 22 yesterday, tests still green", []string{"preference user prefers:runtime=node 22 cue=correction"}},
		{"we bumped up to", "we bumped postgres up to 17 last night", []string{"fact team uses:database=postgres 17 cue=correction"}},
		{"I bumped", "I bumped python to 3.12 on my laptop", []string{"preference user prefers:programming_language=python 3.12 cue=correction"}},
		{"bumped into someone", "bumped into Sam at the farmers market, he says hi", nil},
		{"bumped a budget", "bumped the cloud budget to 650 this week", nil},
		{"bumped a plan", "bumped my spotify to the family plan", nil},
		{"bumped a meeting", "bumped the standup to 10", nil},
		{"bumped up a list", "bumped postgres to the top of the list", nil},
		{"a bump planned", "might bump node to 22 next sprint", nil},
		{"a bump denied", "we didn't bump node to 22", nil},

		// A part named with a head noun after it.
		{"a part's service", "our worker service runs on python 3.10, nothing fancy", []string{"fact team uses:programming_language:worker=python 3.10"}},

		// A diet ended, "I'm" left out, fillers between.
		{"no longer a diet", "no longer vegan", []string{"fact user diet=vegan cue=negation"}},
		{"no longer, a filler after", "no longer vegan tbh", []string{"fact user diet=vegan cue=negation"}},
		{"not anymore, a diet", "not vegan anymore", []string{"fact user diet=vegan cue=negation"}},
		{"not anymore, a filler and more", "not pescatarian anymore tbh, eating everything again", []string{"fact user diet=pescatarian cue=negation"}},
		{"not really any more", "not really vegetarian any more", []string{"fact user diet=vegetarian cue=negation"}},
		{"not, no anymore", "not vegan, just vegetarian", nil},
		{"not alone", "not vegan", nil},
		{"a question", "not vegan anymore?", nil},
	})
}

// "X is in <place> now" is read by StaysNow only (the engine keeps it when
// X's home is known and is another place); Extract writes nothing of it.
func TestStaysNowCasual8(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"Ines is in Glasgow now, she moved for the new job", "fact ines lives_in=Glasgow cue=correction"},
		{"my mum's in Cork now", "fact mum lives_in=Cork cue=correction"},
		{"im in Nottingham these days, closer to work", "fact user lives_in=Nottingham cue=correction"},
		{"big news, my sister is in Glasgow now", "fact sister lives_in=Glasgow cue=correction"},
		{"my brother Tomas is in Madrid now for a conference", ""},
		{"Ines is in Glasgow now until March", ""},
		{"I'm in Valencia now, flying back tomorrow", ""},
		{"Ines is in Glasgow", ""},
		{"Ines is in bed now", ""},
		{"Tom is in Marketing now", ""},
		{"Mia is in Year 3 now", ""},
		{"my dad is in Hospital now", ""},
		{"Lena is in HR now", ""},
		{"Ines is in a meeting now", ""},
		{"the team is in Berlin now", ""},
		{"maybe Ines is in Glasgow now", ""},
		{"Ines isn't in Glasgow now", ""},
		{"I live in Porto now", ""},
		{"is Ines in Glasgow now?", ""},
	} {
		ev := Event{Kind: memory.EpisodeUserMessage, Content: c.in}
		var got []string
		for _, cand := range StaysNow(ev) {
			got = append(got, summary(cand))
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("StaysNow(%q) = %q, want %q", c.in, got, c.want)
		}
		if c.want != "" {
			for _, cand := range extractAll(t, ev) {
				if cand.Key == "lives_in" {
					t.Errorf("Extract(%q) wrote %s: a stay alone is no home", c.in, summary(cand))
				}
			}
		}
	}
	if cs := StaysNow(Event{Kind: memory.EpisodeAgentMessage, Content: "Ines is in Glasgow now"}); len(cs) != 0 {
		t.Errorf("StaysNow read an agent's message: %v", cs)
	}
}
