package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/memory"
)

// owner reads who owns the noun phrase at the start of a clause: "my"
// (the speaker), "our"/"the project's" (the team), "my sister's", "the
// user's", "Bob's"/"Atlas's". It returns the index after the owner.
func (x *extraction) owner(ts []token) (subject, int, bool) {
	w := lowAt(ts, 0)
	switch {
	case w == "my":
		if s, n, ok := x.relation(ts, 1); ok {
			if is(ts, n, "'s") {
				return s, n + 1, true
			}
			return subject{}, 0, false // "my sister is..." is the relation as subject
		}
		if teamNouns[lowAt(ts, 1)] && is(ts, 2, "'s") {
			return x.teamPart(x.text(ts[1:], 1)), 3, true
		}
		return x.speaker, 1, true
	case w == "our":
		if teamNouns[lowAt(ts, 1)] && is(ts, 2, "'s") {
			return x.teamPart(x.text(ts[1:], 1)), 3, true
		}
		return x.team, 1, true
	case (w == "the" || w == "this") && teamNouns[lowAt(ts, 1)] && is(ts, 2, "'s"):
		return x.teamPart(x.text(ts[1:], 1)), 3, true
	case w == "the" && is(ts, 1, "user") && is(ts, 2, "'s"):
		return subject{kind: sPerson, id: "user", name: "The user"}, 3, true
	case w == "the" && categoryThenIs(ts[1:]):
		// "the api gateway is Kong" names the team's gateway, as "our
		// api gateway is Kong" does.
		return x.team, 1, true
	}
	if len(ts) < 3 || ts[0].kind != tWord || subjectStopWords[w] {
		return subject{}, 0, false
	}
	n := 1
	for n < len(ts) && n < 3 && ts[n].kind == tWord && ts[n].capital {
		n++
	}
	if !is(ts, n, "'s") || (!ts[0].capital && Slug(w) != x.project) {
		return subject{}, 0, false
	}
	return x.named(ts[:n]), n + 1, true
}

// categoryThenIs reports whether ts opens with a category noun of up to
// three words ("database", "api gateway", "main ci system"), "is", and a
// thing the lexicon knows.
func categoryThenIs(ts []token) bool {
	for n := 1; n <= 3; n++ {
		if !is(ts, n, "is") {
			continue
		}
		cat := categoryOfWords(ts[:n])
		// Only a thing the lexicon knows: "the language is French"
		// names no tool.
		for m := n + 2; cat != "" && m <= min(n+4, len(ts)); m++ {
			if _, ok := CategoryOf(lowWords(ts[n+1 : m])); ok {
				return true
			}
		}
		return false
	}
	return false
}

// possessive reads "<owner> <noun> is <value>": "My favorite editor is
// Neovim", "My name is Alice", "Our database is Postgres", "Bob's favorite
// editor is Emacs", "Atlas's package manager is pnpm".
func (x *extraction) possessive(ts []token, f flags) bool {
	s, k, ok := x.owner(ts)
	if !ok {
		return false
	}
	// np ends at the verb; c is the verb's last word, the value follows.
	np, c := -1, -1
	for j := k; j < len(ts) && j < k+6; j++ {
		if ts[j].kind != tWord {
			break
		}
		if is(ts, j, "is", "are", "was", "were") || j > k && is(ts, j, "'s") {
			np, c = j, j // "My name's Jordan"
			break
		}
		if j > k && is(ts, j, "changed", "switched", "moved", "went", "shifted") && is(ts, j+1, "from", "to") {
			// "My favourite snack changed from crisps to olives": the value
			// after "to" is current.
			t := j + 1
			for t < len(ts) && t < j+8 && !is(ts, t, "to") {
				t++
			}
			if !is(ts, t, "to") {
				return false
			}
			np, c = j, t
			f.corr = true
			break
		}
		if n := cueLen(perfectBeenCues, ts[j:]); n > 0 { // [perfect-been]
			np, c = j, j+n-1
			break
		}
	}
	if np <= k {
		return false
	}
	// "Our frontend is built with React": one part of a project is the
	// subject of a passive or progressive verb, not a slot's name.
	if np == k+1 && (teamNouns[ts[k].low] || componentNouns[ts[k].low]) && c+1 < len(ts) {
		if v, ok := verbs[ts[c+1].low]; ok && (v.form == fPast || v.form == fGerund || v.form == fPartOnly) {
			return false
		}
		// "our backend is on Postgres 15": a known thing of another
		// category than the part's own is what the part runs on, read as
		// "the backend is on …" is; "our CI is on GitLab runners" names
		// the CI itself.
		if componentNouns[ts[k].low] && is(ts, c+1, "on") {
			if cat, ok := CategoryOf(x.text(ts[c+2:], len(ts)-c-2)); ok && cat != categorySynonyms[ts[k].low] {
				return false
			}
		}
	}
	if is(ts, c, "was", "were") {
		f.past = true
	}
	f.plural = is(ts, c, "are", "were")
	val, drop := stripModifiers(ownerModifierCues, ts[c+1:], &f) // [possessive-modifiers]
	if drop {
		return true // "My favorite editor is not Vim" says too little
	}
	x.interpretNP(s, ts[k:np], val, f)
	return true
}

// choiceModifiers say a noun is a choice without naming its category ("my
// all-time go-to shell"), and choiceTimeTails say when ("my go-to shell
// lately"): [choice-modifiers] and [choice-time-tails] of
// lexicons/possessive.txt.
var (
	choiceModifiers = wordSet("possessive", "choice-modifiers")
	choiceTimeTails = phraseList("possessive", "choice-time-tails")
)

// nounEnds end the noun of a reversed copula: [noun-ends] of
// lexicons/possessive.txt.
var nounEnds = wordSet("possessive", "noun-ends")

// reverseCopula reads "<value> is my <noun>": "Neovim is my favorite
// editor", "Lisbon is my home", "Postgres is our database" ([reverse-copula]
// of lexicons/cue-patterns.txt, read by valueIsNoun).
func (x *extraction) reverseCopula(ts []token, f flags) bool {
	return x.readSlot(reverseCopulaSlots, x.speaker, verb{}, ts, f)
}

// reverseCopulaSlots are [reverse-copula] of lexicons/cue-patterns.txt.
var reverseCopulaSlots *ruleTable

// valueIsNoun reads the value subj said first as what the noun at np says
// it is to the speaker, or with "our" (owner) to the team.
func (x *extraction) valueIsNoun(subj []token, owner token, np []token, f flags) bool {
	if k := max(indexOf(subj, "called"), indexOf(subj, "named")); k >= 0 && k+1 < len(subj) && (peopleRoles[lowAt(np, 0)] || peopleRoles[lowAt(np, 1)]) {
		subj = subj[k+1:] // "a firm called Birch Estates is our landlord": the name
	}
	if !validValue(subj) || subj[0].kind == tWord && (subjectStopWords[subj[0].low] && !subj[0].capital || is(subj, 0, "i", "it", "this", "that")) ||
		is(subj, 0, "my", "our", "the", "your", "his", "her", "their") {
		return false
	}
	s := x.speaker
	if owner.low == "our" {
		s = x.team
	}
	// The noun ends before what it is for or when: "Rust is the go-to
	// language for nearly any job".
	n := 0
	for n < len(np) && n < 5 && np[n].kind == tWord && !nounEnds[np[n].low] {
		n++
	}
	if n == 0 {
		return false
	}
	x.interpretNP(s, np[:n], subj, f)
	return true
}

// The words interpretNP reads a noun by: tables of lexicons/possessive.txt.
var (
	favouriteWords    = wordSet("possessive", "favourite-words")
	kindWords         = wordSet("possessive", "kind-words")
	npPrepositions    = wordSet("possessive", "np-prepositions")
	personalSlotNouns = wordSet("possessive", "personal-slot-nouns")
	nounFacts         = wordPairs("possessive", "noun-facts")
	stackNouns        = wordSet("possessive", "stack-nouns")
	namedThings       = wordSet("possessive", "named-things")
)

// peopleRoles are the people and firms a person deals with, each one at a
// time.
var peopleRoles = wordSet("possessive", "people-roles")

// interpretNP turns "<owner>'s <np> is <val>" into a claim.
func (x *extraction) interpretNP(s subject, np, val []token, f flags) {
	words := make([]string, 0, len(np))
	favorite := false
	for _, t := range np {
		favorite = favorite || favouriteWords[t.low]
		if !favouriteWords[t.low] && !choiceModifiers[t.low] {
			words = append(words, t.low)
		}
	}
	// "my favourite show right now", "my go-to shell lately": the time
	// is no part of the noun (it makes the value current).
	for _, tail := range choiceTimeTails {
		if n := len(words); n > len(tail) && slices.Equal(words[n-len(tail):], tail) {
			words = words[:n-len(tail)]
			break
		}
	}
	// "my fav snack rn", "my editor for now": any trailing filler too.
	for cut := true; cut && len(words) > 1; {
		cut = false
		for _, p := range trailingFillers {
			if n := len(words); n > len(p) && slices.Equal(words[n-len(p):], p) {
				words, cut = words[:n-len(p)], true
				break
			}
		}
	}
	// "my shell of choice", "my favourite sort of cheese": the category
	// is the noun without its frame.
	if n := len(words); n > 2 && words[n-2] == "of" && words[n-1] == "choice" {
		words = words[:n-2]
	}
	if len(words) > 2 && words[1] == "of" && kindWords[words[0]] {
		words = words[2:]
	}
	noun := strings.Join(words, " ")
	for _, w := range words {
		if npPrepositions[w] {
			return // "my favorite thing about Go" is not a slot
		}
	}
	slot := noun
	if favorite && personalSlotNouns[noun] {
		// "my favourite city is Valencia" is a taste, not a home; "my
		// favourite job" is not the current one.
		slot = ""
	}
	// A noun that names a slot: [possessive-nouns] of
	// lexicons/cue-patterns.txt.
	if t := nounSlots[slot]; t != nil && x.readSlot(t, s, verb{}, val, f) {
		return
	}
	// "My cat is called Miso", "my band is named Static"; "my cat's name
	// is Miso" reads "cat" as the noun and "name is" as the verb.
	named := cueLen(namedAsCues, val) // [named-as]
	if c, ok := CategoryOf(noun); ok && c == "pet" && s == x.team {
		s = x.speaker // "our cat is called Pixel": the household's pet is the speaker's
	}
	if namedThing(noun) && named > 0 && personal(s) {
		if n := valueLen(val[named:], vPhrase); n > 0 && n <= 4 && validValue(val[named:named+n]) {
			x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: "name_of:" + Slug(petKind(noun)), value: x.text(val[named:], n), tmpl: tmFact, cat: noun + "'s name"})
		}
		return
	}
	if peopleRoles[noun] || s.kind == sSpeaker && relationNouns[noun] {
		// "My landlord is Birch Estates", "Priya is my manager now": who
		// fills a role in the person's life, one slot per role, so a new
		// one replaces the old. Only a name fills it ("my boss is great"
		// says nothing of who).
		if s.kind == sSpeaker && relationNouns[noun] {
			// "Priya is my manager" names the relation, as "my manager's
			// name is Priya" does.
			x.name(subject{kind: sPerson, id: Slug(noun), name: possessive(s.name) + " " + noun}, val, f, false)
			return
		}
		if (personal(s) || s.kind == sTeam) && len(val) > 0 && val[0].capital {
			if v, n := x.readValue(val, vOrg); n > 0 {
				x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: Slug(noun), value: v, tmpl: tmFact, cat: noun})
			}
		}
		return
	}
	if key, ok := nounFacts[noun]; ok {
		if personal(s) {
			if is(val, 0, "on") && dateLen(val[1:]) > 0 {
				val = val[1:] // "my birthday is on the 9th" is the 9th
			}
			n := valueLen(val, vPhrase)
			if n > 0 && n <= 6 && validValue(val[:n]) {
				x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: key, value: x.text(val, n), tmpl: tmFact, cat: noun})
			}
		}
		return
	}
	if stackNouns[noun] {
		// "Our stack is Go, Postgres and React": each known thing in its slot.
		items, _ := x.readList(val)
		for _, it := range items {
			if _, ok := CategoryOf(it); !ok {
				continue
			}
			if s.kind == sTeam || s.kind == sNamed {
				x.useThing(s, tokensOf(x, val, it), f, purposeInfo{})
			} else if personal(s) {
				x.emitPreference(s, it, purposeInfo{}, false, f)
			}
		}
		return
	}
	if relationNouns[noun] || teamNouns[noun] {
		return
	}
	v, n := x.readValue(val, vThing)
	if titleNouns[noun] {
		// "my favourite novel is Light in August": a title keeps its
		// small words.
		if m := titleLen(val); m > n {
			v, n = x.text(val, m), m
		}
	}
	if n == 0 {
		return
	}
	if noun == "" || noun == "thing" || noun == "one" {
		// "My favorite is Vim", "my favorite thing is hiking".
		if !favorite && noun == "" {
			return
		}
		if c, ok := CategoryOf(v); ok && personal(s) {
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "prefers:" + c, value: v, tmpl: tmFavorite, cat: categoryDisplay(c)})
		} else if personal(s) {
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "likes:" + Slug(v), value: v, tmpl: tmLikes})
		}
		return
	}
	cat := CanonicalCategory(noun)
	if cat == "" {
		return
	}
	team := s.kind == sTeam || s.kind == sNamed && !favorite
	if !favorite && !(team && is(val, 0, "on", "in", "with", "via", "through", "using")) && !toolValue(val, v) {
		// "our CI is flaky", "my editor is slow", "my editor is on the
		// fritz": how it is, not which (after a preposition, a team's
		// tool must be a name: below).
		return
	}
	switch {
	case s.kind == sTeam || s.kind == sNamed && !favorite:
		if !knownCategories[cat] {
			return // "our biggest problem is..." is not a slot
		}
		if is(val, 0, "on", "in", "with", "via", "through", "using") {
			// "our CI is on GitLab runners": the tool follows the
			// preposition, which is no part of it; "our database is in a
			// bad state" names none.
			if len(val) < 2 || !val[1].capital {
				return
			}
			val = val[1:]
		}
		x.useThing(s, val, f, purposeInfo{prep: "as", cat: cat, known: true, text: categoryDisplay(cat)})
	case favorite && f.plural:
		// "My favorite editors are Vim and Emacs": several favorites are
		// likes, one slot each.
		items, _ := x.readList(val)
		if len(items) == 1 {
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "prefers:" + cat, value: v, tmpl: tmFavorite, cat: strings.TrimSuffix(strings.Join(words, " "), "s")})
			return
		}
		for _, it := range items {
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "likes:" + Slug(it), value: it, tmpl: tmLikes})
		}
	case favorite:
		x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "prefers:" + cat, value: v, tmpl: tmFavorite, cat: strings.Join(words, " ")})
	case knownCategories[cat]:
		x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "prefers:" + cat, value: v, tmpl: tmPrefers, cat: categoryDisplay(cat)})
	}
}

// toolValue reports whether v, read from val after "my/our <category>
// is", can name the thing chosen: a name (capitalised or quoted), a thing
// the lexicon knows ("fish", "pnpm"), or a word with a digit or a dot
// ("k3s", "fly.io"). "our CI is flaky", "my editor is slow" and "our
// database is down" say how it is, not which it is.
func toolValue(val []token, v string) bool {
	if len(val) == 0 || v == "" {
		return false
	}
	if _, ok := CategoryOf(v); ok {
		return true
	}
	if r, _ := utf8.DecodeRuneInString(v); unicode.IsUpper(r) || val[0].kind == tQuote || val[0].capital {
		return true
	}
	return strings.ContainsAny(v, "0123456789.")
}

// tokensOf returns the tokens of ts that spell item, so a list item can be
// read again on its own.
func tokensOf(x *extraction, ts []token, item string) []token {
	for i := range ts {
		for j := i + 1; j <= len(ts); j++ {
			if x.text(ts[i:], j-i) == item {
				return ts[i:j]
			}
		}
	}
	return nil
}

// namedThing reports whether a person's noun names something that gets a
// name of its own: a pet, a vehicle, a band.
func namedThing(noun string) bool {
	if c, ok := CategoryOf(noun); ok && c == "pet" {
		return true
	}
	return namedThings[noun]
}
