package extract

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
	clauseFlags(ts, &f)
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
		x.predicate(*carry, ts, f)
		return carry
	}
	if x.callMe(ts, f) || x.letUs(ts, f) || x.decisionIs(ts, f) || x.possessive(ts, f) ||
		x.reverseCopula(ts, f) || x.imperativeOr(ts, f, false) {
		return nil
	}
	s, rest, ok := x.parseSubject(ts)
	if !ok {
		if x.mode == modeUser && droppedSubject(ts) {
			// Chat drops the "I": "Switched to Neovim.", "Big fan of Rust."
			if fan := indexOf(ts, "fan"); fan >= 0 && is(ts, fan+1, "of") {
				x.likeThing(x.speaker, ts[fan+2:], f, is(ts, 0, "not"))
			} else {
				x.predicate(x.speaker, ts, f)
			}
			return &x.speaker
		}
		return nil
	}
	x.predicate(s, rest, f)
	return &s
}

// cutConditional drops a conditional tail: "I use Vim if I can" keeps "I
// use Vim"; "I don't know if I like Rust" keeps "I don't know", which says
// nothing.
func cutConditional(ts []token) []token {
	for k := 1; k < len(ts); k++ {
		switch ts[k].low {
		case "if", "whether", "unless":
			return ts[:k]
		case "in":
			if is(ts, k+1, "case") {
				return ts[:k]
			}
		}
	}
	return ts
}

// hypotheticalClause reports wishes, dreams and conditionals inside a
// clause: "I wish I worked at Google", "I would love to live in Tokyo
// someday", "I'd move to Paris". "I'd prefer tabs" and "I'd rather use
// Emacs" are polite preferences, not hypotheticals.
func hypotheticalClause(ts []token) bool {
	for k, t := range ts {
		switch t.low {
		case "wish", "wished", "wishing", "imagine", "imagining", "dream", "dreaming",
			"dreamed", "dreamt", "someday", "hypothetically", "fantasize", "fantasise",
			"pretend", "pretending", "theoretically", "hypothetical":
			return true
		case "one", "some":
			if is(ts, k+1, "day") && !is(ts, k-1, "every") {
				return true
			}
		case "would":
			j := k + 1
			for is(ts, j, "really", "much", "definitely", "probably", "actually", "honestly", "strongly", "personally", "still", "also") {
				j++
			}
			if !is(ts, j, "prefer", "rather") {
				return true
			}
		}
	}
	return false
}

// clauseFlags scans a clause for hedges, corrections and "anymore".
func clauseFlags(ts []token, f *flags) {
	for k, t := range ts {
		switch t.low {
		case "might", "maybe", "perhaps", "probably", "possibly", "tentatively", "considering", "hopefully":
			f.hedge = true
		case "could":
			if !is(ts, k+1, "not") {
				f.hedge = true
			}
		case "may":
			if !t.capital && !is(ts, k-1, "in", "of", "since", "until", "by", "early", "late", "mid", "last", "next", "this") {
				f.hedge = true
			}
		case "thinking":
			if is(ts, k+1, "about", "of") {
				f.hedge = true
			}
		case "leaning":
			f.hedge = true
		case "instead", "nowadays":
			f.corr = true
		case "now":
			if k > 0 && !is(ts, k-1, "for", "until", "till", "from", "by") {
				f.corr = true
			}
		case "anymore":
			f.anymore = true
		case "any", "no":
			if is(ts, k+1, "more") && (k+2 == len(ts) || ts[k+2].kind == tPunct) {
				f.anymore = true
			}
		case "days":
			if is(ts, k-1, "these") {
				f.corr = true
			}
		}
	}
}

// verbInitial reports whether a clause starts with a verb or an auxiliary,
// so it may borrow the previous clause's subject.
func verbInitial(ts []token) bool {
	for k := 0; k < len(ts) && k < 4; k++ {
		w := ts[k].low
		if adverbs[w] || w == "not" {
			continue
		}
		if w == "no" && is(ts, k+1, "longer") || w == "used" && is(ts, k+1, "to") {
			return true
		}
		if w == "never" || w == "always" || w == "do" || w == "did" || w == "might" || w == "may" ||
			w == "will" || w == "have" || w == "am" || w == "must" {
			return true
		}
		v, ok := verbs[w]
		return ok && v.lemma != "be" || w == "am"
	}
	return false
}

// indexOf returns the index of the first token spelled w in ts, or -1.
func indexOf(ts []token, w string) int {
	for i, t := range ts {
		if t.low == w {
			return i
		}
	}
	return -1
}

// droppedSubject reports whether a clause is a first-person statement with
// its "I" left out: a past change ("Switched to Neovim"), a progressive
// state ("Living in Porto now"), "no longer"/"used to", or a fandom ("Big
// fan of Rust", "Not a fan of Java").
func droppedSubject(ts []token) bool {
	w := lowAt(ts, 0)
	if v, ok := verbs[w]; ok {
		switch v.form {
		case fPast:
			return changeVerbs[v.lemma] && v.lemma != "be" && v.lemma != "have" && v.lemma != "do" && v.lemma != "go" && v.lemma != "get" ||
				v.lemma == "live" || v.lemma == "work" || v.lemma == "use"
		case fGerund:
			switch v.lemma {
			case "live", "work", "use", "learn", "love", "enjoy":
				return true
			}
		}
		return false
	}
	if w == "no" && is(ts, 1, "longer") || w == "used" && is(ts, 1, "to") {
		return true
	}
	k := 0
	if w == "not" {
		k = 1
	}
	if is(ts, k, "a") {
		k++
	}
	for is(ts, k, "big", "huge", "massive", "great", "longtime", "long-time", "die-hard", "diehard", "total") {
		k++
	}
	return k > 0 && is(ts, k, "fan") && is(ts, k+1, "of")
}

// componentNouns after "our"/"the" name a part of the project; its facts get
// their own slots ("our backend uses Go", "our frontend uses TypeScript").
var componentNouns = set("backend", "frontend", "api", "cli", "website", "site", "server",
	"client", "ui", "mobile", "web", "worker", "workers", "infra", "infrastructure",
	"database", "db", "docs", "documentation", "tests", "ci", "pipeline")

// parseSubject reads the clause's subject. ok is false when the clause
// starts with no subject the rules know.
func (x *extraction) parseSubject(ts []token) (subject, []token, bool) {
	w := lowAt(ts, 0)
	switch {
	case w == "i":
		return x.speaker, ts[1:], true
	case w == "we":
		k := 1
		if is(ts, 1, "all", "both") {
			k++
		}
		return x.team, ts[k:], true
	case w == "my":
		if s, n, ok := x.relation(ts, 1); ok {
			return s, ts[n:], true
		}
		if teamNouns[lowAt(ts, 1)] && !is(ts, 2, "'s") {
			return x.teamPart(x.text(ts[1:], 1)), ts[2:], true
		}
		return subject{}, nil, false
	case w == "our" || ((w == "the" || w == "this") && (teamNouns[lowAt(ts, 1)] || componentNouns[lowAt(ts, 1)])):
		k := 1
		for is(ts, k, "whole", "entire", "engineering", "dev", "own", "main", "new") {
			k++
		}
		if (teamNouns[lowAt(ts, k)] || componentNouns[lowAt(ts, k)]) && !is(ts, k+1, "'s") {
			return x.teamPart(x.text(ts[k:], 1)), ts[k+1:], true
		}
		return subject{}, nil, false
	case w == "the" && is(ts, 1, "user") && !is(ts, 2, "'s"):
		return subject{kind: sPerson, id: "user", name: "The user"}, ts[2:], true
	case w == "the" && k1Capital(ts) && is(ts, 2, "project", "repo", "app", "service", "team", "codebase"):
		return x.named(ts[1:2]), ts[3:], true
	}
	if len(ts) < 2 || ts[0].kind != tWord || subjectStopWords[w] {
		return subject{}, nil, false
	}
	if x.project != "" && Slug(ts[0].low) == x.project && !is(ts, 1, "'s") {
		return x.namedTeam(ts[:1]), ts[1:], true
	}
	if !ts[0].capital {
		return subject{}, nil, false
	}
	n := 1
	for n < len(ts) && n < 3 && ts[n].kind == tWord && ts[n].capital && !subjectStopWords[ts[n].low] {
		n++
	}
	next := lowAt(ts, n)
	if !personVerbs[next] || next == "'s" {
		return subject{}, nil, false
	}
	return x.named(ts[:n]), ts[n:], true
}

func k1Capital(ts []token) bool { return len(ts) > 1 && ts[1].capital && ts[1].kind == tWord }

// named makes a subject of a capitalised name; the event's project by name
// is the team.
func (x *extraction) named(ts []token) subject {
	if len(ts) > 1 && (ts[0].low == "project" || ts[0].low == "team") {
		ts = ts[1:] // "Project Atlas" is Atlas
	}
	name := x.text(ts, len(ts))
	id := Slug(name)
	if x.project != "" && id == x.project {
		return x.namedTeam(ts)
	}
	return subject{kind: sNamed, id: id, name: name}
}

func (x *extraction) namedTeam(ts []token) subject {
	s := x.team
	s.name = displayName(x.text(ts, len(ts)))
	return s
}

// teamPart is the team, or one of its components ("our backend", "our
// CI"), named as written.
func (x *extraction) teamPart(noun string) subject {
	s := x.team
	if low := strings.ToLower(noun); componentNouns[low] {
		s.comp, s.whole = Slug(low), s.name
		s.name = possessive(s.name) + " " + noun
	}
	return s
}

// relation reads "sister", "older brother", "best friend" after "my" at
// ts[k]; the subject is that person, never the speaker.
func (x *extraction) relation(ts []token, k int) (subject, int, bool) {
	j := k
	for j < len(ts) && relationAdjectives[ts[j].low] && j < k+2 {
		j++
	}
	if j >= len(ts) || !relationNouns[ts[j].low] {
		return subject{}, 0, false
	}
	noun := ts[j].low
	if is(ts, j-1, "best") {
		noun = "best " + noun
	}
	if is(ts, j-1, "tech", "team", "engineering", "product", "project") && noun == "lead" {
		noun = ts[j-1].low + " lead"
	}
	// "my colleague Bob uses Emacs": the name is the subject.
	if j+1 < len(ts) && ts[j+1].capital && ts[j+1].kind == tWord && !subjectStopWords[ts[j+1].low] && personVerbs[lowAt(ts, j+2)] {
		name := x.text(ts[j+1:], 1)
		return subject{kind: sPerson, id: Slug(name), name: name}, j + 2, true
	}
	return subject{kind: sPerson, id: Slug(noun), name: possessive(x.speaker.name) + " " + noun}, j + 1, true
}

// predicate reads what a clause says about s: modifiers, then the verb.
func (x *extraction) predicate(s subject, ts []token, f flags) {
	i := 0
	modStart := -1
	haveAux := false
loop:
	for i < len(ts) {
		w := ts[i].low
		switch {
		case ts[i].kind == tPunct && w == ",":
			i++
		case w == "no" && is(ts, i+1, "longer"):
			f.neg = true
			i += 2
		case w == "not":
			f.not = true
			i++
		case w == "do" || w == "does":
			i++
		case w == "did":
			if is(ts, i+1, "not") {
				f.past = true
			}
			i++
		case w == "used" && is(ts, i+1, "to"):
			f.past = true
			i += 2
		case (w == "have" || w == "has" || w == "had") && auxFollows(ts, i+1):
			haveAux = true
			if w == "had" {
				f.past = true
			}
			i++
		case w == "been":
			i++
		case w == "might" || w == "could" || (w == "may" && !ts[i].capital):
			if w != "could" || !is(ts, i+1, "not") {
				f.hedge = true
			}
			i++
		case w == "should":
			if is(ts, i+1, "always", "never") || is(ts, i+1, "not") {
				if modStart < 0 {
					modStart = i
				}
				f.must = true
			} else {
				f.hedge = true
			}
			i++
		case w == "must":
			if modStart < 0 {
				modStart = i
			}
			f.must = true
			i++
		case (w == "need" || w == "needs" || w == "have" || w == "has") && is(ts, i+1, "to"):
			if s.kind != sTeam {
				return // "I need to buy milk" is a to-do, not a memory
			}
			if modStart < 0 {
				modStart = i
			}
			f.must = true
			i += 2
		case w == "will" || w == "shall":
			f.future = true
			i++
		case w == "would":
			f.polite = true // hypotheticalClause let only "would prefer/rather" through
			i++
		case w == "going" && is(ts, i+1, "to") && !is(ts, i+2, "the", "a", "an", "my"):
			f.future = true
			i += 2
		case w == "always":
			if modStart < 0 {
				modStart = i
			}
			f.always = true
			i++
		case w == "never":
			if modStart < 0 {
				modStart = i
			}
			f.never = true
			i++
		case w == "ever":
			i++
		case (w == "kind" || w == "sort") && is(ts, i+1, "of"), w == "kinda", w == "sorta":
			f.weak = true // "I kind of like Rust"
			i++
			if w == "kind" || w == "sort" {
				i++
			}
		case w == "can":
			if seq(ts, i+1, "not", "stand") || seq(ts, i+1, "not", "bear") {
				x.likeThing(s, ts[i+3:], f, true)
				return
			}
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
	if !ok {
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
	if len(x.out) == before && (f.always || f.must) {
		x.ruleFallback(s, ts, modStart, i, f)
	}
}

// auxFollows reports whether the word after "have" makes it an auxiliary:
// a participle or an adverb ("I've switched", "I have always used").
func auxFollows(ts []token, k int) bool {
	w := lowAt(ts, k)
	if w == "been" || w == "got" || adverbs[w] || w == "always" || w == "never" || w == "not" || w == "no" {
		return true
	}
	v, ok := verbs[w]
	return ok && (v.form == fPast || v.form == fPartOnly)
}

// ruleFallback turns "we always/never/must X" and "I always/never X" into a
// constraint when no other rule claimed the clause.
func (x *extraction) ruleFallback(s subject, ts []token, modStart, verbAt int, f flags) {
	if modStart < 0 || !(f.always || f.never || f.must) {
		return
	}
	if s.kind != sSpeaker && s.kind != sTeam {
		return
	}
	if s.kind == sSpeaker && !f.always && !f.never {
		return // "I must finish this" is a to-do
	}
	if v, ok := verbs[lowAt(ts, verbAt)]; ok && (v.form == fPast || v.lemma == "be" || v.lemma == "have") {
		return // "I never said that", "we always were late"
	}
	if bodyBlocked(ts[verbAt:]) {
		return
	}
	f.never = f.never || f.not
	x.rule(s, ts[modStart:], ts[verbAt:], f)
}

// bodyBlocked rejects rule bodies that are small talk: "never mind", "don't
// worry", "always happy to help", "never again".
func bodyBlocked(body []token) bool {
	if len(body) == 0 || body[0].kind != tWord {
		return true
	}
	w := body[0].low
	if ruleBodyBlock[w] || pronounValues[w] && w != "all" && w != "each" {
		return true
	}
	if v, ok := verbs[w]; ok && v.form == fPast && w != "used" {
		return true
	}
	return false
}

var ruleBodyBlock = set("mind", "worry", "bother", "know", "care", "think", "again", "hesitate",
	"apologize", "apologise", "thank", "sorry", "happy", "glad", "good", "nice", "fun", "great",
	"the", "a", "an", "i", "me", "you", "sure", "ok", "okay", "mind.", "ever", "say", "said",
	"doubt", "fear", "panic", "stress", "cry", "laugh", "forget", "remember", "knew",
	"understand", "wonder", "guess", "get", "got", "been", "liked", "seen", "heard",
	"tell", "told", "ask", "asked", "expect", "expected", "want", "wanted", "need", "see",
	"believe", "feel", "felt", "matter", "matters", "in", "on", "at", "with", "like", "a",
	"was", "were", "is", "are", "am", "will", "would", "did", "do", "does", "have", "has")

// rule emits a constraint. quote is the clause from its first rule word
// ("always", "never", "don't", "make sure"...) to the end; body is the
// action without polarity words, which names the slot, so "always use
// tabs" and "never use tabs" share constraint:use_tabs.
func (x *extraction) rule(s subject, quote, body []token, f flags) bool {
	for len(body) > 0 && ruleFillers[body[0].low] {
		body = body[1:]
	}
	if bodyBlocked(body) {
		return false
	}
	n := valueLen(quote, vPhrase)
	if n == 0 {
		return false
	}
	// The key is built from the body's words inside the quoted span.
	bn := valueLen(body, vPhrase)
	var kw strings.Builder
	words := 0
	for _, t := range body[:bn] {
		if t.kind == tPunct || keyFillers[t.low] {
			continue
		}
		if words == 6 {
			break
		}
		if kw.Len() > 0 {
			kw.WriteByte(' ')
		}
		kw.WriteString(t.low)
		words++
	}
	slug := shortSlug(kw.String(), 6)
	if slug == "" {
		return false
	}
	x.emit(s, f, claim{typ: memory.TypeConstraint, key: "constraint:" + slug, value: x.text(quote, n), tmpl: tmRule})
	return true
}

// ruleFillers lead a rule's body without naming its action.
var ruleFillers = set("please", "always", "never", "ever", "just", "really", "to", "you",
	"make", "sure", "be", "certain", "that", "do", "not", "must", "should", "only", "also",
	"absolutely", "definitely", "strictly", "we", "all", "remember", "ensure", "don't",
	"forget", "need", "have", "pls", "plz", "kindly")

// keyFillers never appear in a rule's key.
var keyFillers = set("the", "a", "an", "please", "always", "never", "ever", "just", "really",
	"any", "your", "my", "our", "all", "very", "directly", "without", "first")

// imperativeVerbs start rules addressed to the agent: "Use pnpm", "Run the
// tests before committing", "Answer in English".
var imperativeVerbs = set("use", "prefer", "avoid", "stop", "keep", "run", "write", "format",
	"indent", "commit", "push", "deploy", "test", "lint", "document", "comment", "put",
	"add", "include", "prefix", "wrap", "follow", "respect", "validate", "squash", "rebase",
	"merge", "answer", "respond", "reply", "cite", "sort", "pin", "store", "log", "target",
	"support", "only", "limit", "default", "stick", "favor", "favour", "prioritize",
	"prioritise", "refer", "address", "speak", "talk", "explain", "start", "end", "ship",
	"release", "tag", "sign", "name", "label", "call", "return", "handle", "catch", "check",
	"ask", "confirm", "double-check", "review", "skip", "ignore", "leave", "send", "reply")

// imperativeOr reads an imperative rule at the start of a clause ("Always
// use pnpm", "Never force-push to main", "Don't commit secrets", "Make
// sure to run the tests", "You must sign commits", "It's important to
// X"). forced is set under a "Rule:" label, where any verb phrase counts.
func (x *extraction) imperativeOr(ts []token, f flags, forced bool) bool {
	if x.mode != modeUser {
		return false
	}
	k := 0
	for is(ts, k, "please", "pls", "plz", "kindly") {
		k++
	}
	start := k
	if is(ts, k, "you") {
		if !is(ts, k+1, "must", "should", "need", "have", "always", "never", "will", "shall") {
			return false
		}
		k++
		if is(ts, k, "need", "have") {
			if !is(ts, k+1, "to") {
				return false
			}
			k++
		}
		if is(ts, k, "should") && !is(ts, k+1, "always", "never", "not") {
			return false
		}
		if is(ts, k, "will", "shall") && !is(ts, k+1, "always", "never", "not") {
			return false
		}
		if is(ts, k, "always", "never") {
			k--
		}
		k++
	}
	if seq(ts, k, "it", "is") && is(ts, k+2, "important", "essential", "crucial", "critical", "vital", "key", "mandatory", "required", "necessary", "non-negotiable", "nonnegotiable", "imperative") && is(ts, k+3, "to", "that") {
		f.high = true
		body := ts[k+4:]
		s := x.speaker
		if is(body, 0, "we") {
			s = x.team // "It's important that we deploy on Tuesdays"
		}
		if is(body, 0, "we", "you", "i") {
			body = body[1:]
			for is(body, 0, "always", "never", "must", "should", "do", "not", "all", "only") {
				body = body[1:]
			}
		}
		x.rule(s, ts[k+4:], body, f)
		return true
	}
	w := lowAt(ts, k)
	body := -1
	switch w {
	case "always":
		body = k + 1
	case "never":
		f.never = true
		body = k + 1
		if is(ts, body, "ever") {
			body++
		}
	case "do":
		switch {
		case is(ts, k+1, "not") && is(ts, k+2, "forget") && is(ts, k+3, "to"):
			body = k + 4
		case is(ts, k+1, "not"):
			f.never = true
			body = k + 2
			if is(ts, body, "ever") {
				body++
			}
		case imperativeVerbs[lowAt(ts, k+1)]:
			body = k + 1 // emphatic "Do use pnpm"
		}
	case "must", "should":
		if start == k && w == "should" {
			return false
		}
		body = k + 1
	case "make", "be":
		if is(ts, k+1, "sure", "certain") {
			body = k + 2
			for is(ts, body, "to", "that", "you", "we", "always") {
				body++
			}
		}
	case "ensure":
		body = k + 1
		if is(ts, body, "that") {
			body++
		}
	case "remember":
		if is(ts, k+1, "to") {
			body = k + 2
		}
	case "avoid":
		f.never = true
		body = k // "avoid" names the rule's action
	case "no":
		// "No force pushes to main." is a rule; "No, I live in Porto" was
		// taken as a correction before we got here.
		if len(ts) > k+1 && ts[k+1].kind == tWord && !pronounValues[lowAt(ts, k+1)] && !ackWords[lowAt(ts, k+1)] && lowAt(ts, k+1) != "longer" && lowAt(ts, k+1) != "more" && lowAt(ts, k+1) != "one" && lowAt(ts, k+1) != "idea" {
			f.never = true
			body = k + 1
		}
	default:
		if imperativeVerbs[w] && start == k && (startsImperative(ts, k) && standingVerbs[w] || general(ts) && !is(ts, k+1, "it", "me", "us", "them")) {
			body = k
		} else if forced {
			body = k
		}
	}
	if body < 0 || body >= len(ts) {
		return false
	}
	return x.rule(x.speaker, ts[start:], ts[body:], f)
}

// standingVerbs make a plain imperative a standing rule: "Use pnpm", "Keep
// answers short", "Answer in Portuguese". Other imperatives are one-off
// tasks ("Run the tests", "Add a README") unless general() finds a sign of
// a rule.
var standingVerbs = set("use", "prefer", "avoid", "keep", "stick", "favor", "favour",
	"prioritize", "prioritise", "follow", "respect", "answer", "respond", "reply", "speak",
	"talk", "limit", "default", "only", "stop", "format", "indent", "sign", "cite", "refer",
	"address", "target", "support", "pin")

// general reports whether a clause speaks of every case, which makes an
// imperative a rule: "Run the tests before every commit", "Add a changelog
// entry for each change", "Write docs from now on".
func general(ts []token) bool {
	for k, t := range ts {
		switch t.low {
		case "every", "each", "all", "any", "always", "never", "whenever", "everywhere", "anything", "everything":
			return true
		case "from":
			if seq(ts, k+1, "now", "on") {
				return true
			}
		case "by":
			if is(ts, k+1, "default") {
				return true
			}
		case "going":
			if is(ts, k+1, "forward") {
				return true
			}
		case "in":
			if is(ts, k+1, "general", "future") || seq(ts, k+1, "the", "future") {
				return true
			}
		}
	}
	return false
}

// startsImperative tells "Use pnpm" from "Use is a verb" and "Start here":
// the verb must take an object or a complement that is not a pronoun.
func startsImperative(ts []token, k int) bool {
	next := lowAt(ts, k+1)
	if next == "" || pronounValues[next] && next != "all" && next != "only" {
		return false
	}
	return next != "is" && next != "was" && next != "of" && next != "cases" && next != "case"
}

// callMe reads "Call me Al", "You can call me Al", "Please call me Al".
func (x *extraction) callMe(ts []token, f flags) bool {
	k := 0
	for is(ts, k, "please", "just", "you", "can", "may", "should") {
		k++
	}
	if !seq(ts, k, "call", "me") {
		return false
	}
	if x.mode != modeUser {
		return true
	}
	x.name(x.speaker, ts[k+2:], f, false)
	return true
}

// letUs reads "let's go with Svelte", "let's use pnpm", "let's stick with
// Postgres": a decision of the team.
func (x *extraction) letUs(ts []token, f flags) bool {
	if !seq(ts, 0, "let", "us") {
		return false
	}
	rest := ts[2:]
	for len(rest) > 0 && (adverbs[rest[0].low] || rest[0].low == "just") {
		rest = rest[1:]
	}
	switch w := lowAt(rest, 0); {
	case (w == "go" || w == "stick" || w == "roll") && is(rest, 1, "with"):
		x.decideObject(x.team, rest[2:], f, "go with")
	case w == "use" || w == "pick" || w == "choose" || w == "adopt" || w == "do":
		if w == "do" {
			x.decideTo(x.team, rest[1:], f, tmDecideTo)
		} else {
			x.decideObject(x.team, rest[1:], f, w)
		}
	case (w == "switch" || w == "move" || w == "migrate") && (is(rest, 1, "to") || seq(rest, 1, "over", "to")):
		j := 2
		if is(rest, 1, "over") {
			j = 3
		}
		f.corr = true
		x.decideObject(x.team, rest[j:], f, "switch to")
	case (w == "standardize" || w == "standardise" || w == "settle") && is(rest, 1, "on"):
		x.decideObject(x.team, rest[2:], f, w+" on")
	}
	return true
}

// decisionIs reads "The decision is to use Postgres", "Our decision is
// Svelte", "The plan is to migrate to pnpm".
func (x *extraction) decisionIs(ts []token, f flags) bool {
	k := 0
	if !is(ts, k, "the", "our", "my") {
		return false
	}
	mine := is(ts, k, "my")
	k++
	if is(ts, k, "final", "official", "current", "new", "team's", "agreed") {
		k++
	}
	if !is(ts, k, "decision", "plan", "call", "choice", "consensus", "verdict") {
		return false
	}
	k++
	if !is(ts, k, "is", "was") {
		return false
	}
	k++
	s := x.team
	if mine {
		s = x.speaker
	}
	x.decisionBody(s, ts[k:], f)
	return true
}

// decisionBody reads what was decided: a verb phrase ("to use Postgres",
// "use Postgres for the cache") or a thing ("Svelte").
func (x *extraction) decisionBody(s subject, ts []token, f flags) {
	if is(ts, 0, "that") {
		ts = ts[1:]
		ts = dropSubjectModal(ts)
	}
	if is(ts, 0, "to") {
		x.decideTo(s, ts[1:], f, tmDecideTo)
		return
	}
	if is(ts, 0, "we", "i") {
		ts = dropSubjectModal(ts)
		x.decideTo(s, ts, f, tmDecideTo)
		return
	}
	if v, ok := verbs[lowAt(ts, 0)]; ok && v.form == fBase && v.lemma != "be" {
		x.decideTo(s, ts, f, tmDecideTo)
		return
	}
	x.decideObject(s, ts, f, "")
}

// dropSubjectModal drops "we will", "we'll", "we should", "we are going to"
// at the start of a decided clause.
func dropSubjectModal(ts []token) []token {
	if is(ts, 0, "we", "i") {
		ts = ts[1:]
	}
	for is(ts, 0, "will", "shall", "should", "would", "must", "are", "am", "going", "to", "now", "all") {
		ts = ts[1:]
	}
	return ts
}

// decideObjectVerbs take the decided thing as their object: "decided to
// use Postgres", "decided to go with Svelte".
func decideObjectStart(ts []token) int {
	w := lowAt(ts, 0)
	switch {
	case w == "use" || w == "adopt" || w == "pick" || w == "choose" || w == "try" || w == "keep":
		return 1
	case (w == "go" || w == "stick" || w == "stay" || w == "roll") && is(ts, 1, "with"):
		return 2
	case (w == "switch" || w == "move" || w == "migrate" || w == "transition" || w == "change") && is(ts, 1, "to"):
		return 2
	case (w == "switch" || w == "move" || w == "migrate") && seq(ts, 1, "over", "to"):
		return 3
	case (w == "standardize" || w == "standardise" || w == "settle") && is(ts, 1, "on"):
		return 2
	}
	return -1
}

// decideTo reads a decided verb phrase.
func (x *extraction) decideTo(s subject, ts []token, f flags, t tmpl) {
	if s.kind == sPerson {
		return
	}
	if is(ts, 0, "not") {
		f.neg = true
		ts = ts[1:]
	}
	if o := decideObjectStart(ts); o > 0 {
		if ts[0].low == "switch" || ts[0].low == "move" || ts[0].low == "migrate" || ts[0].low == "transition" || ts[0].low == "change" {
			f.corr = true
		}
		x.decideObject(s, ts[o:], f, x.text(ts, o))
		return
	}
	n := valueLen(ts, vPhrase)
	if n == 0 || !validValue(ts[:n]) {
		return
	}
	if v, ok := verbs[ts[0].low]; ok && (v.lemma == "be" || v.lemma == "have" || v.lemma == "do" && n == 1) {
		return
	}
	x.emit(s, f, claim{typ: memory.TypeDecision, key: "decision:" + shortSlug(phraseKey(ts[:n]), 5), value: x.text(ts, n), tmpl: t})
}

// phraseKey joins a phrase's words for slugging, without fillers.
func phraseKey(ts []token) string {
	var b strings.Builder
	for _, t := range ts {
		if t.kind == tPunct || keyFillers[t.low] {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.low)
	}
	return b.String()
}

// decideObject reads a decided thing and its topic: "Postgres for the
// cache" → decision:cache; "Svelte" → decision:framework (from the
// lexicon); an unknown thing names its own slot.
func (x *extraction) decideObject(s subject, ts []token, f flags, how string) {
	if s.kind == sPerson {
		return
	}
	if is(ts, 0, "against") {
		f.neg = true
		ts = ts[1:]
	}
	val, n := x.readValue(ts, vThing)
	if n == 0 {
		return
	}
	topic, topicText := "", ""
	if p, ok := x.purpose(ts[n:]); ok && p.prep == "for" {
		topic, topicText = p.cat, p.text
	}
	if topic == "" {
		if c, ok := CategoryOf(val); ok {
			topic = c
		} else {
			topic = Slug(val)
		}
	}
	extra := ""
	if topicText != "" {
		extra = " for " + topicText
	}
	c := claim{typ: memory.TypeDecision, key: "decision:" + topic, value: val, tmpl: tmDecideOn, cat: extra}
	if how != "" {
		// "decided to use Postgres for the cache" reads better whole.
		c.tmpl, c.display, c.cat = tmDecideTo, how+" "+val+extra, ""
	}
	x.emit(s, f, c)
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
	for len(ts) > 0 && (adverbs[ts[0].low] && ts[0].low != "as") {
		ts = ts[1:]
	}
	prep := lowAt(ts, 0)
	if prep != "as" && prep != "for" {
		return purposeInfo{}, false
	}
	ts = ts[1:]
	shown := ts // "for the cache" shows "the cache"
	if is(shown, 0, "my", "our", "its", "their", "his", "her") {
		shown = shown[1:]
	}
	for is(ts, 0, "my", "our", "a", "an", "the", "its", "their", "his", "her", "all", "everyday", "daily") {
		ts = ts[1:]
	}
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

var purposeNoise = set("work", "years", "months", "weeks", "days", "fun", "now", "ages",
	"decades", "life", "everything", "anything", "something", "most", "example", "instance",
	"free", "sure", "real", "good", "ever", "long", "while", "reasons", "personal",
	"myself", "me", "us", "them", "it", "this", "that", "a", "the", "home", "school",
	"hobby", "hobbies", "side", "projects", "project", "dev", "development", "coding",
	"programming", "scripting", "production", "prod", "everyday")

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
