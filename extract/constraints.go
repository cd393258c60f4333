package extract

// This file reads rules: imperatives addressed to the agent ("Always use
// pnpm", "Never force-push") and the team's or speaker's habits stated with
// always/never/must.

import (
	"slices"
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// imperativeOr reads an imperative rule at the start of a clause ("Always
// use pnpm", "Never force-push to main", "Don't commit secrets", "Make
// sure to run the tests", "You must sign commits", "It's essential to
// X"). forced is set under a "Rule:" label, where any verb phrase counts.
// "You always/never X" describes the listener, so it is no rule.
func (x *extraction) imperativeOr(ts []token, f flags, forced bool) bool {
	if x.mode != modeUser || !x.lead && !forced {
		return false
	}
	// "Going forward, please answer in Spanish": the marker of a standing
	// rule, before it rather than after. (A message opening "From now on"
	// is held back by DetectInstruction before it gets here.)
	k := cueLen(ruleLeadCues, ts)
	start := k
	if is(ts, k, "you") {
		n := cueLen(ruleYouCues, ts[k:]) // "you must", not "you always"
		if n == 0 {
			return false
		}
		k += n
	}
	// "It's nice to keep smiling" is an opinion; only the strong words
	// make a rule of "it is X to/that".
	if n := cueLen(ruleStrongCues, ts[k:]); n > 0 {
		f.high = true
		body := ts[k+n:]
		s := x.speaker
		if is(body, 0, "we") {
			s = x.team // "It's important that we deploy on Tuesdays"
		}
		body = body[cueLen(ruleSubjectCues, body):] // "that we always ..."
		x.rule(s, ts[k+n:], body, f)
		return true
	}
	w := lowAt(ts, k)
	body := -1
	e, n, opener := matchCue(ruleOpenerCues, ts[k:])
	switch {
	case opener && e&cueDrop != 0:
		return false
	case opener:
		// "Always use pnpm", "Never ever X", "Do not X", "Avoid X".
		f.never = f.never || e&cueNever != 0
		body = k + n
	case w == "must" || w == "should":
		if start == k && w == "should" {
			return false
		}
		body = k + 1
	case w == "be":
		if n := cueLen(beStyleCues, ts[k:]); n > 0 {
			body = k + n // "Be concise", "Please be more direct": [be-styles]
		}
	case w == "no":
		// "No force pushes to main." is a rule; "No, I live in Porto" was
		// taken as a correction before we got here.
		// One word ("no context") is a list item, not a rule, unless it
		// names a habit of answers ("No emojis").
		if start == k && styleNouns[lowAt(ts, k+1)] && (k+2 == len(ts) || ts[k+2].kind == tPunct) {
			f.never = true
			body = k + 1
		} else if len(ts) > k+2 && ts[k+1].kind == tWord && ts[k+2].kind == tWord && !pronounValues[lowAt(ts, k+1)] && !ackWords[lowAt(ts, k+1)] && lowAt(ts, k+1) != "longer" && lowAt(ts, k+1) != "more" && lowAt(ts, k+1) != "one" && lowAt(ts, k+1) != "idea" {
			f.never = true
			body = k + 1
		}
	default:
		switch {
		case imperativeVerbs[w] && start == k && wordAfter(ts, k) && !socialImperative(ts, k) && !hasCopula(ts[k+1:]) && (startsImperative(ts, k) && standingVerbs[w] || general(ts) && !is(ts, k+1, "it", "me", "us", "them")):
			body = k
		case forced:
			body = k
		}
	}
	if body < 0 || body >= len(ts) {
		return false
	}
	return x.rule(x.speaker, ts[start:], ts[body:], f)
}

// ruleLeadOrScope returns a clause that is only a rule's lead ("from now
// on", "going forward") or its scope ("in commit messages", "for emails":
// [rule-scopes]), without its closing comma; nil for any other clause.
func ruleLeadOrScope(cl []token) []token {
	for len(cl) > 0 && cl[len(cl)-1].kind == tPunct {
		cl = cl[:len(cl)-1]
	}
	if len(cl) == 0 {
		return nil
	}
	if cueLen(ruleLeadCues, cl) == len(cl) || cueLen(ruleScopeCues, cl) == len(cl) {
		return cl
	}
	return nil
}

// opensRule reports a clause that opens as a standing rule does: "always",
// "never", "don't", "please", or a verb that makes a plain imperative one
// ("use pnpm", "answer in English").
func opensRule(cl []token) bool {
	if e, _, ok := matchCue(ruleOpenerCues, cl); ok && e&cueDrop == 0 {
		return true
	}
	return standingVerbs[lowAt(cl, 0)]
}

// wordAfter reports whether a word follows ts[k] in its clause: a verb
// said alone ("Respect!", "Merge.", the exclamation of one who admires
// what the other did) asks nothing lasting of anyone.
func wordAfter(ts []token, k int) bool {
	return k+1 < len(ts) && ts[k+1].kind == tWord
}

// styleNouns name how the user wants to be answered: "No emojis", "Skip
// the pleasantries" (the adjectives, "Be concise", are [be-styles]).
var styleNouns = wordSet("constraints", "style-nouns")

// imperativeVerbs start rules addressed to the agent: "Use pnpm", "Run the
// tests before committing", "Answer in English".
var imperativeVerbs = wordSet("constraints", "imperative-verbs")

// standingVerbs make a plain imperative a standing rule: "Use pnpm", "Keep
// answers short", "Answer in Portuguese". Other imperatives are one-off
// tasks ("Run the tests", "Add a README") unless general() finds a sign of
// a rule.
var standingVerbs = wordSet("constraints", "standing-verbs")

// general reports whether a clause speaks of every case, which makes an
// imperative a rule: "Run the tests before every commit", "Add a changelog
// entry for each change", "Write docs from now on".
func general(ts []token) bool { return cueAnywhere(generalCues, ts) } // [general]

// socialImperative reports small talk shaped like an order: "Talk to you
// soon!", "Nice going, keep it up!", "Keep on lifting others with your
// courage", "Respect for the effort" ([social-imperatives]). A plain
// imperative about the listener is social.
func socialImperative(ts []token, k int) bool { return cueAnywhere(socialImperativeCues, ts[k:]) }

// hasCopula reports an "is/are/was" inside the clause, which makes its
// first word a noun: "Help from family is priceless" is not an order.
func hasCopula(ts []token) bool {
	for _, t := range ts {
		if t.kind == tPunct && t.low == "," {
			return false
		}
		switch t.low {
		case "is", "are", "was", "were", "'s":
			return true
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
	if !practiceVerbs[lowAt(ts, verbAt)] && !imperativeVerbs[lowAt(ts, verbAt)] {
		return // "we always count down to our lake weekend" is a habit, not a rule
	}
	if bodyBlocked(ts[verbAt:]) {
		return
	}
	f.never = f.never || f.not
	x.rule(s, ts[modStart:], ts[verbAt:], f)
}

// rule emits a constraint. quote is the clause from its first rule word
// ("always", "never", "don't", "make sure"...) to the end; body is the
// action without polarity words, which names the slot, so "always use
// tabs" and "never use tabs" share constraint:use_tabs.
func (x *extraction) rule(s subject, quote, body []token, f flags) bool {
	if encouragement(quote, body) {
		return false
	}
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
	for m := cueTail(ruleTailCues, quote[:n]); m > 0 && m < n; m = cueTail(ruleTailCues, quote[:n]) {
		n -= m // "no dairy for me anymore": the rule is "no dairy"
	}
	// The key is built from the body's words inside the quoted span.
	bn := valueLen(body, vPhrase)
	for m := cueTail(ruleTailCues, body[:bn]); m > 0 && m < bn; m = cueTail(ruleTailCues, body[:bn]) {
		bn -= m
	}
	if !standing(quote[:n], f) && objectInContext(body[:bn]) && strings.Contains(x.content[:x.start], "?") {
		// "can you draft an email to my landlord? keep it polite but
		// firm": after a request in the same message the pronoun is the
		// thing asked for, so this says how to do that one task, not a
		// standing rule. Alone ("Keep it short.") or said to hold
		// ("always keep it short") it is one.
		return false
	}
	if is(quote, n, ":") && pointsAhead(body[:bn]) {
		// "Don't get these confused: ...", "never mix them up: ...": an
		// aside whose pronoun points at what follows the colon; the rule
		// alone names nothing.
		return false
	}
	var kw strings.Builder
	words := 0
	keyWords := body[:bn]
	if len(x.ruleScope) > 0 {
		// A scoped rule's key holds its scope: "in emails, never use
		// emojis" and "in commits, never use emojis" are two rules.
		keyWords = append(slices.Clip(x.ruleScope), body[:bn]...)
	}
	for _, t := range keyWords {
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
	value := x.text(quote, n)
	if len(x.ruleScope) > 0 {
		value = x.text(x.ruleScope, valueLen(x.ruleScope, vPhrase)) + ", " + value
	}
	at := len(x.out)
	x.emit(s, f, claim{typ: memory.TypeConstraint, key: "constraint:" + slug, value: value, tmpl: tmRule})
	if len(x.out) > at {
		x.made[at].valueEnd = quote[n-1].end
		// "always rebase before merging, and squash the fixups", one
		// clause when the step's verb opens none.
		for j := n; j < len(quote); j++ {
			if is(quote, j, "and") {
				x.nextStep(quote[j+1:])
				break
			}
		}
	}
	return true
}

// bareVerb reports a word that may open an imperative: a base form the
// rules know, or a lower-case word they do not know at all ("post",
// "squash"), never a subject, a pronoun, a determiner or a thing the
// lexicon knows ("yarn").
func bareVerb(t token) bool {
	if tokenClasses["base"](t) {
		return true
	}
	_, known := verbs[t.low]
	_, thing := CategoryOf(t.low)
	return t.kind == tWord && !t.capital && !known && !thing && !subjectStopWords[t.low] && !pronounValues[t.low] && !valueStops[t.low]
}

// nextStep joins a clause to the rule just read when it is the rule's
// next step: "always rebase before merging, and squash the fixups" is one
// instruction in two steps, though "squash the fixups" alone is no rule.
// The clause must follow the rule's own words with only ", and" between
// and open with an imperative; the rule keeps its key, its value and
// content take the step, and a rule's closing words ([rule-tails]: "for
// me") end it as they end the rule. It reports whether it joined cl.
func (x *extraction) nextStep(cl []token) bool {
	last := len(x.out) - 1
	if last < 0 || x.out[last].Type != memory.TypeConstraint || x.made[last].valueEnd == 0 || len(cl) == 0 {
		return false
	}
	end := x.made[last].valueEnd
	if is(cl, 0, "and") {
		cl = cl[1:] // the clause opened at the comma
	}
	if len(cl) == 0 || cl[0].start < end || !bareVerb(cl[0]) || is(cl, 1, "is", "are", "'s", "was", "were") || bodyBlocked(cl) {
		return false
	}
	// Between the rule's words and the step: ", and", after at most two
	// words the rule's phrase left off its end ("never merge on red
	// again, and ..."), none of them a rule's closing words.
	var between []token
	for _, t := range x.sent {
		if t.start >= end && t.end <= cl[0].start {
			between = append(between, t)
		}
	}
	k := len(between) - 1
	if k < 0 || between[k].low != "and" {
		return false
	}
	if is(between, k-1, ",") {
		k--
	}
	if k > 2 || k > 0 && cueTail(ruleTailCues, between[:k]) > 0 || slices.ContainsFunc(between[:k], func(t token) bool { return t.kind != tWord }) {
		return false
	}
	n := valueLen(cl, vPhrase)
	for m := cueTail(ruleTailCues, cl[:n]); m > 0 && m < n; m = cueTail(ruleTailCues, cl[:n]) {
		n -= m
	}
	if n == 0 {
		return false
	}
	o, mk := &x.out[last], &x.made[last]
	o.Value += x.content[end:cl[n-1].end]
	o.Content = render(mk.tmpl, mk.subj, o.Value, mk.cat, o.Cue, o.Hedged)
	mk.valueEnd = cl[n-1].end
	return true
}

// objectInContext reports a rule whose object is "it", "this" or "that"
// right after its verb ("keep it polite", "make this shorter", "do that
// again"): the thing the conversation is about.
func objectInContext(body []token) bool {
	return len(body) > 1 && !body[1].capital && is(body, 1, "it", "this", "that")
}

// standing reports a rule said to hold beyond the moment: "always",
// "never", "every time", "from now on", or a never-rule ("don't ever").
func standing(quote []token, f flags) bool {
	if f.never {
		return true
	}
	for i := range quote {
		if is(quote, i, "always", "never", "ever", "every", "whenever", "forward") || is(quote, i, "from") && is(quote, i+1, "now") {
			return true
		}
	}
	return false
}

// pointsAhead reports a rule before a colon whose object is a pronoun
// ("mix them up", "confuse these two", "don't tell it to anyone"): it
// stands for what the colon introduces.
func pointsAhead(body []token) bool {
	if refersBack(body, true) {
		return true
	}
	for _, t := range body[1:] {
		if !t.capital && (t.low == "these" || t.low == "those" || t.low == "both" || t.low == "it" || t.low == "them" || t.low == "this" || t.low == "that") {
			return true
		}
	}
	return false
}

// practiceVerbs name working practices a team or a person may hold as a
// rule without an imperative: "we never deploy on Fridays", "I always
// write tests first".
var practiceVerbs = wordSet("constraints", "practice-verbs")

// encouragement reports pep talk and speculation shaped like a rule, which
// chat is full of: "Don't quit", "Never quit", "Don't let anyone
// hold you back", "Don't be scared of failing", "Keep learning", "Must have
// been so much effort". A rule that speaks of "you" counts only when it is
// addressed as one ("You must always sign your commits").
func encouragement(quote, body []token) bool {
	// "You must ..." addresses the rule; "Must be nice" is a guess
	// ([rule-addressing]).
	e, _, addressed := matchCue(ruleAddressingCues, quote)
	if addressed && e&cueDrop != 0 {
		return true
	}
	n := valueLen(body, vPhrase)
	// "Be brief in your answers" speaks to the agent about its answers.
	aboutAnswers := slices.ContainsFunc(body[:n], func(t token) bool {
		return t.low == "answers" || t.low == "answer" || t.low == "replies" || t.low == "responses" || t.low == "response"
	})
	for _, t := range body[:n] {
		if !addressed && !aboutAnswers && (t.low == "you" || t.low == "your" || t.low == "yourself" || t.low == "yours") {
			return true
		}
	}
	_, _, ok := matchCue(encouragementCues, body)
	return ok
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
	// "Deploy done, ...", "upgrade finished": a status report, the
	// first word a noun, not an order.
	if cueLen(statusReportCues, body) > 0 { // [status-reports]
		return true
	}
	// "Always brimming with confidence" describes; a rule's action
	// is an imperative. "Always game for dessert" has no verb at all.
	if v, ok := verbs[w]; ok && v.form == fGerund || !ok && isGerund(w) && len(w) >= 7 || w == "up" || w == "down" || w == "out" || w == "off" {
		return true // "bring", "sing" end in -ing without being gerunds
	}
	// "(We should) look at a few", "try it out": small talk about
	// something said before, nothing to hold anyone to. "Always back it
	// up" and "Always cc me" stay rules.
	words := 0
	for words < len(body) && body[words].kind == tWord {
		words++
	}
	if words <= 3 && (is(body, 1, "some", "one", "ones") || w == "check" || w == "try" || w == "figure") && backPronouns[lowAt(body, 1)] {
		return true
	}
	return false
}

// backPronouns stand for something said before.
var backPronouns = wordSet("constraints", "back-pronouns")

var ruleBodyBlock = wordSet("constraints", "rule-body-block")

// ruleFillers lead a rule's body without naming its action.
var ruleFillers = wordSet("constraints", "rule-fillers")

// keyFillers never appear in a rule's key.
var keyFillers = wordSet("constraints", "key-fillers")
