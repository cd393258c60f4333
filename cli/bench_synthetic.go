package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemon-dev/mnemon/bench/synthetic"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/extract"
)

func syntheticSuite() benchSuite {
	return benchSuite{
		name:    "synthetic",
		summary: "seeded users whose preferences, city and employer change: are current and previous values answered right?",
		run:     runSynthetic,
	}
}

const syntheticUsage = `Generates users who talk to an assistant over several sessions: they state
preferences (programming language, editor, drink, food, music), a home city
and an employer, change some of them later, and mix in distractors (other
people's preferences, questions naming values, tentative plans, small talk).
Each user is then asked, in other words than they used ("coding language"
for "programming language"), for each value now and before its latest change.

A fixed reader answers every question from what a condition hands it: it
picks among the question's candidate values by the items' order and time
(see bench/synthetic/reader.go), never seeing the answer. Conditions:
  none        no memory: a uniform guess among the candidates
  window400   the last 400 words of the conversation
  window1600  the last 1,600 words
  lexical     mnemon's retrieval, lexical (BM25) channel only
  hybrid      mnemon's full read path
  episodes    the full read path over episodes only (extraction off)

Every turn is captured through the engine's capture path into a SQLite file
in a temporary directory (one namespace per user), as production does.

Seeds: test seeds are any seed outside 1000-1999; tuning seeds are
1000-1999 and need --tune. Tune the engine by reading failures on tuning
seeds, and report test seeds. A quarter of every list of statement
templates is held out: tuning seeds never say them, and the report scores
the questions answered by a held-out statement, and the extractor's
precision and recall on held-out turns, apart from the rest.

Examples:
  mnemon bench synthetic
  mnemon bench synthetic --users 20 --conditions hybrid,episodes --json
  mnemon bench synthetic --tune --seed 1001 --failures 20`

func runSynthetic(ctx context.Context, env Env, args []string) error {
	fs := benchFlags("synthetic")
	users := fs.Int("users", 60, "users to generate (`N`)")
	sessions := fs.Int("sessions", 12, "sessions per user (`N`)")
	seed := fs.Uint64("seed", 1, "generator `SEED`; 1000-1999 are tuning seeds")
	tune := fs.Bool("tune", false, "run a tuning seed (1000-1999); the report is labelled tuning")
	conds := fs.String("conditions", strings.Join(synthetic.ConditionNames(), ","), "comma-separated `LIST` of conditions")
	limit := fs.Int("limit", 10, "items per retrieval (`N`)")
	budget := fs.Int("budget", 1000, "tokens per retrieval (`N`)")
	failures := fs.Int("failures", 0, "show up to `N` wrong answers per condition")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	rest, err := parseBenchFlags(env, fs, "synthetic", syntheticUsage, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) > 0:
		return usagef("bench synthetic: unexpected argument %q; it takes flags only", rest[0])
	case *users < 1 || *users > 100000:
		return usagef("bench synthetic: --users %d: use 1 to 100000", *users)
	case *sessions < 1 || *sessions > 1000:
		return usagef("bench synthetic: --sessions %d: use 1 to 1000", *sessions)
	case *limit < 1 || *limit > engine.MaxLimit:
		return usagef("bench synthetic: --limit %d: use 1 to %d", *limit, engine.MaxLimit)
	case *budget < 1 || *budget > engine.MaxTokenBudget:
		return usagef("bench synthetic: --budget %d: use 1 to %d", *budget, engine.MaxTokenBudget)
	case *failures < 0:
		return usagef("bench synthetic: --failures %d: use 0 or more", *failures)
	}
	split := synthetic.SplitOf(*seed)
	if split == "tuning" && !*tune {
		return usagef("bench synthetic: seed %d is a tuning seed (%d-%d); pass --tune to run it, or use a test seed", *seed, synthetic.TuneSeedMin, synthetic.TuneSeedMax)
	}
	if split == "test" && *tune {
		return usagef("bench synthetic: --tune needs a tuning seed (%d-%d); seed %d is a test seed", synthetic.TuneSeedMin, synthetic.TuneSeedMax, *seed)
	}
	cs, err := synthetic.ParseConditions(*conds)
	if err != nil {
		return usagef("bench synthetic: --conditions: %v", err)
	}
	if len(cs) == 0 {
		return usagef("bench synthetic: --conditions is empty; use some of %s", strings.Join(synthetic.ConditionNames(), ", "))
	}

	dir, err := os.MkdirTemp("", "mnemon-bench-synthetic-")
	if err != nil {
		return fmt.Errorf("bench synthetic: %w", err)
	}
	defer os.RemoveAll(dir)
	o := synthetic.Options{
		Spec:       synthetic.Spec{Seed: *seed, Users: *users, Sessions: *sessions},
		Conditions: cs, Limit: *limit, Budget: *budget, Failures: *failures,
		Open: func(ctx context.Context, name string, ex extract.Extractor) (*engine.Engine, func() error, error) {
			return openBenchEngine(ctx, filepath.Join(dir, name+".db"), ex)
		},
	}
	if stderrIsTerminal(env.Stderr) {
		o.Progress = env.Stderr
	}
	rep, err := synthetic.Run(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.Markdown(env.Stdout)
	return nil
}

// openBenchEngine opens an engine over a fresh SQLite file, wired as the
// CLI wires it. The file is thrown away, so commits skip the per-commit
// fsync (synchronous=NORMAL); nothing else differs.
func openBenchEngine(ctx context.Context, path string, ex extract.Extractor) (*engine.Engine, func() error, error) {
	opened, err := openBenchDB(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	st := opened.store
	eng, err := engine.New(engine.Config{Store: st, Extractor: ex})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return eng, func() error {
		eng.Close()
		return st.Close()
	}, nil
}
