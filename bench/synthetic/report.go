package synthetic

import (
	"fmt"
	"io"
	"strings"
)

// conditionLabel is a condition's name for people.
func conditionLabel(c Condition) string {
	switch c {
	case NoMemory:
		return "no memory (uniform guess)"
	case Window400:
		return "last 400 words"
	case Window1600:
		return "last 1,600 words"
	case Lexical:
		return "mnemon, lexical only"
	case Hybrid:
		return "mnemon, full hybrid"
	case Episodes:
		return "mnemon, episodes only"
	}
	return string(c)
}

// Markdown writes the report as a markdown table for people, then the
// failures kept, if any.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "## mnemon bench synthetic: seed %d (%s split)\n\n", r.Seed, r.Split)
	if r.Split == "tuning" {
		fmt.Fprintf(w, "**Tuning seed: not a test result.** Test seeds are outside %d–%d.\n\n", TuneSeedMin, TuneSeedMax)
	}
	fmt.Fprintf(w, "%d users, %d sessions each, %d turns, %d questions; retrieval limit %d items, budget %d tokens; took %s.\n\n",
		r.Users, r.Sessions, r.Turns, r.Questions, r.Limit, r.Budget, r.Took)
	fmt.Fprintln(w, "| condition | accuracy | current | previous | recall@1 | recall@5 | context words |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, s := range r.Scores {
		r1, r5 := fmt.Sprintf("%.3f", s.RecallAt1), fmt.Sprintf("%.3f", s.RecallAt5)
		if s.Condition == NoMemory {
			r1, r5 = "–", "–"
		}
		fmt.Fprintf(w, "| %s | %.3f | %.3f (%d) | %.3f (%d) | %s | %s | %.0f |\n",
			conditionLabel(s.Condition), s.Accuracy, s.AccuracyCurrent, s.Current, s.AccuracyPrevious, s.Previous, r1, r5, s.ContextWords)
	}
	fmt.Fprintln(w, "\ncurrent / previous: accuracy on questions about the value now / before the latest change (count).")
	fmt.Fprintln(w, "recall@k: a turn stating the answer is cited by one of the top k items (windows: among the k newest turns).")
	r.markdownSplit(w)
	for _, s := range r.Scores {
		if len(s.Failures) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n### Wrong answers: %s\n", conditionLabel(s.Condition))
		for _, f := range s.Failures {
			got := f.Got
			if got == "" {
				got = "(no answer)"
			}
			fmt.Fprintf(w, "\n- %s `%s` (%s): want %s, got %s\n", f.ID, f.Question, f.Asks, f.Want, got)
			for i, c := range f.Context {
				fmt.Fprintf(w, "  %d. %s\n", i+1, strings.ReplaceAll(c, "\n", " "))
			}
		}
	}
}

// markdownSplit writes the scores by template split: questions whose
// answer was stated in a tuning or a held-out template, and the
// extractor's precision and recall on each.
func (r *Report) markdownSplit(w io.Writer) {
	fmt.Fprintln(w, "\n### Tuning and held-out templates")
	fmt.Fprintln(w, "\nA quarter of each list of statement templates is held out (bench/synthetic/heldout.go): tuning seeds never say them.")
	fmt.Fprintln(w, "\n| condition | tuning: questions | accuracy | recall@1 | recall@5 | held-out: questions | accuracy | recall@1 | recall@5 |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, s := range r.Scores {
		if s.Condition == NoMemory {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", conditionLabel(s.Condition), splitCells(s.Tuning), splitCells(s.HeldOut))
	}
	fmt.Fprintln(w, "\n| extractor on templates | user turns | statements | stated as a fact | recall | facts written | right | precision |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, e := range r.Extraction {
		if e.Turns == 0 {
			fmt.Fprintf(w, "| %s | 0 | 0 | 0 | – | 0 | 0 | – |\n", e.Templates)
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %.3f | %d | %d | %.3f |\n", e.Templates, e.Turns, e.Statements, e.Stated, e.Recall, e.Facts, e.Right, e.Precision)
	}
	fmt.Fprintln(w, "\nstated as a fact: the extractor wrote the user's value from the statement; right: the fact holds (the user's value, a change's old value as history, someone else's value about them); a fact from a question, a remark or a plan is wrong.")
}

// splitCells renders a SplitScore as four table cells, dashes when no
// question falls in the split (tuning seeds have no held-out questions).
func splitCells(s SplitScore) string {
	if s.Questions == 0 {
		return "0 | – | – | –"
	}
	return fmt.Sprintf("%d | %.3f | %.3f | %.3f", s.Questions, s.Accuracy, s.RecallAt1, s.RecallAt5)
}
