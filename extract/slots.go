package extract

import (
	"maps"
	"slices"
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// Slot templates: a token pattern, the slot its value fills, and when it
// may: "born in {place} => from personal -past". The tokens are a cue
// pattern (cues.go); the capture {reader} at the end binds the words after
// the match to a reader of values.go's kinds, which knows where its value
// ends and what key and template it writes. The words after => are the
// key (or - when the reader knows it), the conditions on the clause's
// subject and flags (the line is passed over when one fails, and the next
// line tried) and the changes a match makes to the flags (+word, -word),
// made before the conditions are read. lexicons/cue-patterns.txt's header
// documents the syntax with the tables.

// slotRule is one line of a table of slot templates.
type slotRule struct {
	cue  cuePattern
	name string // the reader's
	read slotReader
	key  string
	subj subjKinds // the subjects the rule reads; 0: any
	when slotConds
	set  slotSets
	// A change said in passing ([job-changes], [posts]): what its value
	// says of the slot, and how the change is known to be the speaker's.
	end   Cue
	owner slotOwner
	// Up to two spans marked inside the pattern with { and } (elements
	// at[0] to at[1], at[2] to at[3]; -1: none): the reader reads the last
	// one's words instead of those after the match (a rest reader:
	// those after the match still), and finds all in x.spans. A span
	// opened with {:check must pass that check.
	spans      int
	at         [4]int
	spanChecks [2]string
	// A value check after the reader's name, {reader:check}: the rule
	// holds only when the value at the reader's words passes it.
	check string
	rest  bool
}

// subjKinds is a set of subject kinds, one bit each.
type subjKinds uint8

func (k subjKinds) has(s subject) bool { return k == 0 || k&(1<<s.kind) != 0 }

var slotSubjects = map[string]subjKinds{
	"speaker": 1 << sSpeaker, "team": 1 << sTeam, "named": 1 << sNamed, "person": 1 << sPerson,
	"personal": 1<<sSpeaker | 1<<sPerson | 1<<sNamed,
}

// slotConds are conditions on a clause's flags, one bit each.
type slotConds uint16

const (
	condNotNot      slotConds = 1 << iota // !not: not denied
	condNotHedge                          // !hedge
	condNotFuture                         // !future
	condNotDenied                         // !denied: not "not" without "anymore"
	condCorr                              // corr: the clause corrects a value
	condNotPast                           // !past: not history
	condNotGerund                         // !gerund: the verb is no gerund ("coming from")
	condPastForm                          // past-form: the verb is a past or a participle ("agreed")
	condNotPastForm                       // !past-form: it is not
	condNegative                          // negative: the clause says not, never or no longer
)

var slotCondNames = map[string]slotConds{
	"!not": condNotNot, "!hedge": condNotHedge, "!future": condNotFuture, "!denied": condNotDenied, "corr": condCorr,
	"!past": condNotPast, "!gerund": condNotGerund, "past-form": condPastForm, "!past-form": condNotPastForm, "negative": condNegative,
}

func (c slotConds) hold(v verb, f flags) bool {
	return !(c&condNotNot != 0 && f.not || c&condNotHedge != 0 && f.hedge || c&condNotFuture != 0 && f.future ||
		c&condNotDenied != 0 && f.not && !f.anymore || c&condCorr != 0 && !f.corr ||
		c&condNotPast != 0 && f.past || c&condNotGerund != 0 && v.form == fGerund ||
		c&condPastForm != 0 && v.form != fPast && v.form != fPartOnly ||
		c&condNotPastForm != 0 && (v.form == fPast || v.form == fPartOnly) ||
		c&condNegative != 0 && !f.not && !f.never && !f.neg)
}

// slotSets are changes a match makes to a clause's flags, one bit each.
type slotSets uint8

const (
	setNoPast  slotSets = 1 << iota // -past: the value is current ("I was born in X")
	setCorr                         // +corr: the value is new
	setHigh                         // +high: it matters
	setEnded                        // +ended: "not ... anymore" ends the value
	setNegated                      // +negated: "not" ends the value, and stays
	setPerson                       // +person: a named subject is a person
	setHedge                        // +hedge: the clause is hedged
	setNeg                          // +neg: the value ended
)

var slotSetNames = map[string]slotSets{
	"-past": setNoPast, "+corr": setCorr, "+high": setHigh, "+ended": setEnded, "+negated": setNegated, "+person": setPerson, "+hedge": setHedge, "+neg": setNeg,
}

func (c slotSets) apply(f flags) flags {
	if c&setNoPast != 0 {
		f.past = false
	}
	if c&setCorr != 0 {
		f.corr = true
	}
	if c&setHigh != 0 {
		f.high = true
	}
	f.hedge = f.hedge || c&setHedge != 0
	f.neg = f.neg || c&setNeg != 0
	if c&setEnded != 0 && f.not && f.anymore {
		f.not, f.neg = false, true
	}
	if c&setNegated != 0 && f.not {
		f.neg = true
	}
	return f
}

// slotReader reads a slot's value from ts[n:], after the n tokens the
// pattern matched; it reports false when the value is not one of its
// kind, and the next rule is tried.
type slotReader func(x *extraction, s subject, v verb, ts []token, n int, f flags, key string) bool

// slotReaders are the captures of slot templates, {name}. Most read the
// words after the match; diet reads the match itself.
var slotReaders map[string]slotReader

// initSlots sets the readers, then parses the tables of slot templates;
// the init of predicates.go calls it before it names the verbs' readers.
func initSlots() {
	listOf := func(key string, t tmpl) slotReader {
		return func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.list(s.asPerson(), ts[n:], f, func(item string) claim {
				return claim{typ: memory.TypeFact, key: key + Slug(item), value: item, tmpl: t}
			})
			return true
		}
	}
	slotReaders = map[string]slotReader{
		// {-} reads nothing: the match decides that nothing is said.
		"-": func(*extraction, subject, verb, []token, int, flags, string) bool { return true },
		"place": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, key string) bool {
			x.place(s, ts[n:], f, key)
			return true
		},
		"role": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			return x.role(s.asPerson(), ts[n:], f, true)
		},
		"team-name": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.org(s.asPerson(), ts[n:n+1], f, true)
			return true
		},
		// A thing that ended (the span): "dropped Webpack".
		"ended": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			f.neg = true
			x.useThing(s, ts[n:], f, purposeInfo{})
			return true
		},
		// A stay said with "now" ([stays-now]): the place, unless a
		// purpose or an end follows it.
		"stay": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, key string) bool {
			ts = ts[n:]
			clause := true
			for k, t := range ts {
				if t.kind == tPunct {
					clause = false
				}
				if k > 0 && (clause && stayTrips[t.low] || stayTripsSentence[t.low]) {
					return true // "in Madrid now for a conference"
				}
			}
			if len(ts) > 0 {
				for _, t := range x.sent[offsetOf(x.sent, ts)+len(ts):] {
					if stayTripsSentence[t.low] {
						return true // "..., flying back tomorrow"
					}
				}
			}
			if len(ts) == 0 || !knownPlace(ts) && (!ts[0].capital || stayNotPlaces[ts[0].low] || len(ts) > 1 && (isVersion(ts[1].low) || ordinal(ts[1].low))) {
				return true // "in bed now", "in Marketing now", "in Year 3 now": no town
			}
			x.place(s, ts, f, key)
			return true
		},
		// The thing of the span ended, and the thing after the match took
		// its place: "replaced MySQL with Postgres".
		"replaced-by": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			nf := f
			nf.neg, f.corr = true, true
			x.useThing(s, x.spans[0], nf, purposeInfo{})
			x.useThing(s, ts[n:], f, purposeInfo{})
			return true
		},
		// A tool moved off (the span, and all after it) ends: "moved off
		// Heroku"; with {moved-off-to} what it moved to took its place.
		"moved-off": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.movedOff(s, ts[n-len(x.spans[0]):], f)
			return true
		},
		"moved-off-to": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.movedOff(s, ts[n-1-len(x.spans[0]):], f)
			f.corr = true
			x.useThing(s, ts[n:], f, purposeInfo{})
			return true
		},
		// Nothing, when the clause is a plan with a time ahead ("moving
		// off Jenkins to Drone soon"); else the next rule.
		"future-time": func(x *extraction, _ subject, _ verb, ts []token, _ int, f flags, _ string) bool {
			return f.future && futureTime(untilPunct(ts))
		},
		// "Rust has overtaken Python as my top language": the subject is
		// the speaker's new choice (with "our" the team's), if of the
		// span's category; an agent's words fall to the next rule.
		"overtaken": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			if x.mode != modeUser {
				return false
			}
			cat, ok := CategoryOf(s.name)
			if oldCat, _ := CategoryOf(x.text(x.spans[0], len(x.spans[0]))); ok && cat == oldCat {
				owner := x.speaker
				if ts[n-1].low == "our" {
					owner = x.team
				}
				nf := f
				nf.neg, f.corr = true, true
				x.useThing(owner, x.spans[0], nf, purposeInfo{})
				x.emitPreference(owner, s.name, purposeInfo{}, false, f)
			}
			return true
		},
		// What one drinks: a drink the lexicon knows is the choice of
		// drink, anything else a liking.
		"drink": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			val, m := x.readValue(ts[n:], vThing)
			if m == 0 {
				return true
			}
			if c, ok := CategoryOf(val); ok && c == "drink" {
				x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "prefers:drink", value: val, tmpl: tmPrefers, cat: "drink"})
			} else {
				x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "likes:" + Slug(val), value: val, tmpl: tmLikes})
			}
			return true
		},
		// A verb's gerund read as the clause's verb: "stopped using Vim".
		"gerund": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			if nv, ok := verbs[lowAt(ts, n)]; ok && nv.form == fGerund {
				x.verb(s, nv, ts[n+1:], f)
				return true
			}
			return false
		},
		// A gerund or a base form: "started using X", "started to learn X".
		"verb": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			if nv, ok := verbs[lowAt(ts, n)]; ok && (nv.form == fGerund || nv.form == fBase) {
				x.verb(s, nv, ts[n+1:], f)
				return true
			}
			return false
		},
		// Someone else's start at a school for children is a pupil's.
		"pupil": func(x *extraction, _ subject, _ verb, ts []token, n int, _ flags, _ string) bool {
			return childSchool(ts[n:])
		},
		// A thing as the person's choice: "I listen to jazz", with
		// {choice:programming_language} "I write Rust".
		"choice": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			val, m := x.readValue(ts[n:], vThing)
			if m > 0 {
				x.emitPreference(s, val, purposeInfo{}, false, f)
			}
			return m > 0
		},
		// A tool of a category a team works in ([in-categories] of
		// lexicons/preferences.txt): "track every ticket in Jira".
		"team-tool": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			val, m := x.readValue(ts[n:], vThing)
			if c, ok := CategoryOf(val); m == 0 || !ok || !inCategories[c] {
				return false
			}
			x.useThing(s, ts[n:n+m], f, purposeInfo{})
			return true
		},
		// The span as said, a fact under the rule's key: "in the Pacific
		// time zone".
		"fact": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, key string) bool {
			x.emit(s, f, claim{typ: memory.TypeFact, key: key, value: x.text(ts[n:], len(ts)-n), tmpl: tmFact, cat: key})
			return true
		},
		// An allergen named before "allergy" (the span): "a nut allergy"
		// is the slot of "allergic to nuts"; "an allergy" names none.
		"allergen": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			if n < len(ts) {
				x.allergen(s.asPerson(), x.text(ts[n:], len(ts)-n), f)
			}
			return true
		},
		// The same said alone ("Severe sesame allergy here"): a value, not
		// "my allergies" nor "food allergies"; its capital only opened the
		// sentence.
		"bare-allergen": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			if !validValue(ts[n:]) || is(ts, n, "my", "his", "her", "their", "our", "the", "a", "an", "food", "seasonal") {
				return false
			}
			item := x.text(ts[n:], len(ts)-n)
			if rest := item[1:]; strings.ToLower(rest) == rest {
				item = strings.ToLower(item)
			}
			x.allergen(s, item, f)
			return true
		},
		"hosting": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			if n < len(ts) {
				x.useThing(s, ts[n:], f, purposeInfo{prep: "as", cat: "hosting", known: true, text: "hosting platform"})
			}
			return true
		},
		// Languages, but a "..., badly" that says how.
		"languages": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			items, _ := x.readList(ts[n:])
			for _, it := range items {
				if !strings.Contains(it, " ") && strings.HasSuffix(it, "ly") && strings.ToLower(it) == it {
					continue
				}
				x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: "speaks:" + Slug(it), value: it, tmpl: tmSpeaks})
			}
			return true
		},
		"allergy": listOf("allergic_to:", tmAllergy),
		"speaks":  listOf("speaks:", tmSpeaks),
		// The diet the pattern matched, or the value after a match of none:
		// "my diet is mostly plant-based".
		"diet": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			val := x.text(ts, n)
			if n == 0 {
				if val, n = x.readValue(ts, vThing); n == 0 {
					return true
				}
			}
			x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: "diet", value: val, tmpl: tmDiet})
			return true
		},
		// A rule is the user's to set.
		"rule": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			if x.mode == modeUser {
				x.rule(s, ts[n:], ts[n:], f)
			}
			return true
		},
		// A decided thing after the verb that chose it, shown with the
		// verb as said ("decided to stick with X"); after "let's" the
		// verb is lowercased.
		"decided-how": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.decideObject(s, ts[n:], f, x.text(ts, n))
			return true
		},
		"let-decided-how": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.decideObject(s, ts[n:], f, strings.ToLower(x.text(ts, n)))
			return true
		},
		// A diet gone to, said alone or with when: "went vegan last year".
		"went-diet": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			if !bareEnd(ts, n) && !is(ts, n, "in", "at", "over", "during") {
				return false
			}
			x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: "diet", value: strings.ToLower(x.text(ts, n)), tmpl: tmDiet})
			return true
		},
		"planned":   (*extraction).planned,
		"learning":  (*extraction).learning,
		"system":    (*extraction).system,
		"worked-in": (*extraction).inTool,
		// A value (the first span) that the speaker chose as the noun of
		// the second says: "<X> is the shell I launch first".
		"np-first": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.interpretNP(s, ts[n:], x.spans[0], f)
			return true
		},
		// A switch to the thing after the match: from the thing of a span
		// ("from Vim to Helix"), with the category of a span ("changed my
		// shell to fish"), or both.
		"switch": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.switched(s, ts[n:], nil, nil, f)
			return true
		},
		"switch-from": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.switched(s, ts[n:], x.spans[0], nil, f)
			return true
		},
		"switch-as": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.switched(s, ts[n:], nil, x.spans[0], f)
			return true
		},
		"switch-as-from": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.switched(s, ts[n:], x.spans[1], x.spans[0], f)
			return true
		},
		// A new version of the thing the span names: "bumped Go to
		// 1.24" switches to "Go 1.24", as "moved to Go 1.24" does.
		"switch-version": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			version := ts[n]
			version.spliced = true
			to := append(append([]token(nil), x.spans[0]...), version)
			x.switched(s, append(to, ts[n+1:]...), nil, nil, f)
			return true
		},
		// The value said first (the span) is what the noun after the
		// match says: "Neovim is my favorite editor".
		"value-noun": func(x *extraction, _ subject, _ verb, ts []token, n int, f flags, _ string) bool {
			return x.valueIsNoun(x.spans[0], ts[n-1], ts[n:], f)
		},
		"np": func(x *extraction, s subject, _ verb, ts []token, _ int, f flags, _ string) bool {
			x.copulaNP(s, ts, f)
			return true
		},
		"passive": func(x *extraction, s subject, _ verb, ts []token, _ int, f flags, _ string) bool {
			x.passive(s, ts[0].low, ts[1:], f)
			return true
		},
		"employer-at": func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			x.atEmployerNow(s, ts[n:], f)
			return true
		},
	}
	// The readers of the words after the match that always take them.
	for name, read := range map[string]func(x *extraction, s subject, ts []token, f flags){
		"org":      func(x *extraction, s subject, ts []token, f flags) { x.org(s.asPerson(), ts, f, false) },
		"name":     func(x *extraction, s subject, ts []token, f flags) { x.name(s, ts, f, true) },
		"employer": func(x *extraction, s subject, ts []token, f flags) { x.org(s.asPerson(), ts, f, true) },
		"avoid":    func(x *extraction, s subject, ts []token, f flags) { x.avoid(s, ts, f) },
		"thing":    func(x *extraction, s subject, ts []token, f flags) { x.useThing(s, ts, f, purposeInfo{}) },
		"like":     func(x *extraction, s subject, ts []token, f flags) { x.likeThing(s, ts, f, false, false) },
		// "<X> is not my thing": X was liked no more, or is not.
		"disliked-first": func(x *extraction, s subject, ts []token, f flags) { f.not = true; x.likeThing(s, ts, f, false, false) },
		"love":           func(x *extraction, s subject, ts []token, f flags) { x.likeThing(s, ts, f, false, true) },
		"dislike":        func(x *extraction, s subject, ts []token, f flags) { x.likeThing(s, ts, f, true, false) },
		"prefer":         func(x *extraction, s subject, ts []token, f flags) { x.prefer(s, ts, f) },
		"job-title":      func(x *extraction, s subject, ts []token, f flags) { x.role(s.asPerson(), ts, f, false) },
		"goal-is":        func(x *extraction, s subject, ts []token, f flags) { x.goal(s, ts, f, tmGoalIs, "") },
		"decision-body":  func(x *extraction, s subject, ts []token, f flags) { x.decisionBody(s, ts, f) },
		"goal":           func(x *extraction, s subject, ts []token, f flags) { x.goal(s, ts, f, tmGoal, "") },
		"trying":         func(x *extraction, s subject, ts []token, f flags) { x.goal(s, ts, f, tmTrying, "") },
		"decide-to":      func(x *extraction, s subject, ts []token, f flags) { x.decideTo(s, ts, f, tmDecideTo) },
		"decide-object":  func(x *extraction, s subject, ts []token, f flags) { x.decideObject(s, ts, f, "") },
	} {
		slotReaders[name] = func(x *extraction, s subject, _ verb, ts []token, n int, f flags, _ string) bool {
			read(x, s, ts[n:], f)
			return true
		}
	}
	// The tables are parsed once their readers exist; the readers read
	// clauses that reach the tables again, so neither can be a plain
	// package variable.
	copulaSlots, cannotSlots = slotTemplates("copula"), slotTemplates("cannot")
	decisionBodySlots = slotTemplates("decision-bodies")
	decidedVerbSlots, letUsSlots = slotTemplates("decided-verbs"), slotTemplates("let-us-verbs")
	jobChangeSlots, postSlots = slotTemplates("job-changes"), slotTemplates("posts")
	idiomSlots, toolActivitySlots, teamToolSlots = slotTemplates("idiom-slots"), slotTemplates("tool-activities"), slotTemplates("team-tools")
	bareAllergySlots, switchSlots = slotTemplates("bare-allergies"), slotTemplates("switches")
	reverseCopulaSlots, moveOffSlots = slotTemplates("reverse-copula"), slotTemplates("move-off")
	stayNowSlots = slotTemplates("stays-now")
	verbSlots, nounSlots = keyedSlots("verb-slots"), keyedSlots("possessive-nouns")
}

// keyedSlots parses a table of slot templates each led by the keys it is
// read for, "a|b: rule" (a key may be several words), into one table a key.
func keyedSlots(table string) map[string]*ruleTable {
	m := map[string]*ruleTable{}
	for _, line := range wordList("cue-patterns", table) {
		keys, rule, ok := strings.Cut(line, ": ")
		r, err := parseSlotRule(rule)
		if !ok || err != "" {
			lexiconProblems = append(lexiconProblems, "lexicons/cue-patterns.txt ["+table+"] "+line+": want <keys>: <rule>; "+err)
			continue
		}
		for _, k := range strings.Split(keys, "|") {
			if m[k] == nil {
				m[k] = &ruleTable{}
			}
			m[k].rules = append(m[k].rules, r)
		}
	}
	for k, t := range m {
		m[k] = newRuleTable(t.rules)
	}
	return m
}

// decisionBodySlots, decidedVerbSlots and letUsSlots are [decision-bodies],
// [decided-verbs] and [let-us-verbs] of lexicons/cue-patterns.txt.
var decisionBodySlots, decidedVerbSlots, letUsSlots *ruleTable

// allergen writes s's allergy to item, named as "allergic to" names it.
func (x *extraction) allergen(s subject, item string, f flags) {
	if p, ok := allergenPlurals[strings.ToLower(item)]; ok {
		item = p
	}
	x.emit(s, f, claim{typ: memory.TypeFact, key: "allergic_to:" + Slug(item), value: item, tmpl: tmAllergy})
}

// idiomSlots, toolActivitySlots and teamToolSlots are [idiom-slots],
// [tool-activities] and [team-tools] of lexicons/cue-patterns.txt.
var idiomSlots, toolActivitySlots, teamToolSlots *ruleTable

// moveOffSlots are [move-off] of lexicons/cue-patterns.txt.
var moveOffSlots *ruleTable

// bareAllergySlots are [bare-allergies] of lexicons/cue-patterns.txt.
var bareAllergySlots *ruleTable

// verbSlots are the [verb-slots] of lexicons/cue-patterns.txt by the
// reader of [verb-readers] (lexicons/verbs.txt) they stand for.
var verbSlots map[string]*ruleTable

// nounSlots are the [possessive-nouns] of lexicons/cue-patterns.txt by the
// noun a possessive names ("my hometown is ...").
var nounSlots map[string]*ruleTable

// slotTemplates parses a table of slot templates of lexicons/cue-patterns.txt.
func slotTemplates(table string) *ruleTable {
	var out []slotRule
	for _, line := range wordList("cue-patterns", table) {
		r, err := parseSlotRule(line)
		if err != "" {
			lexiconProblems = append(lexiconProblems, "lexicons/cue-patterns.txt ["+table+"] "+line+": "+err)
			continue
		}
		out = append(out, r)
	}
	return newRuleTable(out)
}

// ruleTable is a table of slot templates, with the index of their cues.
type ruleTable struct {
	rules []slotRule
	ix    cueIndex
	// The rules the index cannot file by their first word ("{ %any ...3 }
	// is my thing") each need one of needs somewhere: words is the index
	// without them, for the clauses that have none of needs.
	needs map[string]bool
	words cueIndex
}

func newRuleTable(rules []slotRule) *ruleTable {
	cues := make([]cuePattern, len(rules))
	for i, r := range rules {
		cues[i] = r.cue
	}
	t := &ruleTable{rules: rules, ix: newCueIndex(cues)}
	t.words = cueIndex{byWord: t.ix.byWord, first: t.ix.first}
	t.needs = map[string]bool{}
	for _, i := range t.ix.always {
		need := requiredWords(cues[i])
		if need == nil {
			t.needs = nil
			break
		}
		maps.Copy(t.needs, need)
	}
	return t
}

// requiredWords returns the words of the last token p must consume that is
// a plain word or alternatives of words (the last: "my thing" needs
// "thing", rarer than "my"), or nil.
func requiredWords(p cuePattern) (words map[string]bool) {
	for _, e := range p.elems[p.behind:] {
		if !e.optional && !e.many && !e.ahead && !e.not && e.gap == 0 && !e.special && e.phrases == nil && len(e.words) > 0 {
			words = e.words
		}
	}
	return words
}

// parseSlotRule reads "tokens {reader} => key words"; it returns a reason
// when the line is malformed.
func parseSlotRule(line string) (slotRule, string) {
	var r slotRule
	lhs, rhs, ok := strings.Cut(line, "=>")
	if !ok {
		return r, "no =>"
	}
	fields := strings.Fields(lhs)
	if len(fields) == 0 {
		return r, "no capture"
	}
	last := fields[len(fields)-1]
	name, open := strings.CutPrefix(last, "{")
	if name, ok = strings.CutSuffix(name, "}"); !open || !ok {
		return r, "the last token must be a capture, {reader}"
	}
	name, r.check, _ = strings.Cut(name, ":")
	if r.name, r.read = name, slotReaders[name]; r.read == nil {
		return r, "no reader " + last
	}
	r.rest = restReaders[name]
	if c := r.check; c != "" && c != "known" && c != "named" && c != "known-words" && !knownCategories[c] {
		return r, "no value check " + c + " (known, named, known-words or a category)"
	}
	out := strings.Fields(rhs)
	if len(out) == 0 || out[0] != "-" && !ValidKey(out[0]) {
		return r, "want => <key or -> [conditions] [+/-flags]"
	}
	if out[0] != "-" {
		r.key = out[0]
	}
	for _, w := range out[1:] {
		if k, ok := slotSubjects[w]; ok {
			r.subj |= k
		} else if c, ok := slotCondNames[w]; ok {
			r.when |= c
		} else if c, ok := slotSetNames[w]; ok {
			r.set |= c
		} else if c, ok := slotCues[w]; ok {
			r.end = c
		} else if o, ok := slotOwners[w]; ok {
			r.owner = o
		} else {
			return r, "unknown condition or flag " + w
		}
	}
	if len(fields) == 1 {
		return r, "" // a capture alone takes every clause
	}
	// { and } mark the spans the reader reads: "a|an { ...3 } allergy".
	var toks []string
	r.at = [4]int{-1, -1, -1, -1}
	open = false
	for _, f := range fields[:len(fields)-1] {
		switch {
		case strings.HasPrefix(f, "{") && !open && r.spans < 2:
			if c, ok := strings.CutPrefix(f, "{:"); ok {
				if spanChecks[c] == nil {
					return r, "no span check " + f
				}
				r.spanChecks[r.spans] = c
			} else if f != "{" {
				return r, "a span opens with { or {:check, not " + f
			}
			r.at[2*r.spans], open = len(toks), true
		case f == "}" && open:
			r.at[2*r.spans+1], open = len(toks), false
			r.spans++
		default:
			toks = append(toks, f)
		}
	}
	if open || slices.ContainsFunc(toks, func(t string) bool { return strings.HasPrefix(t, "{") || t == "}" }) {
		return r, "at most two spans, each { before }"
	}
	cue, err := parseCuePattern(strings.Join(toks, " ") + " => skip")
	if err != "" {
		return r, err
	}
	r.cue = cue
	return r, ""
}

// readSlotAnywhere runs table at every token of ts in turn, until a rule
// reads a value there.
func (x *extraction) readSlotAnywhere(table *ruleTable, s subject, ts []token, f flags) bool {
	for k := range ts {
		if x.readSlot(table, s, verb{}, ts[k:], f) {
			return true
		}
	}
	return false
}

// readSlot runs the first rule of table that matches the start of ts, whose
// conditions the subject and flags meet and whose reader takes the value;
// it reports whether one did.
func (x *extraction) readSlot(table *ruleTable, s subject, v verb, ts []token, f flags) bool {
	ix := &table.ix
	if table.needs != nil && len(ix.always) > 0 && !slices.ContainsFunc(ts, func(t token) bool { return table.needs[t.low] }) {
		ix = &table.words
	}
	if ix.none(ts, 0) {
		return false
	}
	done := false
	ix.candidates(ts, 0, func(i int) bool {
		r := &table.rules[i]
		if !r.subj.has(s) {
			return false
		}
		m := spanMarks{at: r.at}
		n, ok := r.cue.matchSpans(ts, &m)
		if !ok {
			return false
		}
		g := r.set.apply(f)
		if !r.when.hold(v, g) {
			return false
		}
		if r.set&setPerson != 0 {
			s = s.asPerson()
		}
		for k := range r.spans {
			if c := r.spanChecks[k]; c != "" && !spanChecks[c](x, ts[m.pos[2*k]:m.pos[2*k+1]]) {
				return false
			}
		}
		for k := range r.spans {
			x.spans[k] = ts[m.pos[2*k]:m.pos[2*k+1]]
		}
		if r.spans > 0 && !r.rest {
			// the reader reads the last span's words
			ts, n = ts[:m.pos[2*r.spans-1]], m.pos[2*r.spans-2]
		}
		if r.check != "" && !x.valueIs(ts[n:], r.check) {
			return false
		}
		done = r.read(x, s, v, ts, n, g, r.key)
		return done
	})
	return done
}

// valueIs reports whether the value at the start of ts passes check: a
// thing the lexicon knows ("known"), one known or written as a name
// ("named"), one whose words are ("known-words"), or a known thing of one
// category ("music").
func (x *extraction) valueIs(ts []token, check string) bool {
	if check == "known-words" {
		return knownWords(ts)
	}
	val, m := x.readValue(ts, vThing)
	if m == 0 {
		return false
	}
	c, ok := CategoryOf(val)
	switch check {
	case "known":
		return ok
	case "named":
		return ok || ts[0].capital || ts[0].kind == tQuote
	}
	return ok && c == check
}

// movedOff ends the use of the tool ts opens with, now.
func (x *extraction) movedOff(s subject, ts []token, f flags) {
	f.neg, f.future = true, false
	x.useThing(s, ts, f, purposeInfo{})
}

// spanChecks are the tests a span opened with {:name must pass.
var spanChecks = map[string]func(x *extraction, ts []token) bool{
	// A value said first with a capital, as a name is: not "I", "It",
	// "This", "My", "The", nor a subject's word.
	"named-value": func(_ *extraction, ts []token) bool {
		return validValue(ts) && ts[0].capital && !subjectStopWords[ts[0].low] && !is(ts, 0, "i", "it", "this", "that", "my", "our", "the")
	},
	"some": func(_ *extraction, ts []token) bool { return len(ts) > 0 },
	// A thing the lexicon knows, as said: "Jenkins" ("the ball" is none).
	"known": func(x *extraction, ts []token) bool { _, ok := CategoryOf(x.text(ts, len(ts))); return ok },
	// A value said first: not a pronoun, a determiner nor a subject's
	// word ("it", "my", "the").
	"value": func(_ *extraction, v []token) bool {
		return validValue(v) && !subjectStopWords[v[0].low] && !pronounValues[v[0].low] &&
			!is(v, 0, "i", "it", "this", "that", "my", "our", "the", "his", "her", "their", "your")
	},
	// Words naming a category of things: "editor", "shells".
	"category": func(_ *extraction, ts []token) bool { return knownCategories[categoryOfWords(ts)] },
}

// stayTrips and stayTripsSentence are [stay-trips] and
// [stay-trips-sentence] of lexicons/places.txt: what after a place, in
// its clause or its sentence, makes a stay a trip.
var stayTrips, stayTripsSentence = wordSet("places", "stay-trips"), wordSet("places", "stay-trips-sentence")

// stayNotPlaces are [stay-not-places] of lexicons/places.txt: what one is
// "in" now that is no town, even written with a capital.
var stayNotPlaces = wordSet("places", "stay-not-places")

// restReaders read the words after the match even when the rule marks
// spans: the spans name the category and the old value of a switch.
var restReaders = map[string]bool{"moved-off": true, "moved-off-to": true, "replaced-by": true, "overtaken": true, "switch": true, "switch-from": true, "switch-as": true, "switch-as-from": true, "switch-version": true, "value-noun": true}
