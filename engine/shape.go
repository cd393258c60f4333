package engine

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/embed/vectors"
	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// turnShape is what ranking knows of an episode's wording, beyond its
// words: computed once when the episode is indexed, read for every
// candidate. The signals are about the turn, not about a query: a turn that
// says nothing ("legend", "ok cool") or asks the agent for something
// ("explain compound interest") states nothing that is true of the user,
// however recent it is.
type turnShape = uint16 // kept on the index entry (index.Entry.Shape)

const (
	// shapeChatter: at most chatterWords content words, all common, and no
	// number, name, first person or third person: an acknowledgement or a
	// reaction.
	shapeChatter turnShape = 1 << iota
	// shapeRequest: asks the agent ("can you…", "explain…", "…?").
	shapeRequest
	// shapeNumber: says a number (an amount, a time, a date).
	shapeNumber
	// shapeSelf: the speaker speaks of themselves ("I", "I'm", "me").
	shapeSelf
	// shapeOther: opens on one of the speaker's people ("my sister …",
	// "my wife's brother …") and never speaks of the speaker.
	shapeOther
	// shapeOtherName: opens on a name's possession ("Rosa's birthday …",
	// "Jules' GP …"): someone else's, or a pet's or a product's, so it
	// weighs less than shapeOther.
	shapeOtherName
	// shapeChange: says that something changed ("… now", "switched",
	// "moved", "instead", "not anymore", "gave up on").
	shapeChange
	// shapeMine: speaks of the speaker in any role ("for me", "mine's
	// the 21st", "my mouth"), not only as the subject.
	shapeMine
	// shapeNames: a capitalised word past the first (a name, a place, a
	// product).
	shapeNames
	// shapeRule: states a standing rule, limit or preference ("never
	// flying with them again", "only automatics", "coriander is banned").
	shapeRule
	// shapeOpensOther: opens on one of the speaker's people or a name's
	// possession, whether or not the speaker appears later ("my flatmate
	// works at X, I'm so jealous"): see answeredAboutOther.
	shapeOpensOther
	// shapeOpensName: opens on a capitalised word that is neither a common
	// word nor a verb form, with no first person anywhere ("Dario just
	// bought a convertible"): most likely someone else's news.
	shapeOpensName
	// shapeNoPerson: speaks of no person at all: no first or second person,
	// no pronoun, none of anyone's people, and no name but of a thing
	// ("the Larchmont Gallery reopens in may": a name after "the" is a
	// place or a thing, not a person).
	shapeNoPerson
	// shapeConstraint: states a limit the speaker lives by, not a taste
	// ("allergic to walnuts", "can't have gluten", "never flying again",
	// "vegan"): the answer to "anything I can't eat?", where a rule word
	// alone ("only matcha now", "don't") is not.
	shapeConstraint
)

// ruleWords mark a turn that states a rule, a limit or a preference: what
// an agent doing a task for the user must respect.
var ruleWords = map[string]bool{
	"never": true, "always": true, "only": true, "nothing": true, "banned": true, "hate": true,
	"hates": true, "can't": true, "cannot": true, "won't": true, "needs": true, "must": true,
	"non-negotiable": true, "allergic": true, "allergy": true, "avoid": true, "prefer": true,
	"rather": true, "no": true, "don't": true, "mustn't": true,
}

// constraintWords state a limit the speaker lives by.
var constraintWords = map[string]bool{
	"allergic": true, "allergy": true, "allergies": true, "intolerant": true, "intolerance": true,
	"avoid": true, "avoiding": true, "never": true, "banned": true, "non-negotiable": true,
	"mustn't": true, "celiac": true, "coeliac": true, "vegan": true, "vegetarian": true,
	"pescatarian": true, "kosher": true, "halal": true, "keto": true, "teetotal": true,
	"sober": true, "hate": true, "hates": true, "rule": true,
}

// limitModals before one of limitVerbs state a limit: "can't have
// gluten", "don't eat pork". "don't drink coffee anymore" is left out:
// drinks change with taste ("only matcha now"), and "sober" or "teetotal"
// say the rule.
var limitModals = map[string]bool{
	"can't": true, "cant": true, "cannot": true, "don't": true, "dont": true, "won't": true, "shouldn't": true,
}

// limitVerbs follow limitModals in a limit ("can't eat", "can't stand").
var limitVerbs = map[string]bool{
	"eat": true, "have": true, "take": true, "touch": true, "stand": true, "handle": true,
	"tolerate": true, "digest": true,
}

// changeWords mark a turn that says something changed. Any one is enough:
// the mark only lifts a turn that the query's words already found.
var changeWords = map[string]bool{
	"now": true, "nowadays": true, "anymore": true, "instead": true, "switched": true,
	"switching": true, "moved": true, "moving": true, "quit": true, "dropped": true,
	"ditched": true, "replaced": true, "migrated": true, "migration": true, "changed": true,
	"reorg": true, "longer": true, "new": true, "gave": true, "left": true, "sold": true,
	"bought": true, "ported": true, "upgraded": true, "cancelled": true, "canceled": true,
	"joined": true, "retired": true, "swapped": true, "traded": true, "ripped": true, "scrapped": true,
	"dumped": true, "ditching": true, "swapping": true, "replacing": true, "rid": true,
	"scratch": true, "signed": true, "enrolled": true, "correction": true, "corrected": true,
}

// changeNeedsNext are change words only when one of the given words
// follows: "moved to Leeds", "moving house", not "genuinely moved" by a
// film; "signed up at the climbing gym", not "signed the lease".
var changeNeedsNext = map[string]map[string]bool{
	"moved": moveTargets, "moving": moveTargets, "signed": {"up": true},
}

// moveTargets are the words after "moved" that make it a move.
var moveTargets = map[string]bool{
	"to": true, "into": true, "in": true, "out": true, "house": true, "home": true, "back": true,
	"over": true, "abroad": true, "away": true, "across": true, "from": true, "off": true,
	"on": true, "up": true, "down": true, "here": true, "there": true,
}

// notChangeBeforeNow are words before "now" that make it no change: a
// duration ("vegetarian for eight years now") or this moment ("right now",
// "just now", "for now", "by now").
var notChangeBeforeNow = map[string]bool{
	"years": true, "year": true, "months": true, "month": true, "weeks": true, "week": true,
	"days": true, "ages": true, "while": true, "decade": true, "decades": true,
	"right": true, "just": true, "for": true, "by": true, "until": true, "till": true,
}

// leavesActivity reports whether the change word words[i] ("gave up",
// "quit", "dropped") leaves an activity rather than a thing: "gave up on
// fixing the flaky test in Jenkins", "quit tuning Postgres". What follows
// is a gerund, and the tool it names is still in use. Giving up using or
// running a thing ("gave up using Postgres") does leave it.
func leavesActivity(words []string, i int) bool {
	switch strings.ToLower(words[i]) {
	case "gave", "quit", "dropped":
	default:
		return false
	}
	j := i + 1
	for j < len(words) && (strings.EqualFold(words[j], "up") || strings.EqualFold(words[j], "on")) {
		j++
	}
	if j >= len(words) {
		return false
	}
	w := words[j]
	stem, ok := strings.CutSuffix(w, "ing")
	if !ok || capitalised(w) || len(stem) < 3 || strings.HasSuffix(stem, "th") || usingThing[strings.ToLower(w)] {
		return false
	}
	// A habit left is a change: "quit smoking in March", "gave up
	// drinking". An activity has an object ("quit tuning Postgres",
	// "gave up on fixing the flaky test", "gave up trying to…").
	return j+1 < len(words) && (capitalised(words[j+1]) || activityObjects[strings.ToLower(words[j+1])])
}

// habitStopped reports "stopped <doing>" at words[i]: a habit or a use
// left ("stopped biting my nails", "stopped using Trello"), not a stop on
// the way ("stopped by the bakery", "stopped at a cafe").
func habitStopped(words []string, i int) bool {
	if lw := strings.ToLower(words[i]); lw != "stopped" && lw != "stopping" || i+1 >= len(words) {
		return false
	}
	g := strings.ToLower(words[i+1])
	stem, ok := strings.CutSuffix(g, "ing")
	if !ok || len(stem) < 2 || capitalised(words[i+1]) {
		return false
	}
	// The habit stands alone or takes the speaker's own object ("biting
	// my nails"), or a time follows; "stopped expecting anything" says
	// a mood, not a habit.
	return usingThing[g] || i+2 >= len(words) || habitFollowers[strings.ToLower(words[i+2])]
}

// habitFollowers may follow a habit stopped: "stopped smoking in may",
// "stopped biting my nails", "stopped drinking completely".
var habitFollowers = map[string]bool{
	"my": true, "our": true, "in": true, "last": true, "since": true, "after": true, "this": true,
	"completely": true, "altogether": true, "entirely": true, "cold": true, "for": true,
	"two": true, "three": true, "a": true, "about": true, "like": true,
}

// activityObjects open the object of an activity given up: "quit tuning
// the cache", "gave up trying to fix it".
var activityObjects = map[string]bool{
	"the": true, "a": true, "an": true, "my": true, "our": true, "his": true, "her": true,
	"their": true, "this": true, "that": true, "these": true, "those": true, "to": true,
	"it": true, "them": true, "on": true, "with": true, "up": true, "out": true,
}

// usingThing are the gerunds whose object is the thing left, not an
// activity around it: "gave up using Vim", "quit running our own Jenkins".
var usingThing = map[string]bool{"using": true, "running": true, "hosting": true, "paying": true, "self-hosting": true}

// acquired reports whether words[i] begins a purchase: "got a Kindle",
// "picked up a new bike", "got myself a Brompton" (a thing named, or new),
// not "got it" or "got home".
func acquired(words []string, i int) bool {
	switch strings.ToLower(words[i]) {
	case "got", "getting", "picked":
	default:
		return false
	}
	j := i + 1
	if j < len(words) && strings.EqualFold(words[j], "up") {
		j++
	}
	if j+1 >= len(words) || !acquireDeterminers[strings.ToLower(words[j])] {
		return false
	}
	next := words[j+1]
	return capitalised(next) || newThings[strings.ToLower(next)]
}

var acquireDeterminers = map[string]bool{"a": true, "an": true, "the": true, "my": true, "myself": true, "our": true}

var newThings = map[string]bool{"new": true, "used": true, "second-hand": true, "secondhand": true, "refurbished": true}

// requestOpeners begin a turn that asks the agent for something.
var requestOpeners = map[string]bool{
	"explain": true, "suggest": true, "give": true, "tell": true, "show": true, "convert": true,
	"translate": true, "recommend": true, "summarise": true, "summarize": true, "write": true,
	"draft": true, "list": true, "find": true, "help": true, "remind": true, "set": true,
	"can": true, "could": true, "would": true, "will": true, "should": true, "what": true,
	"what's": true, "whats": true, "how": true, "why": true, "when": true, "where": true,
	"who": true, "which": true, "is": true, "are": true, "do": true, "does": true,
}

func shapeOf(v *memory.Version, an *search.Analyzer) turnShape {
	if v.Kind != memory.KindEpisodic {
		return 0
	}
	return shapeOfText(v.Content, an)
}

// discourseNo reports whether words[i], a "no" of text, answers or
// corrects ("wait no, it's the 21st", "no worries", "oh no") rather than
// refuses ("no cilantro, ever"): it ends its clause, or opens a set phrase.
func discourseNo(text string, words []string, i int) bool {
	if i+1 < len(words) && noPhrases[strings.ToLower(words[i+1])] {
		return true
	}
	if i > 0 && strings.EqualFold(words[i-1], "oh") {
		return true
	}
	// The i-th word's end in text, found as FieldsFunc found it.
	n, in := -1, false
	for k, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’'
		if word && !in {
			n++
		}
		if !word && in && n == i {
			rest := strings.TrimLeft(text[k:], " ")
			return rest == "" || strings.ContainsRune(",.!?;:", rune(rest[0]))
		}
		in = word
	}
	return n == i // the text's last word
}

// noPhrases follow a "no" that refuses nothing.
var noPhrases = map[string]bool{
	"worries": true, "idea": true, "problem": true, "problemo": true, "way": true, "thanks": true,
	"rush": true, "clue": true, "doubt": true, "kidding": true, "biggie": true, "prob": true,
	"probs": true, "offense": true, "offence": true, "wait": true,
}

// shapeOfText is the shape of a turn's text.
func shapeOfText(text string, an *search.Analyzer) turnShape {
	var s turnShape
	if asks(text) {
		s |= shapeRequest
	}
	words := strings.FieldsFunc(strings.ReplaceAll(text, "’", "'"), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	saidNo := false
	for i, w := range words {
		lw := strings.ToLower(w)
		if i == 0 && requestOpeners[lw] {
			s |= shapeRequest
		}
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			s |= shapeNumber
		}
		if next := changeNeedsNext[lw]; changeWords[lw] && (next == nil || i+1 < len(words) && next[strings.ToLower(words[i+1])]) &&
			(lw != "now" || i == 0 || !notChangeBeforeNow[strings.ToLower(words[i-1])]) && !leavesActivity(words, i) {
			s |= shapeChange
		}
		if acquired(words, i) || habitStopped(words, i) {
			s |= shapeChange
		}
		if ruleWords[lw] && (lw != "no" || !discourseNo(text, words, i)) {
			s |= shapeRule
		}
		if constraintWords[lw] || limitModals[lw] && i+1 < len(words) && limitVerbs[strings.ToLower(words[i+1])] ||
			lw == "ever" && saidNo {
			// "no coriander in anything, ever": a refusal for good.
			s |= shapeConstraint | shapeRule
		}
		saidNo = saidNo || lw == "no"
		switch lw {
		case "me", "my", "mine", "mine's", "myself":
			s |= shapeMine
		}
		switch lw {
		case "i", "i'm", "im", "i've", "ive", "i'd", "i'll":
			s |= shapeSelf
		}
	}
	switch relation, name := opensOnSomeoneElse(words); {
	case relation && s&shapeSelf == 0:
		s |= shapeOther | shapeOpensOther
	case name && s&shapeSelf == 0:
		s |= shapeOtherName | shapeOpensOther
	case relation || name:
		s |= shapeOpensOther
	}
	if s&(shapeSelf|shapeMine) == 0 && opensOnBareName(words) {
		s |= shapeOpensName
	}
	if namesSomeone(words) {
		s |= shapeNames
	}
	if !speaksOfAPerson(words) {
		s |= shapeNoPerson
	}
	if s&(shapeNumber|shapeSelf|shapeRequest|shapeNames) == 0 && !speaksOfSomeone(words) && commonWordsOnly(text, an, chatterWords) {
		s |= shapeChatter
	}
	return s
}

// chatterWords is the most content words small talk has: a reaction
// ("explains the delay then", "ok, clear now, thanks") rarely has more, and
// a short statement that has no more still names someone, a number or the
// speaker ("I'm vegan", "rent is 900"), or speaks of someone ("she loved
// the garden"). At 2, reactions of three words ranked first for questions
// they share no word with.
const chatterWords = 3

// thirdPersons are the pronouns by which a turn speaks of someone: a turn
// that does is a statement about them, however short.
var thirdPersons = map[string]bool{
	"he": true, "she": true, "him": true, "her": true, "his": true, "hers": true,
	"he's": true, "she's": true, "they": true, "them": true, "their": true, "they're": true,
}

func speaksOfSomeone(words []string) bool {
	for _, w := range words {
		if thirdPersons[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// personWords are the words by which a turn speaks of a person other than
// by name or relation: the speaker, the listener, someone else.
var personWords = map[string]bool{
	"i": true, "i'm": true, "im": true, "i've": true, "i'd": true, "i'll": true, "me": true, "my": true,
	"mine": true, "myself": true, "we": true, "we're": true, "our": true, "us": true, "ours": true,
	"you": true, "you're": true, "your": true, "yours": true,
}

// articles before a capitalised word make it the name of a place or a
// thing ("the Odeon", "a Brompton"), not of a person.
var articles = map[string]bool{"the": true, "a": true, "an": true}

// speaksOfAPerson reports whether a turn speaks of anyone: a pronoun, one
// of someone's people, or a name not after an article. A capitalised first
// word counts (it may be a name; an agent's turns all open on one).
func speaksOfAPerson(words []string) bool {
	thing := false // inside a capitalised run that an article opened
	for i, w := range words {
		lw := strings.ToLower(w)
		if personWords[lw] || thirdPersons[lw] || relationWord(strings.TrimSuffix(strings.TrimSuffix(lw, "'s"), "'")) {
			return true
		}
		if !capitalised(w) {
			thing = false
			continue
		}
		if i == 0 {
			return true
		}
		if articles[strings.ToLower(words[i-1])] {
			thing = true
		}
		if !thing {
			return true
		}
	}
	return false
}

// chatterRank is the frequency rank below which a word is common enough
// to make a short turn small talk: "nice", "fair", "legend" are; "walnuts",
// "allergic", "gluten" are not, so "allergic to walnuts" is no chatter.
const chatterRank = 20000

// commonWordsOnly reports whether text has at most max content words, all
// of them among the chatterRank most frequent English words. Discourse
// particles ("ok", "thanks", "actually") are common and no content word:
// "ok that's actually clear, thanks" says as little as "clear".
func commonWordsOnly(text string, an *search.Analyzer, max int) bool {
	tb := vectors.Load()
	n, common := 0, true
	an.Words(text, func(word, _ string) {
		if discourseParticles[word] {
			return
		}
		n++
		r, ok := tb.Lookup(word)
		common = common && ok && tb.Rank(r) < chatterRank
	})
	return n <= max && common
}

// discourseParticles are words chat uses to react, hedge or fill, never to
// say what: they carry no topic.
var discourseParticles = map[string]bool{
	"ok": true, "okay": true, "yeah": true, "yep": true, "yup": true, "yes": true, "sure": true,
	"thanks": true, "thank": true, "thx": true, "cheers": true, "lol": true, "haha": true,
	"tbh": true, "actually": true, "really": true, "honestly": true, "basically": true,
	"literally": true, "totally": true, "anyway": true, "oh": true, "ah": true, "hmm": true,
	"wow": true, "well": true,
}

// opensOnSomeoneElse reports whether a turn's first words name someone
// other than the speaker: "my sister …", "my wife's brother …", "Rosa's
// birthday …", "Jules' GP …".
func opensOnSomeoneElse(words []string) (relation, name bool) {
	if len(words) < 2 {
		return false, false
	}
	first := strings.ToLower(words[0])
	if first == "my" || first == "our" {
		second := strings.ToLower(words[1])
		second = strings.TrimSuffix(strings.TrimSuffix(second, "'s"), "'")
		return extract.IsRelationNoun(second), false
	}
	w := words[0]
	switch {
	case !capitalised(w):
		return false, false
	case strings.HasSuffix(w, "'"):
		return false, true // "Jules' GP …"
	case strings.HasSuffix(w, "'s"):
		// "Rosa's birthday", not "Priya's my manager now" ("Priya is").
		return false, !isContractionNext[strings.ToLower(words[1])]
	}
	return false, false
}

// bareNameRank is the frequency rank past which a capitalised first word
// reads as a name rather than the start of a sentence: "Dario" (19,294th)
// and "Lena" are past it; "Sold", "Finally" and "Switched" (6,180th) are
// not. Common names ("Tom", "Kate") are missed, which only leaves a turn
// as it was.
const bareNameRank = 10000

// opensOnBareName reports whether a turn's first word looks like a name
// doing something: capitalised, not a verb form, rare or unknown as a
// word, and not followed by "is", "are" or the like.
func opensOnBareName(words []string) bool {
	if len(words) < 2 || !capitalised(words[0]) {
		return false
	}
	switch strings.ToLower(words[1]) {
	case "is", "was", "has", "had", "isn't", "wasn't", "seems", "looks", "feels",
		"are", "were", "have", "aren't", "weren't", "seem", "look", "feel":
		// "Graz is so quiet on sundays", "Saturdays are for the
		// allotment": a place or a thing described, as often by the
		// speaker as about anyone.
		return false
	}
	lw := strings.ToLower(words[0])
	if strings.ContainsRune(lw, '\'') || strings.HasSuffix(lw, "ed") || strings.HasSuffix(lw, "ing") || lw == "i" {
		return false
	}
	tb := vectors.Load()
	r, ok := tb.Lookup(lw)
	return !ok || tb.Rank(r) >= bareNameRank
}

// answeredAboutOther reports whether every clause of a turn that holds one
// of the query's words is about someone else: "my flatmate works at
// Quillon, I'm so jealous" answers "where do I work?" only in the
// flatmate's clause; the speaker is in an aside. A clause is the speaker's
// when it says "I", "me" or "myself", or "my" before anything but one of
// the speaker's people. No clause holding a query word is no answer.
func answeredAboutOther(text string, qterms []string, an *search.Analyzer) bool {
	matched := false
	for _, clause := range strings.FieldsFunc(text, func(r rune) bool {
		return strings.ContainsRune(",;:.!?()", r) || r == '—' || r == '–'
	}) {
		if !sharesTerm(an.QueryTerms(clause), qterms) {
			continue
		}
		matched = true
		ws := lowerWords(clause)
		for i, w := range ws {
			switch w {
			case "i", "i'm", "im", "i've", "ive", "i'd", "i'll", "me", "myself", "mine":
				return false
			case "my":
				if i+1 >= len(ws) || !extract.IsRelationNoun(strings.TrimSuffix(strings.TrimSuffix(ws[i+1], "'s"), "'")) {
					return false
				}
			}
		}
	}
	return matched
}

func sharesTerm(a, b []string) bool {
	for _, t := range a {
		if slices.Contains(b, t) {
			return true
		}
	}
	return false
}

// isContractionNext are words after "Name's" that read it as "Name is"
// or "Name has": a possession is followed by what is possessed.
var isContractionNext = map[string]bool{
	"my": true, "our": true, "your": true, "his": true, "her": true, "their": true, "the": true,
	"a": true, "an": true, "in": true, "at": true, "on": true, "with": true, "from": true,
	"back": true, "now": true, "not": true, "been": true, "got": true, "gone": true, "going": true,
	"just": true, "also": true, "still": true, "always": true, "never": true, "very": true,
	"so": true, "really": true, "here": true, "there": true, "off": true, "out": true, "away": true,
}

// namesSomeone reports whether a word after the first is capitalised: a
// name, a place, a product.
func namesSomeone(words []string) bool {
	for i, w := range words {
		if i > 0 && capitalised(w) && !strings.EqualFold(w, "i") {
			return true
		}
	}
	return false
}

func capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// changeWindow is how many of the best candidates demoteReplaced compares.
const changeWindow = 10

// demoteReplaced lowers a turn that a newer turn says changed: among the
// best candidates, an earlier turn that shares a matched query word with a
// later one marked shapeChange ("the blog runs on Jekyll" and "switched
// the blog to Hugo now" for "what does my blog run on?") states the value
// that was replaced. It reports whether it changed a score; the caller
// sorts again. Only for questions about what holds now.
func demoteReplaced(st *nsState, cands []*scored, qterms []string, r Ranking, an *search.Analyzer) bool {
	if r.ChangeCue == 0 || len(qterms) == 0 {
		return false
	}
	top := cands[:min(len(cands), changeWindow)]
	var matched [changeWindow][]string
	var shapes [changeWindow]turnShape
	have := false
	for i, c := range top {
		_, lex := c.channels.Get(ChannelLexical)
		if !lex {
			continue
		}
		switch {
		case c.en.V.Kind == memory.KindEpisodic:
			shapes[i] = c.en.Shape
		case isNote(c.en.V):
			// A statement no rule read, kept as a note (as remember
			// keeps "changed the wifi pw to …"): a turn in all but kind.
			shapes[i] = shapeOfText(c.en.V.Content, an)
		default:
			continue
		}
		for _, ts := range st.ExplainLexical(c.en.V.ID, qterms) {
			matched[i] = append(matched[i], ts.Term)
		}
		have = have || shapes[i]&shapeChange != 0 && len(matched[i]) > 0
	}
	if !have {
		return false
	}
	changed := false
	for i, old := range top {
		if len(matched[i]) == 0 {
			continue
		}
		for j, nw := range top {
			if j == i || len(matched[j]) == 0 || shapes[j]&shapeChange == 0 || !nw.en.V.ObservedAt.After(old.en.V.ObservedAt) {
				continue
			}
			if slices.ContainsFunc(nw.terms, func(t memory.Term) bool { return t.Name == "other_subject" }) {
				// About someone else ("my neighbour is scared of cats
				// now" after "we adopted a cat"): it changes nothing of
				// what the question asks.
				continue
			}
			if sharesAny(matched[i], matched[j]) {
				old.terms = append(old.terms, memory.Term{Name: "replaced", Value: -r.ChangeCue})
				old.final -= r.ChangeCue
				changed = true
				break
			}
		}
	}
	return changed
}

// isNote reports a statement no rule read, kept under its speaker.
func isNote(v *memory.Version) bool {
	return v.Kind == memory.KindSemantic && index.IsNoteKey(v.Key)
}

func sharesAny(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// followChanges puts a later turn that says a top turn's value changed
// right above it: "training plan for the Rotterdam half" is replaced by
// "pulled out of Rotterdam and signed up for the Eindhoven 10k instead",
// which shares no word with "what race am I training for?" but names the
// old value with a change cue. The names of the best few turns are looked
// up; a later turn marked shapeChange that names one takes the old turn's
// score plus a little, and the old turn loses ChangeCue. It returns the
// candidates, with any turn it found that no channel had offered, and
// whether it changed a score.
//
// A current fact is followed the same way, its value taking the names'
// place: "the team uses teamcity for the build pipeline" goes below "finally
// got rid of teamcity, everything runs on buildkite now", a change the rules
// read no slot in.
//
// For a question that asks what holds now ("who runs the Cork office right
// now?"), a later turn that names the top turn's names follows it with no
// change word when it says someone stands in for a while (holdsForAWhile):
// "Saoirse runs the office" is overtaken by "Saoirse's off sick, Fionn's
// acting manager until she's back"; "I'm off to Cork tomorrow" is a trip.
func (e *Engine) followChanges(st *nsState, cands []*scored, keep func(string) bool, r Ranking, now bool, qterms []string) ([]*scored, bool) {
	if r.ChangeCue == 0 {
		return cands, false
	}
	const tops = 3
	byID := make(map[string]*scored, len(cands))
	for _, c := range cands {
		byID[c.en.V.ID] = c
	}
	changed := false
	for i := 0; i < min(tops, len(cands)); i++ {
		old := cands[i]
		if !old.clearlyRelevant() {
			// Near the top of a small store only for want of better
			// ("decided on sqlc instead of gorm" for "where does the api
			// key go?"): what changed it after answers nothing either.
			continue
		}
		if slices.ContainsFunc(old.terms, func(t memory.Term) bool { return t.Name == "other_subject" }) {
			// Ranked high though about someone else ("my manager is
			// Felix" for "what's my kid's name?"): what replaced its
			// value answers the question no better.
			continue
		}
		var names []string
		anyTurn := now // a later turn follows without a change cue
		need := 1      // names a later turn must share
		switch v := old.en.V; {
		case saidAsIs(v):
			names = nameTerms(v.Content, e.analyzer)
			if len(names) == 0 {
				// A turn that names nothing ("my usual order is a flat
				// white with oat milk") is followed by its own words
				// beyond the question's: a later turn that says two of
				// them and that something was left ("switched from flat
				// whites to cold brew") speaks of the same thing.
				names = slices.DeleteFunc(e.analyzer.QueryTerms(v.Content), func(t string) bool { return slices.Contains(qterms, t) })
				need = 2
				anyTurn = false // and says it changed
			}
		case v.Kind == memory.KindSemantic && v.Value != "" && v.Status.Live():
			// A fact's value is its name, capitalised or not: chat says
			// "got rid of teamcity" as readily as "TeamCity". Only a turn
			// that says something changed overtakes it: a later mention
			// ("I might switch to VS Code at some point" after "VS Code,
			// before Vim") leaves the fact as it is.
			names = slices.Compact(slices.Sorted(slices.Values(e.analyzer.QueryTerms(v.Value))))
			anyTurn = false
		}
		if len(names) == 0 {
			continue
		}
		// keep reads the map of every entry: under st.RLock, as the
		// channels hold it, or a remember's put races the look-up.
		st.RLock()
		hits := st.Lexical(names, 20, keep)
		st.RUnlock()
		own := names // the words a casual quit may name
		named := len(hits)
		if need > 1 {
			// The thing given up may be a word of the question too
			// ("sugar" in "do I bake with sugar?"): such turns are
			// looked up by the older turn's own words, and only a
			// casual quit of one of them follows from that look-up.
			own = e.analyzer.QueryTerms(old.en.V.Content)
			st.RLock()
			hits = append(hits, st.Lexical(own, 20, keep)...)
			st.RUnlock()
		}
		for hi, h := range hits {
			if h.ID == old.en.V.ID {
				continue
			}
			st.RLock()
			en, ok := st.EntryLocked(h.ID)
			st.RUnlock()
			if !ok || !saidAsIs(en.V) || !en.V.ObservedAt.After(old.en.V.ObservedAt) {
				continue
			}
			sh := en.Shape
			if en.V.Kind != memory.KindEpisodic {
				sh = shapeOfText(en.V.Content, e.analyzer) // a note keeps no shape
			}
			// "been off Twitter since March" after "I scroll Twitter
			// every morning": a casual quit of the older turn's own word.
			quit := quitsNamed(en.V.Content, own, e.analyzer)
			if hi >= named && !quit {
				continue
			}
			if sh&shapeChange == 0 && !quit && (!anyTurn || !holdsForAWhile(en.V.Content)) || sh&shapeRequest != 0 {
				// A later turn needs a change cue, or, for what holds
				// now, a word that someone stands in for a while: "off
				// to Berlin tomorrow" is a trip, no news of the office.
				continue
			}
			if !saidAsIs(old.en.V) && len(st.ExplainLexical(h.ID, names)) < len(names) {
				continue // names part of the value: "green tea" is no "black tea"
			}
			if need > 1 && !quit && (len(st.ExplainLexical(h.ID, names)) < need || !saysLeft(en.V.Content)) {
				continue // two shared words, and a word that says something was left
			}
			nw, found := byID[h.ID]
			if !found {
				nw = &scored{en: en, terms: make(memory.Terms, 0, maxTerms), via: "a later turn that says a top candidate's value changed"}
				byID[h.ID] = nw
				cands = append(cands, nw)
			}
			if lift := old.final + 0.01 - nw.final; lift > 0 {
				nw.terms = append(nw.terms, memory.Term{Name: "change", Value: lift})
				nw.final += lift
			}
			old.terms = append(old.terms, memory.Term{Name: "replaced", Value: -r.ChangeCue})
			old.final -= r.ChangeCue
			changed = true
			break
		}
	}
	return cands, changed
}

// followSuperseded puts the fact that replaced a top turn's own fact right
// above the turn: "we track bugs in Trello these days" gave the tracker
// Trello, and "let's go with Asana instead", later, gave it Asana; the old
// turn still shares the question's words ("where do we track bugs?"), the
// fact that holds now may share none. Only a turn all of whose facts are
// history (source "stale") is followed, to the live end of its facts'
// supersession chain; the turn keeps its place below. It returns the
// candidates, with any fact no channel had offered, and whether it
// changed a score.
func (e *Engine) followSuperseded(st *nsState, cands []*scored, keep func(string) bool, qterms []string) ([]*scored, bool) {
	const tops = 3
	changed := false
	for i := 0; i < min(tops, len(cands)); i++ {
		old := cands[i]
		v := old.en.V
		if old.source != "stale" || v.Kind != memory.KindEpisodic || len(v.EvidenceEpisodeIDs) == 0 {
			continue
		}
		var head *entry
		st.RLock()
		for _, id := range st.FactsOfEpisodeLocked(v.EvidenceEpisodeIDs[0]) {
			en, ok := st.EntryLocked(id)
			if !ok || en.V.SupersededBy == "" || index.IsNoteKey(en.V.Key) || namesValue(qterms, en.V.Value, e.analyzer) {
				// A note replaced by a note is a statement said again
				// otherwise, not a value; a question that names the old
				// value ("what did we use Trello for?") asks about it.
				continue
			}
			for hops := 0; hops < 8 && en.V.SupersededBy != ""; hops++ {
				if en, ok = st.EntryLocked(en.V.SupersededBy); !ok {
					break
				}
			}
			if ok && en.V.SupersededBy == "" && en.Status.Live() && keep(en.V.ID) {
				head = en
				break
			}
		}
		st.RUnlock()
		if head == nil {
			continue
		}
		var nw *scored
		for _, c := range cands {
			if c.en.V.ID == head.V.ID {
				nw = c
				break
			}
		}
		if nw == nil {
			nw = &scored{en: head, terms: make(memory.Terms, 0, maxTerms), via: "the fact that replaced a top turn's own"}
			cands = append(cands, nw)
		}
		if lift := old.final + 0.01 - nw.final; lift > 0 {
			nw.terms = append(nw.terms, memory.Term{Name: "replaced_fact", Value: lift})
			nw.final += lift
			changed = true
		}
	}
	return cands, changed
}

// namesValue reports whether the query's terms hold every term of value.
func namesValue(qterms []string, value string, an *search.Analyzer) bool {
	vt := an.QueryTerms(value)
	for _, t := range vt {
		if !contains(qterms, t) {
			return false
		}
	}
	return len(vt) > 0
}

// interimWords say that a state holds for a while: someone away, someone
// standing in ("acting", "covering", "until she's back", "off sick").
var interimWords = map[string]bool{
	"acting": true, "covering": true, "covers": true, "cover": true, "interim": true,
	"temporarily": true, "standing": true, "stepping": true, "filling": true, "until": true,
	"till": true, "sick": true, "sabbatical": true, "maternity": true,
	"paternity": true, "stand-in": true, "deputising": true, "deputizing": true,
}

// holdsForAWhile reports whether text says a state holds for a while, by a word
// of interimWords.
func holdsForAWhile(text string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '-'
	}) {
		if interimWords[w] {
			return true
		}
	}
	return false
}

// saidAsIs reports a turn, or a note (a statement remembered as said,
// which stands in for its turn).
func saidAsIs(v *memory.Version) bool {
	return v.Kind == memory.KindEpisodic || v.Kind == memory.KindSemantic && index.IsNoteKey(v.Key)
}

// nameTerms returns the index terms of the capitalised words of a turn
// (names, places, products: "Rotterdam", "Sublime"); its first word only
// when it is no common word.
func nameTerms(text string, an *search.Analyzer) []string {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' })
	var out []string
	for i, w := range words {
		if !capitalised(w) || w == "I" || i == 0 && commonWordsOnly(w, an, 1) && !nameBeforeVerb(words) {
			continue // a sentence's first word is a name only if no common word, or a word a person's verb follows
		}
		out = append(out, an.QueryTerms(strings.TrimSuffix(w, "."))...)
	}
	return out
}

// nameBeforeVerb reports a sentence that opens on a word then a verb said
// of a person ("Ravi owns the payments API", "Ravi's on leave", "Tom is
// covering"): the first word is a name however common it is as a word.
func nameBeforeVerb(words []string) bool {
	if len(words) < 2 {
		return false
	}
	if strings.HasSuffix(words[0], "'s") {
		return true
	}
	switch strings.ToLower(words[1]) {
	case "owns", "runs", "leads", "handles", "manages", "covers", "is", "was", "has", "works", "lives", "left", "joined", "quit", "moved":
		return true
	}
	return false
}

// speaksAsWe reports a turn in the first person plural.
func speaksAsWe(text string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(text, "’", "'")), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	}) {
		switch w {
		case "we", "we're", "we've", "we'd", "we'll", "our", "us":
			return true
		}
	}
	return false
}

// unpenalised is a candidate's final score without the other_subject
// penalty.
func unpenalised(c *scored) float64 {
	f := c.final
	for _, t := range c.terms {
		if t.Name == "other_subject" {
			f -= t.Value
		}
	}
	return f
}

// followReplies lifts, for a question about the user, the user's own
// reply after a top turn about other people: "Kwame wants a double
// espresso, Lise gets a chai" is followed by "just a cortado for me", and
// the reply, which shares no word with "what's my usual coffee order?",
// is the answer. The reply is the next turn of the same speaker in the same
// sitting (an agent's turn may come between); it takes the top turn's
// score plus a little. It returns the candidates, with any reply no
// channel had offered, and whether it changed a score.
func (e *Engine) followReplies(st *nsState, cands []*scored, keep func(string) bool, asked []string) ([]*scored, bool) {
	const tops = 3
	changed := false
	// The best turns as their words match, before the penalty for being
	// about someone else: that penalty is what sends the reply's turn
	// down ("june is chaos, everyone's birthday: …" before "and mine's
	// the 21st" for "when is my birthday?").
	byMatch := slices.Clone(cands[:min(len(cands), 4*tops)])
	slices.SortStableFunc(byMatch, func(a, b *scored) int { return cmp.Compare(unpenalised(b), unpenalised(a)) })
	for i := 0; i < min(tops, len(byMatch)); i++ {
		top := byMatch[i]
		v := top.en.V
		sh := top.en.Shape
		if v.Kind != memory.KindEpisodic || sh&(shapeSelf|shapeRequest) != 0 || sh&(shapeNames|shapeOther|shapeOtherName) == 0 && !top.aboutOther {
			continue // not a turn about other people
		}
		if sh&(shapeOther|shapeOtherName|shapeOpensName) == 0 && len(asked) > 0 && namesOnly(v.Content, asked) {
			continue // "the Lisbon flight is on the 4th" for "when do I fly to Lisbon?": what is asked, not others
		}
		if sh&(shapeOther|shapeOtherName|shapeOpensName) == 0 && (sh&shapeChange != 0 || speaksAsWe(v.Content) || sh&shapeMine != 0 && !namesRelation(v.Content)) {
			// "we moved the wiki off Confluence", "sold the Golf!! got
			// a secondhand Zoe", "my flight to Lisbon is on the 3rd":
			// the speaker's (or the speaker's team's) own news names
			// things, not other people; the speaker's next line is news
			// of its own, no reply.
			continue
		}
		st.RLock()
		_, after := st.NeighboursLocked(v, 0, 2, ContextGap, keep, nil)
		st.RUnlock()
		var reply *entry
		for _, en := range after {
			if en.V.Subject == v.Subject {
				reply = en
				break
			}
		}
		if reply == nil || reply.Shape&(shapeSelf|shapeMine) == 0 || reply.Shape&(shapeRequest|shapeChange) != 0 {
			// A turn that says something changed ("I switched my phone
			// plan to …") is news of its own, not the speaker's answer
			// to what the others have or want.
			continue
		}
		var rc *scored
		for _, c := range cands {
			if c.en == reply || c.en.V.ID == reply.V.ID {
				rc = c
				break
			}
		}
		if rc == nil {
			rc = &scored{en: reply, terms: make(memory.Terms, 0, maxTerms), via: "the user's reply after a top turn about others"}
			cands = append(cands, rc)
		}
		if lift := unpenalised(top) + 0.01 - rc.final; lift > 0 {
			rc.terms = append(rc.terms, memory.Term{Name: "reply", Value: lift})
			rc.final += lift
			changed = true
		}
	}
	return cands, changed
}

// namesRelation reports whether text names one of the speaker's people
// by their relation, in the singular or the plural ("my cousins'
// birthdays are all in March"): news of other people, though said with
// "my".
func namesRelation(text string) bool {
	for _, w := range lowerWords(text) {
		base := strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
		if extract.IsRelationNoun(base) || strings.HasSuffix(base, "s") && extract.IsRelationNoun(strings.TrimSuffix(base, "s")) {
			return true
		}
	}
	return false
}

// namesOnly reports whether text has names (capitalised words past the
// first, as namesIn reads them) and every one is one of names.
func namesOnly(text string, names []string) bool {
	in := namesIn(text)
	for _, n := range in {
		if !slices.Contains(names, n) {
			return false
		}
	}
	return len(in) > 0
}

// someoneElsesRelation reports whether text speaks of rel as someone
// else's ("Petra's sister", "my partner's manager") or of rel's own
// people ("my wife's brother") and never as the user's own rel alone: a
// question about the user's sister is not answered by Petra's.
func someoneElsesRelation(text, rel string) bool {
	ws := lowerWords(text)
	other := false
	for i, w := range ws {
		base := strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
		if base != rel {
			continue
		}
		prev := ""
		if i > 0 {
			prev = ws[i-1]
		}
		possessed := prev != "my" && prev != "our" && (strings.HasSuffix(prev, "'s") || strings.HasSuffix(prev, "'"))
		ofAnother := w != base && i+1 < len(ws) && extract.IsRelationNoun(strings.TrimSuffix(ws[i+1], "'s"))
		if !possessed && !ofAnother {
			return false // the user's own rel, said plainly
		}
		other = true
	}
	return other
}

// ownOtherRelationOnly reports whether text speaks of one of the user's
// own people ("my manager", "our older son") and of no one in rel's family
// (see sameRelation): "my manager is Felix" says nothing of the user's kid,
// "my daughter starts school" does.
func ownOtherRelationOnly(text, rel string) bool {
	ws := lowerWords(text)
	own := false
	for i, w := range ws {
		base := strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
		if !extract.IsRelationNoun(base) {
			continue
		}
		if sameRelation(base, rel) {
			return false
		}
		j := i - 1
		if j > 0 && describingWords[ws[j]] {
			j--
		}
		if j >= 0 && (ws[j] == "my" || ws[j] == "our") {
			own = true
		}
	}
	return own
}

// relationFamilies are relation nouns that can name the same person: a
// question about "my kid" is answered by a turn about "my daughter", one
// about "my boss" by "my manager".
var relationFamilies = [][]string{
	{"kid", "kids", "child", "children", "son", "daughter"},
	{"wife", "husband", "partner", "spouse", "girlfriend", "boyfriend", "fiance", "fiancé", "fiancée"},
	{"mother", "mom", "mum", "father", "dad", "parents", "stepmom", "stepdad"},
	{"sister", "brother", "sibling", "siblings", "twin"},
	{"grandma", "grandmother", "grandpa", "grandfather", "grandparents"},
	{"boss", "manager", "lead"},
	{"friend", "friends", "bestie", "buddy", "pal", "mate"},
	{"colleague", "colleagues", "coworker", "co-worker", "coworkers", "teammate", "teammates"},
	{"roommate", "flatmate"},
	{"neighbor", "neighbour"},
	{"cofounder", "co-founder"},
	{"client", "clients", "customer", "customers"},
	{"report", "reports"},
}

var relationFamily = func() map[string]int {
	m := map[string]int{}
	for i, f := range relationFamilies {
		for _, w := range f {
			m[w] = i + 1
		}
	}
	return m
}()

// sameRelation reports whether two relation nouns can name the same person.
func sameRelation(a, b string) bool {
	if a == b {
		return true
	}
	fa := relationFamily[a]
	return fa != 0 && fa == relationFamily[b]
}

// beforeClause splits a question about what came before a value into what
// it asks and the value ("which bank was I with before Monzo?" → "which
// bank was I with", "Monzo"). ok is false when the question has no such
// clause or the clause is long (a clause, not a value: "before we moved").
func beforeClause(q string) (asks, value string, ok bool) {
	low := strings.ToLower(q)
	i := strings.LastIndex(low, " before ")
	if i < 0 {
		return "", "", false
	}
	value = strings.TrimRight(strings.TrimSpace(q[i+len(" before "):]), "?!. ")
	if value == "" || strings.Count(value, " ") > 3 {
		return "", "", false
	}
	return q[:i], value, true
}

// findEarlier answers a question about what came before a value with the
// turn said before it: "which bank was I with before Monzo?" is answered by
// "Barclays charged me a fee…", said weeks before "moved everything over to
// Monzo", which is what the question's words find. The turn that names the
// value is the best-ranked one; the earlier turns are searched by meaning
// with the question less its before-clause ("which bank was I with"), and
// the closest goes first, the value's turn just after. It returns the
// candidates and whether it changed them.
//
// The earlier turn is looked for among the later turn's speaker's, or, for
// a question about the user whose value only the agent named ("which town
// did I live in before X?" where the agent said "welcome to X!"), among
// the user's: the agent's earlier turns hold the agent's remarks, not where
// the user lived.
func (e *Engine) findEarlier(ctx context.Context, st *nsState, cands []*scored, query string, self bool, keep func(string) bool, r Ranking) ([]*scored, bool) {
	asks, value, ok := beforeClause(query)
	if !ok || len(cands) == 0 {
		return cands, false
	}
	vterms := e.analyzer.QueryTerms(value)
	var later *scored
	for _, c := range cands[:min(len(cands), 3)] {
		if c.en.V.Kind == memory.KindEpisodic && containsAll(e.analyzer.QueryTerms(c.en.V.Content), vterms) {
			later = c
			break
		}
	}
	if later == nil {
		return cands, false
	}
	ectx := ctx
	if e.fallback != nil {
		// A model provider gets the query budget here too; past it the
		// earlier turn is not looked for.
		var cancel context.CancelFunc
		ectx, cancel = context.WithTimeout(ctx, e.queryBudget)
		defer cancel()
	}
	vecs, err := e.embedder.Embed(ectx, []string{asks})
	if err != nil || len(vecs) != 1 {
		return cands, false
	}
	speaker := later.en.V.Subject
	if self && isAgentSpeaker(speaker) {
		speaker = DefaultSpeaker
	}
	before := func(id string) bool {
		if !keep(id) {
			return false
		}
		en, ok := st.EntryLocked(id)
		// Said by whoever said the later turn: the user's earlier
		// bank is in the user's words, not in the agent's "good banks
		// are rare".
		return ok && en.V.Kind == memory.KindEpisodic && en.V.ObservedAt.Before(later.en.V.ObservedAt) && en.V.Subject == speaker &&
			en.Shape&(shapeRequest|shapeChatter) == 0 && !containsAll(e.analyzer.QueryTerms(en.V.Content), vterms)
	}
	floor := r.SemanticFloorAlone
	if later.en.Shape&shapeChange != 0 {
		// "left the Harbour Street dentist, the Elm Road practice
		// has me now" says what came before itself: an earlier turn
		// goes above it only when it clearly speaks of the same thing.
		floor = r.SemanticFloor
	}
	st.RLock()
	hits := st.Semantic(vecs[0], 1, floor, before)
	st.RUnlock()
	if len(hits) == 0 {
		return cands, false
	}
	var found *scored
	for _, c := range cands {
		if c.en.V.ID == hits[0].ID {
			found = c
		}
	}
	if found == nil {
		st.RLock()
		en, ok := st.EntryLocked(hits[0].ID)
		st.RUnlock()
		if !ok {
			return cands, false
		}
		found = &scored{en: en, terms: make(memory.Terms, 0, maxTerms)}
		cands = append(cands, found)
	}
	if lift := later.final + 0.01 - found.final; lift > 0 {
		found.terms = append(found.terms, memory.Term{Name: "previous", Value: lift})
		found.final += lift
	}
	return cands, true
}

// servePrevious answers "what editor did I use before Zed?" without
// history served, when Zed is the value of a live fact among the top
// three: the value that fact's slot held before it (the version it
// superseded, else the slot's newest history of another value) is served
// as if history were, and goes first, above every candidate. That one
// version is all the question asks for; the rest of the history stays
// unserved. It returns the candidates and whether it added one.
func (e *Engine) servePrevious(st *nsState, cands []*scored, p RetrieveParams, q queryFacts, r Ranking, now time.Time) ([]*scored, bool) {
	_, value, ok := beforeClause(p.Query)
	if !ok || len(cands) == 0 {
		return cands, false
	}
	vterms := e.analyzer.QueryTerms(value)
	hp := p
	hp.IncludeHistory = true
	var prev *entry
	st.RLock()
	for _, c := range cands[:min(len(cands), 3)] {
		v := c.en.V
		if v.Kind == memory.KindEpisodic || !v.Status.Live() || len(c.en.KeyTerms) == 0 || !containsAll(e.analyzer.QueryTerms(v.Value), vterms) {
			continue
		}
		for _, id := range st.KeyPostingsLocked(c.en.KeyTerms[0]) {
			en, ok := st.EntryLocked(id)
			if !ok || en.V.MemoryID != v.MemoryID || !en.V.Status.History() || strings.EqualFold(en.V.Value, v.Value) || !servableLocked(st, en.V, hp) {
				continue
			}
			switch {
			case prev == nil:
				prev = en
			case (en.V.SupersededBy == v.ID) != (prev.V.SupersededBy == v.ID):
				if en.V.SupersededBy == v.ID {
					prev = en
				}
			case en.V.Seq > prev.V.Seq:
				prev = en
			}
		}
		if prev != nil {
			break
		}
	}
	st.RUnlock()
	if prev == nil {
		return cands, false
	}
	var found *scored
	for _, c := range cands {
		if c.en.V.ID == prev.V.ID {
			found = c
		}
	}
	if found == nil {
		found = &scored{en: prev, terms: make(memory.Terms, 0, maxTerms)}
		e.rank(st, found, p, q, r, now)
		cands = append(cands, found)
	}
	top := cands[0]
	if top == found && len(cands) > 1 {
		top = cands[1]
	}
	if lift := top.final + 0.01 - found.final; lift > 0 {
		found.terms = append(found.terms, memory.Term{Name: "previous", Value: lift})
		found.final += lift
	}
	return cands, true
}

// liftReplaced answers "where did we host it before X?" when X is a fact's
// current value: the version that fact superseded goes just above it. The
// fact names X and the question's words, so it ranks first, yet X is the
// one value the question rules out. Only a fact's value is compared, not a
// turn's words: "switched from Y to X" names both.
func (e *Engine) liftReplaced(cands []*scored, query string) bool {
	_, value, ok := beforeClause(query)
	if !ok {
		return false
	}
	vterms := e.analyzer.QueryTerms(value)
	for _, c := range cands[:min(len(cands), 3)] {
		v := c.en.V
		if v.Kind == memory.KindEpisodic || !v.Status.Live() || !containsAll(e.analyzer.QueryTerms(v.Value), vterms) {
			continue
		}
		for _, p := range cands {
			if p.previous && p.en.V.SupersededBy == v.ID {
				if lift := c.final + 0.01 - p.final; lift > 0 {
					p.terms = append(p.terms, memory.Term{Name: "previous", Value: lift})
					p.final += lift
				}
				return true
			}
		}
	}
	return false
}

func containsAll(terms, want []string) bool {
	for _, w := range want {
		if !slices.Contains(terms, w) {
			return false
		}
	}
	return len(want) > 0
}

// agentRemark reports whether an agent's turn states nothing the question
// asks about: for a question about the user, a turn that names no one and
// no number ("Good dentists are hard to find."); for a question that names
// someone, a turn that does not name them ("where is Oona working?" is not
// answered by "Ticket to Ride or Codenames both work well with four.").
// An agent's turn that names something is left alone for a question about
// the user: "Welcome to Vienna!" may be the only turn naming the new home
// (lowering the agent's turns that name only what it brought up itself
// made a planted value come first on one more never-stated question).
func agentRemark(en *entry, q queryFacts) bool {
	if len(q.names) > 0 && !q.self && !q.firstPerson {
		said := namesIn("x " + en.V.Content)
		for _, n := range q.names {
			if slices.Contains(said, n) {
				return false
			}
		}
		return true
	}
	return (q.self || q.firstPerson || q.ours) && en.Shape&(shapeNames|shapeNumber) == 0
}
