package engine

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

func TestShapeOf(t *testing.T) {
	t.Parallel()
	an := search.NewAnalyzer()
	for _, tc := range []struct {
		text      string
		want, not turnShape
	}{
		{"nice", shapeChatter, shapeRequest},
		{"ha, fair", shapeChatter, 0},
		{"brutal and accurate", shapeChatter, 0},
		{"that explains the delay then", shapeChatter, 0}, // a reaction of three words
		{"ok, clear now, thanks", shapeChatter, 0},
		{"she loved the garden", 0, shapeChatter},                 // speaks of someone
		{"the kettle at work broke again today", 0, shapeChatter}, // four words say something
		{"allergic to walnuts", 0, shapeChatter | shapeSelf},      // two words, but not small talk
		{"I'm vegan", shapeSelf, shapeChatter},
		{"saw Marta", 0, shapeChatter}, // a name is not chatter
		{"rent is 900", shapeNumber, shapeChatter},
		{"explain how a heat pump works", shapeRequest, shapeChatter},
		{"can you move my dentist appointment", shapeRequest, 0},
		{"does this look right?", shapeRequest, 0},
		{"my brother works at a bakery in Lille", shapeOther, shapeSelf},
		{"Marta's dog is called Pip", shapeOtherName, shapeOther},
		{"my brother moved to Lille and I stayed in Gent", shapeSelf | shapeChange, shapeOther},
		{"my desk is by the window", 0, shapeOther},
		{"switched the blog to Hugo, Jekyll was too slow", shapeChange, 0},
		{"we're on the new office wifi now", shapeChange, shapeChatter},
		{"the blog runs on Hugo", 0, shapeChange},
		{"finished that film last night, genuinely moved", 0, shapeChange}, // moved by a film
		{"moved to Porto in the spring", shapeChange, 0},
		{"we're moving house in May", shapeChange, 0},
		{"been vegan for six years now", 0, shapeChange}, // a duration, not a change
		{"I'm on the night bus for now", 0, shapeChange},
		{"I'm on the night bus now", shapeChange, 0},
		{"bought a second-hand Volvo last week", shapeChange, 0}, // a purchase
		{"ported my number to a cheaper carrier", shapeChange, 0},
		{"finally got a Kindle, reading in bed is great", shapeChange, 0},
		{"picked up a new bike at the weekend", shapeChange, 0},
		{"got it, thanks", 0, shapeChange},
		{"got the train home", 0, shapeChange},
		{"Jules' dentist is on Elm Street", shapeOtherName, shapeOther},
		{"Priya's my manager now", 0, shapeOtherName}, // "Priya is"
		{"Tomas's in Oslo this week", 0, shapeOtherName},
		{"my cousin runs a bakery, I'm so envious", shapeOpensOther | shapeSelf, shapeOther},
		{"Bertrand just leased an electric hatchback", shapeOpensName, shapeSelf},
		{"Sold the old bike at last", 0, shapeOpensName},                        // a common verb opens it
		{"Ditched the gym membership", 0, shapeOpensName},                       // a verb form
		{"Lisbon is lovely in october", 0, shapeOpensName},                      // a place described
		{"Saturdays are for the allotment and a long lunch", 0, shapeOpensName}, // in the plural too
		{"Bertrand and I leased a van", shapeSelf, shapeOpensName},              // the speaker is in it
		{"the Larchmont Gallery reopens in may", shapeNoPerson, 0},              // a name after "the" is a place
		{"the boiler in the cellar is leaking", shapeNoPerson, 0},
		{"lunch with Mirela on friday", 0, shapeNoPerson},        // a name, no article
		{"they close the Larchmont at six", 0, shapeNoPerson},    // a pronoun
		{"our nephew starts at the Larchmont", 0, shapeNoPerson}, // someone's people
		{"Added to your calendar.", 0, shapeNoPerson},            // the listener
	} {
		v := &memory.Version{Kind: memory.KindEpisodic, Content: tc.text}
		got := shapeOf(v, an)
		if got&tc.want != tc.want || got&tc.not != 0 {
			t.Errorf("shapeOf(%q) = %05b; want bits %05b set and %05b clear", tc.text, got, tc.want, tc.not)
		}
	}
	if s := shapeOf(&memory.Version{Kind: memory.KindSemantic, Content: "ok"}, an); s != 0 {
		t.Errorf("a fact has a turn shape: %05b", s)
	}
}

func TestQuestionFacts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q                     string
		self, number, current bool
	}{
		{"what car do I drive?", true, false, false},
		{"when is my birthday?", true, false, false},
		{"who in my flat keeps a bike?", false, false, false},
		{"which of my cousins lives abroad?", false, false, false},
		{"what's my brother's job?", false, false, false},
		{"how much do I pay for the gym?", true, true, false},
		{"how many cats does Ana have?", false, true, false},
		{"which bank am I with at the moment?", true, false, true},
		{"what does Ana do these days?", false, false, true},
		{"where does Ana live now?", false, false, true},
		{"what did Ana do last summer?", false, false, false},
		{"who covers the on-call rota this week?", false, false, true},
		{"what is Ana working on this sprint?", false, false, true},
		{"what did Ana ship last week?", false, false, false},
	} {
		if got := aboutTheUser(lowerWords(tc.q)); got != tc.self {
			t.Errorf("aboutTheUser(%q) = %v", tc.q, got)
		}
		if got := asksForNumber(lowerWords(tc.q)); got != tc.number {
			t.Errorf("asksForNumber(%q) = %v", tc.q, got)
		}
		if got := asksAboutNow(lowerWords(tc.q)); got != tc.current {
			t.Errorf("asksAboutNow(%q) = %v", tc.q, got)
		}
	}
}

func TestAsksForTask(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"book me a table for friday":       true,
		"plan the team offsite":            true,
		"what should I cook tonight?":      false,
		"where do I live":                  false,
		"is the gym open on sundays":       false,
		"groceries":                        false,
		"coffee order for the team":        false,
		"my flight to Oslo, what time?":    false,
		"draft a reply to the electrician": true,
	} {
		if got := asksForTask(q, lowerWords(q)); got != want {
			t.Errorf("asksForTask(%q) = %v", q, got)
		}
	}
	an := search.NewAnalyzer()
	for text, want := range map[string]bool{
		"never book me on an early flight":  true,
		"I can only do calls after lunch":   true,
		"the flight was fine":               false,
		"no dairy for me, it wrecks my gut": true,
	} {
		got := shapeOf(&memory.Version{Kind: memory.KindEpisodic, Content: text}, an)&shapeRule != 0
		if got != want {
			t.Errorf("shapeOf(%q) rule = %v", text, got)
		}
	}
}

func TestSomeoneElsesRelation(t *testing.T) {
	t.Parallel()
	if got := askedRelation(lowerWords("what's my brother's email?")); got != "brother" {
		t.Errorf("askedRelation = %q", got)
	}
	if got := askedRelation(lowerWords("what's my email?")); got != "" {
		t.Errorf("askedRelation = %q", got)
	}
	for _, tc := range []struct {
		q, want string
	}{
		{"who is my GP?", "gp"},
		{"what's my favourite film?", "film"},
		{"when is our landlord's inspection?", "landlord"},
		{"what's my sister's name?", "sister"},
		{"where do I work?", ""},
	} {
		if got := askedPossession(lowerWords(tc.q)); got != tc.want {
			t.Errorf("askedPossession(%q) = %q; want %q", tc.q, got, tc.want)
		}
	}
	if !someoneElsesRelation("Jules' GP is Dr Haddad", "gp") || someoneElsesRelation("my GP is Dr Okafor", "gp") {
		t.Error("someoneElsesRelation does not tell Jules' GP from mine")
	}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Omar's brother runs a bike shop", true},
		{"my boss's brother is visiting", true},
		{"my brother's wife is a nurse", true},
		{"my brother runs a bike shop", false},
		{"my brother's bike shop opened", false}, // his shop: still about him
		{"Omar's brother and my brother both cycle", false},
		{"nothing about anyone", false},
	} {
		if got := someoneElsesRelation(tc.text, "brother"); got != tc.want {
			t.Errorf("someoneElsesRelation(%q) = %v", tc.text, got)
		}
	}
}

func TestBeforeClause(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q, ask, value string
		ok            bool
	}{
		{"what car did I drive before the Corolla?", "what car did I drive", "the Corolla", true},
		{"where did we host it before Fly.io?", "where did we host it", "Fly.io", true},
		{"what did I do before we moved to the coast last spring?", "", "", false}, // a clause, not a value
		{"what car do I drive?", "", "", false},
	} {
		ask, value, ok := beforeClause(tc.q)
		if ask != tc.ask || value != tc.value || ok != tc.ok {
			t.Errorf("beforeClause(%q) = %q, %q, %v", tc.q, ask, value, ok)
		}
	}
}

func TestAnsweredAboutOther(t *testing.T) {
	an := search.NewAnalyzer()
	for _, tc := range []struct {
		text, query string
		want        bool
	}{
		{"my cousin works at a shipyard in Gdansk, I'm so envious", "where do I work?", true},
		{"my cousin works at a shipyard, and I work from home", "where do I work?", false},
		{"my cousin and I both work at the shipyard", "where do I work?", false},
		{"my cousin visited, I work at the shipyard now", "where do I work?", false},
		{"my cousin visited last week, lovely time", "where do I work?", false},    // no clause holds a query word
		{"my cousin's boss said my work is solid", "how is my work going?", false}, // "my work" is the speaker's
	} {
		if got := answeredAboutOther(tc.text, an.QueryTerms(tc.query), an); got != tc.want {
			t.Errorf("answeredAboutOther(%q, %q) = %v, want %v", tc.text, tc.query, got, tc.want)
		}
	}
}

func TestAgentRemarkForANamedPerson(t *testing.T) {
	an := search.NewAnalyzer()
	for _, tc := range []struct {
		query, turn string
		want        bool
	}{
		{"where does Ilse work these days?", "Monopoly Deal works well with three.", true},
		{"where does Ilse work these days?", "Good for Ilse, that's a big step.", false},
		{"where does Ilse's brother live?", "Say hi to Ilse for me.", false},      // a possession names her too
		{"what do I do for work?", "Monopoly Deal works well with three.", false}, // names something, left alone
		{"what do I do for work?", "That sounds tiring.", true},
	} {
		en := &entry{V: &memory.Version{Kind: memory.KindEpisodic, Content: tc.turn}}
		en.Shape = shapeOf(en.V, an)
		if got := agentRemark(en, readQuery(tc.query, false)); got != tc.want {
			t.Errorf("agentRemark(%q, %q) = %v, want %v", tc.query, tc.turn, got, tc.want)
		}
	}
}
