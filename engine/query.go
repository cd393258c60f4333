package engine

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/mnemon-dev/mnemon/extract"
)

// What ranking reads of a query's wording. The query is split into words
// once per retrieval (readQuery); each question below reads those words.

// queryFacts is what ranking reads of the query, once per retrieval.
type queryFacts struct {
	terms        []string  // the query's terms, with the user's for a first-person question
	past         bool      // asks about earlier values, with history served
	aboutPast    bool      // asks about earlier values, served or not
	namesSubject bool      // names the subject of some candidate
	subjects     []string  // those subjects' terms
	firstPerson  bool      // speaks in the first person singular
	ours         bool      // speaks in the first person plural ("our landlord")
	self         bool      // asks about the user ("what car do I drive?")
	current      bool      // asks what holds now ("… at the moment?", "currently")
	task         bool      // asks the agent to do something ("book me a flight")
	meal         bool      // speaks of food or a meal ("book a seafood place", "order dinner")
	domains      domainSet // for a task, the domains its words fall in (food, travel, …)
	rule         bool      // asks for the user's rules ("anything I should avoid?")
	relation     string    // asks about one of the user's people ("my sister's name")
	team         string    // the team's subject term, for a question in the first person (set by retrieve)
	bestFused    float64   // the best candidate's fused score (set by retrieve)
	possession   string    // asks about something of the user's ("my GP", "my birthday")
	possessed    string    // asks about a thing of that possession ("my cat's vet": vet)
	number       bool      // asks for a quantity ("how much", "how many")
	names        []string  // the names it says, lower-case ("where is Oona working?")
	event        bool      // asks about a happening or a quantity ("when did Ida sell the boat?"), not a standing attitude
}

// readQuery reads a query's wording; history says superseded versions are
// served.
func readQuery(query string, history bool) queryFacts {
	ws := lowerWords(query)
	past := asksAboutPast(ws)
	q := queryFacts{
		past: history && past, aboutPast: past, firstPerson: firstPerson(ws), ours: plural(ws), self: aboutTheUser(ws),
		number: asksForNumber(ws), current: asksAboutNow(ws), task: asksForTask(query, ws), meal: aboutFood(ws), rule: asksForRule(ws), relation: askedRelation(ws),
		possession: askedPossession(ws), possessed: askedPossessed(ws), names: namesIn(query), event: asksForEvent(ws),
	}
	if q.task {
		q.domains = domainsOf(ws)
		// "book us a table friday, somewhere thai" is about a meal though
		// it names none: the food domain's words say so.
		q.meal = q.meal || q.domains&foodDomain != 0
	}
	return q
}

// namesIn returns the capitalised words of text past the first, lower-case:
// the people, places and things it names.
func namesIn(text string) []string {
	var names []string
	for i, w := range strings.FieldsFunc(strings.ReplaceAll(text, "’", "'"), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
		if i > 0 && capitalised(w) && w != "I" && !strings.HasPrefix(w, "I'") {
			names = append(names, strings.ToLower(w))
		}
	}
	return names
}

// lowerWords splits text into lower-case words, keeping apostrophes
// ("petra's", "jules'", "i'm") and reading a typographic one as plain.
func lowerWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(text, "’", "'")), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	})
}

// pastWords mark a question about earlier values.
var pastWords = map[string]bool{
	"before": true, "previous": true, "previously": true, "former": true, "formerly": true,
	"earlier": true, "prior": true, "used": true, "old": true, "past": true, "originally": true,
	"until": true, "anymore": true, "then": true,
}

// asksAboutPast reports whether a query asks about earlier values.
func asksAboutPast(ws []string) bool {
	for i, w := range ws {
		// "how old are the kids?" asks for an age, not an earlier value.
		if w == "old" && i > 0 && ws[i-1] == "how" {
			continue
		}
		if pastWords[w] {
			return true
		}
	}
	return false
}

// timeOfAsking matches the words that say a question asks about now
// ("these days", "at the moment", "currently"): readQuery notes them
// (current), and they are no topic. As search terms "these days" would
// find every "long day" and "currently" every "current".
var timeOfAsking = regexp.MustCompile(`(?i)\b(?:these days|at the moment|right now|at present|as of now|nowadays|lately|currently)\b`)

// howOld matches "how old": it asks for an age (readQuery notes a number),
// and as a search term "old" would find every "old car" and "my old job",
// which say nothing of an age. "how long" and "how often" keep their
// adjective: "for a long time", "we often go" answer them (on LoCoMo dev
// dropping those lowered 9 questions' ranks and raised 2).
var howOld = regexp.MustCompile(`(?i)\bhow\s+old\b`)

// ownNew matches "new" after a possessive ("who's my new boss?", "our new
// office"): it asks for the present value of what follows (asksAboutNow),
// and as a search term it would find every "new laptop arrived", whose
// "new" then also reads as a change cue and lifts it.
var ownNew = regexp.MustCompile(`(?i)\b(my|our|your|his|her|their)\s+new\b`)

// topicOf returns query without the words that say when it asks about,
// for the search channels; query itself when nothing else is left.
func topicOf(query string) string {
	query = extract.PhrasalSenses(query)
	t := timeOfAsking.ReplaceAllString(query, " ")
	t = howOld.ReplaceAllString(t, "how")
	t = ownNew.ReplaceAllString(t, "$1")
	if t == query || strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return query
	}
	return t
}

// asksAboutNow reports whether a question asks what holds now.
func asksAboutNow(ws []string) bool {
	for i, w := range ws {
		switch w {
		case "now", "currently", "current", "nowadays", "latest", "anymore", "still", "today":
			return true
		case "new":
			// "my new boss", not "what's new?" or "a new hobby".
			if i > 0 && possessives[ws[i-1]] {
				return true
			}
		case "moment", "days":
			if i > 0 && (ws[i-1] == "the" || ws[i-1] == "these") {
				return true
			}
		case "week", "month", "weekend", "sprint", "quarter":
			// "who covers payments this week?": the present stretch.
			if i > 0 && ws[i-1] == "this" {
				return true
			}
		}
	}
	return false
}

// asksForEvent reports a question about something that happened or will
// happen on a day: one opening on "when", or one asking what someone
// "did" ("what did Ida bring back from the fair?", "why did they cancel
// the trip?"); and one asking for a quantity ("how many boats has Ida
// owned?"). Its answer is the turn that tells of it, not a standing
// taste or wish of the person it names: "Ida likes fairs." says when
// nothing, tells of no happening and counts nothing. A question that
// asks for an attitude ("what did Ida want to cook?", "when did she
// start to like jazz?", "how much does Ida love sailing?") is not one.
func asksForEvent(ws []string) bool {
	event := asksForNumber(ws)
	for i, w := range ws {
		if attitudeWords[w] {
			return false
		}
		if i == 0 && w == "when" || w == "did" {
			event = true
		}
	}
	return event
}

// attitudeWords ask for a taste, a wish or an aim: what a standing fact
// answers, whatever the tense around it.
var attitudeWords = map[string]bool{
	"like": true, "likes": true, "liked": true, "love": true, "loves": true, "loved": true,
	"enjoy": true, "enjoys": true, "enjoyed": true, "want": true, "wants": true, "wanted": true,
	"prefer": true, "prefers": true, "preferred": true, "favourite": true, "favorite": true,
	"hate": true, "hates": true, "dislike": true, "dislikes": true, "wish": true, "goal": true,
	"goals": true, "dream": true, "dreams": true, "hope": true, "hopes": true, "aim": true,
	"interested": true, "passionate": true, "fan": true,
}

// possessives open a noun phrase that is someone's.
var possessives = map[string]bool{"my": true, "our": true, "your": true, "his": true, "her": true, "their": true}

// asksForNumber reports whether a question asks for a quantity: "how
// much", "how many", "how far", "how long", "how often", "how old".
func asksForNumber(ws []string) bool {
	for i := 0; i+1 < len(ws); i++ {
		if ws[i] == "how" {
			switch ws[i+1] {
			case "much", "many", "far", "long", "often", "old", "big", "tall", "heavy", "expensive":
				return true
			}
		}
	}
	return false
}

// aboutTheUser reports whether a question asks about the user
// themselves: in the first person ("what car do I drive?", "when is my
// birthday?"), not about a person ("who in my flat…?") or one of the
// user's people ("which of my guests…", "my sister's name").
func aboutTheUser(ws []string) bool {
	if len(ws) == 0 || ws[0] == "who" || ws[0] == "whose" || askedRelation(ws) != "" {
		return false
	}
	for i := 0; i+1 < len(ws); i++ {
		if ws[i] == "of" && ws[i+1] == "my" {
			return false
		}
	}
	return firstPerson(ws) || plural(ws)
}

// plural reports a first person plural ("our landlord", "where do we…").
func plural(ws []string) bool {
	for _, w := range ws {
		switch w {
		case "we", "our", "us", "we're":
			return true
		}
	}
	return false
}

// firstPerson reports whether words speak in the first person singular.
func firstPerson(ws []string) bool {
	for _, w := range ws {
		switch w {
		case "i", "i'm", "i've", "i'd", "i'll", "me", "my", "mine", "myself":
			return true
		}
	}
	return false
}

// askedRelation returns the person a question asks about by their relation
// to the user ("sister" in "what's my sister's name?"), or "".
func askedRelation(ws []string) string {
	for i := 0; i+1 < len(ws); i++ {
		if ws[i] == "my" || ws[i] == "our" {
			j := i + 1
			if describingWords[ws[j]] && j+1 < len(ws) {
				j++ // "my new boss", "our older son"
			}
			if rel := strings.TrimSuffix(strings.TrimSuffix(ws[j], "'s"), "'"); extract.IsRelationNoun(rel) {
				return rel
			}
		}
	}
	return ""
}

// askedPossession returns what a query asks about that is the user's: the
// word after "my" or "our", past a describing word ("who is my GP?" → "gp",
// "what's my favourite film?" → "film"), or "".
func askedPossession(ws []string) string {
	if j := possessionAt(ws); j >= 0 {
		return strings.TrimSuffix(strings.TrimSuffix(ws[j], "'s"), "'")
	}
	return ""
}

// possessionAt returns where the first "my"/"our" of ws names what is the
// user's (a describing word between: "my old bike"), or -1.
func possessionAt(ws []string) int {
	for i := 0; i+1 < len(ws); i++ {
		if ws[i] != "my" && ws[i] != "our" {
			continue
		}
		j := i + 1
		if describingWords[ws[j]] && j+1 < len(ws) {
			j++
		}
		return j
	}
	return -1
}

// askedPossessed returns what of the user's possession a query asks about:
// "vet" in "what's my cat's vet called?" (the possession is the cat), "" when
// it asks about the possession itself.
func askedPossessed(ws []string) string {
	j := possessionAt(ws)
	if j >= 0 && (strings.HasSuffix(ws[j], "'s") || strings.HasSuffix(ws[j], "s'")) && j+1 < len(ws) {
		return strings.TrimSuffix(ws[j+1], "'s")
	}
	return ""
}

// describingWords come between "my" and what is mine.
var describingWords = map[string]bool{
	"favourite": true, "favorite": true, "current": true, "new": true, "old": true, "first": true,
	"last": true, "usual": true, "own": true, "main": true, "regular": true, "next": true,
	"previous": true, "best": true, "little": true, "big": true, "older": true, "younger": true,
}

// asksForTask reports whether a query asks the agent to do something
// ("book me a flight to Oslo", "plan my long run"), not a question: the
// user's standing rules and preferences bear on it whatever its words.
func asksForTask(query string, ws []string) bool {
	if len(ws) > 0 && ws[0] == "please" {
		ws = ws[1:]
	}
	if len(ws) > 3 && (ws[0] == "can" || ws[0] == "could" || ws[0] == "would") && ws[1] == "you" {
		// "can you order dinner for me tonight?": a request, asked.
		return taskVerbs[ws[2]] && slices.Contains(ws[3:], "me") || ws[2] == "please" && taskVerbs[ws[3]]
	}
	if strings.HasSuffix(strings.TrimSpace(query), "?") || len(ws) < 2 {
		return false
	}
	return taskVerbs[ws[0]]
}

// asksForRule reports a question after the user's rules, limits or
// intolerances: "anything I should avoid?", "what am I allergic to?", "is
// there food I can't eat?". Its answer is a rule, whatever changed since.
// A modal alone asks for no rule ("why can't I log in?", "what don't I
// know yet?"): it must come with a verb of having ("can't eat",
// "shouldn't have", "can't do").
func asksForRule(ws []string) bool {
	for i, w := range ws {
		if ruleQuestionWords[w] || w == "stay" && i+1 < len(ws) && ws[i+1] == "away" ||
			w == "off" && i+1 < len(ws) && ws[i+1] == "limits" {
			return true
		}
		if ruleQuestionPhrase(ws, i) {
			return true
		}
		if ruleQuestionModals[w] {
			for j := i + 1; j < len(ws) && j <= i+3; j++ {
				if ruleQuestionVerbs[ws[j]] {
					return true
				}
			}
		}
	}
	return false
}

// ruleQuestionPhrase reports a phrase at ws[i] that asks what to mind
// before doing something: "anything to keep in mind if I cook tonight?",
// "what should I watch out for?", "anything I need to know before I order?",
// "what should I be careful about?".
func ruleQuestionPhrase(ws []string, i int) bool {
	at := func(j int, w ...string) bool {
		return j >= 0 && j < len(ws) && slices.Contains(w, ws[j])
	}
	switch ws[i] {
	case "keep", "bear":
		return at(i+1, "in") && at(i+2, "mind")
	case "watch", "look":
		return at(i+1, "out")
	case "careful", "mindful", "wary":
		return true
	case "know":
		// "should I know", "need to know", "I should know before":
		// what to know, not who knows or whether I know someone.
		return at(i-1, "should") || at(i-1, "to") && at(i-2, "need", "ought", "have") || at(i-2, "should")
	}
	return false
}

// userRule reports a question after the user's own rules ("anything I
// should avoid?"), not someone else's ("what is Mia allergic to?", which
// a turn about Mia answers whatever its shape).
func (q queryFacts) userRule() bool { return q.rule && (q.self || q.firstPerson) }

// ruleQuestionWords ask for a rule.
var ruleQuestionWords = map[string]bool{
	"avoid": true, "avoiding": true, "allergic": true, "allergy": true, "allergies": true,
	"intolerant": true, "intolerance": true, "refuse": true, "forbidden": true, "banned": true,
	"restriction": true, "restrictions": true, "rules": true, "limits": true, "off-limits": true,
	"dietary": true,
}

// ruleQuestionModals ask for a rule before one of ruleQuestionVerbs,
// within three words ("can't I eat", "shouldn't I have", "must I never
// order").
var ruleQuestionModals = map[string]bool{
	"can't": true, "cant": true, "cannot": true, "mustn't": true, "shouldn't": true, "never": true,
	"don't": true, "dont": true, "not": true,
}

// ruleQuestionVerbs are what a rule question asks may not be done.
var ruleQuestionVerbs = map[string]bool{
	"eat": true, "drink": true, "have": true, "take": true, "touch": true, "order": true,
	"do": true, "book": true, "use": true, "wear": true, "fly": true, "cook": true, "serve": true,
}

// taskVerbs open a request to do something. A query that opens otherwise
// ("coffee preferences", "glider harbour") is keywords, not a task.
var taskVerbs = map[string]bool{
	"add": true, "arrange": true, "bake": true, "book": true, "buy": true, "call": true, "cancel": true,
	"choose": true, "compose": true, "cook": true, "create": true, "deploy": true, "draft": true,
	"email": true, "find": true, "fix": true, "get": true, "help": true, "make": true, "message": true,
	"order": true, "organise": true, "organize": true, "pack": true, "pay": true, "pick": true,
	"plan": true, "play": true, "prepare": true, "put": true, "recommend": true, "remind": true,
	"rent": true, "reply": true, "reserve": true, "schedule": true, "send": true, "set": true,
	"ship": true, "shop": true, "suggest": true, "text": true, "write": true,
}

// aboutFood reports whether words speak of food or a meal: a task that
// does ("book a seafood place for dinner", "order me lunch") must respect
// the user's allergies and diet first; a task about anything else ("fix
// the flaky test") only below what its words found.
func aboutFood(ws []string) bool {
	for _, w := range ws {
		if foodWords[w] {
			return true
		}
	}
	return false
}

// limitOutOfPlace reports a limit on food (an allergy, a diet, "no
// dairy") for a task about no food or meal ("book me a hotel for the
// conference"): the limit binds what is eaten, so the task's rule term
// does not lift it. A question after the user's rules ("anything I
// can't have?") still reaches it. key is the fact's key, "" for a turn.
func (q queryFacts) limitOutOfPlace(key, content string) bool {
	if !q.task || q.meal || q.userRule() {
		return false
	}
	if strings.HasPrefix(key, "allergic_to:") || key == "diet" {
		return true
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(content), func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		if foodWords[w] || foodLimitWords[w] {
			return true
		}
	}
	return false
}

// foodLimitWords say a limit is on food: an allergy, a diet, what is
// not eaten.
var foodLimitWords = map[string]bool{
	"allergic": true, "allergy": true, "allergies": true, "vegan": true, "vegetarian": true, "pescatarian": true,
	"keto": true, "paleo": true, "gluten": true, "gluten-free": true, "dairy": true, "lactose": true, "kosher": true,
	"halal": true, "nuts": true, "peanuts": true, "shellfish": true, "cilantro": true, "coriander": true,
	"meat": true, "pork": true, "beef": true, "fish": true, "eggs": true, "sugar": true, "caffeine": true,
	"alcohol": true, "spicy": true, "carbs": true,
}

// foodWords speak of food or a meal.
var foodWords = map[string]bool{
	"food": true, "meal": true, "meals": true, "dinner": true, "lunch": true, "breakfast": true, "brunch": true,
	"supper": true, "snack": true, "snacks": true, "eat": true, "eating": true, "restaurant": true,
	"restaurants": true, "cafe": true, "café": true, "bistro": true, "diner": true, "takeaway": true,
	"takeout": true, "menu": true, "dish": true, "dishes": true, "recipe": true, "recipes": true,
	"cook": true, "cooking": true, "bake": true, "baking": true, "groceries": true, "grocery": true,
	"picnic": true, "barbecue": true, "bbq": true, "catering": true, "seafood": true, "sushi": true,
	"pizza": true, "burger": true, "curry": true, "tapas": true, "ramen": true, "steakhouse": true,
	"bakery": true, "cake": true, "dessert": true, "potluck": true,
}

// ruleTemplateWords frame a rule as said ("set a rule: …", "new rule,
// never …", "always …") and carry no topic in a task: "set up my new
// laptop" is no match for "new rule, never force-push to main", whose
// task_rule lift already brings it to a task when it binds one.
var ruleTemplateWords = []string{"always", "never", "rule", "rules", "new", "set"}

// taskTerms are a task's query terms for the lexical channel: without
// ruleTemplate's, unless nothing else is left.
func (e *Engine) taskTerms(qterms []string) []string {
	out := make([]string, 0, len(qterms))
	for _, t := range qterms {
		if !contains(e.ruleTemplate, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return qterms
	}
	return out
}

// standingInstruction reports whether a turn asking the agent something
// is an order for every task of a kind: a rule said under "when you …",
// "whenever you …" or "if you …" ("when you book my flights, aisle
// only").
func standingInstruction(text string, sh turnShape) bool {
	if sh&shapeRule == 0 {
		return false
	}
	ws := lowerWords(text)
	return len(ws) > 2 && (ws[0] == "when" || ws[0] == "whenever" || ws[0] == "if") && ws[1] == "you"
}
