package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/jobs"
)

func lifecycleCmd() *command {
	var (
		dryRun, dedupe bool
		threshold      float64
		limit          int
	)
	return &command{
		name:    "lifecycle",
		summary: "run the lifecycle now: expire ended facts, decay usefulness, settle contests; --dedupe merges duplicates",
		help: `Runs, over one namespace, what 'mnemon serve' and 'mnemon worker' run every
hour (maintain_every, MNEMON_MAINTAIN_EVERY) over all of them:

  expired_valid_to    a fact whose valid_to has passed becomes expired
                      (history: 'facts --history', 'recall --history')
  usefulness_floor    a fact whose usefulness fell to 0.05 or less (harmful
                      feedback) becomes expired
  usefulness_decay    usefulness drifts back toward 0.5 with a 30-day
                      half-life (0.9 → 0.7 after 30 days, 0.6 after 60);
                      facts touched in the last 24 hours are left alone
  contested_resolved  when one value of a contested slot leads the others
                      by 0.15 or more on usefulness + confidence, it becomes
                      active and the others superseded by it

With --dedupe it then merges duplicates: active facts of one scope whose
embeddings are at least --threshold alike (cosine, default 0.92), linked
in chains (A like B, B like C), are superseded by the strongest of them
(duplicate_of). Facts that may contradict each other (likes vs dislikes,
a statement and its negation, one key about two subjects) are never merged.

Every change is logged in the admission log ('mnemon show ID' lists it).
Running it twice changes nothing the second time. Each step changes at
most --limit versions per run; the report says when more remains.

Examples:
  mnemon lifecycle --dry-run
  mnemon lifecycle --dedupe
  mnemon lifecycle --namespace acme --dedupe --threshold 0.95 --json`,
		flags: func(fs *flag.FlagSet, _ *options) {
			fs.BoolVar(&dryRun, "dry-run", false, "report what would change without writing anything")
			fs.BoolVar(&dedupe, "dedupe", false, "also merge duplicate facts into their strongest")
			fs.Float64Var(&threshold, "threshold", engine.DefaultDedupeThreshold, "with --dedupe: the `COSINE` at which two facts are duplicates, in (0, 1]")
			fs.IntVar(&limit, "limit", 0, "change at most `N` versions per step (default 1000 lifecycle, 500 dedupe)")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) > 0 {
				return usagef("lifecycle takes no arguments (got %q); run 'mnemon help lifecycle'", args[0])
			}
			if !(threshold > 0 && threshold <= 1) {
				return usagef("--threshold %v: use a cosine in (0, 1], like 0.92", threshold)
			}
			if limit < 0 {
				return usagef("--limit %d: use a positive number", limit)
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			res := lifecycleResult{}
			var err error
			if res.Lifecycle, err = a.engine.Lifecycle(ctx, engine.LifecycleParams{Namespace: a.ns, DryRun: dryRun, Limit: limit}); err != nil {
				return err
			}
			if dedupe {
				if res.Dedupe, err = a.engine.Dedupe(ctx, engine.DedupeParams{Namespace: a.ns, DryRun: dryRun, Limit: limit, Threshold: threshold}); err != nil {
					return err
				}
			}
			if o.json {
				return writeJSON(a.env.Stdout, res)
			}
			printLifecycle(a.env.Stdout, res)
			return nil
		},
	}
}

// lifecycleResult is what 'mnemon lifecycle --json' prints: the body of
// POST /v1/lifecycle/run.
type lifecycleResult struct {
	Lifecycle *engine.LifecycleReport `json:"lifecycle"`
	Dedupe    *engine.DedupeReport    `json:"dedupe,omitempty"`
}

func printLifecycle(w io.Writer, res lifecycleResult) {
	lc, verb := res.Lifecycle, "changed"
	if lc.DryRun {
		verb = "would change"
	}
	fmt.Fprintf(w, "lifecycle %s %s in %s: %d expired (valid_to), %d expired (usefulness floor), %d decayed, %s\n",
		verb, plural(len(lc.Changes), "version", "versions"), lc.Namespace, lc.Expired, lc.Floored, lc.Decayed,
		plural(lc.ContestsResolved, "contest resolved", "contests resolved"))
	changes := lc.Changes
	if d := res.Dedupe; d != nil {
		fmt.Fprintf(w, "dedupe (cosine ≥ %.2f) %s %s: %s superseded by their strongest\n",
			d.Threshold, verb, plural(d.Clusters, "cluster", "clusters"), plural(d.Superseded, "duplicate", "duplicates"))
		changes = append(changes[:len(changes):len(changes)], d.Changes...)
	}
	for _, c := range changes {
		fmt.Fprintf(w, "  %s %s: %s → %s (%s) %s\n", c.MemoryID, c.VersionID, c.From, c.To, c.Reason, c.Detail)
	}
	if lc.More || (res.Dedupe != nil && res.Dedupe.More) {
		fmt.Fprintln(w, "more remains: run it again")
	}
}

// checkMaintenance checks the maintenance settings of a server config:
// maintain_every (a duration of a minute or more, "0" never),
// dedupe_threshold (0: the engine's default) and history_keep (-1 or more).
func (cfg *serverConfig) checkMaintenance() error {
	if _, err := parseEvery(cfg.MaintainEvery); err != nil {
		return usagef("maintain_every %q: use a duration of a minute or more, like 30m or 6h, or 0 to never run maintenance", cfg.MaintainEvery)
	}
	if t := cfg.DedupeThreshold; t != 0 && !(t > 0 && t <= 1) {
		return usagef("dedupe_threshold %v: use a cosine in (0, 1], like 0.92", t)
	}
	if cfg.HistoryKeep < -1 {
		return usagef("history_keep %d: use the number of superseded versions to keep per memory, 0 for the default (%d), or -1 to keep all", cfg.HistoryKeep, engine.DefaultHistoryKeep)
	}
	_, err := cfg.consolidation()
	return err
}

// consolidation is the maintenance job's consolidation: the defaults of
// SPEC §4 with consolidate_after, purge_after, summary_tokens and
// digest_tokens where they are set, checked as the consolidate command's
// flags are.
func (cfg *serverConfig) consolidation() (engine.Consolidation, error) {
	c := engine.DefaultConsolidation()
	var err error
	if cfg.ConsolidateAfter != "" {
		if c.MinAge, err = parseAge("consolidate_after (MNEMON_CONSOLIDATE_AFTER)", cfg.ConsolidateAfter); err != nil {
			return c, err
		}
	}
	if cfg.PurgeAfter != "" {
		if c.PurgeAfter, err = parseAge("purge_after (MNEMON_PURGE_AFTER)", cfg.PurgeAfter); err != nil {
			return c, err
		}
	}
	if cfg.SummaryTokens != 0 {
		if c.SummaryTokens, err = checkTokens("summary_tokens", cfg.SummaryTokens, maxSummaryTokens); err != nil {
			return c, err
		}
	}
	if cfg.DigestTokens != 0 {
		if c.DigestTokens, err = checkTokens("digest_tokens", cfg.DigestTokens, maxDigestTokens); err != nil {
			return c, err
		}
	}
	return c, nil
}

// maintainInterval is how often maintenance runs: maintain_every, checked
// by checkMaintenance, or jobs.DefaultMaintainEvery.
func (cfg *serverConfig) maintainInterval() time.Duration {
	d, _ := parseEvery(cfg.MaintainEvery)
	return d
}

func parseEvery(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return jobs.DefaultMaintainEvery, nil
	}
	d, err := parseDuration(v)
	if err != nil || d < 0 || (d > 0 && d < time.Minute) {
		return 0, errors.New("bad interval")
	}
	return d, nil
}

// parseThreshold reads a cosine threshold from the environment.
func parseThreshold(dst *float64) func(string) error {
	return func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return errors.New("want a cosine in (0, 1], like 0.92")
		}
		*dst = f
		return nil
	}
}
