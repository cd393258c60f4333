package extract

// This file reads preferences and the things people and projects use:
// "I prefer Vim", "we use Redis for caching", "I switched to Neovim",
// "I hate YAML".

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/memory"
)

// prefer reads "I prefer X [over Y] [for Y | as my Y]" and "prefer to X".
func (x *extraction) prefer(s subject, ts []token, f flags) {
	if f.not && !f.anymore {
		return // "I don't prefer X" is too vague to store
	}
	if f.not {
		f.neg = true
	}
	if is(ts, 0, "to") {
		x.likePhrase(s, ts[1:], f)
		return
	}
	if is(ts, 0, "not") {
		return
	}
	// "I'd rather use Emacs", "I'd rather work remotely".
	if v, ok := verbs[lowAt(ts, 0)]; ok && v.form == fBase && f.polite && !ts[0].capital {
		if v.lemma == "use" {
			x.useThing(s, ts[1:], f, purposeInfo{})
		} else {
			x.likePhrase(s, ts, f)
		}
		return
	}
	val, n := x.readValue(ts, vThing)
	if n == 0 {
		return
	}
	rest := ts[n:]
	if n == 1 && ratherHyperboles[ts[0].low] && is(rest, 0, "than") {
		return // "I'd rather die than use Teams": a figure of speech
	}
	// Skip what it is preferred over: "Vim over Emacs", "tea to coffee".
	if j := cueLen(preferredOverCues, rest); j > 0 { // [preferred-over]
		_, m := x.readValue(rest[j:], vThing)
		rest = rest[j+m:]
	}
	p, hasPurpose := x.purpose(rest)
	x.emitPreference(s, val, p, hasPurpose, f)
}

// ratherHyperboles are what no one prefers, only says they would rather do
// than something else: "I'd rather die than use Teams".
var ratherHyperboles = wordSet("preferences", "rather-hyperboles")

// emitPreference files a preferred thing under its category: the lexicon's
// first, then the stated purpose ("as my notes app"), else likes:<thing>.
func (x *extraction) emitPreference(s subject, val string, p purposeInfo, hasPurpose bool, f flags) {
	s = s.asPerson()
	if c, ok := CategoryOf(val); ok {
		x.emit(s, f, claim{typ: memory.TypePreference, key: "prefers:" + c, value: val, tmpl: tmPrefers, cat: categoryDisplay(c)})
		return
	}
	if hasPurpose && (p.known || p.prep == "as") {
		x.emit(s, f, claim{typ: memory.TypePreference, key: "prefers:" + p.cat, value: val, tmpl: tmPrefers, cat: categoryDisplay(p.cat)})
		return
	}
	x.emit(s, f, claim{typ: memory.TypePreference, key: "likes:" + Slug(val), value: val, tmpl: tmLikes})
}

// useThing reads "use X [as my Y | for Y]" for any subject. For a person
// the thing's category makes a preference ("I use Vim" → prefers:editor);
// for a project it makes a fact ("Atlas uses pnpm" → uses:package_manager,
// "we use Redis for caching" → uses:cache).
func (x *extraction) useThing(s subject, ts []token, f flags, hint purposeInfo) {
	if f.not && !f.anymore && !f.neg && s.kind != sTeam && s.kind != sNamed {
		// "I don't use Windows" ends that value of the slot.
		f.neg = true
	}
	if f.not {
		f.neg = true
	}
	items, n := x.readList(ts)
	if f.neg {
		items = withoutReplacement(items, ts, n) // "stopped using Jira, Linear now"
	}
	if len(items) == 0 {
		return
	}
	p, hasPurpose := x.purpose(ts[n:])
	if !hasPurpose && hint.cat != "" {
		p, hasPurpose = hint, true
	}
	// Items of one category in one breath ("Vim and VS Code") cannot share
	// a single-valued slot; each gets its own.
	collide := false
	if len(items) > 1 {
		seen := map[string]bool{}
		for _, it := range items {
			c, ok := CategoryOf(it)
			if !ok || seen[c] {
				collide = true
			}
			seen[c] = true
		}
		if hasPurpose {
			collide = true
		}
	}
	project := s.kind == sTeam || s.kind == sNamed
	if s.kind == sNamed && personalThings(items) {
		// "Bob uses Emacs": editors and shells are a person's choice, so a
		// name using one is a person, with the person's slot.
		s, project = s.asPerson(), false
	}
	for _, it := range items {
		switch {
		case collide:
			t := tmUses
			if project {
				x.emit(s, f, claim{typ: memory.TypeFact, key: "uses:" + Slug(it), value: it, tmpl: t})
			} else {
				x.emit(s, f, claim{typ: memory.TypeFact, key: "uses:" + Slug(it), value: it, tmpl: t})
			}
		case project && hasPurpose && servesComponent(p) && knownThing(it):
			// "we're on node 20 for the api": the api is what the thing
			// serves, not its role; the thing's own category keys it.
			c, _ := CategoryOf(it)
			x.emit(s, f, claim{typ: memory.TypeFact, key: "uses:" + c, value: it, tmpl: tmUsesCat, cat: categoryDisplay(c)})
		case project && hasPurpose:
			t, cat := tmUsesFor, p.text
			if p.prep == "as" {
				t, cat = tmUsesCat, categoryDisplay(p.cat)
			}
			x.emit(s, f, claim{typ: memory.TypeFact, key: "uses:" + p.cat, value: it, tmpl: t, cat: cat})
		case project:
			if c, ok := CategoryOf(it); ok {
				x.emit(s, f, claim{typ: memory.TypeFact, key: "uses:" + c, value: it, tmpl: tmUsesCat, cat: categoryDisplay(c)})
			} else {
				x.emit(s, f, claim{typ: memory.TypeFact, key: "uses:" + Slug(it), value: it, tmpl: tmUses})
			}
		default:
			if _, ok := CategoryOf(it); ok || hasPurpose && (p.known || p.prep == "as") {
				x.emitPreference(s, it, p, hasPurpose, f)
			} else if definite(it) {
				// "I'm using the new API": a thing from the conversation,
				// not a lasting fact about the user.
			} else {
				x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: "uses:" + Slug(it), value: it, tmpl: tmUses})
			}
		}
	}
}

// servesComponent reports a purpose that names one component of the product the
// thing serves ("for the api", "for our backend"), said with a
// determiner: no role of the thing's own.
func servesComponent(p purposeInfo) bool {
	ws := strings.Fields(strings.ToLower(p.text))
	return p.prep == "for" && len(ws) == 2 && (ws[0] == "the" || ws[0] == "our") && componentNouns[ws[1]]
}

// knownThing reports a value the lexicon places in a category.
func knownThing(v string) bool {
	_, ok := CategoryOf(v)
	return ok
}

// personalCategories are things people choose for themselves; projects
// rarely "use" an editor or a drink.
var personalCategories = wordSet("preferences", "personal-categories")

// personalThings reports whether every item belongs to a personal category.
func personalThings(items []string) bool {
	for _, it := range items {
		if c, ok := CategoryOf(it); !ok || !personalCategories[c] {
			return false
		}
	}
	return len(items) > 0
}

// definite reports whether a value opens with a definite determiner.
func definite(v string) bool {
	lv := strings.ToLower(v)
	return strings.HasPrefix(lv, "the ") || strings.HasPrefix(lv, "this ") || strings.HasPrefix(lv, "that ")
}

// purposeInfo is the "as my editor" / "for caching" part after a value.
type purposeInfo struct {
	prep  string // "as" or "for"
	cat   string // canonical category
	known bool   // the category is one the lexicon knows
	text  string // the phrase as stated, for content
}

// purpose reads "as my editor", "as a package manager", "for editing",
// "for the cache" after a value.
func (x *extraction) purpose(ts []token) (purposeInfo, bool) {
	ts = ts[cueLen(adverbRunCues, ts):] // [adverb-runs]
	prep := lowAt(ts, 0)
	if prep != "as" && prep != "for" {
		return purposeInfo{}, false
	}
	ts = ts[1:]
	shown := ts[cueLen(purposeOwnerCues, ts):] // "for the cache" shows "the cache", "for my notes" "notes"
	ts = ts[cueLen(purposeDeterminerCues, ts):]
	n := valueLen(ts, vThing)
	if n == 0 || n > 4 || !validValue(ts[:n]) {
		return purposeInfo{}, false
	}
	// "for work", "for years", "for fun" say nothing about a category.
	if n == 1 && purposeNoise[ts[0].low] {
		return purposeInfo{}, false
	}
	words := make([]string, n)
	for k := range n {
		words[k] = ts[k].low
	}
	phrase := strings.Join(words, " ")
	cat := CanonicalCategory(phrase)
	if cat == "" {
		return purposeInfo{}, false
	}
	return purposeInfo{prep: prep, cat: cat, known: knownCategories[cat], text: x.text(shown, n+len(shown)-len(ts))}, true
}

var purposeNoise = wordSet("preferences", "purpose-noise")

// yieldingHints are the pairs "<category named> <thing's category>" where
// the thing's own category wins over the one its switch named:
// [yielding-hints] of lexicons/preferences.txt.
var yieldingHints = wordSet("preferences", "yielding-hints")

// knownCategories are the canonical categories the lexicon or the synonym
// table names.
var knownCategories = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range lexicon {
		m[c] = true
	}
	for _, c := range categorySynonyms {
		m[c] = true
	}
	return m
}()

// switchTo reads "switched to X", "switched from X to Y", "changed my
// shell to fish", "migrated the database to Postgres": the rows of
// [switches] in lexicons/cue-patterns.txt find the category, the old value
// and the new one, and switched reads them.
func (x *extraction) switchTo(s subject, ts []token, f flags) {
	f.past = false
	if f.not {
		return // "I didn't switch to Emacs"
	}
	if (f.hedge || f.future) && s.kind != sTeam {
		// "I may try Emacs soon", "I'm gonna switch to fish": a person's
		// plan is not a choice. A team's ("we might switch to Bun") stays
		// a hedged fact.
		return
	}
	x.readSlot(switchSlots, s, verb{}, ts, f)
}

// switchSlots are [switches] of lexicons/cue-patterns.txt.
var switchSlots *ruleTable

// switched reads a switch to the thing at to, from the thing at from
// (none: nil), with the category named when the words named one (cat:
// "changed my editor to X", "swapped shells").
func (x *extraction) switched(s subject, to, from, cat []token, f flags) {
	if !nameOrKnown(to) {
		return // "switched from the night shift to days": no tool
	}
	var hint purposeInfo
	if len(cat) > 0 {
		hint = purposeInfo{prep: "as", cat: categoryOfWords(cat), known: true, text: x.text(cat, len(cat))}
		// "moved our builds over to Buildkite": the builds' tool is the CI
		// the lexicon knows Buildkite as ([yielding-hints]).
		if v, n := x.readValue(to, vThing); n > 0 {
			if c, ok := CategoryOf(v); ok && yieldingHints[hint.cat+" "+c] {
				hint = purposeInfo{}
			}
		}
	}
	f.corr = true
	before := len(x.out)
	x.useThing(s, to, f, hint)
	// "switched from Chrome to Firefox": Chrome is the value before, a
	// version of its own (endedBecomesHistory makes the ending history).
	if len(x.out) > before && len(from) > 0 && nameOrKnown(from) {
		if _, known := CategoryOf(x.text(from, len(from))); known {
			now := x.out[len(x.out)-1].Key
			f.corr, f.neg = false, true
			at := len(x.out)
			x.useThing(s, from, f, hint)
			if len(x.out) > at && x.out[len(x.out)-1].Key != now && !x.alignPair(len(x.out)-1, at-1) {
				// "switched from Slack to Discord for the book club": the
				// old value's slot is not the new one's; ending it would
				// end something else.
				x.out, x.made = x.out[:at], x.made[:at]
			}
		}
	}
}

// fromSpan splits "from X to Y" at its "to" (looked for among the next
// seven words): X, and the rest from "to" on. Without "from" X is empty.
func fromSpan(ts []token) (from, rest []token) {
	if !is(ts, 0, "from") {
		return nil, ts
	}
	k := 1
	for k < len(ts) && !is(ts, k, "to") && k < 8 {
		k++
	}
	return ts[1:k], ts[k:]
}

// nameOrKnown reports whether ts opens with a name (a capital, a quote) or
// with a thing the lexicon knows: what one switches tools to, where
// "switched to days" or "moved to weekly releases" is no tool.
func nameOrKnown(ts []token) bool {
	return len(ts) > 0 && (ts[0].capital || ts[0].kind == tQuote || knownWords(ts))
}

// toKnownThing reports whether ts is "to <a thing the lexicon knows>".
func toKnownThing(ts []token) bool {
	return is(ts, 0, "to", "into") && knownWords(ts[1:])
}

// knownWords reports whether ts opens with a thing the lexicon knows by
// its words in lower case.
func knownWords(ts []token) bool {
	n := valueLen(ts, vThing)
	if n == 0 {
		return false
	}
	_, ok := CategoryOf(lowWords(ts[:n]))
	return ok
}

// lowWords joins the words of ts in lower case; categoryOfWords is the
// category they name ("shells": shell), or "".
func lowWords(ts []token) string {
	words := make([]string, len(ts))
	for i, t := range ts {
		words[i] = t.low
	}
	return strings.Join(words, " ")
}

func categoryOfWords(ts []token) string { return CanonicalCategory(lowWords(ts)) }

// teamTool reads the tool a team ("we") works in, named after what it
// does: [team-tools] of lexicons/cue-patterns.txt.
func (x *extraction) teamTool(s subject, ts []token, f flags) bool {
	return s.we && x.readSlot(teamToolSlots, s, verb{}, ts, f)
}

// inCategories are the tools a team works in: trackers, chat, notes.
var inCategories = wordSet("preferences", "in-categories")

// likeThing reads "like/love/enjoy X", "like to X", and with dislike set
// "hate/dislike X". Negation flips or ends it: "I don't like X" →
// dislikes; "I don't like X anymore" → likes X, ended. chosen says the
// verb is strong enough to name the speaker's choice ("love", "adore",
// "into", "all about"); see below.
func (x *extraction) likeThing(s subject, ts []token, f flags, dislike, chosen bool) {
	if !personal(s) {
		return
	}
	if f.not {
		switch {
		case f.anymore:
			f.neg = true
		case dislike:
			return // "I don't hate it"
		default:
			dislike = true
		}
	}
	if f.never && !dislike {
		dislike = true // "I never liked Rust"
		f.past = false
	}
	if is(ts, 0, "to") && !dislike {
		x.likePhrase(s, ts[1:], f)
		return
	}
	key, t := "likes:", tmLikes
	if dislike {
		key, t = "dislikes:", tmDislikes
	}
	ts = skipContainer(ts)
	if is(ts, 0, "his", "her", "their", "your", "its") {
		// "admire her patience and wit": someone else's qualities,
		// and the list shares the "her".
		return
	}
	items, n := x.readList(ts)
	if dislike {
		items = withoutReplacement(items, ts, n)
	}
	// A loved thing of a known kind is the speaker's choice of that kind,
	// as "I prefer" makes it ("I love ramen" → prefers:food), so a later
	// "my favourite dish is sushi" supersedes it instead of standing beside
	// it. Merely liking is not choosing ("I like jazz" → likes:jazz), and
	// several of one kind at once ("I love jazz and blues") are each
	// liked, not one chosen. What the speaker reports of others ("my
	// sister loves jazz") is second hand and stays a like.
	perCat := map[string]int{}
	for _, it := range items {
		if c, ok := CategoryOf(it); ok {
			perCat[c]++
		}
	}
	reacting := false
	for _, it := range items {
		if reaction(it) {
			reacting = true
			continue
		}
		if refersBack(tokenize(it, 0, len(it), nil), true) {
			continue // "I like holding them"
		}
		if _, known := CategoryOf(it); reacting && !known && it == strings.ToLower(it) {
			continue // "the pale walls and oak floors": the items share "the"
		}
		if c, ok := CategoryOf(it); ok && chosen && s.kind == sSpeaker && !dislike && perCat[c] == 1 {
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "prefers:" + c, value: it, tmpl: tmPrefers, cat: categoryDisplay(c)})
			continue
		}
		x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: key + Slug(it), value: it, tmpl: t})
	}
}

// reaction reports a liked thing that is "the" aspect of something in
// view of the speaker ("I love the light and the framing", "I like the plot
// and the cast", on a friend's photo or story): a reaction to what was
// shared, not a lasting taste, and its referent is lost out of context.
// Names ("the Beatles"), things of a known kind and everything else
// ("the piano", "the command line") stay likes.
func reaction(it string) bool {
	var rest string
	for _, det := range []string{"the ", "this ", "that ", "these ", "those "} {
		// Cut from it itself: lower-casing can change a string's length.
		if len(it) > len(det) && strings.EqualFold(it[:len(det)], det) {
			rest = it[len(det):]
			break
		}
	}
	if rest == "" {
		return false // no determiner
	}
	if r, _ := utf8.DecodeRuneInString(rest); unicode.IsUpper(r) {
		return false // a name: "the Beatles"
	}
	if _, known := CategoryOf(it); known {
		return false
	}
	lower := strings.ToLower(rest)
	words := strings.Fields(lower)
	// "the taste of green tea", "the idea of remote work", "the color
	// blue": the thing is named after the determiner.
	if strings.Contains(lower, " of ") || len(words) > 1 && qualities[words[0]] {
		return false
	}
	// Only an aspect of something in view of the speaker is a
	// reaction; "the piano", "the new MacBook", "the solarized theme"
	// are tastes.
	for _, w := range words {
		if aspects[strings.Trim(w, ".,!?")] {
			return true
		}
	}
	return false
}

// qualities name what is liked about a thing that follows them.
var qualities = wordSet("preferences", "qualities")

// aspects are what one praises in a photo, a story or a piece of work
// someone shared: "I love the light and the framing", "I like the plot and
// the cast", "I love the pale walls and oak floors".
var aspects = wordSet("preferences", "aspects")

// skipContainer drops a serving before the thing served: "a big mug of
// green tea" is green tea, "a bowl of ramen" is ramen ([servings] of
// lexicons/cue-patterns.txt).
func skipContainer(ts []token) []token { return ts[cueLen(servingCues, ts):] }

// likePhrase reads "like to run in the morning": the activity is the value.
func (x *extraction) likePhrase(s subject, ts []token, f flags) {
	n := valueLen(ts, vPhrase)
	if n == 0 || n > 8 || !validValue(ts[:n]) {
		return
	}
	if v, ok := verbs[ts[0].low]; ok && (v.lemma == "be" || v.lemma == "have" || v.lemma == "think" || v.lemma == "do") {
		return // "I like to think...", "I'd like to have..."
	}
	x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "likes:" + shortSlug(phraseKey(ts[:n]), 5), value: "to " + x.text(ts, n), tmpl: tmLikes})
}

// list emits one claim per item of a list ("jazz and blues").
func (x *extraction) list(s subject, ts []token, f flags, mk func(string) claim) {
	items, _ := x.readList(ts)
	for _, it := range items {
		x.emit(s, f, mk(it))
	}
}

// passive reads "written in Go", "built with React", "deployed to Fly.io",
// "hosted on AWS", "powered by Postgres".
func (x *extraction) passive(s subject, w string, ts []token, f flags) {
	if s.kind != sTeam && s.kind != sNamed || f.not {
		return // "Paris wasn't made in a week"
	}
	f.past = false
	_, n, ok := matchCue(passivePrepCues, ts) // "mostly written in Go"
	if !ok {
		return
	}
	ts = ts[n:]
	hint := purposeInfo{}
	switch w {
	case "written", "implemented", "developed", "coded":
		if !is(ts, 0, "in") {
			return
		}
		hint = purposeInfo{prep: "as", cat: "programming_language", known: true, text: "programming language"}
	case "deployed", "hosted":
		hint = purposeInfo{prep: "as", cat: "hosting", known: true, text: "hosting platform"}
	}
	items, _ := x.readList(ts[1:])
	if len(items) == 0 {
		return
	}
	for _, it := range items {
		// A project is built with named things: "built with React", not
		// "built in a week".
		if _, ok := CategoryOf(it); !ok && !startsUpper(it) {
			return
		}
	}
	if len(items) == 1 {
		if _, ok := CategoryOf(items[0]); ok {
			hint = purposeInfo{} // the lexicon knows better: "hosted on AWS" is cloud
		}
	}
	x.useThing(s, ts[1:], f, hint)
}

// childSchool reports an org named as a school for children ("Oakfield
// Primary", "Little Stars Daycare"): someone else who starts there is a
// pupil.
func childSchool(ts []token) bool {
	for k := 0; k < len(ts) && k < 6 && ts[k].kind == tWord; k++ {
		if childSchools[ts[k].low] {
			return true
		}
	}
	return false
}

var childSchools = wordSet("preferences", "child-schools")
