package extract

// This file reads one clause: conditionals and hypotheticals are dropped,
// modifiers set flags, and the main verb picks the rule that reads the rest.

import (
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// clause reads one clause. It returns the clause's subject so the next
// clause may borrow it ("I live in Lisbon and work at Acme").
func (x *extraction) clause(ts []token, sf flags, carry *subject) *subject {
	f := sf
	ts = cutConditional(ts)
	if len(ts) == 0 || hypotheticalClause(ts) {
		return nil
	}
	ts = stripLeading(ts, &f)
	ts, label := stripLabel(ts, &f)
	ts = stripLeading(ts, &f)
	if len(ts) == 0 {
		return carry
	}
	if !clauseFlags(ts, &f) {
		return carry // "I sometimes use Emacs" says nothing lasting
	}
	switch label {
	case labelDecision:
		x.decisionBody(x.team, ts, f)
		return nil
	case labelConstraint:
		if x.mode == modeUser {
			x.imperativeOr(ts, f, true)
		}
		return nil
	case labelGoal:
		if x.mode == modeUser {
			x.goal(x.speaker, ts, f, tmGoalIs, "")
		}
		return nil
	}
	// A clause that starts with a verb continues the previous subject: "I
	// used to use Vim but now use Neovim" is not an imperative.
	if carry != nil && verbInitial(ts) {
		if likeFiller(ts) && offsetOf(x.sent, ts) > 0 {
			return nil // "..., like properly obsessed": a filler, not a liking
		}
		if is(ts, 0, "like") && offsetOf(x.sent, ts) > 0 && !x.likingBefore() {
			// "allergic to nuts, like peanuts" gives examples of what
			// the clause before said, not a liking: only a liking's
			// examples ("I like sports, like the NBA") are likings.
			return nil
		}
		s := *carry
		if s.kind == sNamed && x.mode == modeUser && x.lead && cueLen(leadBaseCues, ts) > 0 { // [lead-base]
			// "Messi is a legend - adore his passing": one named person
			// cannot "love"; chat dropped the speaker's "I".
			s = x.speaker
		}
		x.predicate(s, ts, f)
		return &s
	}
	if x.mode == modeUser {
		// One clause may end a job and say the next post: each reads.
		before := len(x.out)
		ended, home, post := x.slotChange(jobChangeSlots, ts, f), x.homeBought(ts, f), x.slotChange(postSlots, ts, f)
		if ended || home || post || x.eventDate(ts, f) {
			if len(x.out) > before && x.out[len(x.out)-1].Subject == x.speaker.id && x.out[len(x.out)-1].Key == "works_at" {
				// The speaker's job changed: a clause that drops its
				// subject next is still the speaker's ("handed in my
				// notice at X, starting at Y on monday").
				return &x.speaker
			}
			return nil
		}
	}
	if x.mode == modeUser && (x.tasteIdiom(ts, f) || x.bareState(ts, f) || x.noMore(ts, f)) {
		return nil
	}
	if x.mode == modeUser && x.itsNow(ts, f) {
		return nil
	}
	if x.callMe(ts, f) || x.letUs(ts, f) || x.decisionIs(ts, f) || x.possessive(ts, f) ||
		x.reverseCopula(ts, f) || x.imperativeOr(ts, f, false) {
		return nil
	}
	s, rest, ok := x.parseSubject(ts)
	if !ok && carry != nil && (carry.kind == sNamed || carry.kind == sPerson) && carry.id != "user" && is(ts, 0, "she", "he") && !otherKind(carry.id, ts[0].low) {
		// "Ruth moved out, she lives in Glasgow now": the pronoun is
		// the person the clause before spoke of.
		s, rest, ok = *carry, ts[1:], true
	}
	if !ok {
		if x.mode == modeUser && x.lead && droppedSubject(ts) {
			// Chat drops the "I": "Switched to Neovim.", "Big fan of Rust."
			if fan := indexOf(ts, "fan"); fan >= 0 && is(ts, fan+1, "of") {
				x.likeThing(x.speaker, ts[fan+2:], f, is(ts, 0, "not"), false)
			} else if is(ts, 0, "been") && (is(ts, 1, "on") || dietLen(ts, 1) > 0) {
				x.copula(x.speaker, ts[1:], f) // "Been on Helix for a month."
			} else if is(ts, 0, "been") {
				x.predicate(x.speaker, ts[1:], f) // "Been using Zed lately."
			} else if e, _, _ := matchCue(droppedSubjectCues, ts); e&cueCopula != 0 {
				x.copula(x.speaker, ts, f) // "Allergic to shellfish btw.", "More of a tea person."
			} else if n := cueLen(notKeenCues, ts); n > 0 {
				x.likeThing(x.speaker, ts[n:], f, true, false) // "Not big on olives."
			} else {
				x.predicate(x.speaker, ts, f)
			}
			return &x.speaker
		}
		return nil
	}
	if is(rest, 0, "'s") {
		x.copula(s, rest[1:], f) // "the site's on Netlify"
		return &s
	}
	x.predicate(s, rest, f)
	return &s
}

// likingBefore reports whether the sentence's last candidate so far is a
// liking.
func (x *extraction) likingBefore() bool {
	return len(x.out) > x.sentOut && strings.HasPrefix(x.out[len(x.out)-1].Key, "likes:")
}

// likeFiller reports a clause opened by the filler "like" before an adverb
// or an adjective ("like totally hooked"), where a liking would have its
// thing ("like the NBA"): [like-fillers].
func likeFiller(ts []token) bool {
	e, _, ok := matchCue(likeFillerCues, ts)
	return ok && e&cueDrop == 0
}

// cutConditional drops a conditional tail: "I use Vim if I can" keeps "I
// use Vim"; "I don't know if I like Rust" keeps "I don't know", which says
// nothing.
// The words are the [conditionals] table of lexicons/cue-patterns.txt.
func cutConditional(ts []token) []token {
	for k := 1; k < len(ts); k++ {
		if _, _, ok := matchCue(conditionalCues, ts[k:]); ok {
			return ts[:k]
		}
	}
	return ts
}

// hypotheticalClause reports wishes, dreams and conditionals inside a
// clause: the [wishes] table of lexicons/cue-patterns.txt, tried at every
// token.
func hypotheticalClause(ts []token) bool {
	for k := range ts {
		if e, ok := firstCueAt(wishCues, ts, k); ok && e&cueDrop != 0 {
			return true
		}
	}
	return false
}

// clauseFlags scans a clause for hedges, corrections and "anymore": the
// [clause-flags] table of lexicons/cue-patterns.txt, tried at every token.
// It reports false when a match drops the clause ("sometimes").
// A lowercase "may" hedges unless it is the month ("in May", "last may").
func clauseFlags(ts []token, f *flags) bool {
	says := true
	for k, t := range ts {
		eachCue(clauseFlagCues, ts, k, func(e cueEffect) {
			says = says && e&cueDrop == 0
			f.set(e)
		})
		if t.low == "may" && !t.capital && !is(ts, k-1, "in", "of", "since", "until", "by", "early", "late", "mid", "last", "next", "this") {
			f.hedge = true
		}
	}
	return says
}

// verbInitial reports whether a clause starts with a verb or an auxiliary,
// so it may borrow the previous clause's subject.
func verbInitial(ts []token) bool {
	e, _, ok := matchCue(verbInitialCues, ts) // [verb-initial]
	return ok && e&cueDrop == 0
}

// predicate reads what a clause says about s: modifiers ([modifiers] of
// lexicons/cue-patterns.txt, then "can", "rather" and adverbs), then the
// verb.
func (x *extraction) predicate(s subject, ts []token, f flags) {
	i := 0
	modStart := -1
	haveAux := false
	been := -1 // where "been" was read as a modifier
loop:
	for i < len(ts) {
		w := ts[i].low
		if w == "been" {
			been = i
		}
		// The modifiers of [modifiers], one after another.
		if e, n, ok := matchCue(modifierCues, ts[i:]); ok && !(w == "may" && ts[i].capital) {
			if e&cueTodo != 0 && s.kind != sTeam {
				return // "I need to buy milk" is a to-do, not a memory
			}
			if e&(cueMust|cueAlways|cueNever) != 0 && modStart < 0 {
				modStart = i
			}
			haveAux = haveAux || e&cueAux != 0
			f.set(e)
			i += n
			continue
		}
		switch {
		case w == "can":
			// [cannot] of lexicons/cue-patterns.txt: what one cannot stand,
			// do without or eat.
			x.readSlot(cannotSlots, s, verb{}, ts[i:], f)
			return // "I can use Vim" says what is possible, not what is
		case w == "rather" && f.polite:
			x.prefer(s, ts[i+1:], f)
			return
		case adverbs[w] && !(w == "so" || w == "all" && s.kind != sTeam):
			if corrAdverbs[w] {
				f.corr = true
			}
			if hedgeAdverbs[w] {
				f.hedge = true
			}
			i++
		default:
			break loop
		}
	}
	if i >= len(ts) {
		return
	}
	v, ok := verbs[ts[i].low]
	if !ok && been >= 0 && haveAux {
		// "I've been vegan for two years", "I've been basically
		// vegetarian since May": "been" is the copula ("I've been
		// editing my notes in Helix" reads on).
		before := len(x.out)
		if x.copula(s, ts[been+1:], f); len(x.out) > before {
			return
		}
	}
	if !ok {
		if x.mode == modeUser && (x.readSlotAnywhere(toolActivitySlots, s, ts[i:], f) || !strings.HasSuffix(ts[i].low, "ed") && x.teamTool(s, ts[i+1:], f)) {
			return
		}
		x.ruleFallback(s, ts, modStart, i, f)
		return
	}
	if v.form == fPast && !haveAux && !changeVerbs[v.lemma] {
		f.past = true
	}
	if f.never && s.kind != sPerson && s.kind != sNamed && v.lemma != "like" && v.lemma != "love" && v.lemma != "be" {
		// "I never push on Fridays", "we never deploy on Fridays": rules.
		x.ruleFallback(s, ts, modStart, i, f)
		return
	}
	before := len(x.out)
	x.verb(s, v, ts[i+1:], f)
	if x.mode == modeUser && (len(x.out) == before || v.lemma == "like" || v.lemma == "love" || v.lemma == "enjoy") {
		// "I do all my hacking in Helix", "I really enjoy coding in Zig":
		// the tool is in what the person does.
		x.readSlotAnywhere(toolActivitySlots, s, ts[i:], f) // [tool-activities]
	}
	if x.mode == modeUser && len(x.out) == before && v.lemma != "be" && v.lemma != "have" {
		x.teamTool(s, ts[i+1:], f)
	}
	if len(x.out) == before && (f.always || f.must) {
		x.ruleFallback(s, ts, modStart, i, f)
	}
}

// personal reports whether s may carry personal facts (preferences,
// places, employers): the speaker and other people, never a team.
func personal(s subject) bool { return s.kind == sSpeaker || s.kind == sPerson || s.kind == sNamed }

// canDecide reports whether s may decide things or hold goals and rules.
func canDecide(s subject) bool { return s.kind == sSpeaker || s.kind == sTeam || s.kind == sNamed }

// verb reads a clause by its main verb: the reader [verb-readers] of
// lexicons/verbs.txt names for the verb's lemma; ts follows the verb.
func (x *extraction) verb(s subject, v verb, ts []token, f flags) {
	if s.we && x.household(v, ts) {
		// "We left Lisbon and settled in Porto": the speaker's household.
		s = x.speaker
	}
	if x.petNamed(s, v, ts, f) {
		return
	}
	if read := verbReading[v.lemma]; read != nil {
		read(x, s, v, ts, f)
	}
}

// petKinds is the [pet-kinds] table of lexicons/possessive.txt.
var petKinds = wordPairs("possessive", "pet-kinds")

// petKind returns the kind of pet noun names: "dog" for "puppy"; noun
// itself for any other.
func petKind(noun string) string {
	if k, ok := petKinds[noun]; ok {
		return k
	}
	return noun
}

// petVerbs are the verbs of having a pet: "I have a dog named Rex", "we
// adopted a kitten called Miso", "got a puppy called Mochi".
var petVerbs = map[string]bool{"have": true, "get": true, "adopt": true, "rescue": true, "bring": true}

// petNamed reads a pet named after a verb of having it: the speaker's
// (or household's) pet's name, as "my dog is called Rex" gives it. "had a
// dog called Rex" may be a pet no more, and is left.
func (x *extraction) petNamed(s subject, v verb, ts []token, f flags) bool {
	if !petVerbs[v.lemma] || v.lemma == "have" && v.form == fPast || f.not || f.hedge || f.future || s.kind != sSpeaker && !s.we {
		return false
	}
	k := 0
	if is(ts, 0, "a", "an", "another", "our", "my", "the") {
		k++
	}
	for j := k; j < len(ts) && j < k+3; j++ {
		if ts[j].kind != tWord {
			return false
		}
		if c, ok := CategoryOf(ts[j].low); !ok || c != "pet" || strings.HasSuffix(ts[j].low, "s") {
			continue // one pet: "two cats called Salt and Pepper" are no name of a cat
		}
		n := cueLen(namedAsCues, ts[j+1:]) // [named-as]
		if n == 0 {
			// "we got a cat, named her Soot": the name in the clause
			// after, or the sentence after ([pet-named-later]).
			rest := ts[j+1:]
			rest = rest[cueLen(petNameGapCues, rest):]
			if !allPunct(rest) {
				continue // "a tabby kitten called Marmalade": the next noun
			}
			kind := petKind(ts[j].low)
			at := offsetOf(x.sent, rest)
			if len(rest) == 0 {
				at = offsetOf(x.sent, ts) + len(ts)
			}
			if allPunct(x.sent[at:]) {
				x.petBefore = kind // the next sentence may name it
				return false
			}
			k := at
			for k < len(x.sent) && k < at+3 && x.sent[k].kind == tPunct && !is(x.sent, k, ":", ";", "(", ")") {
				k++
			}
			if k == at && !is(x.sent, at, "and") {
				return false
			}
			return x.petNamedLater(kind, x.sent[k:], f)
		}
		m := petName(ts[j+1+n:])
		if m == 0 {
			return false
		}
		val := ts[j+1+n:]
		x.emit(x.speaker, f, claim{typ: memory.TypeFact, key: "name_of:" + Slug(petKind(ts[j].low)), value: x.text(val, m), tmpl: tmFact, cat: ts[j].low + "'s name"})
		return true
	}
	return false
}

// petName returns how many words of val are a pet's name: its
// capitalised words ("Pip on saturday" is Pip), at most three; 0 when val
// opens with no name or the name is someone else's pet's ("Noodle for my
// nephew").
func petName(val []token) int {
	m := valueLen(val, vPhrase)
	for k := 1; k < m; k++ {
		if !val[k].capital {
			m = k
			break
		}
	}
	if is(val, m, "for") && (is(val, m+1, "my", "his", "her", "their", "a", "an", "the") || m+1 < len(val) && val[m+1].capital) {
		return 0
	}
	if m == 0 || m > 3 || !val[0].capital || !validValue(val[:m]) {
		return 0
	}
	return m
}

// allPunct reports whether ts holds no word.
func allPunct(ts []token) bool {
	for _, t := range ts {
		if t.kind != tPunct {
			return false
		}
	}
	return true
}

// petNamedLater reads the name of a pet of kind got in the clause or the
// sentence before, given in ts: "named her Soot" ([pet-named-later]).
func (x *extraction) petNamedLater(kind string, ts []token, f flags) bool {
	n := cueLen(petNamedLaterCues, ts)
	if n == 0 {
		return false
	}
	m := petName(ts[n:])
	if m == 0 || m < len(ts[n:]) && !is(ts[n:], m, ",", ".", "!", "...", "-", "and", "because", "cause", "cuz", "after", "since") {
		return false // "named her Soot something else": not only a name
	}
	x.emit(x.speaker, f, claim{typ: memory.TypeFact, key: "name_of:" + Slug(kind), value: x.text(ts[n:], m), tmpl: tmFact, cat: kind + "'s name"})
	return true
}

// verbReader reads what follows a verb of its lemmas.
type verbReader func(x *extraction, s subject, v verb, ts []token, f flags)

// verbReading maps a lemma to its reader, as [verb-readers] of
// lexicons/verbs.txt says.
var verbReading map[string]verbReader

// verbReaders are the readers [verb-readers] names, with the code each
// runs on the words after the verb. Both maps are set in init, since
// readers read verbs again ("quit smoking", "stopped using Vim").
var verbReaders map[string]verbReader

func init() {
	initSlots()
	verbReaders = map[string]verbReader{
		"copula": func(x *extraction, s subject, v verb, ts []token, f flags) {
			x.copula(s, ts, f)
		},
		"report": func(x *extraction, s subject, v verb, ts []token, f flags) {
			// "I report to Marcus now", "reporting to Ines since May":
			// whom the speaker reports to is their manager.
			if s.kind != sSpeaker && s.id != "" && s.id == x.gone && v.form == fGerund {
				// "Priya left the company, reporting to Marcus now": the
				// one who left is carried as the subject, yet it is the
				// speaker who reports to someone new.
				s = x.speaker
			}
			if s.kind != sSpeaker || !is(ts, 0, "to") || f.hedge || f.future {
				return
			}
			x.name(subject{kind: sPerson, id: "manager", name: possessive(s.name) + " manager"}, ts[1:], f, false)
		},
		"move": func(x *extraction, s subject, v verb, ts []token, f flags) {
			gerund := v.form == fGerund
			if gerund || v.form != fPast && v.form != fPartOnly && futureTime(ts) {
				// "I'm moving to Berlin", "we move to Ghent next spring": a plan.
				f.future = true
			}
			x.move(s, ts, f)
		},
		"leave": func(x *extraction, s subject, v verb, ts []token, f flags) {
			if next, ok := verbs[lowAt(ts, 0)]; ok && next.form == fGerund && v.lemma == "quit" {
				f.neg = true
				x.verb(s, next, ts[1:], f)
				return
			}
			if v.form != fPast && futureTime(untilPunct(ts)) {
				// "I'm leaving Corvane in june": nothing has ended yet (the
				// clause is a plan; a start said beside it still reads).
				f.future = true
			}
			if v.lemma == "leave" && knownPlace(ts) {
				// "I left Lisbon": a move away from a place, not a job change.
				if !f.hedge && !f.not && personal(s) {
					f.past = false
					f.neg = true
					x.place(s, ts, f, "lives_in")
				}
				return
			}
			if (s.kind == sNamed || s.kind == sPerson) && v.form == fPast && !f.not && !f.hedge && !f.future {
				x.gone = s.id // "Priya left the company", "my manager quit"
			}
			if personal(s) && (len(ts) > 0 && ts[0].capital || is(ts, 0, "my") && is(ts, 1, "job")) {
				if is(ts, 0, "my") {
					// "I left my job at Acme".
					if !is(ts, 2, "at", "with") {
						return
					}
					ts = ts[3:]
				}
				f.neg = true
				if val, n := x.readValue(ts, vOrg); n > 0 && knownThing(val) && !is(ts, 0, "my") {
					// "I quit Spotify": a product the lexicon knows is
					// left as a tool, not as an employer; the engine
					// contests the tool's fact (a change stated of it).
					return
				}
				x.org(s.asPerson(), ts, f, false)
			}
		},
		"switch": func(x *extraction, s subject, v verb, ts []token, f flags) {
			x.switchTo(s, ts, f)
		},
	}
	verbReading = map[string]verbReader{}
	for _, line := range wordList("verbs", "verb-readers") {
		r := strings.Fields(line)
		read, ok := verbReaders[r[0]]
		if slots := verbSlots[r[0]]; !ok && slots != nil {
			// A reader of [verb-slots]: slot templates on the words after
			// the verb.
			read, ok = func(x *extraction, s subject, v verb, ts []token, f flags) { x.readSlot(slots, s, v, ts, f) }, true
		}
		if !ok || len(r) < 2 {
			lexiconProblems = append(lexiconProblems, "lexicons/verbs.txt [verb-readers] "+line+": want a reader of predicates.go and its lemmas")
			continue
		}
		for _, lemma := range r[1:] {
			verbReading[lemma] = read
		}
	}
}

// avoid reads what a person does not eat: "pork", "meat", "dairy".
func (x *extraction) avoid(s subject, ts []token, f flags) {
	if !personal(s) || f.hedge {
		return
	}
	for is(ts, 0, "any", "much") && len(ts) > 1 && ts[1].kind == tWord {
		ts = ts[1:] // "I don't eat any meat"
	}
	val, n := x.readValue(ts, vThing)
	if n == 0 || pronounValues[strings.ToLower(val)] {
		return
	}
	// The claim is that the person avoids it now, whatever words said so.
	f.not, f.never, f.anymore, f.past, f.neg = false, false, false, false, false
	x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: "avoids:" + Slug(val), value: val, tmpl: tmAvoids})
}

// allergenPlurals name an allergy's source as "allergic to" does:
// [allergen-plurals] of lexicons/predicates.txt.
var allergenPlurals = wordPairs("predicates", "allergen-plurals")

// indexOf returns the index of the first token spelled w in ts, or -1.
func indexOf(ts []token, w string) int {
	for i, t := range ts {
		if t.low == w {
			return i
		}
	}
	return -1
}

// tasteIdiom reads the speaker's tastes said without "I": "Nothing beats
// ramen for dinner", "Home these days is Lisbon".
func (x *extraction) tasteIdiom(ts []token, f flags) bool {
	// "Nothing beats ramen", "I could listen to jazz all day": what one
	// would never tire of is loved ([taste-idioms] of
	// lexicons/cue-patterns.txt).
	if n := cueLen(tasteIdiomCues, ts); n > 0 && (!is(ts, 0, "i") || cueAnywhere(everyDayCues, ts[n:])) {
		f.hedge = f.hedge && !is(ts, 0, "i") // "could" here is no plan
		x.likeThing(x.speaker, ts[n:], f, false, true)
		return true
	}
	return x.readSlot(idiomSlots, x.speaker, verb{}, ts, f) // [idiom-slots]
}

// itsNow reads "it's Y (for me) now" after a clause of the same sentence
// that ended the speaker's X: "I don't eat meat anymore, it's tofu for
// me now", "I quit Globex, it's Initech these days". Y takes X's slot.
func (x *extraction) itsNow(ts []token, f flags) bool {
	k := cueLen(itsNowCues, ts) // "it's (all) ..."
	if k == 0 {
		return false
	}
	var ended *Candidate
	for i := len(x.out) - 1; i >= x.sentOut; i-- {
		if c := &x.out[i]; c.Subject == x.speaker.id && c.Cue == CueNegation {
			ended = c
			break
		}
	}
	if ended == nil || f.hedge || f.not {
		return false
	}
	val, n := x.readValue(ts[k:], vThing)
	if n == 0 || strings.EqualFold(val, ended.Value) {
		return false
	}
	rest := ts[k+n:]
	if seq(rest, 0, "for", "me") {
		rest = rest[2:]
	}
	now := len(rest) == 0 && f.corr
	for j := range rest {
		now = now || cueLen(nowCues, rest[j:]) > 0
	}
	if !now {
		return false
	}
	f.corr = true
	switch {
	case strings.HasPrefix(ended.Key, "prefers:"):
		cat := ended.Key[len("prefers:"):]
		if c, ok := CategoryOf(val); ok && c != cat {
			return false
		}
		x.emitPreference(x.speaker, val, purposeInfo{prep: "as", cat: cat, known: true}, true, f)
	case ended.Key == "lives_in":
		x.emit(x.speaker.asPerson(), f, claim{typ: memory.TypeFact, key: "lives_in", value: val, tmpl: tmLivesIn})
	case ended.Key == "works_at":
		x.emit(x.speaker.asPerson(), f, claim{typ: memory.TypeFact, key: "works_at", value: val, tmpl: tmWorksAt})
	default:
		return false
	}
	return true
}

// untilPunct returns ts up to its first punctuation: the rest of a clause
// before a comma.
func untilPunct(ts []token) []token {
	for k, t := range ts {
		if t.kind == tPunct {
			return ts[:k]
		}
	}
	return ts
}
