package extract

import (
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

func TestParseCuePatternRejectsMalformedLines(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		"actually correction",         // no =>
		"actually => sometimes",       // unknown effect
		"=> correction",               // no tokens
		"no||nope => correction",      // empty alternative
		">back in => past",            // consumed after a lookahead
		">back? => past",              // optional lookahead
		"in @nowhere/nothing => skip", // unknown lexicon table
		"on the ... desk => skip",     // a gap without its length
		"on the ...0 desk => skip",    // a gap of no words
		"on the ...12 desk => skip",   // a gap too long
		"on the ...3 => skip",         // a gap at the end
		"on the ...3 desk? => skip",   // a gap before an optional token
		"on the ...3 ...2 at => skip", // a gap before a gap
		">on ...2 at => skip",         // a gap after a lookahead
		">please* => skip",            // a repeated lookahead
		"on the %weekday => skip",     // unknown token class
		"on the ...2 please* => skip", // a gap before a repeated token
		"swapped >%thing => skip",     // a value as a lookahead
		"moved ...2 %place => skip",   // a gap before a value
		"swapped %thing* => skip",     // a repeated value
	} {
		if _, err := parseCuePattern(line); err == "" {
			t.Errorf("parseCuePattern(%q) accepted a malformed line", line)
		}
	}
}

func TestCuePatternMatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern, text string
		n             int
		ok            bool
	}{
		{"these days => correction", "these days I live in Oslo", 2, true},
		{"these days => correction", "these are mine", 0, false},
		{"now !that => correction", "now I live in Oslo", 1, true},
		{"now !that => correction", "now that it rains", 0, false},
		{"now !that => correction", "now", 1, true},
		{"no|oops >,|! => correction", "oops, I meant Oslo", 1, true},
		{"no|oops >,|! => correction", "no longer", 0, false},
		{"as|like i|we said you|before? => skip", "as I said before, Oslo", 4, true},
		{"as|like i|we said you|before? => skip", "like we said, Oslo", 3, true},
		{">back >in => past, stop", "back in 2019", 0, true},
		{"in|on the @lexicon/team-nouns => skip", "in the repo we use pnpm", 3, true},
		{"on the ...2 desk|team at => skip", "on the desk at Acme", 4, true},
		{"on the ...2 desk|team at => skip", "on the night desk at Acme", 5, true},
		{"on the ...2 desk|team at => skip", "on the late night desk at Acme", 6, true},
		{"on the ...2 desk|team at => skip", "on the very late night desk at Acme", 0, false},
		{"on the ...2 desk|team at => skip", "on the team desk at Acme", 0, false},
		{"on the ...2 desk|team at => skip", "on the night, desk at Acme", 0, false},
		{"on the ...2 desk|team at => skip", "on the night", 0, false},
		{"please|kindly* going forward ,* please* => skip", "please kindly going forward , , please use pnpm", 7, true},
		{"please|kindly* going forward ,* please* => skip", "going forward use pnpm", 2, true},
		{"please|kindly* going forward ,* please* => skip", "please use pnpm", 0, false},
		{"please|kindly* ,* => skip", "use pnpm", 0, true},
		{"the? %ordinal|%day of? june => skip", "the 3rd of June", 4, true},
		{"the? %ordinal|%day of? june => skip", "21 june", 2, true},
		{"<!for now => correction", "now", 0, false},
		{"any|no more !%word => anymore", "any more", 2, true},
		{"any|no more !%word => anymore", "no more, thanks", 2, true},
		{"any|no more !%word => anymore", "no more meat", 0, false},
		{"the? %ordinal|%day of? june => skip", "the 32nd of June", 0, false},
		{"the? %ordinal|%day of? june => skip", "the 0 June", 0, false},
		// A value token takes as many words as the value reader does.
		{"swapped %thing for => skip", "swapped Gitea for Forgejo", 3, true},
		{"swapped %thing for => skip", "swapped the old build box for a VPS", 6, true},
		{"swapped %thing for => skip", "swapped it for Forgejo", 0, false},
		{"swapped %thing? . => skip", "swapped .", 2, true},
		{"moved to %place => skip", "moved to Porto Alegre last spring", 4, true},
	}
	for _, tc := range cases {
		p, err := parseCuePattern(tc.pattern)
		if err != "" {
			t.Fatalf("parseCuePattern(%q): %s", tc.pattern, err)
		}
		ts := tokenize(tc.text, 0, len(tc.text), nil)
		n, ok := p.match(ts)
		if n != tc.n || ok != tc.ok {
			t.Errorf("%q on %q: match = %d, %v; want %d, %v", tc.pattern, tc.text, n, ok, tc.n, tc.ok)
		}
	}
}

// Every table of cue patterns is in use and non-empty.
func TestCueTablesAreLoaded(t *testing.T) {
	t.Parallel()
	for name, table := range map[string]*cueTable{
		"leading": leadingCues, "asides": asideCues, "self-correction": selfCorrectionCues,
		"not-keen": notKeenCues, "home-getting": homeGettingCues, "home-for-others": homeForOthersCues, "change-tail": changeTailCues,
		"rule-leads": ruleLeadCues, "rule-you": ruleYouCues, "rule-strong": ruleStrongCues, "rule-openers": ruleOpenerCues,
		"let-us": letUsCues, "decision-is": decisionIsCues, "call-me": callMeCues,
		"hypothetical": hypotheticalCues, "dates": dateCues,
		"clause-flags": clauseFlagCues,
		"its-now":      itsNowCues, "taste-idioms": tasteIdiomCues, "conditionals": conditionalCues,
		"self-correction-gaps": correctionGapCues, "self-correction-pronoun": correctionItCues, "wishes": wishCues,
		"home-places": homePlaceCues, "got-keys": gotKeysCues, "modifiers": modifierCues, "sentence-markers": sentenceMarkerCues,
		"first-person-reports": firstPersonReportCues, "subject-adverbs": subjectAdverbCues,
		"reported-speech": reportedSpeechCues, "dropped-subject": droppedSubjectCues, "gerund-subjects": gerundSubjectCues,
		"names-someone": namesSomeoneCues, "self-openers": selfOpenerCues, "encouragement": encouragementCues,
		"questions": questionCues, "hosted-at": hostedAtCues, "other-subjects": otherSubjectCues,
		"servings": servingCues, "passive-preps": passivePrepCues, "move-adverbs": moveAdverbCues,
		"subject-modals": subjectModalCues, "rule-subjects": ruleSubjectCues,
		"job-talk": jobTalkCues, "np-adjectives": npAdjectiveCues, "purpose-owners": purposeOwnerCues,
		"purpose-determiners": purposeDeterminerCues, "others-wishes": othersWishCues, "now": nowCues, "new-value-leads": newValueLeadCues,
		"copula-modifiers": copulaModifierCues, "possessive-modifiers": ownerModifierCues, "every-day": everyDayCues,
		"day-long": dayLongCues, "lasting": lastingCues, "future-times": futureTimeCues, "general": generalCues,
		"social-imperatives": socialImperativeCues, "preferred-over": preferredOverCues, "instructions": instructionCues,
		"verb-initial": verbInitialCues, "clause-starts": clauseStartCues, "be-styles": beStyleCues,
		"rule-addressing": ruleAddressingCues, "status-reports": statusReportCues, "lead-base": leadBaseCues,
		"like-fillers": likeFillerCues, "stopped": stoppedCues, "denials": denialCues, "named-as": namedAsCues,
		"perfect-been": perfectBeenCues, "team-adjectives": teamAdjectiveCues, "adverb-runs": adverbRunCues,
		"place-adjectives": placeAdjectiveCues,
	} {
		if len(table.pats) == 0 {
			t.Errorf("cue table %s is empty", name)
		}
	}
	for name, table := range map[string]*ruleTable{"copula": copulaSlots, "cannot": cannotSlots, "job-changes": jobChangeSlots, "posts": postSlots,
		"verb-slots/job": verbSlots["job"], "decided-verbs": decidedVerbSlots, "let-us-verbs": letUsSlots, "decision-bodies": decisionBodySlots, "verb-slots/settle": verbSlots["settle"], "verb-slots/work": verbSlots["work"], "verb-slots/live": verbSlots["live"]} {
		if len(table.rules) == 0 {
			t.Errorf("slot template table %s is empty", name)
		}
	}
	if !strings.Contains(strings.Join(lexiconTables["cue-patterns/leading"], "\n"), "=>") {
		t.Error("cue-patterns/leading holds no pattern")
	}
}

func TestCueLenAndTail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text      string
		len, tail int
	}{
		{"not really into jazz", 3, 0},
		{"not keen on olives", 3, 0},
		{"not sure yet", 0, 0},
		{"Neovim these days", 0, 2},
		{"pnpm now", 0, 1},
		{"these days Neovim", 0, 0},
	} {
		ts := tokenize(tc.text, 0, len(tc.text), nil)
		if n := cueLen(notKeenCues, ts); n != tc.len {
			t.Errorf("cueLen(not-keen, %q) = %d, want %d", tc.text, n, tc.len)
		}
		if n := cueTail(changeTailCues, ts); n != tc.tail {
			t.Errorf("cueTail(change-tail, %q) = %d, want %d", tc.text, n, tc.tail)
		}
	}
}

func TestParseSlotPatternOfAPost(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		"on the ...2 desk at {org}",                        // no =>
		"on the ...2 desk at => works_at correction",       // no slot
		"on the ...2 desk at {org} => works_at maybe",      // unknown cue
		"on the ...2 desk at {org} => works_at past later", // unknown owner
		"on the desk ...2 {org} => works_at correction",    // a gap before the slot
	} {
		if _, err := parseSlotRule(line); err == "" {
			t.Errorf("parseSlotRule(%q) accepted a malformed line", line)
		}
	}
	p, err := parseSlotRule("am on the ...4 desk at {org} => works_at correction clause")
	if err != "" || p.owner != ownerClause || p.name != "org" || p.key != "works_at" || p.end != CueCorrection {
		t.Errorf("parseSlotRule of a post = %+v, %q", p, err)
	}
}

func TestRuleOpenerEffects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text   string
		effect cueEffect
		n      int
		ok     bool
	}{
		{"never ever push to main", cueNever, 2, true},
		{"avoid force pushes", cueNever, 0, true},
		{"do not forget to sign commits", 0, 4, true},
		{"do as you like", cueDrop, 1, true},
		{"make sure that you always run the tests", 0, 5, true},
		{"keep it short", 0, 0, true},
		{"use pnpm", 0, 0, false},
	} {
		ts := tokenize(tc.text, 0, len(tc.text), nil)
		e, n, ok := matchCue(ruleOpenerCues, ts)
		if e != tc.effect || n != tc.n || ok != tc.ok {
			t.Errorf("rule-openers on %q = %v, %d, %v; want %v, %d, %v", tc.text, e, n, ok, tc.effect, tc.n, tc.ok)
		}
	}
}

// A decision after "let's" is rendered with the verb the speaker used, as
// "we decided to stick with X" is; only the verbs of [let-us-verbs] read.
func TestLetUsKeepsTheVerbSaid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Let's stick with Postgres.", "The team decided to stick with Postgres."},
		{"Let's just switch over to pnpm.", "The team decided to switch over to pnpm."},
		{"Let's use Vitest for testing.", "The team decided to use Vitest for testing."},
		{"Let's keep going with the plan.", ""},
		{"Let's try the new cafe.", ""},
	} {
		cs := extractAll(t, Event{Kind: memory.EpisodeUserMessage, Content: tc.in})
		got := ""
		if len(cs) > 0 {
			got = cs[0].Content
		}
		if len(cs) > 1 || got != tc.want {
			t.Errorf("Extract(%q) = %v, want %q", tc.in, cs, tc.want)
		}
	}
}

func TestCopulaSlots(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text, reader string
		n            int
	}{
		{"into jazz", "love", 1},
		{"fond of tea", "like", 2},
		{"fed up with meetings", "dislike", 3},
		{"partial to tea", "prefer", 2},
		{"allergic to nuts", "allergy", 2},
		{"fluent in Dutch", "speaks", 2},
		{"originally from Porto", "place", 2},
		{"based out of Leeds", "thing", -1}, // the first rule is a team's; its tokens do not match
		{"lactose intolerant", "diet", 2},
		{"big fan", "", 0},
	} {
		ts := tokenize(tc.text, 0, len(tc.text), nil)
		reader, n := "", 0
		for _, r := range copulaSlots.rules {
			if m, ok := r.cue.match(ts); ok {
				reader, n = r.name, m
				break
			}
		}
		if tc.n < 0 {
			if reader == tc.reader {
				t.Errorf("copula on %q: rule %s matched", tc.text, reader)
			}
			continue
		}
		if reader != tc.reader || n != tc.n {
			t.Errorf("copula on %q = %s, %d; want %s, %d", tc.text, reader, n, tc.reader, tc.n)
		}
	}
}

func TestParseSlotRuleRejectsMalformedLines(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		"born in {place}",                       // no =>
		"=> from",                               // no capture
		"born in => from",                       // no capture
		"born in {somewhere} => from",           // no such reader
		"born in {place} => from personal soon", // unknown condition
		"born in {place} =>",                    // no key
		"born in {place} => Lives In",           // not a key
		"a { ...3 allergy {allergen} => -",      // a span not closed
		"a ...3 } allergy {allergen} => -",      // nor opened
		"{ a } { b } { c } {allergen} => -",     // three spans
		"{ a } b {:nosuch c } {allergen} => -",  // no such span check
		"born in {place:nowhere} => from",       // no such value check
	} {
		if _, err := parseSlotRule(line); err == "" {
			t.Errorf("parseSlotRule(%q) accepted a malformed line", line)
		}
	}
	r, err := parseSlotRule("hired by|at {org} => - personal +corr -past !not")
	if err != "" || r.name != "org" || r.key != "" || r.subj != slotSubjects["personal"] || r.set != setCorr|setNoPast || r.when != condNotNot {
		t.Errorf("parseSlotRule = %+v, %q", r, err)
	}
}

// A span marked with { and } is what the reader reads, wherever it
// stands in the pattern; of two, the first is the reader's x.span.
func TestSlotRuleSpan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, text, span string // span "": no match; two spans: "first|last"
	}{
		{"a|an severe* { ...3!%quote } allergy {allergen} => -", "a severe tree nut allergy, sadly", "tree nut"},
		{"a|an severe* { ...3!%quote } allergy {allergen} => -", "an allergy", ""},
		{"a|an severe* { ...3!%quote } allergy {allergen} => -", "a very odd cat dander allergy", "-"},
		{"a|an severe* { ...3!%quote } allergy {allergen} => -", "a nut, sadly, allergy", "-"},
		{"{:value %any ...3 } is|are my thing {like} => -", "Loud techno is my thing", "Loud techno"},
		{"{:value %any ...3 } is|are my thing {like} => -", "Jazz, sadly, is my thing", "-"},
		{"born { in } {place} => from", "born in Graz", "in"},
		{"from { %any ...3 } to { %any ...2 } now {thing} => -", "from old Vim to plain Helix now", "old Vim|plain Helix"},
		{"from { %any ...3 } to { %any ...2 } now {thing} => -", "from Vim to Helix soon", "-"},
	} {
		r, err := parseSlotRule(tc.line)
		if err != "" || r.spans == 0 {
			t.Fatalf("%s: %s", tc.line, err)
		}
		ts := tokenize(tc.text, 0, len(tc.text), nil)
		m := spanMarks{at: r.at}
		_, ok := r.cue.matchSpans(ts, &m)
		got := "-"
		if ok {
			var spans []string
			for k := range r.spans {
				start, end := m.pos[2*k], m.pos[2*k+1]
				spans = append(spans, "")
				if end > start {
					spans[k] = tc.text[ts[start].start:ts[end-1].end]
				}
			}
			got = strings.Join(spans, "|")
		}
		if got != tc.span {
			t.Errorf("%q on %q: span %q, want %q", tc.line, tc.text, got, tc.span)
		}
	}
}

func TestDateLen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		n    int
	}{
		{"next Friday at noon", 2},
		{"Friday the 13th", 3},
		{"Friday", 1},
		{"June 3", 2},
		{"June 3rd", 2},
		{"the 3rd of June", 4},
		{"the 19th", 2},
		{"19th June", 2},
		{"3 June", 2},
		{"3 of June", 0},
		{"June", 0},
		{"the agenda", 0},
	} {
		ts := tokenize(tc.text, 0, len(tc.text), nil)
		if n := dateLen(ts); n != tc.n {
			t.Errorf("dateLen(%q) = %d, want %d", tc.text, n, tc.n)
		}
	}
}

func TestCuePatternLookbehind(t *testing.T) {
	t.Parallel()
	p, err := parseCuePattern("<!for|until now => correction")
	if err != "" {
		t.Fatal(err)
	}
	text := "I use Vim for now and Helix now"
	ts := tokenize(text, 0, len(text), nil)
	var at []int
	for k := range ts {
		if n, ok := p.matchAt(ts, k); ok {
			at = append(at, k)
			if n != 1 {
				t.Errorf("matchAt(%d) consumed %d, want 1", k, n)
			}
		}
	}
	if len(at) != 1 || ts[at[0]-1].low != "helix" {
		t.Errorf("lookbehind matched at %v, want only the now after Helix", at)
	}
}

// Several lookbehinds are read from the match back; a repeated one reads
// past every one of its words.
func TestCuePatternLookbehindChain(t *testing.T) {
	t.Parallel()
	p, err := parseCuePattern("<, <she|he <just|also* said >%plain => report")
	if err != "" {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Dana likes Vim, she said it is quick", true},
		{"Dana likes Vim, she just also said it is quick", true},
		{"Dana likes Vim, he also said 'fast'", false}, // a quote follows
		{"Dana likes Vim and she said it is quick", false},
		{"she said it is quick", false},     // nothing before "she"
		{"Dana likes Vim, said Tom", false}, // no pronoun
		{"Dana likes Vim, she said", false}, // nothing follows
		{"Dana likes Vim, she once said it", false},
	} {
		ts := tokenize(tc.text, 0, len(tc.text), nil)
		got := false
		for k := range ts {
			if n, ok := p.matchAt(ts, k); ok {
				got = true
				if ts[k].low != "said" || n != 1 {
					t.Errorf("%q: matched at %q consuming %d", tc.text, ts[k].low, n)
				}
			}
		}
		if got != tc.want {
			t.Errorf("%q: matched %v, want %v", tc.text, got, tc.want)
		}
	}
	for _, bad := range []string{"said <she => report", "<she? said => report", "<!she* said => report"} {
		if _, err := parseCuePattern(bad); err == "" {
			t.Errorf("%q parsed", bad)
		}
	}
}

// The index keeps file order: the first pattern that matches wins, whether
// its first token is a fixed word or not.
func TestCueIndexKeepsFileOrder(t *testing.T) {
	t.Parallel()
	var pats []cuePattern
	for _, line := range []string{
		"now !that => past",
		"please? now => hedge",
		"now => correction",
		"<!for now => weak",
	} {
		p, err := parseCuePattern(line)
		if err != "" {
			t.Fatal(err)
		}
		pats = append(pats, p)
	}
	table := &cueTable{pats: pats, ix: newCueIndex(pats)}
	for _, tc := range []struct {
		text string
		want cueEffect
	}{
		{"now I live in Oslo", cuePast},
		{"now that it rains", cueHedge},
		{"please now", cueHedge},
	} {
		ts := tokenize(tc.text, 0, len(tc.text), nil)
		if e, _, ok := matchCue(table, ts); !ok || e != tc.want {
			t.Errorf("matchCue on %q = %v, %v; want %v", tc.text, e, ok, tc.want)
		}
	}
	ts := tokenize("live here now", 0, 13, nil)
	var got []cueEffect
	eachCue(table, ts, 2, func(e cueEffect) { got = append(got, e) })
	if len(got) != 4 || got[0] != cuePast || got[1] != cueHedge || got[2] != cueCorrection || got[3] != cueWeak {
		t.Errorf("eachCue at now = %v, want every pattern in file order", got)
	}
}

// A lookbehind reads the token before the match: <word must be there,
// <!word must be there and be another.
func TestCueLookbehind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, text string
		k             int
		ok            bool
	}{
		{"<my dream >job => skip", "my dream job", 1, true},
		{"<my dream >job => skip", "a dream job", 1, false},
		{"<my dream >job => skip", "dream job", 0, false},
		{"<!every one >day => drop", "one day", 0, false},
		{"<!every one >day => drop", "some one day", 1, true},
		{"<!every one >day => drop", "every one day", 1, false},
		{"it is >%capital => skip", "it is Linz", 0, true},
		{"it is >%capital => skip", "it is fine", 0, false},
		{"i said >that|$ => skip", "i said", 0, true},
		{"i said >that|$ => skip", "i said that", 0, true},
		{"i said >that|$ => skip", "i said it", 0, false},
		{"i said >that => skip", "i said", 0, false},
	} {
		p, err := parseCuePattern(tc.pattern)
		if err != "" {
			t.Fatalf("parseCuePattern(%q): %s", tc.pattern, err)
		}
		ts := tokenize(tc.text, 0, len(tc.text), nil)
		if _, ok := p.matchAt(ts, tc.k); ok != tc.ok {
			t.Errorf("%q on %q at %d: %v, want %v", tc.pattern, tc.text, tc.k, ok, tc.ok)
		}
	}
	if _, err := parseCuePattern("a <b => skip"); err == "" {
		t.Error("a lookbehind after the first token parsed")
	}
}

// The [wishes] table drops a clause with a wish anywhere in it, and lets
// what happened and polite preferences through.
func TestHypotheticalClause(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"I wish I worked at Globex":         true,
		"dream job at a studio":             true,
		"I landed my dream job at a studio": false,
		"one day I will live by the sea":    true,
		"I go running every one day a week": false,
		"I would move to the coast":         true,
		"I would really much prefer tabs":   false,
		"I'd rather use Emacs":              false,
		"I would":                           true,
		"we use Postgres for the cache":     false,
	} {
		ts := tokenize(text, 0, len(text), nil)
		if got := hypotheticalClause(ts); got != want {
			t.Errorf("hypotheticalClause(%q) = %v, want %v", text, got, want)
		}
	}
}

// selfCorrection finds the new value after the marker, past commas,
// dashes, "I mean" and a pronoun before a name.
func TestSelfCorrectionStart(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"sorry - I meant, Linz":    "linz",
		"no wait, it's Neovim":     "neovim",
		"actually no, it is great": "it",
		"sorry,":                   "",
		"hello there":              "",
	} {
		ts := tokenize(text, 0, len(text), nil)
		got := ""
		if j := selfCorrection(ts, 0); j >= 0 {
			got = ts[j].low
		}
		if got != want {
			t.Errorf("selfCorrection(%q) starts at %q, want %q", text, got, want)
		}
	}
}

// A lexicon table's entries of several words match as phrases, and a verb
// class takes the forms of the verbs a table lists.
func TestCuePatternPhrasesAndVerbClasses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, text string
		n          int // tokens consumed; -1: no match
	}{
		{"went @lexicon/diets => skip", "went lactose intolerant", 3},
		{"went @lexicon/diets => skip", "went vegan", 2},
		{"went @lexicon/diets => skip", "went lactose", -1},
		{"%past(@verbs/dropped-subject-past) => skip", "switched to Helix", 1},
		{"%past(@verbs/dropped-subject-past) => skip", "switch to Helix", -1},
		{"%past(@verbs/dropped-subject-past) => skip", "got a cat", -1},
		{"%gerund(@verbs/dropped-subject-gerunds) => skip", "living in Graz", 1},
		{"%gerund(@verbs/dropped-subject-gerunds) => skip", "lived in Graz", -1},
		// A repeated lexicon token takes its entries of several words too.
		{"home @predicates/home-whens* is => skip", "home for us right now is Tartu", 6},
		{"home @predicates/home-whens* is => skip", "home for them is Tartu", -1},
	} {
		p, err := parseCuePattern(tc.line)
		if err != "" {
			t.Fatalf("%s: %s", tc.line, err)
		}
		ts := tokenize(tc.text, 0, len(tc.text), nil)
		n, ok := p.match(ts)
		if !ok {
			n = -1
		}
		if n != tc.n {
			t.Errorf("%q on %q consumed %d, want %d", tc.line, tc.text, n, tc.n)
		}
	}
	for _, bad := range []string{"%past(@verbs/nope) => skip", "%pluperfect(@verbs/change-verbs) => skip"} {
		if _, err := parseCuePattern(bad); err == "" {
			t.Errorf("%q parsed", bad)
		}
	}
}

// The yes-or-no tables say what their comments say, read through the
// functions that run them.
func TestYesNoCueTables(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fn   func([]token) bool
		yes  []string
		no   []string
	}{
		{"reported-speech", reportedByOther,
			[]string{"Bob told me he prefers Emacs", "according to Ines the office moved", "I was told it ships Friday", "Dana likes Vim, she says."},
			[]string{"As I said, I prefer Vim", "Let me tell you about Rust", "Dana likes Vim, she claims it loads quicker", "I said it already"}},
		{"questions", isQuestion,
			[]string{"so what editor do I use", "Should we move to Oslo", "Will you check the logs", "I wonder whether Zig is ready"},
			[]string{"What I use is Vim", "Will lives in Paris", "Have a look at the logs", "May is my favourite month", "Do not push to main"}},
		{"dropped-subject", droppedSubject,
			[]string{"Switched to Neovim last week", "Living in Porto now", "Went lactose intolerant in May", "Not a big fan of YAML", "No longer on Slack", "Got a cat"},
			[]string{"Learning a language is hard", "Got a cold", "Fan of the week: Tom", "Went home early"}},
		{"others-wishes", othersWish,
			[]string{"my manager wants me to use Java", "Rosa asked me to move the standup"},
			[]string{"I want me to relax", "wants me to"}},
		{"job-talk", speaksOfJob,
			[]string{"used to work at Acme", "handed in my notice today"},
			[]string{"working on the garden", "the bakery opens at nine"}},
	} {
		for _, want := range []bool{true, false} {
			texts := tc.yes
			if !want {
				texts = tc.no
			}
			for _, text := range texts {
				if got := tc.fn(tokenize(text, 0, len(text), nil)); got != want {
					t.Errorf("[%s] %q: %v, want %v", tc.name, text, got, want)
				}
			}
		}
	}
}
