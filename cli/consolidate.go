package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// consolidateFlags are consolidate's own flags; each run of the command
// builds its own (commands() is called per run).
type consolidateFlags struct {
	allDue, force      bool
	minAge, purgeAfter string
	summaryTokens      int
	digestTokens       int
}

func consolidateCmd() *command {
	var cf consolidateFlags
	return &command{
		name: "consolidate", args: "[SESSION_ID] [--all-due]",
		summary: "summarise old sessions into summary memories and forget their raw episodes as they fade",
		help: `With SESSION_ID: summarise that session (once its last event is 7 days old, or with --force)
into one summary memory (kind semantic, type summary) that quotes the sentences carrying its
facts, preferences and decisions and cites every episode; consolidating it again changes nothing.
With --all-due: the periodic run over the namespace, bounded per run: every session quiet for the
minimum age and not summarised yet, then the forgetting and the purge below.

Summarised episodes fade: retention = 2^(-age/half-life), age counted from the last retrieval
that served the episode, half-life 30 days, longer for episodes served often. Below 0.05 (about
130 days without use) an episode leaves recall; its text is purged --purge-after later. A stub
stays (id, content hash, time, the summary that covers it), and the facts extracted from the
episode stay and still cite it. Once every episode of a session is purged and its month is over,
--all-due folds the session's summary into one digest of its month (key summary:month:2024-01,
at most --digest-tokens) and deletes the session summary: storage stays flat as sessions accumulate.
Every step is in the admission log (extractor "consolidate").
  mnemon consolidate s-2026-05-01
  mnemon consolidate --all-due --json`,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.BoolVar(&cf.allDue, "all-due", false, "consolidate every session that is due (the periodic run)")
			fs.BoolVar(&cf.force, "force", false, "summarise SESSION_ID even if it is younger than --min-age")
			fs.StringVar(&cf.minAge, "min-age", "168h", "a session is due once its last event is this old (`AGE`: a duration such as 36h or 168h; 7d is read too)")
			fs.StringVar(&cf.purgeAfter, "purge-after", "720h", "purge a forgotten episode's text this long after it was forgotten (`AGE`)")
			fs.IntVar(&cf.summaryTokens, "summary-tokens", 200, "at most `N` tokens per summary")
			fs.IntVar(&cf.digestTokens, "digest-tokens", 400, "at most `N` tokens per month digest (--all-due)")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if cf.allDue == (len(args) == 1) || len(args) > 1 {
				return usagef("consolidate takes one SESSION_ID or --all-due; run 'mnemon help consolidate'")
			}
			if cf.allDue && cf.force {
				return usagef("--force applies to one SESSION_ID, not --all-due")
			}
			cfg := engine.DefaultConsolidation()
			var err error
			if cfg.MinAge, err = parseAge("--min-age", cf.minAge); err != nil {
				return err
			}
			if cfg.PurgeAfter, err = parseAge("--purge-after", cf.purgeAfter); err != nil {
				return err
			}
			if cfg.SummaryTokens, err = checkTokens("--summary-tokens", cf.summaryTokens, maxSummaryTokens); err != nil {
				return err
			}
			if cfg.DigestTokens, err = checkTokens("--digest-tokens", cf.digestTokens, maxDigestTokens); err != nil {
				return err
			}
			var id string
			if len(args) == 1 {
				id = args[0]
				if err := engine.ValidateSessionID(id); err != nil {
					msg, _ := describe(ctx, err)
					return usagef("session id %q: %s", id, msg)
				}
			}
			if err := a.openStore(ctx); err != nil {
				return err
			}
			eng, err := engine.New(engine.Config{Store: a.store, Consolidation: cfg})
			if err != nil {
				return err
			}
			a.engine = eng
			var rep *engine.ConsolidateReport
			if cf.allDue {
				rep, err = eng.ConsolidateDue(ctx, a.ns)
			} else {
				rep, err = eng.ConsolidateSession(ctx, a.ns, id, engine.ConsolidateOptions{Force: cf.force})
				if errors.Is(err, memory.ErrNotFound) {
					return &failure{msg: fmt.Sprintf("no session %q in namespace %q; 'mnemon capture --session ID' stores one", id, a.ns), code: 1, err: err}
				}
			}
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(a.env.Stdout, rep)
			}
			printConsolidation(a, rep)
			return nil
		},
	}
}

func printConsolidation(a *app, rep *engine.ConsolidateReport) {
	w := a.env.Stdout
	for _, s := range rep.Sessions {
		switch s.Status {
		case engine.SessionTooRecent:
			fmt.Fprintf(w, "session %s is too recent: untouched until %s (or use --force)\n", s.SessionID, s.EligibleAt.Format(time.RFC3339))
		case engine.SessionUnchanged:
			fmt.Fprintf(w, "session %s is already summarised in %s; nothing changed\n", s.SessionID, s.SummaryMemoryID)
		default:
			fmt.Fprintf(w, "session %s (%s) %s into %s:\n  %s\n", s.SessionID, plural(s.Episodes, "episode", "episodes"), s.Status, s.SummaryMemoryID, s.Summary)
		}
	}
	if n := len(rep.Forgotten); n > 0 {
		fmt.Fprintf(w, "forgot %s whose retention fell below the threshold (stubs kept)\n", plural(n, "summarised episode", "summarised episodes"))
	}
	if n := len(rep.Purged); n > 0 {
		fmt.Fprintf(w, "purged the text of %s\n", plural(n, "forgotten episode", "forgotten episodes"))
	}
	for _, f := range rep.Folded {
		fmt.Fprintf(w, "folded the summaries of %s (every episode purged) into the digest of %s, %s\n",
			plural(len(f.Sessions), "session", "sessions"), f.Month, f.MemoryID)
	}
	if len(rep.Sessions)+len(rep.Forgotten)+len(rep.Purged)+len(rep.Folded) == 0 {
		fmt.Fprintln(w, "nothing is due")
	}
	if rep.More {
		fmt.Fprintln(w, "more is due: run it again")
	}
}

// parseAge reads an age: a Go duration (36h, 90m) or a number of days (7d).
func parseAge(name, s string) (time.Duration, error) {
	d, err := parseDuration(s)
	if err != nil {
		return 0, usagef("%s %q is not an age: %s (7d, a number of days, is read too)", name, strings.TrimSpace(s), durationHint)
	}
	if d <= 0 {
		return 0, usagef("%s %q: use an age above zero", name, strings.TrimSpace(s))
	}
	return d, nil
}

// The bounds of a summary's and a month digest's length, in tokens.
const (
	maxSummaryTokens = 4000
	maxDigestTokens  = 8000
)

// checkTokens checks a summary or digest length named name (a flag or a
// config field): from 20 to most tokens.
func checkTokens(name string, n, most int) (int, error) {
	if n < 20 || n > most {
		return 0, usagef("%s %d: use a number from 20 to %d", name, n, most)
	}
	return n, nil
}
