package extract

// Distractor reports whether text states nothing to keep on its own: every
// sentence is a question, a hypothetical, something reported of someone
// else, about someone named only by a pronoun ("He prefers dark mode"), or
// someone else's wish for the speaker ("My manager wants me to use Java"). Callers that keep unrecognised text as a note use it so that
// "What is my favorite editor?" stays an episode and never becomes a fact.
// The reason names the first kind found.
func Distractor(text string) (bool, string) {
	var (
		buf    []token
		reason string
	)
	for _, s := range SplitSentences(text) {
		toks := tokenize(text, s.Start, s.End, buf)
		buf = toks[:0]
		switch {
		case len(toks) == 0:
			continue
		case isQuestion(toks):
			if reason == "" {
				reason = "question"
			}
		case startsHypothetical(toks):
			if reason == "" {
				reason = "hypothetical"
			}
		case reportedByOther(toks):
			if reason == "" {
				reason = "reported"
			}
		case thirdPersonWords[toks[0].low]:
			if reason == "" {
				reason = "unresolved_pronoun"
			}
		case othersWish(toks):
			if reason == "" {
				reason = "someone_elses_wish"
			}
		default:
			return false, ""
		}
	}
	return reason != "", reason
}

// othersWish reports "... wants me to ...", "... asked me to ...": what
// someone else wants of the speaker, not what the speaker holds (the
// [others-wishes] table of lexicons/cue-patterns.txt; the first wish
// found decides).
func othersWish(ts []token) bool {
	for k := range ts {
		if e, ok := firstCueAt(othersWishCues, ts, k); ok {
			return e&cueSomeone != 0
		}
	}
	return false
}

// thirdPersonWords are [third-person] of lexicons/subjects.txt: a sentence
// that opens with one names someone only by a pronoun.
var thirdPersonWords = wordSet("subjects", "third-person")
