package extract

import (
	"strings"
)

// The cue words that open a clause ("actually", "back then", "I guess",
// "by the way") and the markers of a correction inside a sentence
// ("sorry,", "no wait") are a pattern table, lexicons/cue-patterns.txt,
// run by one matcher; the file's header documents the pattern syntax.

// cueEffect says what a matched cue pattern means.
type cueEffect uint64

const (
	cueCorrection      cueEffect = 1 << iota // the clause corrects an earlier value
	cuePast                                  // the clause is history
	cueHedge                                 // the clause is hedged
	cueWeak                                  // the clause is stated with some doubt
	cueThat                                  // drop a "that" or comma after the match
	cueSubject                               // the rest must open with i, we, my or our
	cueStop                                  // stop stripping; keep the rest
	cueDrop                                  // the clause says nothing
	cueNever                                 // a rule forbids what follows
	cueLove                                  // the speaker loves what follows
	cueLike                                  // likes it
	cueDislike                               // dislikes it
	cueAnymore                               // the clause says "anymore"
	cueNeg                                   // [modifiers]: the value ended ("no longer")
	cueNot                                   // denied
	cueFuture                                // to come
	cuePolite                                // "would"
	cueMust                                  // a rule's "must"
	cueAlways                                // a rule's "always"
	cueAux                                   // "have" as an auxiliary
	cueTodo                                  // "need to": a to-do, unless a team says it
	cueMustInclude                           // [sentence-markers]: never to be left out
	cueHigh                                  // important
	cueReport                                // [reported-speech]: someone else's words follow
	cueDropped                               // [dropped-subject]: the clause's "I" is left out
	cueGerund                                // unless the gerund that opens it is its subject
	cueNoun                                  // [gerund-subjects]: the gerund is the clause's subject
	cueSomeone                               // [names-someone]: someone other than the speaker is named
	cueQuestion                              // [questions]: the sentence asks
	cueCopula                                // [dropped-subject]: the "I'm" is left out; read as after it
	cueRoleOverride                          // [instructions]: the agent is told to be someone else
	cueJailbreak                             // its limits are to go
	cueDeception                             // something is to be hidden from the user
	cueSystemPrompt                          // the agent\'s system prompt is named
	cueNewInstructions                       // new instructions replace the agent\'s
)

var cueEffectNames = map[string]cueEffect{
	"correction": cueCorrection, "past": cuePast, "hedge": cueHedge, "weak": cueWeak,
	"that": cueThat, "subject": cueSubject, "stop": cueStop, "drop": cueDrop, "never": cueNever, "skip": 0,
	"love": cueLove, "like": cueLike, "dislike": cueDislike, "anymore": cueAnymore,
	"neg": cueNeg, "not": cueNot, "future": cueFuture, "polite": cuePolite, "must": cueMust, "always": cueAlways, "aux": cueAux, "todo": cueTodo,
	"must-include": cueMustInclude, "high": cueHigh, "report": cueReport,
	"dropped": cueDropped, "gerund": cueGerund, "noun": cueNoun, "someone": cueSomeone, "question": cueQuestion, "copula": cueCopula,
	"role-override": cueRoleOverride, "jailbreak": cueJailbreak, "deception": cueDeception,
	"system-prompt": cueSystemPrompt, "new-instructions": cueNewInstructions,
}

// cueElem matches one token.
type cueElem struct {
	words    map[string]bool
	optional bool               // word?: consumed when present
	many     bool               // word*: every one in a row consumed, none is fine
	ahead    bool               // >word: must follow, not consumed
	not      bool               // !word: must not follow
	gap      int                // ...N: up to N tokens but punctuation, up to the first the next token matches; ...N!word: none of them one of these
	punct    bool               // ...N~: the gap's tokens may be punctuation
	behind   bool               // <!word: a token before the match, not one of these
	after    bool               // <word: the token before the match is one of these; <word*: every one in a row before it
	start    bool               // <^|word: or nothing comes before the match
	end      bool               // >word|$: or nothing follows
	classes  []func(token) bool // %class: a token of a class
	phrases  [][]string         // entries of a lexicon table of more than one word: "lactose intolerant"
	capital  map[string]bool    // Word: the word, written with a capital ("Will", a name)
	special  bool               // capital or classes are set
	value    vkind              // %thing, %place, %org, %role: a value of the kind (kind+1; 0: none), as long as valueLen reads it
}

// phraseLen returns how many tokens at ts[pos] one of the element's
// phrases takes, or 0.
func (e *cueElem) phraseLen(ts []token, pos int) int {
next:
	for _, ph := range e.phrases {
		if pos+len(ph) > len(ts) {
			continue
		}
		for i, w := range ph {
			if ts[pos+i].low != w {
				continue next
			}
		}
		return len(ph)
	}
	return 0
}

// matches reports whether t is one of the element's words, or of its
// capitalised words or classes (kept out of line: matches is inlined in
// the matcher's loops, and most elements are words only).
func (e *cueElem) matches(t token) bool {
	return e.words[t.low] || e.special && e.matchesSpecial(t)
}

func (e *cueElem) matchesSpecial(t token) bool {
	if t.capital && e.capital[t.low] {
		return true
	}
	for _, c := range e.classes {
		if c(t) {
			return true
		}
	}
	return false
}

// fillerWords are [fillers] of lexicons/values.txt: words of talk that
// say nothing (%filler).
var fillerWords = wordSet("values", "fillers")

// tokenClasses are the %classes of a pattern: words told by their form.
var tokenClasses = map[string]func(token) bool{
	"ordinal": func(t token) bool { return ordinal(t.low) },     // "9th", "21st"
	"filler":  func(t token) bool { return fillerWords[t.low] }, // "tbh", "honestly", "like": [fillers] of values.txt
	"day":     func(t token) bool { return dayNumber(t.low) },   // "1" to "31"
	"version": func(t token) bool { return isVersion(t.low) },   // "1.24", "v20", "3.x"
	"word":    func(t token) bool { return t.kind != tPunct },   // not punctuation
	"plain":   func(t token) bool { return t.kind == tWord },    // a word: not punctuation, not a quote
	"punct":   func(t token) bool { return t.kind == tPunct },   // punctuation
	"any":     func(token) bool { return true },                 // any token
	"ing": func(t token) bool { // a gerund, or one with its g dropped: "rockin'"
		return isGerund(t.low) || strings.HasSuffix(t.low, "in") && isGerund(t.low+"g")
	},
	"quote":   func(t token) bool { return t.kind == tQuote }, // a quoted passage
	"capital": func(t token) bool { return t.capital },        // written with a capital: "Linz"
	"verb":    func(t token) bool { return verbLike(t.low) },  // a verb the rules know, or a form of "be"
	"participle": func(t token) bool { // a past or a participle of a verb the rules know
		v, ok := verbs[t.low]
		return ok && (v.form == fPast || v.form == fPartOnly)
	},
	"base": func(t token) bool { // a verb's base form, or an imperative or a goal's verb
		v, ok := verbs[t.low]
		return ok && v.form == fBase || imperativeVerbs[t.low] || goalVerbs[t.low]
	},
}

// valueKinds are the values a token of a pattern may stand for: %thing
// takes the words valueLen reads as a thing (readValue's value: "Postgres",
// "the new billing service"), so a span or the words after it end where
// the value does.
var valueKinds = map[string]vkind{"%thing": vThing + 1, "%place": vPlace + 1, "%org": vOrg + 1, "%role": vRole + 1}

// verbClasses are the forms of %form(@file/table): a form of a verb whose
// lemma the table lists.
var verbClasses = map[string]vform{"past": fPast, "gerund": fGerund, "base": fBase}

// cuePattern is one line of the table.
type cuePattern struct {
	elems  []cueElem
	effect cueEffect
	behind int // how many lookbehind elements open elems, read right to left
}

// The tables of lexicons/cue-patterns.txt.
var (
	leadingCues           = cuePatterns("leading")
	asideCues             = cuePatterns("asides")
	selfCorrectionCues    = cuePatterns("self-correction")
	correctionGapCues     = cuePatterns("self-correction-gaps")
	insteadLeadCues       = cuePatterns("instead-leads")
	correctionItCues      = cuePatterns("self-correction-pronoun")
	wishCues              = cuePatterns("wishes")
	notKeenCues           = cuePatterns("not-keen")
	homeGettingCues       = cuePatterns("home-getting")
	homePlaceCues         = cuePatterns("home-places")
	gotKeysCues           = cuePatterns("got-keys")
	modifierCues          = cuePatterns("modifiers")
	sentenceMarkerCues    = cuePatterns("sentence-markers")
	firstPersonReportCues = cuePatterns("first-person-reports")
	subjectAdverbCues     = cuePatterns("subject-adverbs")
	homeForOthersCues     = cuePatterns("home-for-others")
	changeTailCues        = cuePatterns("change-tail")
	ruleTailCues          = cuePatterns("rule-tails")
	ruleLeadCues          = cuePatterns("rule-leads")
	ruleScopeCues         = cuePatterns("rule-scopes")
	ruleYouCues           = cuePatterns("rule-you")
	ruleStrongCues        = cuePatterns("rule-strong")
	ruleOpenerCues        = cuePatterns("rule-openers")
	letUsCues             = cuePatterns("let-us")
	decisionIsCues        = cuePatterns("decision-is")
	callMeCues            = cuePatterns("call-me")
	hypotheticalCues      = cuePatterns("hypothetical")
	dateCues              = cuePatterns("dates")
	dateMoveCues          = cuePatterns("date-moves")
	clauseFlagCues        = cuePatterns("clause-flags")
	itsNowCues            = cuePatterns("its-now")
	tasteIdiomCues        = cuePatterns("taste-idioms")
	conditionalCues       = cuePatterns("conditionals")
	retractionCues        = cuePatterns("retractions")
	newsLeadCues          = cuePatterns("news-leads")
	petNameGapCues        = cuePatterns("pet-name-gaps")
	petNamedLaterCues     = cuePatterns("pet-named-later")
	takeBackCues          = cuePatterns("take-backs")
	shortStayCues         = cuePatterns("short-stays")
	closingReportCues     = cuePatterns("closing-reports")
	endorsementCues       = cuePatterns("endorsements")
	reportedSpeechCues    = cuePatterns("reported-speech")
	droppedSubjectCues    = cuePatterns("dropped-subject")
	gerundSubjectCues     = cuePatterns("gerund-subjects")
	namesSomeoneCues      = cuePatterns("names-someone")
	encouragementCues     = cuePatterns("encouragement")
	questionCues          = cuePatterns("questions")
	hostedAtCues          = cuePatterns("hosted-at")
	otherSubjectCues      = cuePatterns("other-subjects")
	servingCues           = cuePatterns("servings")
	passivePrepCues       = cuePatterns("passive-preps")
	moveAdverbCues        = cuePatterns("move-adverbs")
	subjectModalCues      = cuePatterns("subject-modals")
	ruleSubjectCues       = cuePatterns("rule-subjects")
	jobTalkCues           = cuePatterns("job-talk")
	npAdjectiveCues       = cuePatterns("np-adjectives")
	purposeOwnerCues      = cuePatterns("purpose-owners")
	purposeDeterminerCues = cuePatterns("purpose-determiners")
	othersWishCues        = cuePatterns("others-wishes")
	nowCues               = cuePatterns("now")
	newValueLeadCues      = cuePatterns("new-value-leads")
	selfOpenerCues        = cuePatterns("self-openers")
	copulaModifierCues    = cuePatterns("copula-modifiers")
	ownerModifierCues     = cuePatterns("possessive-modifiers")
	everyDayCues          = cuePatterns("every-day")
	dayLongCues           = cuePatterns("day-long")
	lastingCues           = cuePatterns("lasting")
	futureTimeCues        = cuePatterns("future-times")
	socialImperativeCues  = cuePatterns("social-imperatives")
	preferredOverCues     = cuePatterns("preferred-over")
	instructionCues       = cuePatterns("instructions")
	verbInitialCues       = cuePatterns("verb-initial")
	clauseStartCues       = cuePatterns("clause-starts")
	beStyleCues           = cuePatterns("be-styles")
	ruleAddressingCues    = cuePatterns("rule-addressing")
	statusReportCues      = cuePatterns("status-reports")
	leadBaseCues          = cuePatterns("lead-base")
	likeFillerCues        = cuePatterns("like-fillers")
	stoppedCues           = cuePatterns("stopped")
	denialCues            = cuePatterns("denials")
	namedAsCues           = cuePatterns("named-as")
	perfectBeenCues       = cuePatterns("perfect-been")
	teamAdjectiveCues     = cuePatterns("team-adjectives")
	adverbRunCues         = cuePatterns("adverb-runs")
	placeAdjectiveCues    = cuePatterns("place-adjectives")
	generalCues           = cuePatterns("general")
)

// closingReport sets the flags of a report of belief that closes a
// sentence: "..., I think" is as weak as "I think ...". It returns the
// sentence without the report, which is no part of any value ("her
// birthday is the 3rd of May I think" is on the 3rd of May).
func closingReport(ts []token, f *flags) []token {
	end := len(ts)
	for end > 0 && ts[end-1].kind == tPunct {
		end--
	}
	n := cueTail(closingReportCues, ts[:end])
	if n == 0 || n == end {
		return ts
	}
	e, _, _ := matchCue(closingReportCues, ts[end-n:end])
	f.set(e)
	return ts[:end-n]
}

// retractedAtEnd reports a sentence that takes itself back at its end,
// after a comma or dash: "I'm moving to Tallinn, jk", "... - just kidding!".
func retractedAtEnd(ts []token) bool {
	for len(ts) > 0 && ts[len(ts)-1].kind == tPunct {
		ts = ts[:len(ts)-1]
	}
	n := cueTail(retractionCues, ts)
	return n > 0 && n < len(ts) && is(ts, len(ts)-n-1, ",", "-", "...", ";")
}

// cueTable is a table of lexicons/cue-patterns.txt, in file order, with
// an index of the patterns that may match at a token.
type cueTable struct {
	pats []cuePattern
	ix   cueIndex
}

// cueIndex lists, by word, the patterns whose first consumed token must
// be that word (the first after the lookbehinds, or one of an optional or
// repeated token before it: "to|do|not* give up" is listed under each of
// its words and "give"), and apart those that may match whatever the
// token is (a class, a gap, a lookahead first, or nothing required).
//
// first is a filter in front of byWord, one cache line: a bit for each
// listed word's first byte, last byte and length (wordBit). Most tokens of
// a sentence start no pattern of a table, and the tables are many, so a
// load that rules a word out spares most of the map's hashing; the filter
// is small so that the tables' filters stay cached beside SQLite's work.
type cueIndex struct {
	byWord map[string][]int
	always []int
	first  [8]uint64
}

// wordBit is w's bit in cueIndex.first (w is not empty).
func wordBit(w string) (int, uint64) {
	h := (uint32(w[0])*0x9e3779b1 ^ uint32(w[len(w)-1])*0x85ebca6b ^ uint32(len(w))*0xc2b2ae35) >> 23
	return int(h >> 6), 1 << (h & 63)
}

// listed returns the patterns listed under w.
func (ix *cueIndex) listed(w string) []int {
	if w != "" {
		if i, b := wordBit(w); ix.first[i]&b == 0 {
			return nil
		}
	}
	return ix.byWord[w]
}

func newCueIndex(ps []cuePattern) cueIndex {
	ix := cueIndex{byWord: map[string][]int{}}
	add := func(w string, i int) {
		if l := ix.byWord[w]; len(l) == 0 || l[len(l)-1] != i {
			ix.byWord[w] = append(l, i)
		}
		if w != "" {
			i, b := wordBit(w)
			ix.first[i] |= b
		}
	}
	for i, p := range ps {
		var firsts []*cueElem // the elements whose token may come first
		required := false
		for j := p.behind; j < len(p.elems) && !required; j++ {
			e := &p.elems[j]
			if e.not || e.ahead || e.gap > 0 || len(e.classes) > 0 || e.value > 0 {
				break
			}
			firsts = append(firsts, e)
			required = !e.optional && !e.many
		}
		if !required {
			ix.always = append(ix.always, i)
			continue
		}
		for _, e := range firsts {
			for w := range e.words {
				add(w, i)
			}
			for w := range e.capital {
				add(w, i)
			}
			for _, ph := range e.phrases {
				add(ph[0], i)
			}
		}
	}
	return ix
}

// candidates calls try with each pattern that may match at ts[k], in
// table order, until try returns true.
// none reports that no pattern may match at ts[k]: the callers skip
// setting up a search, as most tokens of a sentence start none.
func (ix *cueIndex) none(ts []token, k int) bool {
	return len(ix.always) == 0 && (k >= len(ts) || len(ix.listed(ts[k].low)) == 0)
}

func (ix *cueIndex) candidates(ts []token, k int, try func(int) bool) {
	var w []int
	if k < len(ts) {
		w = ix.listed(ts[k].low)
	}
	a := ix.always
	for len(w) > 0 || len(a) > 0 {
		var i int
		if len(a) == 0 || len(w) > 0 && w[0] < a[0] {
			i, w = w[0], w[1:]
		} else {
			i, a = a[0], a[1:]
		}
		if try(i) {
			return
		}
	}
}

// cuePatterns parses a table of lexicons/cue-patterns.txt. A malformed
// line is left out and recorded in lexiconProblems.
func cuePatterns(table string) *cueTable {
	var out []cuePattern
	for _, line := range wordList("cue-patterns", table) {
		p, err := parseCuePattern(line)
		if err != "" {
			lexiconProblems = append(lexiconProblems, "lexicons/cue-patterns.txt ["+table+"] "+line+": "+err)
			continue
		}
		out = append(out, p)
	}
	return &cueTable{pats: out, ix: newCueIndex(out)}
}

// parseCuePattern reads "tokens => effects"; it returns a reason when the
// line is malformed.
func parseCuePattern(line string) (cuePattern, string) {
	var p cuePattern
	lhs, rhs, ok := strings.Cut(line, "=>")
	if !ok {
		return p, "no =>"
	}
	for _, name := range strings.Split(rhs, ",") {
		e, ok := cueEffectNames[strings.TrimSpace(name)]
		if !ok {
			return p, "unknown effect " + strings.TrimSpace(name)
		}
		p.effect |= e
	}
	lookahead := false
	for _, f := range strings.Fields(lhs) {
		var e cueElem
		if n, ok := strings.CutPrefix(f, "..."); ok {
			if len(n) < 1 || n[0] < '1' || n[0] > '9' {
				return p, "a gap is ...1 to ...9, then maybe ~ and !words: " + f
			}
			if lookahead {
				return p, "a gap after a lookahead: " + f
			}
			e.gap = int(n[0] - '0')
			n, e.punct = strings.CutPrefix(n[1:], "~")
			if n != "" {
				if len(n) < 2 || n[0] != '!' {
					return p, "a gap is ...1 to ...9, then maybe ~ and !words: " + f
				}
				if err := e.parseWords(n[1:]); err != "" {
					return p, err
				}
			}
			p.elems = append(p.elems, e)
			continue
		}
		switch {
		case strings.HasPrefix(f, "<!") && len(f) > 2:
			if len(p.elems) > p.behind {
				return p, "a lookbehind must come first: " + f
			}
			e.behind, f = true, f[2:]
			p.behind++
		case strings.HasPrefix(f, "<") && len(f) > 1:
			if len(p.elems) > p.behind {
				return p, "a lookbehind must come first: " + f
			}
			e.after, f = true, f[1:]
			p.behind++
		case strings.HasPrefix(f, ">") && len(f) > 1:
			e.ahead, f = true, f[1:]
		case strings.HasPrefix(f, "!") && len(f) > 1:
			e.not, f = true, f[1:]
		}
		if strings.HasSuffix(f, "?") && len(f) > 1 {
			e.optional, f = true, f[:len(f)-1]
		} else if strings.HasSuffix(f, "*") && len(f) > 1 {
			e.many, f = true, f[:len(f)-1]
		}
		if (e.ahead || e.not || e.behind) && (e.optional || e.many) || e.after && e.optional {
			return p, "a lookaround cannot be optional or repeated: " + f
		}
		if lookahead && !e.ahead && !e.not {
			return p, "a consumed token after a lookahead: " + f
		}
		lookahead = lookahead || e.ahead || e.not
		if err := e.parseWords(f); err != "" {
			return p, err
		}
		p.elems = append(p.elems, e)
	}
	if len(p.elems) == 0 {
		return p, "no tokens"
	}
	for i, e := range p.elems {
		if e.gap > 0 && (i+1 == len(p.elems) || p.elems[i+1].gap > 0 || p.elems[i+1].value > 0 || p.elems[i+1].optional || p.elems[i+1].many || p.elems[i+1].ahead || p.elems[i+1].not) {
			return p, "a gap must be followed by a plain token"
		}
	}
	return p, ""
}

// parseWords reads the alternatives of a token, "a|b|@file/table|%class",
// into e; it returns a reason when one is malformed.
func (e *cueElem) parseWords(f string) string {
	e.words = map[string]bool{}
	for _, w := range strings.Split(f, "|") {
		switch {
		case w == "":
			return "empty alternative in " + f
		case w == "^" && e.after:
			e.start = true
		case w == "$" && e.ahead:
			e.end = true
		case strings.Contains(w, "-but(") && strings.HasSuffix(w, ")"):
			// A verb (or one form of it) whose lemma is none of these:
			// %verb-but(be,have), %base-but(be); any token but these
			// words: %any-but(to,from).
			name, lemmas, _ := strings.Cut(w[1:len(w)-1], "-but(")
			not := set(strings.Split(lemmas, ",")...)
			if name == "any" {
				e.classes = append(e.classes, func(t token) bool { return !not[t.low] })
				continue
			}
			form, ok := verbClasses[name]
			if !ok && name != "verb" {
				return "no verb class " + w
			}
			e.classes = append(e.classes, func(t token) bool {
				v, ok := verbs[t.low]
				return ok && !not[v.lemma] && (name == "verb" || v.form == form)
			})
		case valueKinds[w] > 0 && f == w && !e.ahead && !e.not && !e.behind && !e.after && !e.many:
			e.value = valueKinds[w] // a value, bounded as its reader bounds it
		case strings.HasPrefix(w, "%") && strings.HasSuffix(w, ")"):
			// A form of the verbs of a table: %past(@verbs/change-verbs).
			name, table, _ := strings.Cut(w[1:len(w)-1], "(@")
			form, ok := verbClasses[name]
			if !ok {
				return "no verb class " + w
			}
			lemmas, ok := lexiconTables[table]
			if !ok {
				return "no lexicon table @" + table
			}
			markLexiconUsed(table)
			of := map[string]bool{}
			for _, l := range lemmas {
				of[l] = true
			}
			e.classes = append(e.classes, func(t token) bool {
				v, ok := verbs[t.low]
				return ok && v.form == form && of[v.lemma]
			})
		case strings.HasPrefix(w, "%"):
			c, ok := tokenClasses[w[1:]]
			if !ok {
				return "no token class " + w
			}
			e.classes = append(e.classes, c)
		case strings.HasPrefix(w, "@"):
			words, ok := lexiconTables[w[1:]]
			if !ok {
				return "no lexicon table " + w
			}
			markLexiconUsed(w[1:])
			for _, x := range words {
				if ph := strings.Fields(x); len(ph) > 1 {
					e.phrases = append(e.phrases, ph)
				} else {
					e.words[x] = true
				}
			}
		case strings.ToLower(w) != w:
			if e.capital == nil {
				e.capital = map[string]bool{}
			}
			e.capital[strings.ToLower(w)] = true
		default:
			e.words[w] = true
		}
	}
	e.special = e.capital != nil || len(e.classes) > 0
	return ""
}

// match returns how many tokens at the start of ts the pattern consumes,
// and whether it matches.
func (p cuePattern) match(ts []token) (int, bool) { return p.matchAt(ts, 0) }

// matchAt matches the pattern at ts[k:]; a lookbehind reads ts[k-1]. It
// returns how many tokens the match consumes.
func (p cuePattern) matchAt(ts []token, k int) (int, bool) { return p.matchMarked(ts, k, nil) }

// matchSpans matches the pattern at the start of ts, as match does, and
// records where the match stood at the elements m.at names (the bounds of
// the spans a slot template marks with { and }) in m.pos.
func (p cuePattern) matchSpans(ts []token, m *spanMarks) (int, bool) {
	return p.matchMarked(ts, 0, m)
}

// spanMarks are up to two spans' bounds: the elements at (-1: none) and
// the positions the match reached there.
type spanMarks struct{ at, pos [4]int }

func (p cuePattern) matchMarked(ts []token, k int, m *spanMarks) (int, bool) {
	// The lookbehinds, from the match back: "<, <she <just* said" reads
	// "just"s, then "she", then the comma.
	for i, b := p.behind-1, k; i >= 0; i-- {
		e := &p.elems[i]
		switch {
		case e.behind:
			if b == 0 || e.matches(ts[b-1]) {
				return 0, false
			}
			b--
		case e.many:
			for b > 0 && e.matches(ts[b-1]) {
				b--
			}
		case b == 0:
			if !e.start {
				return 0, false
			}
		case !e.matches(ts[b-1]):
			return 0, false
		default:
			b--
		}
	}
	pos, consumed := k, k
	for i := p.behind; i < len(p.elems); i++ {
		e := &p.elems[i]
		if m != nil {
			m.mark(i, pos)
		}
		switch {
		case e.gap > 0:
			// Words up to the first the next token matches: "on the
			// night ... desk at" stops at the first "desk".
			for g := 0; ; g++ {
				if pos+g >= len(ts) || g > e.gap || g > 0 && (ts[pos+g-1].kind == tPunct && !e.punct || e.matches(ts[pos+g-1])) {
					return 0, false
				}
				if p.elems[i+1].matches(ts[pos+g]) {
					pos += g
					break
				}
			}
		case e.not:
			if pos < len(ts) && e.matches(ts[pos]) {
				return 0, false
			}
			pos++
		case e.ahead:
			if pos >= len(ts) && !e.end || pos < len(ts) && !e.matches(ts[pos]) {
				return 0, false
			}
			pos++
		case e.many:
			for pos < len(ts) {
				n := 0
				if e.phrases != nil {
					n = e.phraseLen(ts, pos) // "home for me these days is"
				}
				if n == 0 && e.matches(ts[pos]) {
					n = 1
				}
				if n == 0 {
					break
				}
				pos += n
				consumed = pos
			}
		default:
			n := 0
			if e.value > 0 {
				if n = valueLen(ts[pos:], e.value-1); n > 0 && !validValue(ts[pos:pos+n]) {
					n = 0
				}
			} else if e.phrases != nil {
				n = e.phraseLen(ts, pos) // a phrase before its first word alone
			}
			if n == 0 && pos < len(ts) && e.matches(ts[pos]) {
				n = 1
			}
			if n > 0 {
				pos += n
				consumed = pos
			} else if !e.optional {
				return 0, false
			}
		}
	}
	if m != nil {
		m.mark(len(p.elems), consumed)
	}
	return consumed - k, true
}

func (m *spanMarks) mark(i, pos int) {
	for j, at := range m.at {
		if at == i {
			m.pos[j] = pos
		}
	}
}

// matchCue returns the first pattern of table matching the start of ts,
// with how many tokens it consumes.
func matchCue(table *cueTable, ts []token) (e cueEffect, n int, ok bool) {
	if table.ix.none(ts, 0) {
		return 0, 0, false
	}
	table.ix.candidates(ts, 0, func(i int) bool {
		n, ok = table.pats[i].match(ts)
		e = table.pats[i].effect
		return ok
	})
	if !ok {
		return 0, 0, false
	}
	return e, n, true
}

// firstCueAt returns the effect of the first pattern of table matching
// at ts[k] (a lookbehind reads ts[k-1]).
func firstCueAt(table *cueTable, ts []token, k int) (e cueEffect, ok bool) {
	if table.ix.none(ts, k) {
		return 0, false
	}
	table.ix.candidates(ts, k, func(i int) bool {
		_, ok = table.pats[i].matchAt(ts, k)
		e = table.pats[i].effect
		return ok
	})
	return e, ok
}

// cueAnywhere reports whether a pattern of table matches at some token of
// ts (a lookbehind reads the token before).
func cueAnywhere(table *cueTable, ts []token) bool {
	for k := range ts {
		if _, ok := firstCueAt(table, ts, k); ok {
			return true
		}
	}
	return false
}

// eachCue calls fn with the effect of every pattern of table matching at
// ts[k] (a lookbehind reads ts[k-1]).
func eachCue(table *cueTable, ts []token, k int, fn func(cueEffect)) {
	table.ix.candidates(ts, k, func(i int) bool {
		if _, ok := table.pats[i].matchAt(ts, k); ok {
			fn(table.pats[i].effect)
		}
		return false
	})
}

// cueLen returns how many tokens at the start of ts the first matching
// pattern of table consumes, or 0 when none matches.
func cueLen(table *cueTable, ts []token) int {
	_, n, _ := matchCue(table, ts)
	return n
}

// cueTail returns how many of the last tokens of ts a pattern of table
// matches to the end, the longest first; 0 if none.
func cueTail(table *cueTable, ts []token) int {
	for k := range ts {
		for _, p := range table.pats {
			if n, ok := p.match(ts[k:]); ok && k+n == len(ts) {
				return n
			}
		}
	}
	return 0
}

// set sets the flags of a clause that a cue's effect says: correction,
// past, hedge, weak, neg, not, future, polite, must, always, never,
// anymore, must-include, high.
func (f *flags) set(e cueEffect) {
	f.corr = f.corr || e&cueCorrection != 0
	f.past = f.past || e&cuePast != 0
	f.hedge = f.hedge || e&cueHedge != 0
	f.weak = f.weak || e&cueWeak != 0
	f.neg = f.neg || e&cueNeg != 0
	f.not = f.not || e&cueNot != 0
	f.future = f.future || e&cueFuture != 0
	f.polite = f.polite || e&cuePolite != 0
	f.must = f.must || e&cueMust != 0
	f.always = f.always || e&cueAlways != 0
	f.never = f.never || e&cueNever != 0
	f.anymore = f.anymore || e&cueAnymore != 0
	f.mustInclude = f.mustInclude || e&cueMustInclude != 0
	f.high = f.high || e&cueHigh != 0
}

// applyLeadingCue strips a matched leading cue from ts and sets the flags
// it implies. done says stripping stops with rest (nil when the clause
// says nothing).
func applyLeadingCue(e cueEffect, n int, ts []token, f *flags) (rest []token, done bool) {
	f.set(e)
	if e&cueDrop != 0 {
		return nil, true
	}
	ts = ts[n:]
	if e&cueThat != 0 {
		ts = dropThat(ts)
	}
	if e&cueSubject != 0 && !is(ts, 0, "i", "we", "my", "our") {
		return nil, true
	}
	return ts, e&cueStop != 0
}

// stripModifiers strips the modifiers of a table ([copula-modifiers],
// [possessive-modifiers]) at the start of ts, one after another, and sets
// the flags they say; it stops at a word no pattern matches or one whose
// pattern says stop. drop says a modifier leaves nothing to read.
func stripModifiers(table *cueTable, ts []token, f *flags) (rest []token, drop bool) {
	for {
		e, n, ok := matchCue(table, ts)
		if !ok || n == 0 || e&cueStop != 0 {
			return ts, false
		}
		if e&cueDrop != 0 {
			return ts, true
		}
		f.set(e)
		ts = ts[n:]
	}
}

// slotOwner says how a slot pattern knows the change is the speaker's.
type slotOwner uint8

const (
	// ownerOpener: the words before the match are the speaker's ("I just
	// got laid off from X"; "my brother got laid off" is his).
	ownerOpener slotOwner = iota
	// ownerMatch: the match itself says it ("my last day at X").
	ownerMatch
	// ownerSentence: the sentence speaks in the first person and names
	// nobody else before the match ("it is the final week with X for me").
	ownerSentence
	// ownerClause: the clause says "I" before the match, or the match
	// does ("am ..."), and its words since the last punctuation name
	// nobody else ("from June I will be on ...", not "Tom is on ...").
	ownerClause
)

var slotOwners = map[string]slotOwner{"opener": ownerOpener, "mine": ownerMatch, "sentence": ownerSentence, "clause": ownerClause}

var slotCues = map[string]Cue{"negation": CueNegation, "correction": CueCorrection}

// Job changes and posts said in passing: slot templates (slots.go) of
// lexicons/cue-patterns.txt, set in initSlots.
var jobChangeSlots, postSlots *ruleTable

// slotChange reads a change of a table of slot patterns said in passing
// anywhere in a clause: "Thursday was my final shift at Acme", "I got laid
// off from Marquette", "just got promoted to staff engineer", "I am on
// the night desk at Coldwater now". Someone else's change, or a hedged,
// denied or planned one, is not read; it reports whether a pattern
// matched the speaker's change.
func (x *extraction) slotChange(table *ruleTable, ts []token, f flags) bool {
	found, from := false, 0 // from: where the words after a change read start
	for k := 0; k < len(ts); k++ {
		at, n := -1, 0
		table.ix.candidates(ts, k, func(i int) bool {
			var ok bool
			n, ok = table.rules[i].cue.match(ts[k:])
			if ok && x.ownsChange(table.rules[i].owner, ts[from:], k-from) {
				at = i
			}
			return at >= 0
		})
		if at >= 0 {
			p := table.rules[at]
			if f.hedge || f.not || f.future || hasWord(ts[from:k], "not", "n't", "never") {
				return true // "might be my last day at Acme", "it's not my last day"
			}
			g := f
			g.corr, g.neg, g.past = p.end == CueCorrection, p.end == CueNegation, false
			rest := ts[k+n:]
			read := false
			switch p.name {
			case "org":
				if p.end == CueCorrection && (knownPlace(rest) || studyPlace(rest)) {
					// "first day at Oxford", "my first day at uni": a
					// place or a school, where a first day is no job.
					return found
				}
				read = x.org(x.speaker.asPerson(), rest, g, true)
			case "role":
				// A job title has a head noun: "promoted to staff
				// engineer", not "promoted to the front of the queue".
				read = x.role(x.speaker.asPerson(), rest, g, true)
			}
			if !read {
				return found
			}
			found = true
			// One clause may say the end of one job and the start of the
			// next ("my last day at X was friday, first shift at Y
			// tomorrow"): read on after the comma that ends this one.
			next := k + n
			for next < len(ts) && !is(ts, next, ",", ";", "-") {
				next++
			}
			k, from = next, next+1
		}
	}
	return found
}

// studyPlace reports an org value that names a school or a university
// within its first words: "Uni", "Kingsbridge College", "Elm Street
// Primary".
func studyPlace(ts []token) bool {
	for k := 0; k < len(ts) && k < 5 && ts[k].kind == tWord; k++ {
		if studyWords[ts[k].low] || childSchools[ts[k].low] {
			return true
		}
	}
	return false
}

// studyWords name where one studies: [study-words] of lexicons/changes.txt.
var studyWords = wordSet("changes", "study-words")

// ownsChange reports whether the change matched at ts[k] is the
// speaker's, as owner says to tell.
func (x *extraction) ownsChange(owner slotOwner, ts []token, k int) bool {
	switch owner {
	case ownerMatch:
		return true
	case ownerSentence:
		return speaksOfSelf(x.sent) && !otherSubject(ts[:k])
	case ownerClause:
		from := k
		for from > 0 && ts[from-1].kind != tPunct {
			from--
		}
		return (is(ts, k, "am", "'m", "i'm") || hasWord(ts[:k], "i", "i'll")) && !otherSubject(ts[from:k])
	}
	if !selfOpens(ts[:k]) {
		return false
	}
	if hasWord(ts[:k], "i", "i've") {
		return true
	}
	// Chat dropped the subject: the change is the speaker's unless the
	// sentence named someone before it ("so proud of my sister - first
	// day at X tomorrow", "congrats to Priya, starting at X").
	return !namesSomeone(x.sent[:offsetOf(x.sent, ts)])
}

// namesSomeone reports a person named in ts: a relation ("my sister"), a
// third person's pronoun, or a name after a word that addresses or
// praises someone ("congrats to Priya", "proud of Tom"): the
// [names-someone] table of lexicons/cue-patterns.txt at every token.
func namesSomeone(ts []token) bool {
	for k := range ts {
		if e, ok := firstCueAt(namesSomeoneCues, ts, k); ok && e&cueSomeone != 0 {
			return true
		}
	}
	return false
}

// selfOpens reports whether the words before a change leave the speaker
// its subject: nothing (chat drops the "I"), "I" with auxiliaries and
// adverbs ("I just got", "I was", "I've finally"): [self-openers].
func selfOpens(ts []token) bool {
	_, _, ok := matchCue(selfOpenerCues, ts)
	return ok
}
