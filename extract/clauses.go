package extract

// lowAt returns the matching form of ts[i], or "" past either end.
func lowAt(ts []token, i int) string {
	if i < 0 || i >= len(ts) {
		return ""
	}
	return ts[i].low
}

// is reports whether ts[i] is one of alts.
func is(ts []token, i int, alts ...string) bool {
	w := lowAt(ts, i)
	if w == "" {
		return false
	}
	for _, a := range alts {
		if w == a {
			return true
		}
	}
	return false
}

// seq reports whether ts continues with words at i.
func seq(ts []token, i int, words ...string) bool {
	if i+len(words) > len(ts) {
		return false
	}
	for k, w := range words {
		if ts[i+k].low != w {
			return false
		}
	}
	return true
}

func isPunct(t token) bool { return t.kind == tPunct }

// openers are words that may precede a question or statement without
// changing it ("so", "and", "hey", "btw").
var openers = wordSet("clauses", "openers")

// isQuestion reports whether a sentence asks rather than tells: it
// contains a question mark, or its first word after the openers is an
// interrogative or an auxiliary that asks ("Do you...", "Should I...", the
// [questions] table of lexicons/cue-patterns.txt; "Do not push to main" is
// an imperative), or it wonders ("I wonder whether...", "wondering if I
// should").
func isQuestion(ts []token) bool {
	for _, t := range ts {
		if t.kind == tPunct && t.low == "?" {
			return true
		}
	}
	i := 0
	for i < len(ts) && (openers[ts[i].low] || isPunct(ts[i])) {
		i++
	}
	e, _, ok := matchCue(questionCues, ts[i:])
	return ok && e&cueQuestion != 0
}

// startsHypothetical reports whether the whole sentence is conditional or
// imagined: "If I lived in Paris I'd...", "Imagine I worked at Google",
// "Let's say I moved to Tokyo", "In an ideal world I'd use Emacs"; the
// [hypothetical] table of lexicons/cue-patterns.txt, after the openers.
func startsHypothetical(ts []token) bool {
	i := 0
	for i < len(ts) && (openers[ts[i].low] || isPunct(ts[i])) && ts[i].low != "say" {
		i++
	}
	_, _, ok := matchCue(hypotheticalCues, ts[i:])
	return ok
}

// reportedByOther reports whether the sentence relays what someone else
// said or thinks ("She said 'I love Paris'", "Bob told me he prefers
// Emacs", "according to Alice..."): the [reported-speech] table of
// lexicons/cue-patterns.txt, tried at every word. Such text is not the
// speaker's claim.
func reportedByOther(ts []token) bool {
	for k, t := range ts {
		if t.kind != tWord {
			continue
		}
		if e, ok := firstCueAt(reportedSpeechCues, ts, k); ok && e&cueReport != 0 {
			return true
		}
	}
	return false
}

// sentenceMarkers sets the flags a sentence carries as a whole: explicit
// criticality markers and sentence-wide hedges ("not sure", "I guess"),
// the [sentence-markers] table of lexicons/cue-patterns.txt.
func sentenceMarkers(ts []token, f *flags) {
	for k := range ts {
		if e, ok := firstCueAt(sentenceMarkerCues, ts, k); ok {
			f.set(e)
		}
	}
}

// clauseBreakers always end a clause.
var clauseBreakers = wordSet("clauses", "clause-breakers")

// softBreakers end a clause only when a new subject or verb follows:
// "I live in Lisbon and work at Acme" splits, "I like rock and roll" does
// not.
var softBreakers = wordSet("clauses", "soft-breakers")

// splitClauses cuts a sentence into clauses at semicolons, dashes,
// parentheses, contrastive conjunctions, and "and"/"so"/"," before a new
// subject or verb. A clause of nothing but discourse markers ("Actually,")
// is joined to the next.
func splitClauses(ts []token) [][]token {
	out := make([][]token, 0, 3)
	start := 0
	cut := func(end, next int) {
		if end > start {
			out = append(out, ts[start:end])
		}
		start = next
	}
	for k := 0; k < len(ts); k++ {
		t := ts[k]
		switch {
		case t.kind == tPunct && (t.low == ";" || t.low == "(" || t.low == ")" || t.low == "[" || t.low == "]" || t.low == "-" || t.low == "..."):
			cut(k, k+1)
		case t.kind == tPunct && t.low == ",":
			// ", like a swim or a barbecue" gives examples; ", like hiking"
			// may be a liking.
			// ", so vegan now": a diet concluded from what came before.
			if (startsNewClause(ts, k+1) || is(ts, k+1, "so") && dietLen(ts, k+2) > 0) && !(is(ts, k+1, "like") && (is(ts, k+2, "a", "an", "some", "through", "with", "in", "at", "for", "when", "to", "everyone", "everybody", "most", "many") || seq(ts, k+2, "the", "rest"))) {
				cut(k, k+1)
			}
		case t.kind == tWord && clauseBreakers[t.low] && k > start:
			if t.low == "while" && is(ts, k-1, "a") {
				continue // "for a while"
			}
			cut(k, k+1)
		case t.kind == tWord && softBreakers[t.low] && k > start:
			if t.low == "as" && !is(ts, k+1, "i", "we") {
				continue // "as my editor", "as a designer"
			}
			if t.low == "then" && !is(ts, k+1, "i", "we") {
				continue
			}
			if startsNewClause(ts, k+1) {
				cut(k, k+1)
			}
		}
	}
	cut(len(ts), len(ts))
	// Join marker-only clauses ("Actually", "Correction", "Now") to the next.
	merged := out[:0]
	var pending []token
	for _, c := range out {
		if pending != nil {
			// Clauses are adjacent sub-slices, so re-slicing from the
			// pending clause's start keeps both (the separator goes too).
			c = ts[offsetOf(ts, pending) : offsetOf(ts, c)+len(c)]
			pending = nil
		}
		if markersOnly(c) {
			pending = c
			continue
		}
		merged = append(merged, c)
	}
	if pending != nil {
		merged = append(merged, pending)
	}
	return merged
}

// offsetOf returns where sub starts inside ts; sub must be a sub-slice.
func offsetOf(ts, sub []token) int {
	if len(sub) == 0 {
		return 0
	}
	for k := range ts {
		if &ts[k] == &sub[0] {
			return k
		}
	}
	return 0
}

// startsNewClause reports whether a clause starts at ts[k]: a subject or a
// verb the clause can borrow its subject for.
func startsNewClause(ts []token, k int) bool {
	if k >= len(ts) || ts[k].low == "" {
		return false
	}
	if e, ok := firstCueAt(clauseStartCues, ts, k); ok { // [clause-starts]
		return e&cueDrop == 0
	}
	return ts[k].capital && ts[k].kind == tWord && !subjectStopWords[ts[k].low] && k+1 < len(ts) && personVerbs[lowAt(ts, k+1)]
}

// discourse words carry no claim of their own; the value is the flag they
// set ("actually" marks a correction).
var discourse = wordSet("clauses", "discourse")

// subjectAdverbs are stripped from the start of a clause only before its
// subject ([subject-adverbs] of lexicons/cue-patterns.txt).
var subjectAdverbs = wordSet("clauses", "subject-adverbs")

// markersOnly reports whether a clause holds nothing but discourse words and
// punctuation.
func markersOnly(c []token) bool {
	words := c
	for len(words) > 0 && words[len(words)-1].kind == tPunct {
		words = words[:len(words)-1]
	}
	if len(words) == 2 && (seq(words, 0, "scratch", "that") || seq(words, 0, "my", "bad")) {
		return true // a correction's opener, joined to the correction
	}
	for k := 0; k < len(c); k++ {
		t := c[k]
		if t.kind == tQuote {
			return false
		}
		if t.kind == tWord && !discourse[t.low] {
			// An aside says nothing either ("heads up,", "for the
			// record,", "to be honest,"): joined to the next clause, a
			// change whose "I" is dropped still opens the sentence.
			if e, n, ok := matchCue(asideCues, c[k:]); ok && e == 0 {
				k += n - 1
				continue
			}
			return false
		}
	}
	return true
}

// stripLeading removes discourse words, labels and first-person reporting
// from the start of a clause, setting the flags they imply.
func stripLeading(ts []token, f *flags) []token {
	for {
		before := len(ts)
		for len(ts) > 0 && isPunct(ts[0]) {
			ts = ts[1:]
		}
		if len(ts) == 0 {
			return ts
		}
		w := ts[0].low
		if e, n, ok := matchCue(leadingCues, ts); ok {
			rest, done := applyLeadingCue(e, n, ts, f)
			if done {
				return rest
			}
			ts = rest
		} else if w == "i" || w == "we" {
			n := cueLen(firstPersonReportCues, ts) // "I said", "I told you"
			if n == 0 {
				return ts
			}
			ts = dropThat(ts[n:])
		} else if e, n, ok := matchCue(asideCues, ts); ok {
			rest, done := applyLeadingCue(e, n, ts, f)
			if done {
				return rest
			}
			ts = rest
		} else if n := cueLen(subjectAdverbCues, ts); n > 0 {
			ts = ts[n:] // "Currently I use Vim"
		} else if discourse[w] && !subjectAdverbs[w] && !is(ts, 0, "no", "now", "otherwise") {
			ts = ts[1:]
		}
		if len(ts) == before {
			return ts
		}
	}
}

func dropThat(ts []token) []token {
	if is(ts, 0, "that") || is(ts, 0, ",") {
		return ts[1:]
	}
	return ts
}

// Label words open a clause with a colon ("Important: ...") and say what
// the clause is.
var (
	mustLabels       = wordSet("clauses", "must-labels")
	corrLabels       = wordSet("clauses", "corr-labels")
	decisionLabels   = wordSet("clauses", "decision-labels")
	constraintLabels = wordSet("clauses", "constraint-labels")
	goalLabels       = wordSet("clauses", "goal-labels")
	plainLabels      = wordSet("clauses", "plain-labels")
)

// labelFillers may surround a label's marker word: "This is critical:",
// "Very important:", "Our new rule:".
var labelFillers = wordSet("clauses", "label-fillers")

// labelKind is what a leading "Label:" asks the clause to be.
type labelKind uint8

const (
	labelNone labelKind = iota
	labelDecision
	labelConstraint
	labelGoal
)

// stripLabel handles a leading "Important:", "Correction:", "Decision:",
// "Rule:", "Goal:" label: it sets flags, returns the kind of claim the
// label asks for and the clause after the colon.
func stripLabel(ts []token, f *flags) ([]token, labelKind) {
	colon := -1
	for k := 0; k < len(ts) && k < 5; k++ {
		if ts[k].kind == tPunct && ts[k].low == ":" {
			colon = k
			break
		}
	}
	if colon <= 0 || colon == len(ts)-1 {
		return ts, labelNone
	}
	kind := labelNone
	known := false
	for _, t := range ts[:colon] {
		switch {
		case mustLabels[t.low]:
			f.mustInclude = true
		case corrLabels[t.low]:
			f.corr = true
		case decisionLabels[t.low]:
			kind = labelDecision
		case constraintLabels[t.low]:
			kind = labelConstraint
		case goalLabels[t.low]:
			kind = labelGoal
		case plainLabels[t.low] || headerWords[t.low]:
		case isPunct(t) || labelFillers[t.low]:
			continue
		default:
			return ts, labelNone
		}
		known = true
	}
	if !known {
		return ts, labelNone
	}
	return ts[colon+1:], kind
}
