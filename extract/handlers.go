package extract

import (
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// personal reports whether s may carry personal facts (preferences,
// places, employers): the speaker and other people, never a team.
func personal(s subject) bool { return s.kind == sSpeaker || s.kind == sPerson || s.kind == sNamed }

// canDecide reports whether s may decide things or hold goals and rules.
func canDecide(s subject) bool { return s.kind == sSpeaker || s.kind == sTeam || s.kind == sNamed }

// verb dispatches on the main verb's lemma; ts follows the verb.
func (x *extraction) verb(s subject, v verb, ts []token, f flags) {
	gerund := v.form == fGerund
	switch v.lemma {
	case "be":
		x.copula(s, ts, f)
	case "live", "reside":
		x.live(s, ts, f)
	case "move", "relocate":
		if gerund {
			f.future = true // "I'm moving to Berlin" is a plan
		}
		x.move(s, ts, f)
	case "work":
		x.work(s, ts, f)
	case "join":
		f.corr = true
		x.join(s, ts, f)
	case "quit", "leave":
		if next, ok := verbs[lowAt(ts, 0)]; ok && next.form == fGerund && v.lemma == "quit" {
			f.neg = true
			x.verb(s, next, ts[1:], f)
			return
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
			x.org(s.asPerson(), ts, f, false)
		}
	case "prefer", "favor", "prioritize":
		x.prefer(s, ts, f)
	case "use", "rely", "depend":
		if v.lemma != "use" {
			if !is(ts, 0, "on", "upon") {
				return
			}
			ts = ts[1:]
		}
		if v.lemma == "use" && is(ts, 0, "to") {
			return // "used to" reached here only as "I'm used to" — habit, not use
		}
		x.useThing(s, ts, f, purposeInfo{})
	case "switch", "change", "migrate", "transition", "convert":
		x.switchTo(s, ts, f)
	case "like", "love", "enjoy", "adore":
		x.likeThing(s, ts, f, false)
	case "hate", "dislike", "detest", "despise", "loathe", "abhor":
		x.likeThing(s, ts, f, true)
	case "grow":
		if is(ts, 0, "up") && is(ts, 1, "in", "near", "around", "on") {
			f.past = false
			x.place(s, ts[2:], f, "from")
		}
	case "come":
		if is(ts, 0, "from") && !f.future && !gerund {
			f.past = false
			x.place(s, ts[1:], f, "from")
		}
	case "decide", "agree", "settle", "standardize", "opt", "choose", "pick", "select", "adopt", "stick", "go":
		x.decide(s, v, ts, f)
	case "want":
		if is(ts, 0, "to") {
			x.goal(s, ts[1:], f, tmGoal, "")
		}
	case "plan", "intend", "hope", "look":
		x.plan(s, v, ts, f)
	case "aim":
		if is(ts, 0, "to") {
			x.goal(s, ts[1:], f, tmGoal, "")
		}
	case "try":
		if is(ts, 0, "to") && !f.past {
			x.goal(s, ts[1:], f, tmTrying, "")
		}
	case "learn", "study":
		if !f.past && (gerund || v.form == fBase || v.form == fThird) {
			x.learn(s, ts, f)
		}
	case "start", "begin":
		x.started(s, ts, f)
	case "stop", "give":
		if v.lemma == "give" {
			if !is(ts, 0, "up") {
				return
			}
			ts = ts[1:]
		}
		f.neg = true
		f.past = false
		if next, ok := verbs[lowAt(ts, 0)]; ok && next.form == fGerund {
			x.verb(s, next, ts[1:], f)
			return
		}
		if v.lemma == "give" {
			x.useThing(s, ts, f, purposeInfo{})
		}
	case "consider", "think", "lean":
		x.consider(s, v, ts, f)
	case "speak":
		if personal(s) && !f.not {
			x.list(s.asPerson(), ts, f, func(item string) claim {
				return claim{typ: memory.TypeFact, key: "speaks:" + Slug(item), value: item, tmpl: tmSpeaks}
			})
		}
	case "drink":
		if f.not || !personal(s) {
			return
		}
		val, n := x.readValue(ts, vThing)
		if n == 0 {
			return
		}
		if c, ok := CategoryOf(val); ok && c == "drink" {
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "prefers:drink", value: val, tmpl: tmPrefers, cat: "drink"})
		} else {
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "likes:" + Slug(val), value: val, tmpl: tmLikes})
		}
	case "write", "build", "run", "deploy", "host", "power", "base":
		x.projectVerb(s, v, ts, f)
	case "call", "name":
		// Active "I call it X" says nothing; the passive comes via copula.
	case "get", "land", "accept":
		// "I got a job at Netflix", "I landed a role at Stripe".
		if personal(s) && !f.not && is(ts, 0, "a", "an") && is(ts, 1, "job", "offer", "position", "role", "gig") && is(ts, 2, "at", "with", "from") {
			f.corr, f.past = true, false
			x.org(s.asPerson(), ts[3:], f, true)
		}
	case "replace", "ditch", "drop", "dump", "abandon", "retire":
		x.replace(s, v, ts, f)
	}
}

// replace reads "replaced MySQL with Postgres", "ditched Jenkins for
// GitHub Actions", "dropped Webpack": the old thing ends, the new one takes
// its place. Only things the lexicon knows count, so "dropped the ball"
// says nothing.
func (x *extraction) replace(s subject, v verb, ts []token, f flags) {
	if f.not || f.hedge && v.lemma == "retire" {
		return
	}
	f.past = false
	old, n := x.readValue(ts, vThing)
	if n == 0 {
		return
	}
	if _, ok := CategoryOf(old); !ok {
		return
	}
	rest := ts[n:]
	nf := f
	nf.neg = true
	x.useThing(s, ts[:n], nf, purposeInfo{})
	if is(rest, 0, "with", "for", "in", "by") {
		nf = f
		nf.corr = true
		x.useThing(s, rest[1:], nf, purposeInfo{})
	}
}

// copula reads what follows "am/is/are/was": places, roles, names, diets,
// fandoms, progressive verbs ("I'm using..."), passives ("written in Go").
func (x *extraction) copula(s subject, ts []token, f flags) {
	i := 0
	for i < len(ts) {
		w := ts[i].low
		switch {
		case w == "not":
			f.not = true
		case w == "no" && is(ts, i+1, "longer"):
			f.neg = true
			i++
		case w == "going" && is(ts, i+1, "to") && !is(ts, i+2, "the", "a", "an", "my"):
			f.future = true
			i++
		case adverbs[w] && w != "so" && w != "all" && w != "both" && w != "kind" && w != "sort":
			if corrAdverbs[w] {
				f.corr = true
			}
			if hedgeAdverbs[w] {
				f.hedge = true
			}
		default:
			goto body
		}
		i++
	}
body:
	ts = ts[i:]
	if len(ts) == 0 {
		return
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
	switch {
	case w == "from" || w == "originally" && is(ts, 1, "from"):
		if !f.not && personal(s) {
			f.past = false
			x.place(s, ts[1+b2i(w == "originally"):], f, "from")
		}
	case w == "based" || w == "located" || w == "settled" || w == "living" || w == "stationed":
		if s.kind == sTeam || s.kind == sNamed && is(ts, 1, "on") {
			if is(ts, 1, "on") {
				x.useThing(s, ts[2:], f, purposeInfo{})
			}
			return
		}
		j := 1
		if seq(ts, 1, "out", "of") {
			j = 3
		} else if is(ts, 1, "in", "at", "near") {
			j = 2
		} else {
			return
		}
		if f.not && !f.anymore {
			return
		}
		if f.not {
			f.neg = true
		}
		x.place(s, ts[j:], f, "lives_in")
	case w == "born":
		if is(ts, 1, "in") && personal(s) {
			f.past = false
			x.place(s, ts[2:], f, "from")
		}
	case w == "employed" || w == "hired" || w == "contracted":
		if is(ts, 1, "by", "at", "with", "for") && personal(s) {
			if w == "hired" {
				f.corr = true
				f.past = false
			}
			x.org(s.asPerson(), ts[2:], f, false)
		}
	case w == "called" || w == "named":
		if s.kind == sSpeaker || s.kind == sPerson {
			x.name(s, ts[1:], f, true)
		}
	case w == "written" || w == "built" || w == "powered" || w == "deployed" || w == "hosted" || w == "implemented" || w == "developed" || w == "coded":
		x.passive(s, w, ts[1:], f)
	case w == "a" || w == "an" || w == "the":
		x.copulaNP(s, ts, f)
	case w == "into" || (w == "fond" || w == "proud") && is(ts, 1, "of") ||
		(w == "passionate" || w == "crazy" || w == "mad" || w == "excited") && is(ts, 1, "about") ||
		(w == "obsessed" || w == "smitten" || w == "enamored" || w == "enamoured") && is(ts, 1, "with") ||
		(w == "addicted") && is(ts, 1, "to") || (w == "hooked" || w == "keen" || w == "big") && is(ts, 1, "on"):
		if personal(s) {
			j := 1
			if w != "into" {
				j = 2
			}
			x.likeThing(s, ts[j:], f, false)
		}
	case (w == "sick" || w == "tired") && is(ts, 1, "of"), w == "fed" && seq(ts, 1, "up", "with"),
		(w == "done") && is(ts, 1, "with"):
		if personal(s) && !f.not {
			j := 2
			if w == "fed" {
				j = 3
			}
			x.likeThing(s, ts[j:], f, true)
		}
	case w == "allergic" && is(ts, 1, "to"):
		if personal(s) && !f.not {
			f.high = true
			x.list(s.asPerson(), ts[2:], f, func(item string) claim {
				return claim{typ: memory.TypeFact, key: "allergic_to:" + Slug(item), value: item, tmpl: tmAllergy}
			})
		}
	case w == "fluent" && is(ts, 1, "in"):
		if personal(s) && !f.not {
			x.list(s.asPerson(), ts[2:], f, func(item string) claim {
				return claim{typ: memory.TypeFact, key: "speaks:" + Slug(item), value: item, tmpl: tmSpeaks}
			})
		}
	case w == "on" && (s.kind == sTeam || s.kind == sNamed):
		// "We're on Postgres 16": only when the lexicon knows the thing.
		if val, n := x.readValue(ts[1:], vThing); n > 0 {
			if _, ok := CategoryOf(val); ok {
				x.useThing(s, ts[1:], f, purposeInfo{})
			}
		}
	case diets[w] || len(ts) > 1 && diets[w+" "+ts[1].low]:
		if personal(s) && !f.not {
			n := 1
			if !diets[w] {
				n = 2
			}
			x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: "diet", value: x.text(ts, n), tmpl: tmDiet})
		}
	default:
		if s.kind == sSpeaker && !f.not {
			x.name(s, ts, f, false)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fanHeads end "a Vim user", "a cat person", "a jazz fan".
var fanHeads = set("user", "users", "person", "people", "fan", "lover", "guy", "girl",
	"enthusiast", "addict", "nerd", "geek", "junkie", "diehard", "die-hard", "devotee", "aficionado")

// copulaNP reads "a/an/the ..." after a copula: "a big fan of jazz", "a Vim
// user", "a vegetarian", "a senior backend engineer at Acme".
func (x *extraction) copulaNP(s subject, ts []token, f flags) {
	if !personal(s) {
		return
	}
	k := 1
	for is(ts, k, "big", "huge", "massive", "great", "real", "total", "longtime", "long-time",
		"die-hard", "diehard", "true", "lifelong", "proud", "devoted", "loyal", "avid") {
		k++
	}
	if is(ts, k, "fan", "lover", "devotee") && is(ts, k+1, "of") {
		dislike := false
		if f.not && !f.anymore {
			f.not, dislike = false, true // "I'm not a fan of YAML"
		}
		x.likeThing(s, ts[k+2:], f, dislike)
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
		} else if !is(ts, h, "user", "users", "person", "people", "guy", "girl") {
			// "a jazz lover" likes jazz; "a morning person" is a trait.
			x.emit(s.asPerson(), f, claim{typ: memory.TypePreference, key: "likes:" + Slug(thing), value: thing, tmpl: tmLikes})
		}
		return
	}
	x.role(s.asPerson(), ts, f, true)
}

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
	if is(rest, 0, "at", "for", "with", "of") && len(rest) > 1 && (rest[1].capital || rest[1].kind == tQuote || is(rest, 1, "the")) {
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
	for _, suf := range []string{"engineer", "developer", "ologist", "ician", "ographer", "ist", "eer"} {
		if strings.HasSuffix(w, suf) && len(w) > len(suf)+2 {
			return !notRoles[w]
		}
	}
	return false
}

// notRoles end in a role suffix without being jobs.
var notRoles = set("list", "twist", "wrist", "mist", "fist", "gist", "exist", "insist",
	"persist", "resist", "assist", "consist", "career", "beer", "deer", "cheer", "peer",
	"sheer", "steer", "veer", "leer", "queer", "list", "playlist", "checklist", "wishlist",
	"tourist", "optimist", "pessimist", "realist", "perfectionist", "minimalist",
	"introvert", "extrovert", "purist", "idealist", "cyclist", "racist", "sexist",
	"specialist")

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
	n := 0
	for n < len(ts) && n < 3 && ts[n].kind == tWord {
		t := ts[n]
		w := t.low
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
		if strings.ContainsAny(w, "0123456789") {
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
		if next.kind == tWord && !is(ts, n, "and", "from", "by", "btw", "here", "but", "though") || next.kind == tQuote {
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

// place reads a place after "live in", "from", "based in", "moved to".
func (x *extraction) place(s subject, ts []token, f flags, key string) bool {
	if !personal(s) {
		return false
	}
	for is(ts, 0, "beautiful", "sunny", "rainy", "lovely") {
		ts = ts[1:]
	}
	val, n := x.readValue(ts, vPlace)
	if n == 0 {
		return false
	}
	if placeNoise[strings.ToLower(val)] {
		return false
	}
	// "the new office", "a small town": a determiner needs a proper name
	// after it ("the Netherlands") to be a place.
	if is(ts, 0, "the", "a", "an", "my", "our") && (n < 2 || !ts[1].capital) {
		return false
	}
	// "I've lived in Berlin, Paris and Rome": a list is not one home.
	if rest := ts[n:]; (is(rest, 0, ",") || is(rest, 0, "and", "or")) && len(rest) > 1 && rest[1].capital {
		return false
	}
	t := tmLivesIn
	if key == "from" {
		t = tmFrom
	}
	x.emit(s.asPerson(), f, claim{typ: memory.TypeFact, key: key, value: val, tmpl: t})
	return true
}

// placeNoise are things that follow "live in" without being places.
var placeNoise = set("fear", "hope", "denial", "peace", "harmony", "sin", "the moment",
	"the present", "the past", "the future", "a bubble", "my head", "poverty", "luxury",
	"comfort", "debt", "the now", "style", "the zone", "a van", "limbo", "here", "there",
	"the city", "the country", "the countryside", "the suburbs", "town", "a house",
	"an apartment", "a flat", "the same city", "different cities", "the same place",
	"fact", "theory", "practice", "general", "particular", "total", "secret", "private",
	"public", "time", "advance", "charge", "love", "trouble", "a hurry", "progress",
	"line", "mind", "person")

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
var orgNoise = set("a living", "free", "fun", "myself", "night", "nights", "home", "weekends",
	"the weekend", "the moment", "a while", "hours", "years", "months", "a bit", "peanuts",
	"money", "food", "scale", "speed", "large", "length", "least", "best", "most",
	"first", "last", "random", "times", "once", "a startup", "a company", "a bank",
	"the same company", "a small company", "a big company", "a large company",
	"a consultancy", "an agency", "a nonprofit", "a non-profit", "a university",
	"a hospital", "a school", "a tech company", "a fintech", "a big tech company",
	"a faang", "a faang company", "big tech")

// live reads "live in X", "reside in X".
func (x *extraction) live(s subject, ts []token, f flags) {
	for len(ts) > 0 && adverbs[ts[0].low] && ts[0].low != "in" {
		ts = ts[1:]
	}
	if !is(ts, 0, "in", "at", "near", "outside", "on") {
		return
	}
	if is(ts, 0, "near", "outside", "on") {
		// "I live near Lisbon" still places the speaker, less exactly.
		ts = ts[1:]
	} else {
		ts = ts[1:]
	}
	if f.not && !f.anymore && !f.neg {
		f.neg = true // "I don't live in Paris" ends that slot's Paris
	}
	if f.not {
		f.neg = true
	}
	x.place(s, ts, f, "lives_in")
}

// move reads "moved to X", "moved from X to Y", "relocated to X". A tool
// ("moved to Neovim") is a switch; anything else is a new home.
func (x *extraction) move(s subject, ts []token, f flags) {
	f.past = false
	for is(ts, 0, "back", "over", "out", "away", "permanently", "recently", "finally") {
		ts = ts[1:]
	}
	if is(ts, 0, "from") {
		k := 1
		for k < len(ts) && !is(ts, k, "to") && k < 8 {
			k++
		}
		ts = ts[k:]
	}
	if is(ts, 0, "off") || seq(ts, 0, "away", "from") {
		// "We're moving off Heroku": a tool's use ends.
		j := 1
		if is(ts, 0, "away") {
			j = 2
		}
		if val, n := x.readValue(ts[j:], vThing); n > 0 && !f.not {
			if _, ok := CategoryOf(val); ok {
				f.neg, f.future = true, false
				x.useThing(s, ts[j:], f, purposeInfo{})
			}
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
	if s.kind == sTeam {
		return
	}
	x.place(s, ts, f, "lives_in")
}

// work reads "work at/for X [as a Y]", "work as a Y".
func (x *extraction) work(s subject, ts []token, f flags) {
	if !personal(s) {
		return
	}
	for is(ts, 0, "remotely", "full-time", "part-time", "fulltime", "currently", "now", "mostly", "mainly", "primarily", "still", "also", "freelance", "together") {
		if ts[0].low == "now" {
			f.corr = true
		}
		ts = ts[1:]
	}
	if f.not && !f.anymore {
		if is(ts, 0, "at", "for") {
			f.neg = true // "I don't work at Acme" ends that slot's Acme
		} else {
			return
		}
	}
	if f.not {
		f.neg = true
	}
	switch {
	case is(ts, 0, "at", "for") && len(ts) > 1:
		// "work with" is left out: "I work with Maria" names a colleague.
		x.org(s, ts[1:], f, false)
	case is(ts, 0, "as") && len(ts) > 1:
		x.role(s.asPerson(), ts[1:], f, false)
	}
}

// join reads "joined Acme", "joined the Acme team".
func (x *extraction) join(s subject, ts []token, f flags) {
	if !personal(s) || f.not {
		return
	}
	if is(ts, 0, "the") && len(ts) > 2 && ts[1].capital && is(ts, 2, "team") {
		ts = ts[1:2]
	}
	f.past = false
	x.org(s, ts, f, true)
}

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
	// Skip what it is preferred over: "Vim over Emacs", "tea to coffee".
	if is(rest, 0, "over", "to", "than", "vs", "versus") || seq(rest, 0, "rather", "than") || seq(rest, 0, "instead", "of") {
		j := 1
		if is(rest, 0, "rather", "instead") {
			j = 2
		}
		_, m := x.readValue(rest[j:], vThing)
		rest = rest[j+m:]
	}
	p, hasPurpose := x.purpose(rest)
	x.emitPreference(s, val, p, hasPurpose, f)
}

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
	for _, it := range items {
		switch {
		case collide:
			t := tmUses
			if project {
				x.emit(s, f, claim{typ: memory.TypeFact, key: "uses:" + Slug(it), value: it, tmpl: t})
			} else {
				x.emit(s, f, claim{typ: memory.TypeFact, key: "uses:" + Slug(it), value: it, tmpl: t})
			}
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

// definite reports whether a value opens with a definite determiner.
func definite(v string) bool {
	lv := strings.ToLower(v)
	return strings.HasPrefix(lv, "the ") || strings.HasPrefix(lv, "this ") || strings.HasPrefix(lv, "that ")
}

// switchTo reads "switched to X", "switched from X to Y", "changed my
// shell to fish", "migrated the database to Postgres".
func (x *extraction) switchTo(s subject, ts []token, f flags) {
	f.past = false
	if f.not {
		return // "I didn't switch to Emacs"
	}
	var hint purposeInfo
	for is(ts, 0, "over", "back", "completely", "fully", "entirely", "permanently", "finally") {
		ts = ts[1:]
	}
	// "changed my editor to X": the noun phrase before "to" is the category.
	if is(ts, 0, "my", "our", "the", "its", "their") {
		k := 1
		for k < len(ts) && k < 5 && !is(ts, k, "to", "from", "over") {
			k++
		}
		if k < len(ts) {
			words := make([]string, 0, k)
			for _, t := range ts[1:k] {
				words = append(words, t.low)
			}
			c := CanonicalCategory(strings.Join(words, " "))
			if knownCategories[c] {
				hint = purposeInfo{prep: "as", cat: c, known: true, text: x.text(ts[1:], k-1)}
			} else if !toKnownThing(ts[k:]) {
				return // "switched the flag to true", "changed the timeout to 30s"
			}
			ts = ts[k:]
		} else {
			return
		}
	}
	if is(ts, 0, "from") {
		k := 1
		for k < len(ts) && !is(ts, k, "to") && k < 8 {
			k++
		}
		ts = ts[k:]
	}
	if is(ts, 0, "over") {
		ts = ts[1:]
	}
	if !is(ts, 0, "to", "into") {
		return
	}
	f.corr = true
	x.useThing(s, ts[1:], f, hint)
}

// toKnownThing reports whether ts is "to <a thing the lexicon knows>".
func toKnownThing(ts []token) bool {
	if !is(ts, 0, "to", "into") || len(ts) < 2 {
		return false
	}
	n := valueLen(ts[1:], vThing)
	if n == 0 {
		return false
	}
	words := make([]string, n)
	for i, t := range ts[1 : 1+n] {
		words[i] = t.low
	}
	_, ok := CategoryOf(strings.Join(words, " "))
	return ok
}

// likeThing reads "like/love/enjoy X", "like to X", and with dislike set
// "hate/dislike X". Negation flips or ends it: "I don't like X" →
// dislikes; "I don't like X anymore" → likes X, ended.
func (x *extraction) likeThing(s subject, ts []token, f flags, dislike bool) {
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
	x.list(s.asPerson(), ts, f, func(item string) claim {
		return claim{typ: memory.TypePreference, key: key + Slug(item), value: item, tmpl: t}
	})
}

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

// decide reads "decided to X", "decided on X", "decided against X",
// "chose X", "went with X", "settled on X", "agreed to X".
func (x *extraction) decide(s subject, v verb, ts []token, f flags) {
	if !canDecide(s) || f.not && v.lemma != "decide" {
		return
	}
	f.past = false
	switch v.lemma {
	case "decide", "agree":
		switch {
		case is(ts, 0, "to"):
			x.decideTo(s, ts[1:], f, tmDecideTo)
		case is(ts, 0, "not") && is(ts, 1, "to"):
			f.neg = true
			x.decideTo(s, ts[2:], f, tmDecideTo)
		case is(ts, 0, "on", "upon", "against"):
			if is(ts, 0, "against") {
				f.neg = true
			}
			x.decideObject(s, ts[1:], f, "")
		case is(ts, 0, "that"):
			x.decisionBody(s, ts, f)
		}
	case "settle", "standardize":
		if is(ts, 0, "on") {
			x.decideObject(s, ts[1:], f, "")
		}
	case "opt":
		if is(ts, 0, "for") {
			x.decideObject(s, ts[1:], f, "")
		} else if is(ts, 0, "to") {
			x.decideTo(s, ts[1:], f, tmDecideTo)
		}
	case "choose", "pick", "select", "adopt":
		if is(ts, 0, "to") {
			x.decideTo(s, ts[1:], f, tmDecideTo)
			return
		}
		x.decideObject(s, ts, f, "")
	case "stick", "go":
		if is(ts, 0, "with") {
			x.decideObject(s, ts[1:], f, "")
		}
		if v.lemma == "go" && is(ts, 0, "by") && s.kind == sSpeaker {
			x.name(s, ts[1:], f, true)
		}
	}
}

// goal reads a goal's verb phrase: "learn Rust", "ship v2 by March".
// Hedged goals are dropped; a wish is not a goal.
func (x *extraction) goal(s subject, ts []token, f flags, t tmpl, prefix string) {
	if f.hedge || f.not || !canDecide(s) || s.kind == sNamed {
		return
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
	c := claim{typ: memory.TypeGoal, key: "goal:" + shortSlug(phraseKey(ts[:n]), 5), value: prefix + x.text(ts, n), tmpl: t}
	if v, ok := verbs[ts[0].low]; (ok && v.form == fBase || goalVerbs[ts[0].low]) && t == tmGoalIs && prefix == "" {
		c.display = "to " + c.value // "Goal: ship v2" → "goal is to ship v2"
	}
	x.emit(s, f, c)
}

// goalVerbs start goals stated without "to" ("Goal: ship v2 by March").
var goalVerbs = set("ship", "launch", "finish", "get", "become", "reach", "lose", "save",
	"buy", "read", "visit", "release", "hit", "complete", "pass", "hire", "raise", "reduce",
	"increase", "improve", "cut", "double", "automate", "land", "publish", "finish", "master",
	"retire", "open", "close", "grow", "scale", "deliver", "win", "earn", "pay", "speak",
	"write", "run", "build", "learn", "move", "travel", "exercise", "sleep", "eat", "quit",
	"cook", "practice", "practise", "train", "study", "find", "create", "make", "keep", "stay")

// plan reads "plan to X", "intend to X", "hope to X", "looking to X":
// moving or switching plans are hedged facts; other plans are goals.
func (x *extraction) plan(s subject, v verb, ts []token, f flags) {
	if v.lemma == "look" && !is(ts, 0, "to") {
		return
	}
	if v.lemma == "plan" && is(ts, 0, "on") {
		ts = ts[1:]
	} else if is(ts, 0, "to") {
		ts = ts[1:]
	} else {
		return
	}
	if nv, ok := verbs[lowAt(ts, 0)]; ok {
		switch nv.lemma {
		case "move", "relocate", "live", "work", "join", "switch", "use", "migrate", "change", "start", "quit", "leave":
			f.hedge = true
			x.verb(s, nv, ts[1:], f)
			return
		}
	}
	if v.lemma == "hope" || v.lemma == "look" {
		f.hedge = true
	}
	x.goal(s, ts, f, tmGoal, "")
}

// learn reads "I'm learning Rust" as the goal learn_rust.
func (x *extraction) learn(s subject, ts []token, f flags) {
	if f.not || f.hedge || !canDecide(s) || s.kind == sNamed {
		return
	}
	val, n := x.readValue(ts, vThing)
	if n == 0 {
		return
	}
	x.emit(s, f, claim{typ: memory.TypeGoal, key: "goal:learn_" + Slug(val), value: val, tmpl: tmLearning})
}

// started reads "started using X", "started at Acme", "started learning X".
func (x *extraction) started(s subject, ts []token, f flags) {
	f.past = false
	if f.not {
		return
	}
	f.corr = true
	if is(ts, 0, "to") {
		ts = ts[1:]
	}
	if nv, ok := verbs[lowAt(ts, 0)]; ok && (nv.form == fGerund || nv.form == fBase) {
		x.verb(s, nv, ts[1:], f)
		return
	}
	if is(ts, 0, "at", "with") && personal(s) {
		x.org(s, ts[1:], f, true)
	}
}

// consider reads "considering X", "thinking about moving to X", "leaning
// towards X": all hedged.
func (x *extraction) consider(s subject, v verb, ts []token, f flags) {
	f.hedge = true
	switch v.lemma {
	case "think":
		if !is(ts, 0, "about", "of") {
			return
		}
		ts = ts[1:]
	case "lean":
		if !is(ts, 0, "towards", "toward", "to") {
			return
		}
		ts = ts[1:]
	}
	if nv, ok := verbs[lowAt(ts, 0)]; ok && nv.form == fGerund {
		x.verb(s, nv, ts[1:], f)
		return
	}
	if v.lemma == "think" {
		return // "thinking about Rust" is not a preference
	}
	if s.kind == sTeam {
		x.useThing(s, ts, f, purposeInfo{})
		return
	}
	x.prefer(s, ts, f)
}

// projectVerb reads active project verbs: "we build on Kubernetes", "we
// deploy to Fly.io", "Atlas runs on AWS", "we write Go".
func (x *extraction) projectVerb(s subject, v verb, ts []token, f flags) {
	if s.kind != sTeam && s.kind != sNamed {
		return
	}
	switch v.lemma {
	case "write":
		if is(ts, 0, "in") {
			ts = ts[1:]
		}
		if val, n := x.readValue(ts, vThing); n > 0 {
			if c, ok := CategoryOf(val); ok && c == "programming_language" {
				x.useThing(s, ts, f, purposeInfo{})
			}
		}
	case "build":
		if is(ts, 0, "with", "on", "in", "using") {
			x.useThing(s, ts[1:], f, purposeInfo{})
		}
	case "run":
		if is(ts, 0, "on", "in") {
			ts = ts[1:]
		}
		if val, n := x.readValue(ts, vThing); n > 0 {
			if _, ok := CategoryOf(val); ok {
				x.useThing(s, ts, f, purposeInfo{})
			}
		}
	case "deploy", "host":
		if is(ts, 0, "to", "on", "with", "at", "via") {
			x.useThing(s, ts[1:], f, purposeInfo{prep: "as", cat: "hosting", known: true, text: "hosting platform"})
		}
	case "base", "power":
		if is(ts, 0, "on", "by") {
			x.useThing(s, ts[1:], f, purposeInfo{})
		}
	}
}

// passive reads "written in Go", "built with React", "deployed to Fly.io",
// "hosted on AWS", "powered by Postgres".
func (x *extraction) passive(s subject, w string, ts []token, f flags) {
	if s.kind != sTeam && s.kind != sNamed {
		return
	}
	f.past = false
	for is(ts, 0, "entirely", "mostly", "mainly", "fully", "completely", "primarily") {
		ts = ts[1:]
	}
	if !is(ts, 0, "in", "with", "on", "using", "to", "by", "at", "via") {
		return
	}
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
	if len(items) == 1 {
		if _, ok := CategoryOf(items[0]); ok {
			hint = purposeInfo{} // the lexicon knows better: "hosted on AWS" is cloud
		}
	}
	x.useThing(s, ts[1:], f, hint)
}
