package extract

// This file reads facts about a person: where they live and come from,
// where they work and as what, their name, diet and fandoms.

import (
	"slices"
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// copula reads what follows "am/is/are/was": places, roles, names, diets,
// fandoms, progressive verbs ("I'm using..."), passives ("written in Go").
func (x *extraction) copula(s subject, ts []token, f flags) {
	ts, _ = stripModifiers(copulaModifierCues, ts, &f) // [copula-modifiers]
	if len(ts) == 0 {
		return
	}
	if s.kind == sPerson && strings.HasPrefix(s.name, possessive(x.speaker.name)+" ") && ts[0].capital &&
		!f.not && !knownPlace(ts) && x.name(s, ts, f, false) {
		return // "my manager is Priya": the relation's name
	}
	w := ts[0].low
	if v, ok := verbs[w]; ok && (v.form == fGerund || v.form == fBase && f.future) && v.lemma != "be" && w != "building" {
		if f.past {
			// "I was living in Paris" is history, like "I lived in Paris".
			f.past = !changeVerbs[v.lemma]
		}
		x.verb(s, v, ts[1:], f)
		return
	}
	// What follows the copula: the [copula] slot templates of
	// lexicons/cue-patterns.txt, else a name ("I'm Alice").
	if x.stays && x.readSlot(stayNowSlots, s, verb{}, ts, f) {
		return // StaysNow: "Ines is in Glasgow now"
	}
	if !x.readSlot(copulaSlots, s, verb{}, ts, f) && s.kind == sSpeaker && !f.not {
		x.name(s, ts, f, false)
	}
}

// copulaSlots are the [copula] slot templates of lexicons/cue-patterns.txt
// (set in init, after the readers they name).
var copulaSlots *ruleTable

// stayNowSlots are [stays-now] of lexicons/cue-patterns.txt, read by
// StaysNow only.
var stayNowSlots *ruleTable

// cannotSlots are [cannot] of lexicons/cue-patterns.txt: after "I can",
// what one cannot stand, do without or eat.
var cannotSlots *ruleTable

// system reads what the speaker is "on": an operating system ("I'm on
// macOS", "on a Mac") or a tool they work in ("I'm on Helix now").
func (x *extraction) system(s subject, _ verb, ts []token, n int, f flags, _ string) bool {
	ts = ts[n:]
	val, m := x.readValue(ts, vThing)
	if m == 0 {
		return true
	}
	if c, ok := CategoryOf(val); ok && c == "os" {
		x.emit(s, f, claim{typ: memory.TypePreference, key: "prefers:os", value: val, tmpl: tmPrefers, cat: categoryDisplay(c)})
	} else if ok && onCategories[c] {
		// "I'm on Helix now", "been on Brave for a month": the tool
		// the speaker works in.
		x.useThing(s, ts, f, purposeInfo{})
	} else if strings.EqualFold(val, "mac") {
		x.emit(s, f, claim{typ: memory.TypePreference, key: "prefers:os", value: "macOS", tmpl: tmPrefers, cat: categoryDisplay("os")})
	}
	return true
}

// inTool reads "I'm in Kotlin all day", "me, I'm in Emacs most of the
// time": the language or tool the speaker works in (workedIn).
func (x *extraction) inTool(s subject, _ verb, ts []token, n int, f flags, _ string) bool {
	ts = ts[n:]
	if !workedIn(x, ts) {
		return false
	}
	x.emitPreference(s, x.text(ts, valueLen(ts, vThing)), purposeInfo{}, false, f)
	return true
}

// atEmployerNow reads "I'm at Sablewood these days" as a job change: a
// named place one is "at" for a stretch of time is where one works. A bare
// "now" says as much only when the sentence speaks of a job ("quit Acme,
// I'm at Initech now"); alone, "I'm at Costco now" is where one stands.
func (x *extraction) atEmployerNow(s subject, ts []token, f flags) {
	if len(ts) == 0 || knownPlace(ts) {
		return
	}
	if !cueAnywhere(lastingCues, x.sent) && !speaksOfJob(x.sent) { // [lasting]
		return
	}
	x.org(s, ts, f, true)
}

// speaksOfJob reports a sentence about a job or its end: [job-talk] of
// lexicons/cue-patterns.txt anywhere in it.
func speaksOfJob(ts []token) bool { return cueAnywhere(jobTalkCues, ts) }

// copulaNP reads "a/an/the ..." after a copula: "a fan of jazz", "a Vim
// user", "a vegetarian", "a senior backend engineer at Acme".
func (x *extraction) copulaNP(s subject, ts []token, f flags) {
	if !personal(s) {
		return
	}
	k := 1 + cueLen(npAdjectiveCues, ts[1:]) // "a lifelong vegan", "a devoted Vim user"
	if is(ts, k, "fan", "lover", "devotee") && is(ts, k+1, "of") {
		dislike := false
		if f.not && !f.anymore {
			f.not, dislike = false, true // "I'm not a fan of YAML"
		}
		x.likeThing(s, ts[k+2:], f, dislike, false)
		return
	}
	if f.not && !f.anymore {
		return
	}
	if f.not {
		f.neg = true
	}
	if diets[lowAt(ts, k)] {
		x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: "diet", value: x.text(ts[k:], 1), tmpl: tmDiet})
		return
	}
	// "a Vim user", "a cat person".
	for h := k + 1; h < len(ts) && h <= k+3; h++ {
		if ts[h].kind != tWord {
			break
		}
		if !fanHeads[ts[h].low] {
			continue
		}
		thing := x.text(ts[k:], h-k)
		if !validValue(ts[k:h]) {
			return
		}
		if c, ok := CategoryOf(thing); ok {
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "prefers:" + c, value: thing, tmpl: tmPrefers, cat: categoryDisplay(c)})
		} else if !traitHeads[ts[h].low] {
			// "a jazz lover" likes jazz; "a morning person" is a trait.
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "likes:" + Slug(thing), value: thing, tmpl: tmLikes})
		} else if h == k+1 && is(ts, h, "person") && x.leaning(ts) && tasteNoun(ts[k]) {
			// "more of a dumpling person": set against another taste, a
			// plain noun is one, known to the lexicon or not. Without
			// "more of", "a X person" says as often what someone is like
			// ("a quiet person"), so it stays no liking.
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "likes:" + Slug(thing), value: thing, tmpl: tmLikes})
		}
		return
	}
	x.role(s.asPerson(), ts, f, true)
}

// leaning reports whether ts, "a X person", follows "more of" in the
// sentence: a taste set against another.
func (x *extraction) leaning(ts []token) bool {
	at := offsetOf(x.sent, ts)
	return at >= 2 && &x.sent[at] == &ts[0] && seq(x.sent, at-2, "more", "of")
}

// tasteNoun reports whether a word before "person" names a thing one may
// like ("dumpling", "hiking"), not a trait ([person-traits]: "night",
// "people") nor an adjective by its ending ([adjective-endings]:
// "creative", "spontaneous"). A capitalised word ("a Tuesday person") is
// left alone: the lexicon places the names it knows.
func tasteNoun(t token) bool {
	if t.kind != tWord || t.capital || len(t.low) < 3 || personTraits[t.low] {
		return false
	}
	for e := range adjectiveEndings {
		if strings.HasSuffix(t.low, e) && len(t.low) > len(e)+2 {
			return false
		}
	}
	return true
}

var (
	personTraits     = wordSet("identity", "person-traits")
	adjectiveEndings = wordSet("identity", "adjective-endings")
)

// fanHeads end "a Vim user", "a cat person", "a jazz fan".
var fanHeads = wordSet("identity", "fan-heads")

// role reads a job title that must end on a known role noun ("senior
// backend engineer", "CTO"), then an optional "at Acme".
func (x *extraction) role(s subject, ts []token, f flags, needHead bool) bool {
	start := 0
	if is(ts, 0, "a", "an", "the") {
		start = 1
	}
	body := ts[start:]
	n := valueLen(body, vRole)
	if n == 0 {
		return false
	}
	// "The CTO of Acme": "of" ends a role; the org follows.
	head := body[n-1].low
	if needHead && !roleHeads[head] && !roleSuffix(head) {
		return false
	}
	if !validValue(body[:n]) || !x.roleWords(body[:n]) {
		return false
	}
	val := x.text(body, n) // "the CTO" and "a CTO" are one role
	x.emit(s, f, claim{typ: memory.TypeFact, key: "role", value: val, tmpl: tmRole})
	rest := body[n:]
	// A student, a tech lead for a product: "at" or "for" names no employer.
	student := studentHeads[head]
	product := is(rest, 0, "for") && is(rest, 1, "the") && !(len(rest) > 2 && rest[2].capital)
	if !student && !product && is(rest, 0, "at", "for", "with", "of") && len(rest) > 1 && (rest[1].capital || rest[1].kind == tQuote || is(rest, 1, "the")) {
		x.org(s, rest[1:], f, false)
	}
	return true
}

// roleWords rejects role phrases with words no job title has.
func (x *extraction) roleWords(ts []token) bool {
	for _, t := range ts {
		if pronounValues[t.low] && t.low != "one" {
			return false
		}
	}
	return true
}

func roleSuffix(w string) bool {
	for _, suf := range roleSuffixes {
		if strings.HasSuffix(w, suf) && len(w) > len(suf)+2 {
			return !notRoles[w]
		}
	}
	return false
}

// Word tables of lexicons/identity.txt: [role-suffixes],
// [adjective-suffixes], [student-heads], [name-ends], [trait-heads].
var (
	roleSuffixes      = wordList("identity", "role-suffixes")
	adjectiveSuffixes = wordList("identity", "adjective-suffixes")
	studentHeads      = wordSet("identity", "student-heads")
	nameEnds          = wordSet("identity", "name-ends")
	traitHeads        = wordSet("identity", "trait-heads")
)

// titles come before a name, with their dot: "Dr. Smith".
var titles = wordSet("identity", "titles")

// notRoles end in a role suffix without being jobs.
var notRoles = wordSet("identity", "not-roles")

// name reads a person's name: one to three capitalised words, then the end
// of the clause. "I'm Alice" is a name; "I'm Sorry", "I'm English", "I'm
// OK" are not. loose accepts lowercase after "call me" or "my name is".
func (x *extraction) name(s subject, ts []token, f flags, loose bool) bool {
	if len(ts) == 0 || f.not {
		return false
	}
	if ts[0].kind == tQuote {
		x.emit(s, f, claim{typ: memory.TypeFact, key: "name", value: x.text(ts, 1), tmpl: tmName})
		return true
	}
	n, limit := 0, 3
	for n < len(ts) && n < limit && ts[n].kind == tWord {
		t := ts[n]
		w := t.low
		if n == 0 && titles[w] && is(ts, 1, ".") && len(ts) > 2 && ts[2].capital {
			n, limit = 2, 5 // "Call me Dr. Smith": the title and its dot
			continue
		}
		if notNames[w] || pronounValues[w] || valueStops[w] || roleHeads[w] || w == "and" {
			break
		}
		if !loose && (!t.capital || isGerund(w)) {
			break
		}
		if _, ok := lexicon[w]; ok && !loose {
			break
		}
		src := x.content[t.start:t.end]
		if len(src) > 1 && strings.ToUpper(src) == src && !loose {
			break // "I'm OK", "I'm AFK"
		}
		if strings.ContainsAny(w, "0123456789") || adjectiveSuffix(w) {
			break
		}
		n++
	}
	if n == 0 {
		return false
	}
	// A name ends the clause, or comes before "and", "from", "by the way".
	if n < len(ts) {
		next := ts[n]
		if next.kind == tWord && !nameEnds[next.low] || next.kind == tQuote {
			return false
		}
	}
	x.emit(s, f, claim{typ: memory.TypeFact, key: "name", value: x.text(ts, n), tmpl: tmName})
	// "I'm Alice, a backend engineer at Globex."
	if is(ts, n, ",") && is(ts, n+1, "a", "an") {
		x.role(s.asPerson(), ts[n+1:], f, true)
	}
	return true
}

// introEnds ([intro-ends]) may follow the name of a self-introduction;
// introNotAfter ([intro-not-after]) after its comma say it introduces
// someone else.
var introEnds, introNotAfter = wordSet("identity", "intro-ends"), wordSet("identity", "intro-not-after")

// introNotNames ([intro-not-names]) open a message before "here" without
// naming anyone: "Same here". A message's first word is capitalised
// whatever it is, so its capital says nothing.
var introNotNames = wordSet("identity", "intro-not-names")

// introduction reads how a message opens on its speaker's name: "hey,
// Tariq here", "it's Tariq here", "this is Tariq". Only the message's
// first sentence, after greetings, introduces: "this is Tariq" later on
// presents someone in a photo or a call, and so may "This is Tariq."
// alone; with a greeting or more said after it ("hi, this is Tariq",
// "this is Tariq from support") it is the speaker. The name is one or two
// capitalised words that are no day, month, known place or thing, and
// the clause ends after it (or, for "this is", goes on with "from …" or a
// comma not describing someone else): "this is Tariq's laptop", "it's
// Friday here", "Berlin here is cold" name nobody.
func (x *extraction) introduction(ts []token, f flags) bool {
	if x.mode != modeUser || f.not || strings.TrimSpace(x.content[:x.start]) != "" {
		return false
	}
	greeted := false
	for len(ts) > 0 && (openers[ts[0].low] || ts[0].kind == tPunct) {
		greeted = greeted || ts[0].kind == tWord
		ts = ts[1:]
	}
	thisIs := seq(ts, 0, "this", "is")
	switch {
	case thisIs || seq(ts, 0, "it", "is"):
		ts = ts[2:]
	case is(ts, 0, "its"):
		ts = ts[1:]
	}
	n := introName(ts)
	if n == 0 || !thisIs && !is(ts, n, "here") {
		return false // "it's Tariq here", "Tariq here"; "this is Tariq"
	}
	end := n
	if is(ts, end, "here") {
		end++
	}
	if thisIs && end == n && !greeted && (end == len(ts) || ts[end].kind == tPunct && ts[end].low != ",") {
		return false // "This is Greta." alone may show a photo: an introduction greets or goes on
	}
	if end < len(ts) {
		switch next := ts[end]; {
		case next.kind == tPunct && next.low == ",":
			if end == n && end+1 < len(ts) && introNotAfter[ts[end+1].low] {
				return false // "this is Mika, my new flatmate"; "Mika here, the one who …" is the speaker
			}
		case next.kind == tPunct:
		case next.kind == tWord && introEnds[next.low]:
		default:
			return false // "this is Tariq's laptop", "Berlin here is cold"
		}
	}
	return x.name(x.speaker, ts[:n], f, false)
}

// introName returns how many tokens of ts are a name one introduces
// oneself by: one or two capitalised words, none a day, a month, a known
// place or a word the lexicon knows.
func introName(ts []token) int {
	n := 0
	for n < len(ts) && n < 2 && ts[n].kind == tWord && ts[n].capital && !notPlaceStarts[ts[n].low] && !notNames[ts[n].low] && !introNotNames[ts[n].low] {
		if _, ok := lexicon[ts[n].low]; ok {
			return 0
		}
		n++
	}
	if n == 0 || knownPlace(ts[:n]) {
		return 0
	}
	return n
}

// callMe reads "Call me Al", "You can call me Al", "Please call me Al":
// the [call-me] table of lexicons/cue-patterns.txt.
func (x *extraction) callMe(ts []token, f flags) bool {
	n := cueLen(callMeCues, ts)
	if n == 0 {
		return false
	}
	if x.mode == modeUser {
		x.name(x.speaker, ts[n:], f, false)
	}
	return true
}

// place reads a place after "live in", "from", "based in", "moved to".
func (x *extraction) place(s subject, ts []token, f flags, key string) bool {
	if !personal(s) {
		return false
	}
	ts = ts[cueLen(placeAdjectiveCues, ts):] // [place-adjectives]
	val, n := x.readValue(ts, vPlace)
	if n == 0 {
		return false
	}
	if placeNoise[strings.ToLower(val)] || workplaceHeads[ts[n-1].low] {
		return false // "based out of the Leeds office" names a workplace
	}
	// "the new office", "a small town": a determiner needs a proper name
	// after it ("the Netherlands") before it names a place.
	if is(ts, 0, "the", "a", "an", "my", "our") && (n < 2 || !ts[1].capital) {
		return false
	}
	// "we moved to Thursday standups": a day, a month or a common noun
	// closing the words is no place ("Salt Lake City", "Mexico city" end
	// on a place word).
	first := ts[0]
	if is(ts, 0, "the") && n > 1 {
		first = ts[1]
	}
	if notPlaceStarts[first.low] {
		return false
	}
	if last := ts[n-1]; n > 1 && last.kind == tWord && !last.capital && !placeTails[last.low] && !strings.ContainsAny(last.low, "0123456789") {
		return false
	}
	// "I've lived in Berlin, Paris and Rome": a list is not one home.
	if rest := ts[n:]; (is(rest, 0, ",") || is(rest, 0, "and", "or")) && len(rest) > 1 && rest[1].capital {
		return false
	}
	if key == "lives_in" && cueLen(shortStayCues, ts[n:]) > 0 {
		return true // "moved to Alicante for the winter": a stay, not a home
	}
	t := tmLivesIn
	if key == "from" {
		t = tmFrom
	}
	x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: key, value: val, tmpl: t})
	return true
}

// placeNoise are things that follow "live in" without being places.
var placeNoise = wordSet("identity", "place-noise")

// notPlaceStarts ([not-place-starts]) open no place's name: days and
// months; placeTails ([place-tails]) are the lower-case words a place's
// name may end on ("Mexico city").
var notPlaceStarts, placeTails = wordSet("identity", "not-place-starts"), wordSet("identity", "place-tails")

// org reads an employer after "work at/for", "joined", "employed by".
func (x *extraction) org(s subject, ts []token, f flags, requireCapital bool) bool {
	if !personal(s) || len(ts) == 0 {
		return false
	}
	first := ts[0]
	if is(ts, 0, "the") && len(ts) > 1 {
		first = ts[1]
	}
	if requireCapital && !first.capital && first.kind != tQuote {
		return false
	}
	val, n := x.readValue(ts, vOrg)
	if n == 0 || orgNoise[strings.ToLower(val)] {
		return false
	}
	x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: "works_at", value: val, tmpl: tmWorksAt})
	// "I work at Acme as a designer".
	rest := ts[n:]
	if is(rest, 0, "as") {
		x.role(s.asPerson(), rest[1:], f, false)
	}
	return true
}

// orgNoise follows "work at/for" without being an employer.
var orgNoise = wordSet("identity", "org-noise")

// move reads "moved to X", "moved from X to Y", "relocated to X". A tool
// ("moved to Neovim") is a switch; anything else is a new home.
func (x *extraction) move(s subject, ts []token, f flags) {
	if f.hedge {
		// "I might move to Osaka", "toying with a move to Osaka": a
		// tentative plan says nothing about where the speaker lives, and
		// must neither contest nor later read as a former home.
		return
	}
	f.past = false
	ts = ts[cueLen(moveAdverbCues, ts):] // "moved back to", "moved away from"
	_, ts = fromSpan(ts)
	if x.readSlot(moveOffSlots, s, verb{}, ts, f) { // [move-off]
		return
	}
	if is(ts, 0, "my", "our", "the", "its", "their") {
		// "we moved our builds over to Buildkite", "moved my notes to
		// Obsidian": a thing moved onto a tool is a switch of tools; a
		// thing moved anywhere else ("moved the standup to 10") is not.
		// A plan ("moving our builds to X next month") is no switch yet.
		if !f.future {
			x.switchTo(s, ts, f)
		}
		return
	}
	if !is(ts, 0, "to", "into") {
		return
	}
	ts = ts[1:]
	val, n := x.readValue(ts, vPlace)
	if n == 0 {
		return
	}
	if f.not {
		return // "I didn't move to Berlin"
	}
	f.corr = true
	if _, ok := CategoryOf(val); ok {
		x.useThing(s, ts, f, purposeInfo{})
		return
	}
	if p, ok := x.purpose(ts[n:]); ok && p.known && p.prep == "for" && !knownPlace(ts) {
		// "moved to Graphite for dashboards": what serves a known
		// purpose is a tool, not a town.
		x.useThing(s, ts, f, p)
		return
	}
	if s.kind == sTeam {
		return
	}
	if !homeLike(ts, n) {
		// "moved to the back row", "moved to remote work", "moved to the
		// Payments team": a seat, a way of working or a group, not a home.
		return
	}
	if jobContext(ts[n:]) && !knownPlace(ts) {
		// "I moved from Globex to Initech for more pay": employers.
		// A city stays a home: "I moved to Lisbon for a new job".
		x.org(s.asPerson(), ts, f, true)
		return
	}
	x.place(s, ts, f, "lives_in")
}

// homeLike reports whether the n tokens of ts after "moved to" can name a
// home: a proper name ("Lisbon", "the Netherlands") or a known place
// written in lower case ("moved to lisbon"), not headed by a noun for a
// group, a post or a spot in a room.
func homeLike(ts []token, n int) bool {
	if notHomeHeads[ts[n-1].low] {
		return false
	}
	// "moved to Thursdays", "moved to Marketing": a day or a department.
	if last := ts[n-1].low; n == 1 && (weekdays[last] || weekdays[strings.TrimSuffix(last, "s")] || notHomeNames[last]) {
		return false
	}
	k := 0
	if is(ts, 0, "the") && n > 1 {
		k = 1
	}
	if ts[k].capital {
		return true
	}
	words := make([]string, 0, n-k)
	for _, t := range ts[k:n] {
		words = append(words, t.low)
	}
	return places[strings.Join(words, " ")]
}

// notHomeNames are single words one moves to without changing home:
// departments and ways of working, capitalised or not ("moved to Sales").
var notHomeNames = wordSet("identity", "not-home-names")

// notHomeHeads end what one moves to without changing home.
var notHomeHeads = wordSet("identity", "not-home-heads")

// workplaceHeads end a workplace, never a home, whatever verb precedes it.
var workplaceHeads = wordSet("identity", "workplace-heads")

// jobContext reports whether the words after a move name work ("for a
// better role", "for the job"), so the move is between employers.
func jobContext(ts []token) bool {
	return slices.ContainsFunc(ts, func(t token) bool { return jobContextWords[t.low] })
}

// jobContextWords are [job-context] of lexicons/identity.txt.
var jobContextWords = wordSet("identity", "job-context")

// adjectiveSuffix reports words that read as adjectives, not names: "I'm
// Anxious", "I'm Grateful", "I'm Available".
func adjectiveSuffix(w string) bool {
	for _, suf := range adjectiveSuffixes {
		if strings.HasSuffix(w, suf) && len(w) > len(suf)+2 {
			return true
		}
	}
	return false
}

// onCategories are the tools one is "on": "I'm on Helix", "been on Fish".
var onCategories = wordSet("identity", "on-categories")

// workedIn reports a language or an editor followed by how much of the
// day goes to it: "Kotlin all day", "Emacs most of the time", "Go every
// day". Without the time, "I'm in Go" may be a place in a game or a
// channel, so it says nothing.
func workedIn(x *extraction, ts []token) bool {
	val, n := x.readValue(ts, vThing)
	if n == 0 {
		return false
	}
	if c, ok := CategoryOf(val); !ok || c != "programming_language" && c != "editor" {
		return false
	}
	return cueLen(dayLongCues, ts[n:]) > 0 // [day-long]
}
