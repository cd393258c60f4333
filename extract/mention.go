package extract

import "strings"

// planWords make a sentence a plan, a wish or a condition rather than
// news: the [plan-words] table of lexicons/changes.txt.
var planWords = wordSet("changes", "plan-words")

// PlainMention returns the clause of text that names value as a whole
// phrase, not as the new value ("switched to X", "replaced it with X", "X
// now"), in a sentence that says it plainly, as a statement of what is so: not a
// question ("did we ever get rid of TeamCity?"), an imagined world ("if
// we ditched TeamCity..."), a hedge ("maybe we'll drop TeamCity"), a plan
// or wish ("we're going to move off TeamCity next month", "I want to
// quit Acme"), someone else's report ("Sam said we dropped TeamCity"), or
// a negation of its clause ("we never got rid of TeamCity"; "not
// anymore", "no longer" and "no more" say a change and stand). Value is
// matched word for word, case aside, and only whole: a capitalised word
// or a word joined by a hyphen or an apostrophe next to it makes it part
// of a bigger name ("Acme Labs" is not "Acme", "TeamCity-style" is not
// "TeamCity"). The first sentence naming value so decides: when it does
// not say it plainly, ok is false.
//
// It says nothing of whether the sentence says that something changed:
// the engine reads that cue the way ranking does.
func PlainMention(text, value string) (sentence string, ok bool) {
	var vt []string
	for _, t := range tokenize(value, 0, len(value), nil) {
		if t.kind == tWord {
			vt = append(vt, t.low)
		}
	}
	if len(vt) == 0 {
		return "", false
	}
	var buf []token
	for _, s := range SplitSentences(text) {
		ts := tokenize(text, s.Start, s.End, buf[:0])
		buf = ts
		k := wholeAt(text, ts, vt)
		if k < 0 {
			continue
		}
		if !plainly(ts, k) {
			return "", false
		}
		c := clauseOf(ts, k)
		return text[c[0].start:c[len(c)-1].end], true
	}
	return "", false
}

// wholeAt returns where the words vt stand in ts as a whole phrase, or -1.
func wholeAt(text string, ts []token, vt []string) int {
	for k := 0; k+len(vt) <= len(ts); k++ {
		match := true
		for j, w := range vt {
			if ts[k+j].kind != tWord || ts[k+j].low != w {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		end := k + len(vt)
		if joined(text, ts, k) || end < len(ts) && joined(text, ts, end) {
			continue // "TeamCity-style", "Acme's spin-off"
		}
		if end < len(ts) && ts[end].kind == tWord && ts[end].capital {
			continue // "Acme Labs"
		}
		if k > 0 && ts[k-1].kind == tWord && ts[k-1].capital && k-1 > 0 && ts[k-1].low != "i" {
			continue // "Big Acme", a sentence's first word aside
		}
		if k > 0 && ts[k-1].kind == tWord && !ts[k-1].capital && !ts[k].capital && !leadsValue(ts[k-1].low) {
			continue // "green tea" names no "tea" (a name stays one: "the old Ford Fiesta")
		}
		if end < len(ts) && ts[end].kind == tWord && !endsValue(ts[end].low) {
			continue // "teamcity plugins" names no "teamcity"
		}
		if _, ok := firstCueAt(newValueLeadCues, ts, k); ok || cueLen(nowCues, ts[end:]) > 0 {
			continue // the new value: "switched to X", "replaced it with X", "X now"
		}
		return k
	}
	return -1
}

// valueLeads may stand right before a whole value: a word that opens a
// noun phrase or links it ("of", "the", "our"), or a verb ("ditched",
// "left", "quit"); any other word may belong to the phrase.
// The [value-leads] table of lexicons/changes.txt.
var valueLeads = wordSet("changes", "value-leads")

func leadsValue(w string) bool {
	if valueLeads[w] || prepositions[w] || adverbs[w] {
		return true
	}
	if _, ok := verbs[w]; ok {
		return true
	}
	return strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "es")
}

// valueFollows: the [value-follows] table of lexicons/changes.txt.
var valueFollows = wordSet("changes", "value-follows")

// endsValue reports a word that may follow a whole value: one that ends
// a value, links what follows or says when ("for", "because", "is",
// "last", "now").
func endsValue(w string) bool {
	if valueStops[w] || prepositions[w] || adverbs[w] || valueLeads[w] || valueFollows[w] {
		return true
	}
	_, ok := verbs[w]
	return ok
}

// joined reports whether ts[i] touches the token before it with no space
// and a hyphen or an apostrophe between, or is such a mark itself.
func joined(text string, ts []token, i int) bool {
	if i <= 0 || i >= len(ts) {
		return false
	}
	prev, cur := ts[i-1], ts[i]
	if prev.end != cur.start {
		return false
	}
	if cur.kind == tWord && prev.kind == tWord {
		return true // a contraction split in two ("Acme's" → "acme" "s")
	}
	mark := text[cur.start:cur.end]
	if cur.kind == tPunct {
		return mark == "-" || mark == "'" || mark == "’"
	}
	mark = text[prev.start:prev.end]
	return prev.kind == tPunct && (mark == "-" || mark == "'" || mark == "’")
}

// plainly reports whether a sentence whose value stands at ts[k] states
// it plainly (see PlainMention).
func plainly(ts []token, k int) bool {
	if isQuestion(ts) || startsHypothetical(ts) || hypotheticalClause(ts) || reportedByOther(ts) {
		return false
	}
	var f flags
	clauseFlags(ts, &f)
	if f.hedge {
		return false
	}
	for i, t := range ts {
		if t.kind != tWord {
			continue
		}
		if planWords[t.low] && !planNoun(ts, i) || t.low == "going" && is(ts, i+1, "to") || t.low == "about" && is(ts, i+1, "to") ||
			t.low == "may" && !t.capital {
			return false
		}
	}
	if futureTime(ts) {
		return false
	}
	for i := range ts {
		if i > 0 && futureTime(ts[i:]) {
			return false
		}
	}
	return !negatedClause(clauseOf(ts, k))
}

// planNoun reports a plan word at ts[i] used as a noun, no plan: after a
// determiner ("the plan", "my phone plan") or closing a noun phrase
// ("Notion now for lesson plans"). The [plan-nouns] and [determiners]
// tables of lexicons/changes.txt.
func planNoun(ts []token, i int) bool {
	if !planNouns[ts[i].low] || i == 0 {
		return false
	}
	if determiners[ts[i-1].low] || i >= 2 && determiners[ts[i-2].low] && ts[i-1].kind == tWord && !ts[i-1].capital {
		return true
	}
	prev := ts[i-1]
	last := i+1 >= len(ts) || ts[i+1].kind == tPunct
	return last && prev.kind == tWord && !prev.capital && !clauseSubjects[prev.low] && !planWords[prev.low]
}

// planNouns are the plan words that are nouns too; determiners open a
// noun phrase.
var planNouns, determiners = wordSet("changes", "plan-nouns"), wordSet("changes", "determiners")

// clauseOf returns the clause of ts holding ts[k]: the run between the
// punctuation marks around it.
func clauseOf(ts []token, k int) []token {
	a, b := k, k
	for a > 0 && !breaksClause(ts[a-1]) {
		a--
	}
	for b < len(ts) && !breaksClause(ts[b]) {
		b++
	}
	return ts[a:b]
}

func breaksClause(t token) bool {
	return t.kind == tPunct && t.low != "-" && t.low != "'"
}

// negatedClause reports a clause that denies rather than tells: "not",
// "never", "no", "neither"; but "not anymore", "no longer", "no more"
// and "not any more" say that something stopped, which is a change.
func negatedClause(ts []token) bool {
	return !cueAnywhere(stoppedCues, ts) && cueAnywhere(denialCues, ts) // [stopped], [denials]
}
