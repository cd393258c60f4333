package extract

import (
	"sort"
	"strings"
)

// vkind says what sort of value a slot takes; it decides where the value
// stops. "I work at Acme in Berlin" stops an org at "in"; "I love hiking in
// the mountains" keeps the gerund phrase whole.
type vkind uint8

const (
	vThing  vkind = iota // a named thing: "Neovim", "Italian food"
	vPlace               // "Lisbon", "Portland, Oregon"
	vOrg                 // "Acme Corp", "Bank of America"
	vRole                // "senior backend engineer"
	vPhrase              // a verb phrase: "learn Rust", "use pnpm in this repo"
	vList                // things joined by "and", "or", commas; the caller splits
)

// maxValueTokens bounds each kind so a run-on clause never becomes a value.
var maxValueTokens = [...]int{vThing: 6, vPlace: 6, vOrg: 7, vRole: 6, vPhrase: 16, vList: 14}

// valueStops end every kind of value except phrases.
var valueStops = wordSet("values", "value-stops")

// degreeAdverbs grade the adverb after them ("pretty well").
var degreeAdverbs = wordSet("values", "degree-adverbs")

// thingStops also end things: prepositions introduce a purpose or a place
// ("Vim for editing", "zsh on macOS").
var thingStops = wordSet("values", "thing-stops")

var placeStops = wordSet("values", "place-stops")

var orgStops = wordSet("values", "org-stops")

var roleStops = wordSet("values", "role-stops")

// phraseStops end verb phrases (goals, rules, decisions).
var phraseStops = wordSet("values", "phrase-stops")

// trailingJunk is trimmed off the end of every value.
var trailingJunk = wordSet("values", "trailing-junk")

// phraseJunk is trimmed off the end of verb phrases, which keep their
// trailing particles ("from now on").
var phraseJunk = wordSet("values", "phrase-junk")

// valueLen returns how many tokens of ts form a value of kind k, 0 if none.
func valueLen(ts []token, k vkind) int {
	if len(ts) == 0 {
		return 0
	}
	if ts[0].kind == tQuote {
		return 1 // a quoted value is exactly the quote
	}
	if ts[0].kind != tWord {
		return 0
	}
	limit := maxValueTokens[k]
	gerund := (k == vThing || k == vList) && isGerund(ts[0].low)
	if gerund {
		limit = 7
	}
	n := 0
	for n < len(ts) && n < limit {
		t := ts[n]
		if t.newline && n > 0 {
			break // a value never runs onto the next line
		}
		if t.kind == tQuote && k != vPhrase {
			break
		}
		if t.kind == tPunct {
			if k == vList && t.low == "," && listContinues(ts, n+1) {
				n++
				continue
			}
			// "St. Louis", "Washington D.C.": an abbreviation's dot inside a name.
			if t.low == "." && n > 0 && ts[n-1].end == t.start && n+1 < len(ts) && ts[n+1].capital &&
				(abbreviations[ts[n-1].low] || len(ts[n-1].low) == 1) && k != vPhrase {
				n++
				continue
			}
			if k == vThing && t.low == "," && n > 0 && cityRegionEnds(ts, n) {
				n++ // "Athens, Georgia" (a place, or a title) is one thing
				continue
			}
			if k == vPlace && t.low == "," && placeContinues(ts, n+1) {
				n++
				continue
			}
			if k == vPhrase && (t.low == "'" || t.low == "/" || t.low == "&" || t.low == "+" || t.low == "%" || t.low == "$" || t.low == "\"") {
				n++
				continue
			}
			if (k == vThing || k == vOrg || k == vList) && (t.low == "&" || t.low == "+") && n > 0 {
				n++
				continue
			}
			break
		}
		w := t.low
		if (w == "you" || w == "your" || w == "yours" || w == "u" || w == "ur") && k != vPhrase {
			// "I like working with you", "I adore how you did it": about the
			// conversation, not a value.
			return 0
		}
		if k == vPhrase {
			if t.kind == tQuote {
				n++
				continue
			}
			if phraseStops[w] && n > 0 {
				break
			}
			n++
			continue
		}
		if n > 0 || !(w == "a" || w == "an" || w == "the" || w == "my" || w == "our") {
			if valueStops[w] && n > 0 {
				break
			}
			if valueStops[w] && w != "i" {
				// "I use that" — a stop word first means no value at all.
				return 0
			}
			if w == "i" && n == 0 {
				return 0
			}
		}
		if n > 0 && stopsKind(k, w, gerund) {
			break
		}
		// "pretty well", "quite badly", a bare "well" at the end: how well,
		// never part of the value ("I speak Portuguese pretty well").
		if n > 0 && (degreeAdverbs[w] && is(ts, n+1, "well", "badly", "poorly", "fluently") ||
			w == "well" && !t.capital && (n+1 == len(ts) || ts[n+1].kind == tPunct || valueStops[ts[n+1].low])) {
			break
		}
		// "a lot", "a bit", "so much", "very much" end a liking.
		if (w == "a" && is(ts, n+1, "lot", "bit", "little", "ton")) || ((w == "very" || w == "so" || w == "too") && is(ts, n+1, "much")) {
			break
		}
		// "at Vandelay on monday", "at Vandelay monday": a day says
		// when, never what; a capital weekday may be a name's word only
		// in a thing ("Cyber Monday").
		if n > 0 && k != vPhrase && weekdays[w] && (k != vThing && k != vList || !t.capital) {
			break
		}
		if k != vRole && n > 0 && (w == "of" && is(ts, n+1, "the") && is(ts, n+2, "time")) {
			break
		}
		n++
	}
	for {
		m := n
		for m > 0 && ts[m-1].kind == tWord && (trailingJunk[ts[m-1].low] && k != vPhrase || phraseJunk[ts[m-1].low]) {
			m--
		}
		for m > 0 && ts[m-1].kind == tPunct {
			m--
		}
		m -= trailingFillerLen(ts[:m])
		if m == n {
			break
		}
		n = m
	}
	return n
}

// trailingFillers say when, how much or how sure, never what ("sushi
// forever", "oat milk these days"): each a phrase of lower-case words, the
// longest first. The [trailing-fillers] table of lexicons/values.txt.
var trailingFillers = func() [][]string {
	out := phraseList("values", "trailing-fillers")
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}()

// trailingFillerLen returns how many final tokens of ts form a
// trailing filler, 0 if none or if the filler is all there is: a value is
// never cut to nothing, and a capitalised word is a name ("Forever 21").
func trailingFillerLen(ts []token) int {
	for _, p := range trailingFillers {
		if len(p) >= len(ts) {
			continue
		}
		at := len(ts) - len(p)
		ok := true
		for i, w := range p {
			t := ts[at+i]
			if t.kind != tWord || t.capital || t.low != w {
				ok = false
				break
			}
		}
		if ok {
			return len(p)
		}
	}
	return 0
}

// quantityAt reports a count opening a list item: "three instances", "2
// replicas", "a couple of boxes".
func quantityAt(ts []token) bool {
	w := lowAt(ts, 0)
	if len(ts) < 2 || ts[1].kind != tWord {
		return false
	}
	if countWords[w] {
		return true
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return w != ""
}

// countWords open a count: "two dynos", "a dozen workers".
var countWords = wordSet("values", "count-words")

// titleNouns name works with titles: "my favourite film is ...".
var titleNouns = wordSet("values", "title-nouns")

// titleWords join the capitalised words of a title: "Of Mice and Men",
// "Light in August", "Salt in the Marrow".
var titleWords = wordSet("values", "title-words")

// titleLen returns how many tokens of ts form a capitalised title: words
// that start with a capital, joined by small words that a capital
// follows; 0 when ts does not start with a capital.
func titleLen(ts []token) int {
	if len(ts) == 0 || ts[0].kind != tWord || !ts[0].capital {
		return 0
	}
	n := 0
	for n < len(ts) && n < 10 && ts[n].kind == tWord {
		if ts[n].capital {
			n++
			continue
		}
		j := n
		for j < len(ts) && j < n+3 && ts[j].kind == tWord && !ts[j].capital && titleWords[ts[j].low] {
			j++
		}
		if j == n || j >= len(ts) || ts[j].kind != tWord || !ts[j].capital {
			break
		}
		n = j
	}
	return n
}

// listContinues reports whether a comma inside a list is followed by
// another item ("jazz, blues and soul"), not an aside ("Vim, e.g. for Go").
func listContinues(ts []token, k int) bool {
	if k >= len(ts) || ts[k].kind == tPunct {
		return false
	}
	w := ts[k].low
	if w == "and" || w == "or" {
		return true
	}
	if ts[k].kind == tQuote {
		return true
	}
	if valueStops[w] || thingStops[w] || listAsides[w] {
		return false
	}
	if cueLen(selfCorrectionCues, ts[k:]) > 0 {
		return false // "node 20, scratch that, node 22": a correction, not another item
	}
	// "done with React, Svelte all the way": an item that closes with an
	// endorsement is set against the list, not part of it.
	end := k
	for end < len(ts) && ts[end].kind != tPunct && !is(ts, end, "and", "or") {
		end++
	}
	if cueTail(endorsementCues, ts[k:end]) > 0 {
		return false
	}
	// "not a fan of cilantro, parsley is fine": a verb after the next
	// words makes the comma a new clause, not another item of the list.
	// A subject pronoun does the same: "I don't love Java, Kotlin I can
	// live with" sets Kotlin apart from the dislike.
	for j := k + 1; j < len(ts) && j <= k+3 && ts[j].kind == tWord; j++ {
		if clauseVerbs[ts[j].low] || clauseSubjects[ts[j].low] || pastPredicate(ts, j) {
			return false
		}
	}
	return true
}

// clausePastLemmas are verbs whose simple past never stands before a noun
// as an adjective: "the board got messy", "the app kept crashing".
var clausePastLemmas = wordSet("values", "clause-past-lemmas")

// pastPredicate reports a verb in the past tense at ts[j] that is a
// clause's predicate, not a participle before a noun: "dropped Notion,
// the sync broke too often", "..., the app kept crashing", "..., blues got
// old"; "egg fried rice" stays one item.
func pastPredicate(ts []token, j int) bool {
	v, ok := verbs[ts[j].low]
	if !ok || v.form != fPast || v.lemma == "use" {
		return false
	}
	if j+1 >= len(ts) || ts[j+1].kind == tPunct || clausePastLemmas[v.lemma] {
		return true
	}
	next := ts[j+1].low
	return prepositions[next] || adverbs[next] || isGerund(next) || is(ts, j+1, "up", "out", "off", "old", "worse", "stale", "boring")
}

// clauseVerbs after a noun start a clause of their own.
var clauseVerbs = wordSet("values", "clause-verbs")

// clauseSubjects after a noun start a clause of their own.
var clauseSubjects = wordSet("values", "clause-subjects")

// remarkWords mark a clause after a list's comma (afterthought).
var remarkWords = wordSet("values", "remark-words")

// listAsides open an aside after a comma, never a list item.
var listAsides = wordSet("values", "list-asides")

func stopsKind(k vkind, w string, gerund bool) bool {
	switch k {
	case vThing:
		if gerund {
			return w == "and" || w == "or" || w == "as" || w == "than" || w == "more" || w == "most" || w == "is" || w == "was"
		}
		return thingStops[w]
	case vList:
		if gerund {
			return w == "as" || w == "than" || w == "more" || w == "most" || w == "is" || w == "was"
		}
		return thingStops[w] && w != "and" && w != "or"
	case vPlace:
		return placeStops[w]
	case vOrg:
		return orgStops[w]
	case vRole:
		return roleStops[w]
	}
	return false
}

// placeContinues reports whether a comma inside a place continues it:
// "Portland, Oregon" and "Lisbon, Portugal" do; "Lisbon, Alice lives in
// Porto" does not.
func placeContinues(ts []token, k int) bool {
	if k >= len(ts) || !ts[k].capital || ts[k].kind != tWord {
		return false
	}
	j := k
	for j < len(ts) && ts[j].kind == tWord && ts[j].capital && j < k+3 {
		j++
	}
	if is(ts, j, "and", "or") || is(ts, j, ",") {
		return false // "Berlin, Paris and Rome" is a list
	}
	return j == len(ts) || ts[j].kind == tPunct || placeStops[ts[j].low] || valueStops[ts[j].low]
}

func isGerund(w string) bool {
	return len(w) > 4 && strings.HasSuffix(w, "ing") && !notGerunds[w]
}

// notGerunds end in "-ing" without being verbs.
var notGerunds = wordSet("values", "not-gerunds")

// text returns the source text of ts[:n]; a lone quote gives its inside.
func (x *extraction) text(ts []token, n int) string {
	if n <= 0 || n > len(ts) {
		return ""
	}
	from, text := 0, ""
	for i := 1; i < n; i++ {
		if ts[i].spliced {
			text += strings.TrimSpace(x.content[ts[from].start:ts[i-1].end]) + " "
			from = i
		}
	}
	return text + strings.TrimSpace(x.content[ts[from].start:ts[n-1].end])
}

// validValue rejects values that cannot be a slot's value: pronouns ("I
// love this"), references to the conversation ("I like your answer"), and
// text without a letter or digit.
func validValue(ts []token) bool {
	if len(ts) == 0 {
		return false
	}
	if ts[0].kind == tQuote {
		return len(ts[0].low) > 0
	}
	first := ts[0].low
	if first == "my" || first == "our" || first == "his" || first == "her" || first == "their" {
		return false // "I love my dog" is about the dog, not a taste
	}
	if (first == "a" || first == "an" || first == "the") && len(ts) > 1 {
		first = ts[1].low
		if len(ts) == 2 && pronounValues[first] {
			return false
		}
	} else if pronounValues[first] {
		return false
	}
	if n := len(ts); n > 1 && is(ts, n-1, "one", "ones") && !ts[n-1].capital {
		return false // "the blue one" stands for something said before
	}
	letters := false
	for _, t := range ts {
		switch t.low {
		case "you", "your", "yours", "u", "ur":
			return false
		}
		if t.kind == tWord {
			letters = true
		}
	}
	return letters
}

// readValue reads a value of kind k at the start of ts and returns its text
// and token count, or "", 0.
func (x *extraction) readValue(ts []token, k vkind) (string, int) {
	n := valueLen(ts, k)
	if n == 0 || !validValue(ts[:n]) {
		return "", 0
	}
	return x.text(ts, n), n
}

// readList reads things joined by "and", "or" and commas ("Go and
// TypeScript", "jazz, blues and soul") and returns each item's text.
func (x *extraction) readList(ts []token) ([]string, int) {
	if len(ts) > 0 && isGerund(ts[0].low) {
		return x.readActivities(ts)
	}
	n := valueLen(ts, vList)
	if n == 0 {
		return nil, 0
	}
	var items []string
	start := 0
	possessed := false // the list opened with "my", "our"...: its items share it
	gapped := false    // a later item named another component
	joined := false    // an "and" or "or" joins some of its items
	for _, t := range ts[:n] {
		joined = joined || t.kind == tWord && (t.low == "and" || t.low == "or")
	}
	flush := func(end int) {
		part := ts[start:end]
		for len(part) > 0 && (part[0].kind == tPunct || part[0].low == "and" || part[0].low == "or" || part[0].low == "both" || part[0].low == "either") {
			part = part[1:]
		}
		if len(part) == 0 {
			return
		}
		if start == 0 {
			possessed = is(part, 0, "my", "our", "his", "her", "their", "your")
		} else if gapped || is(part, 0, "the", "our") && (componentNouns[lowAt(part, 1)] || teamNouns[lowAt(part, 1)]) ||
			quantityAt(part) || appositive(ts, start, part) {
			// "on Render, three instances, long story": a count says how
			// much of the thing before; the list ended there.
			// "on Vercel and the API on a box": another component
			// starts a clause of its own (its verb left out).
			gapped = true
			return
		}
		if start > 0 && !joined && is(ts, start-1, ",") && comparison(untilPunct(ts[start:])) {
			// "Zed, faster than ever", "Vim, same as before": a remark
			// on the thing before, not another thing.
			gapped = true
			return
		}
		m := valueLen(part, vThing)
		if m > 0 && is(part, m, ",") && cityRegion(part, m, len(part)) {
			m = len(part)
		}
		if m > 1 && start > 0 && !joined && is(ts, start-1, ",") && afterthought(part[:m]) {
			// "allergic to penicillin, found out the hard way": words
			// after a comma that no "and" joins to the list, none of
			// them a name or a known thing, are a remark of their own.
			gapped = true
			return
		}
		if m > 0 && start > 0 && end == n && m == len(part) && is(ts, n, ":") && !part[0].capital {
			if _, known := CategoryOf(x.text(part, m)); !known {
				// "conventional commits, feat: fix: chore:": a word a
				// colon follows labels what comes next; no item.
				return
			}
		}
		if m > 0 && validValue(part[:m]) {
			it := x.text(part, m)
			if _, known := CategoryOf(it); start > 0 && possessed && !known && !part[0].capital && !isGerund(part[0].low) && !is(part, 0, "a", "an", "the") {
				return // "my pals and fam": the fam is the speaker's too
			}
			items = append(items, it)
		}
	}
	for k := 0; k < n; k++ {
		t := ts[k]
		if t.kind == tPunct && t.low == "," && cityRegion(ts, k, n) {
			continue // "Athens, Georgia" is one item
		}
		if (t.kind == tPunct && t.low == ",") || (t.kind == tWord && (t.low == "and" || t.low == "or")) {
			flush(k)
			start = k + 1
		}
	}
	flush(n)
	return items, n
}

// withoutReplacement drops the last of a list's items read from ts[:n]
// when a word after it says it holds now ("these days", "now",
// "instead") and no "and" or "or" joins the list: in "done with twitter,
// mastodon these days" mastodon came instead of what the speaker is done
// with, and is no item of that list. For what a speaker ended or
// dislikes; a liking's list keeps it ("we use pnpm, vitest now").
func withoutReplacement(items []string, ts []token, n int) []string {
	if len(items) < 2 || !(is(ts, n, "now", "nowadays", "instead", "lately") || is(ts, n, "these") && is(ts, n+1, "days")) {
		return items
	}
	for _, t := range ts[:n] {
		if t.kind == tWord && (t.low == "and" || t.low == "or") {
			return items
		}
	}
	return items[:len(items)-1]
}

// afterthought reports words after a list's comma that read as a remark,
// not an item: lower-case, several, not a thing the lexicon knows, and a
// clause ("found out the hard way": a verb, an article, a preposition). A
// noun phrase ("sulfa drugs", "tree nuts") is an item of a list said
// without "and".
func afterthought(part []token) bool {
	clause := false
	for i, t := range part {
		if t.capital {
			return false
		}
		clause = clause || remarkWords[t.low] || prepositions[t.low] || clauseVerbs[t.low] || clauseSubjects[t.low] || pastPredicate(part, i)
	}
	if !clause {
		return false
	}
	words := make([]string, len(part))
	for i, t := range part {
		words[i] = t.low
	}
	_, known := CategoryOf(strings.Join(words, " "))
	return !known
}

// comparison reports words after a list's comma that compare the thing
// before with something else: "faster than ever", "same as before", "like
// always".
func comparison(part []token) bool {
	if is(part, 0, "same", "as", "like") {
		return true
	}
	for _, t := range part {
		if t.kind == tWord && t.low == "than" {
			return true
		}
	}
	return false
}

// appositive reports a list item that only describes the one before it,
// after a comma: "Vim, the best editor ever", "Emacs, the traitor". It
// opens with "the" and a lower-case word the lexicon does not know.
func appositive(ts []token, start int, part []token) bool {
	if start == 0 || !is(ts, start-1, ",") || !is(part, 0, "the") || len(part) < 2 || part[1].capital {
		return false
	}
	m := valueLen(part, vThing)
	if m == 0 {
		return false
	}
	words := make([]string, 0, m)
	for _, t := range part[1:m] {
		words = append(words, t.low)
	}
	_, known := CategoryOf(strings.Join(words, " "))
	return !known
}

// readActivities reads gerund phrases joined by "and", "or" or commas:
// "hiking and swimming". A comma inside a phrase ("creating a safe,
// inviting place") does not split it; only another gerund starts an item.
func (x *extraction) readActivities(ts []token) ([]string, int) {
	var items []string
	k := 0
	for k < len(ts) {
		m := valueLen(ts[k:], vThing)
		if m == 0 {
			break
		}
		j := k + m
		// Swallow adjective commas up to the phrase's end: "a safe, inviting
		// place" is one phrase; a determiner and one word before the comma
		// cannot end an item.
		for is(ts, j, ",") && j+1 < len(ts) && ts[j+1].kind == tWord && (!isGerund(ts[j+1].low) || is(ts, j-2, "a", "an", "the")) && !valueStops[ts[j+1].low] && !is(ts, j+1, "and", "or", "like", "such", "including", "especially") {
			more := valueLen(ts[j+1:], vThing)
			if more == 0 {
				break
			}
			j += 1 + more
		}
		if validValue(ts[k:j]) {
			items = append(items, x.text(ts[k:], j-k))
		}
		k = j
		next := k
		for is(ts, next, ",", "and", "or") {
			next++
		}
		if next == k || next >= len(ts) || !isGerund(ts[next].low) {
			break
		}
		k = next
	}
	return items, k
}

// refersBack reports a phrase whose object is a pronoun standing for
// something said before ("writing them", "holding them", "put this up
// front"): out of its conversation the fact names nothing. "That"
// and "this" count only as objects, not when a noun or a clause follows;
// "it" and "them" when they end the phrase, or, with anywhere, when no
// preposition follows them.
func refersBack(ts []token, anywhere bool) bool {
	for k, t := range ts {
		if k == 0 || t.capital {
			continue // "I love working in IT"
		}
		end := k+1 == len(ts) || ts[k+1].kind == tPunct
		switch t.low {
		case "them", "it", "him":
			// "writing them", and with anywhere "watching them play";
			// not "rewrite it in Rust" or, without anywhere, "call it
			// Atlas", where the rest says what was decided.
			if end || anywhere && !prepositions[ts[k+1].low] {
				return true
			}
		case "this", "that", "these", "those":
			if end || prepositions[ts[k+1].low] {
				return true
			}
		}
	}
	return false
}

var prepositions = wordSet("values", "prepositions")
