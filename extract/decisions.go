package extract

// This file reads decisions ("we decided to use Postgres", "let's go with
// React") and goals ("I want to learn Rust").

import (
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// letUs reads "let's go with Svelte", "let's use pnpm", "let's stick with
// Postgres", "let's do X": a decision of the team, the slot templates of
// [let-us-verbs] in lexicons/cue-patterns.txt.
func (x *extraction) letUs(ts []token, f flags) bool {
	n := cueLen(letUsCues, ts)
	if n == 0 {
		return false
	}
	x.readSlot(letUsSlots, x.team, verb{}, ts[n:], f)
	return true
}

// decisionIs reads "The decision is to use Postgres", "Our decision is
// Svelte", "The plan is to migrate to pnpm"; "my plan is to X" is a goal.
func (x *extraction) decisionIs(ts []token, f flags) bool {
	n := cueLen(decisionIsCues, ts)
	if n == 0 {
		return false
	}
	s := x.team
	if is(ts, 0, "my") {
		s = x.speaker
		if is(ts, n-2, "plan") {
			x.goal(s, ts[n:], f, tmGoalIs, "") // "My plan is to refactor the parser"
			return true
		}
	}
	x.decisionBody(s, ts[n:], f)
	return true
}

// decisionBody reads what was decided: a verb phrase ("to use Postgres",
// "use Postgres for the cache") or a thing ("Svelte").
func (x *extraction) decisionBody(s subject, ts []token, f flags) {
	if is(ts, 0, "that") {
		ts = dropSubjectModal(ts[1:])
	}
	x.readSlot(decisionBodySlots, s, verb{}, ts, f) // [decision-bodies]
}

// dropSubjectModal drops "we will", "we'll", "we should", "we are going to"
// at the start of a decided clause.
func dropSubjectModal(ts []token) []token {
	return ts[cueLen(subjectModalCues, ts):]
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
	if x.readSlot(decidedVerbSlots, s, verb{}, ts, f) { // [decided-verbs]
		return
	}
	if len(ts) == 0 {
		return
	}
	if _, verb := verbs[ts[0].low]; !verb && ts[0].capital && t == tmDecideTo {
		// A thing, not a verb phrase, was decided ("let's do Jira"):
		// its value is the thing, never a closing "instead" with it.
		x.decideObject(s, ts, f, "")
		return
	}
	n := valueLen(ts, vPhrase)
	if n == 0 || !validValue(ts[:n]) {
		return
	}
	if v, ok := verbs[ts[0].low]; ok && (v.lemma == "be" || v.lemma == "have" || v.lemma == "do" && n == 1) {
		return
	}
	if refersBack(ts[:n], false) {
		return // "I decided to put this up front": include what?
	}
	x.emit(s, f, claim{typ: memory.TypeDecision, key: "decision:" + shortSlug(phraseKey(ts[:n]), 5), value: x.text(ts, n), tmpl: t})
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

// goal reads a goal's verb phrase: "learn Rust", "ship v2 by March".
// Hedged goals are dropped; a wish is not a goal.
func (x *extraction) goal(s subject, ts []token, f flags, t tmpl, prefix string) {
	if f.hedge || f.not || f.past || !canDecide(s) || s.kind == sNamed {
		return // a wish, a denial or an old goal is not a goal
	}
	if is(ts, 0, "to") && t == tmGoalIs {
		prefix = "to "
		ts = ts[1:]
	}
	n := valueLen(ts, vPhrase)
	if n == 0 || !validValue(ts[:n]) {
		return
	}
	if v, ok := verbs[ts[0].low]; ok && (v.lemma == "be" && n < 2 || v.lemma == "have" || v.lemma == "do" && n < 2 || v.lemma == "know" || v.lemma == "think") {
		return
	}
	if is(ts, 0, "know", "see", "say", "ask", "tell", "check", "make", "talk", "go", "get") && n < 4 {
		return // "I want to know...", "I want to see..." are requests, not goals
	}
	for i, t := range ts[:n] {
		if goalPronouns[t.low] && !((t.low == "this" || t.low == "that" || t.low == "these") && periodWords[lowAt(ts, i+1)]) {
			return // "help get that done", "pass it on": we cannot tell what "it" is ("this year" is a time)
		}
	}
	c := claim{typ: memory.TypeGoal, key: "goal:" + shortSlug(phraseKey(ts[:n]), 5), value: prefix + x.text(ts, n), tmpl: t}
	if v, ok := verbs[ts[0].low]; (ok && v.form == fBase || goalVerbs[ts[0].low]) && t == tmGoalIs && prefix == "" {
		c.display = "to " + c.value // "Goal: ship v2" → "goal is to ship v2"
	}
	x.emit(s, f, c)
}

// goalPronouns point at something said before; a goal that needs them
// cannot stand on its own.
var goalPronouns = wordSet("decisions", "goal-pronouns")

// periodWords follow "this" or "that" in a time, not a pronoun: "this year".
var periodWords = wordSet("decisions", "period-words")

// goalVerbs start goals stated without "to" ("Goal: ship v2 by March").
var goalVerbs = wordSet("decisions", "goal-verbs")

// vagueLearning open what one learns without naming a subject: "new
// tricks", "more every week", "stuff".
var vagueLearning = wordSet("decisions", "vague-learning")

// learning reads what a person or team learns ("I'm learning Rust") as
// the goal learn_rust: [verb-slots] of lexicons/cue-patterns.txt.
func (x *extraction) learning(s subject, _ verb, ts []token, n int, f flags, _ string) bool {
	ts = ts[n:]
	if len(ts) > 0 && (thingStops[ts[0].low] || valueStops[ts[0].low] || vagueLearning[ts[0].low]) {
		return true // "I'm learning with them", "learning all I possibly can", "still learn new tricks"
	}
	if val, m := x.readValue(ts, vThing); m > 0 {
		x.emit(s, f, claim{typ: memory.TypeGoal, key: "goal:learn_" + Slug(val), value: val, tmpl: tmLearning})
	}
	return true
}

// planned reads a plan to move, switch or change jobs ("plan to move to
// X", "hoping to switch to Y") as the hedged change: [planned-verbs] of
// lexicons/verbs.txt.
func (x *extraction) planned(s subject, _ verb, ts []token, n int, f flags, _ string) bool {
	if nv, ok := verbs[lowAt(ts, n)]; ok && plannedVerbs[nv.lemma] {
		f.hedge = true
		x.verb(s, nv, ts[n+1:], f)
		return true
	}
	return false
}

var plannedVerbs = wordSet("verbs", "planned-verbs")
