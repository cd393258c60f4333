package extract

// Distractor reports whether text states nothing to keep on its own: every
// sentence is a question, a hypothetical, or something reported of someone
// else. Callers that keep unrecognised text as a note use it so that
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
		default:
			return false, ""
		}
	}
	return reason != "", reason
}
