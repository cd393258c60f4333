package scenarios

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Filter keeps the questions of category cat (and the scenarios that have
// any); "" keeps everything.
func Filter(scs []Scenario, cat string) []Scenario {
	if cat == "" {
		return scs
	}
	var out []Scenario
	for _, s := range scs {
		var qs []Question
		for _, q := range s.Questions {
			if s.CategoryOf(q) == cat {
				qs = append(qs, q)
			}
		}
		if len(qs) > 0 {
			s.Questions = qs
			out = append(out, s)
		}
	}
	return out
}

// CountByCategory counts questions per category.
func CountByCategory(scs []Scenario) map[string]int {
	n := map[string]int{}
	for _, s := range scs {
		for _, q := range s.Questions {
			n[s.CategoryOf(q)]++
		}
	}
	return n
}

// MarkdownOptions choose the optional parts of the markdown report.
type MarkdownOptions struct {
	Misses bool // each miss with its top three items
	Facts  bool // the audit table of every fact written
}

// Markdown writes the report for people: a table per category, the
// never-stated violations, the facts written, latency; then, as asked,
// the misses and the facts' audit table.
func (r *Report) Markdown(w io.Writer, o MarkdownOptions) {
	fmt.Fprintf(w, "## mnemon bench scenarios\n\n")
	fmt.Fprintf(w, "%d scenarios, %d sessions, %d turns, %d questions; took %s.\n", r.Scenarios, r.Sessions, r.Turns, r.Questions, r.Took)
	if r.FillerSessions > 0 {
		fmt.Fprintf(w, "Mixed in: %d sessions of small talk, %d turns.\n", r.FillerSessions, r.FillerTurns)
	}
	fmt.Fprintln(w)
	if len(r.Categories) > 0 {
		fmt.Fprintln(w, "| category | questions | hit@1 | hit@5 | answer held as a fact | wrong value first |")
		fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: |")
		for _, c := range append(slices.Clone(r.Categories), r.Overall) {
			name := c.Name
			if name == "overall" {
				name = "**overall**"
			}
			fmt.Fprintf(w, "| %s | %d | %.3f | %.3f | %.3f | %d |\n", name, c.Questions, c.Hit1, c.Hit5, c.AsFactShare, c.WrongFirst)
		}
		fmt.Fprintln(w)
	}
	if r.NeverStated.Questions > 0 {
		fmt.Fprintf(w, "Never-stated questions: %d; a planted wrong value ranked first on %d (%d of them a fact, the rest a turn naming it).\n\n",
			r.NeverStated.Questions, r.NeverStated.Violations, r.NeverStated.ByFact)
	}
	live := 0
	for _, f := range r.Facts {
		if f.Status.Live() {
			live++
		}
	}
	fmt.Fprintf(w, "Facts written: %d (%d live), %d flagged as wrong (a filler word as the value, or against expect_facts); answers held as facts: %.3f.\n\n",
		len(r.Facts), live, r.FactsFlagged, r.Overall.AsFactShare)
	fmt.Fprintf(w, "Retrieve latency: p50 %.2f ms, p95 %.2f ms.\n", r.LatencyP50Ms, r.LatencyP95Ms)
	fmt.Fprintln(w, "\nhit@k: an item among the top k states the answer (its own text, not the turns shown around it).")
	fmt.Fprintln(w, "answer held as a fact: the first item stating the answer is a fact, not an episode or note.")
	if o.Misses {
		var misses []Result
		for _, res := range r.Results {
			if res.Miss() {
				misses = append(misses, res)
			}
		}
		fmt.Fprintf(w, "\n### Misses (%d)\n", len(misses))
		for _, m := range misses {
			want := "want " + strings.Join(quoteAll(m.Answer), " or ")
			if len(m.Answer) == 0 {
				want = "never stated; must not be first: " + strings.Join(quoteAll(m.Wrong), ", ")
			}
			status := "not in the top 5"
			switch {
			case m.WrongFirst:
				status = "wrong value first"
			case m.Hit5:
				status = "in the top 5, not first"
			}
			fmt.Fprintf(w, "\n- [%s] %s `%s`: %s; %s\n", m.Category, m.Scenario, m.Question, want, status)
			for i, t := range m.Top {
				fmt.Fprintf(w, "  %d. (%s) %s\n", i+1, label(t), shorten(t.Content, 160))
			}
		}
	}
	if o.Facts {
		fmt.Fprintf(w, "\n### Facts written (%d)\n\n", len(r.Facts))
		fmt.Fprintln(w, "| scenario | subject | key | value | status | flag |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
		for _, f := range r.Facts {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", f.Scenario, cell(f.Subject), cell(f.Key), cell(f.Value), f.Status, f.Flag)
		}
	}
}

func label(t Top) string {
	if t.Status != "" && t.Status != "active" {
		return string(t.Kind) + ", " + string(t.Status)
	}
	return string(t.Kind)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func cell(s string) string { return strings.ReplaceAll(shorten(s, 80), "|", "\\|") }
