package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// listFlag is a flag that may be given many times.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// feedbackFlags are the feedback command's own flags; a command is built
// for each run, so they live with it rather than in options.
type feedbackFlags struct {
	outcome, source, outputFile string
	severity                    float64
	memories                    listFlag
	failed                      bool
}

func feedbackCmd() *command {
	var f feedbackFlags
	return &command{
		name: "feedback", args: "RETRIEVAL_ID", summary: "say how a recall's items served the task: helpful, unused or harmful",
		help: `Moves the usefulness and trust of the memories a recall returned, never their facts,
validity or confidence. RETRIEVAL_ID is printed on the last line of every recall.

  helpful  reinforces a memory only if the output used it and the task succeeded: with
           --output-file, the output must hold every word of the memory's value or half the
           words of its content; without it, the memories named with --memory count as used.
  unused   lowers usefulness a little.
  harmful  lowers usefulness by half times --severity and counts a failure; at usefulness
           0.05 or below the version expires (out of recall, kept as history).

Trust moves only 30% of the way toward its new target each time, so one outcome cannot turn
a FOLLOW memory into an IGNORE one. Repeating the same judgement (recall, memory, source,
outcome) changes nothing. 'mnemon explain MEMORY_ID' shows how usefulness and trust moved.
  mnemon feedback ret_01j… --outcome helpful --output-file answer.txt
  mnemon feedback ret_01j… --outcome harmful --memory mem_01j… --severity 0.5
  mnemon feedback ret_01j… --outcome unused`,
		flags: func(fs *flag.FlagSet, _ *options) {
			fs.StringVar(&f.outcome, "outcome", "", "`OUTCOME`: helpful, unused or harmful (required)")
			fs.Var(&f.memories, "memory", "judge only this `ID` (mem_… or ver_…; repeat or comma-separate); default every item the recall returned")
			fs.Float64Var(&f.severity, "severity", -1, "how much a harmful outcome weighs, `X` from 0 to 1 (default 1)")
			fs.StringVar(&f.source, "source", "agent", "who judged: user, agent, tool or evaluator")
			fs.StringVar(&f.outputFile, "output-file", "", "the agent's output, read from `FILE` ('-' for standard input), to measure which memories it used")
			fs.BoolVar(&f.failed, "task-failed", false, "the task failed: nothing is reinforced")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("feedback takes one RETRIEVAL_ID (printed by recall); got %d arguments", len(args))
			}
			id, err := parseID("feedback", args[0], ids.Retrieval)
			if err != nil {
				return err
			}
			outcome := memory.FeedbackOutcome(f.outcome)
			if !outcome.Valid() {
				if f.outcome == "" {
					return usagef("feedback: --outcome is required: helpful, unused or harmful")
				}
				return usagef("--outcome %q: use helpful, unused or harmful", f.outcome)
			}
			source := memory.FeedbackSource(f.source)
			if !source.Valid() {
				return usagef("--source %q: use user, agent, tool or evaluator", f.source)
			}
			p := engine.FeedbackParams{Namespace: a.ns, RetrievalID: id, Outcome: outcome, Source: source, MemoryIDs: f.memories}
			if f.severity != -1 {
				if !(f.severity >= 0 && f.severity <= 1) {
					return usagef("--severity %g: use a number from 0 to 1", f.severity)
				}
				p.Severity = &f.severity
			}
			for i, m := range p.MemoryIDs {
				if p.MemoryIDs[i], err = parseID("feedback --memory", m, ids.Memory, ids.Version); err != nil {
					return err
				}
			}
			if f.failed {
				p.TaskSucceeded = new(bool)
			}
			if f.outputFile != "" {
				if p.Output, err = readOutput(a.env.Stdin, f.outputFile); err != nil {
					return err
				}
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			res, err := a.engine.Feedback(ctx, p)
			switch {
			case errors.Is(err, engine.ErrNotInRetrieval):
				msg, _ := describe(ctx, err)
				return &failure{msg: msg + "; 'mnemon explain " + id + "' lists its items", code: 1, err: err}
			case err != nil:
				return notFound(err, id, a.ns)
			}
			if o.json {
				return writeJSON(a.env.Stdout, res)
			}
			printFeedback(a.env.Stdout, res)
			return nil
		},
	}
}

// readOutput reads the agent's output from a file or standard input.
func readOutput(stdin io.Reader, path string) (string, error) {
	var (
		b   []byte
		err error
	)
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(stdin, engine.MaxFeedbackOutput+1))
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return "", &failure{msg: fmt.Sprintf("--output-file %s: %v", path, errors.Unwrap(err)), code: 1, err: err}
	}
	if len(b) > engine.MaxFeedbackOutput {
		return "", usagef("--output-file %s: %d bytes; the limit is %d", path, len(b), engine.MaxFeedbackOutput)
	}
	return string(b), nil
}

func printFeedback(w io.Writer, res *engine.FeedbackResult) {
	if len(res.Applied) == 0 && len(res.Gone) > 0 && len(res.Duplicates) == 0 {
		fmt.Fprintf(w, "nothing to judge: the %s this retrieval served %s been deleted since (pruned history, purged episodes)\n",
			plural(len(res.Gone), "item", "items"), map[bool]string{true: "has", false: "have"}[len(res.Gone) == 1])
		return
	}
	if len(res.Applied) == 0 {
		fmt.Fprintf(w, "already recorded: this judgement of %s changed nothing\n", plural(len(res.Duplicates), "item", "items"))
		return
	}
	fmt.Fprintf(w, "%s on %s:\n", res.Applied[0].Outcome, res.RetrievalID)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range res.Applied {
		note := feedbackNote(f)
		fmt.Fprintf(tw, "  %s\tusefulness %.2f → %.2f\ttrust %.2f → %.2f\t%s\n", f.VersionID, f.UsefulnessBefore, f.UsefulnessAfter, f.TrustBefore, f.TrustAfter, note)
	}
	tw.Flush()
	if len(res.Duplicates) > 0 {
		fmt.Fprintf(w, "(%s already judged so: unchanged)\n", plural(len(res.Duplicates), "item", "items"))
	}
	if len(res.Gone) > 0 {
		fmt.Fprintf(w, "(%s deleted since the retrieval: skipped)\n", plural(len(res.Gone), "item", "items"))
	}
}

// feedbackNote says in a few words what an event did.
func feedbackNote(f *memory.Feedback) string {
	var parts []string
	if f.Overlap != nil {
		parts = append(parts, fmt.Sprintf("overlap %.2f", *f.Overlap))
	}
	switch {
	case f.Reinforced:
		parts = append(parts, "reinforced")
	case f.Outcome == memory.OutcomeHelpful && !f.Used:
		parts = append(parts, "not used: no reinforcement")
	case f.Outcome == memory.OutcomeHelpful && !f.TaskSucceeded:
		parts = append(parts, "task failed: no reinforcement")
	case f.Outcome == memory.OutcomeHarmful && f.Overlap != nil && !f.Used:
		parts = append(parts, "not used: not blamed")
	case f.Outcome == memory.OutcomeHarmful:
		parts = append(parts, fmt.Sprintf("severity %.2f", f.Severity))
	}
	if f.StatusAfter == memory.StatusExpired {
		parts = append(parts, "expired")
	}
	return strings.Join(parts, ", ")
}

// printWhy prints, after show's view of a memory, why each version is
// held and how feedback moved it.
func printWhy(w io.Writer, me *engine.MemoryExplanation) {
	fmt.Fprintln(w, "  why:")
	for _, ve := range me.Versions {
		v := ve.Version
		fmt.Fprintf(w, "    v%d %s: trust %.2f ± uncertainty %.2f (%s), usefulness %.2f, reinforced %d, failed %d\n",
			v.Seq, v.ID, ve.Trust, ve.Uncertainty, ve.Action, v.Usefulness, v.ReinforcementCount, v.FailureCount)
		for _, line := range ve.Why {
			fmt.Fprintf(w, "      - %s\n", line)
		}
	}
	if len(me.Chain) > 1 {
		fmt.Fprintf(w, "  superseded-by chain: %s\n", strings.Join(me.Chain, " → "))
	}
}

// printRetrievalFeedback lists the feedback a retrieval received.
func printRetrievalFeedback(w io.Writer, fbs []*memory.Feedback) {
	if len(fbs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nfeedback:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range fbs {
		fmt.Fprintf(tw, "  %s\t%s\t%s\tusefulness %.2f → %.2f\ttrust %.2f → %.2f\t%s\n", f.CreatedAt.Format(time.RFC3339), f.Outcome, f.VersionID,
			f.UsefulnessBefore, f.UsefulnessAfter, f.TrustBefore, f.TrustAfter, feedbackNote(f))
	}
	tw.Flush()
}

// parseFloatPtr reads an environment number into a config field.
func parseFloatPtr(dst **float64) func(string) error {
	return func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return errors.New("want a number from 0 to 1, like 0.75")
		}
		*dst = &f
		return nil
	}
}

// trustRanking returns the default ranking with the configured trust
// thresholds: 0 < hint <= follow <= 1.
func (cfg *serverConfig) trustRanking() (engine.Ranking, error) {
	r := engine.DefaultRanking()
	if cfg.TrustFollowAt != nil {
		r.FollowAt = *cfg.TrustFollowAt
	}
	if cfg.TrustHintAt != nil {
		r.HintAt = *cfg.TrustHintAt
	}
	if !(r.HintAt > 0 && r.HintAt <= r.FollowAt && r.FollowAt <= 1) {
		return r, usagef("trust thresholds: hint %g, follow %g; use 0 < trust_hint_at <= trust_follow_at <= 1", r.HintAt, r.FollowAt)
	}
	return r, nil
}
