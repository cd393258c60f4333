package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mnemon-dev/mnemon/bench/scenarios"
	"github.com/mnemon-dev/mnemon/engine"
)

func scenariosSuite() benchSuite {
	return benchSuite{
		name:    "scenarios",
		summary: "natural-speech scenarios: is what is true now found first when asked in other words?",
		run:     runScenarios,
	}
}

const scenariosUsage = `
Runs mnemon's own natural-speech scenario suite (shipped in the binary): small
conversations in casual wording, a user talking to an agent or people talking
to each other over several sessions days apart, each followed by questions.
Each scenario is captured into its own namespace of a fresh database through
the capture path, one capture per session with its session id, as an agent
does; each question is then asked from a later session as a recall. Four
sessions of small talk (the weather, a recipe, a git question; the same pool
for every scenario, never one that says a scenario's answer) are mixed in
among each scenario's own, so an answer is found among unrelated turns, not
in a namespace of three; --no-filler leaves them out.

Categories (questions): updates (a job, home, tool or plan changes in
passing), corrections (within one message: "no wait, the 16th"),
third-parties (a sister's or a colleague's facts are not the user's),
preferences, constraints (allergies, hard rules), tasks ("order me dinner"
should surface the food constraints), paraphrase (asked in other words),
multi-hop (A is away, B covers for A: who handles A's work?), history (the
value before the current one, asked with history included), distractors
(similar but irrelevant turns around the answer), never-stated (the answer
was never given; a planted value, such as a friend's, must not rank first).

Reported per category and overall:
  hit@1, hit@5      an item among the top 1 / 5 states the answer (its own
                    text; neighbouring turns shown with it do not count)
  answer as a fact  the first item stating the answer is a fact, not a turn
  wrong value first the first item states a listed wrong value (a stale or
                    someone else's value) and not the answer
plus the never-stated violations, every fact the extractor wrote (flagged
when its value is a filler word or contradicts the scenario's expected
facts; --facts prints them all for a person to audit) and recall latency.

--data runs a file (or a directory of files) of your own scenarios in the
suite's format, a JSON array of scenarios; see docs/benchmarks/scenarios.md.

Examples:
  mnemon bench scenarios
  mnemon bench scenarios --category updates --verbose
  mnemon bench scenarios --facts
  mnemon bench scenarios --json > scenarios.json`

func runScenarios(ctx context.Context, env Env, args []string) error {
	fs := benchFlags("scenarios")
	category := fs.String("category", "", "run only the questions of `CATEGORY`")
	verbose := fs.Bool("verbose", false, "print each miss with the top 3 items retrieved")
	facts := fs.Bool("facts", false, "print every fact written, for an audit")
	data := fs.String("data", "", "run the scenarios in `PATH` (a .json file or a directory of them) instead of the built-in suite")
	limit := fs.Int("limit", scenarios.DefaultLimit, "items per recall (`N`, at least 5)")
	noFiller := fs.Bool("no-filler", false, "do not mix small-talk sessions into the scenarios")
	asJSON := fs.Bool("json", false, "print the report as JSON, with every question's outcome")
	rest, err := parseBenchFlags(env, fs, "scenarios", scenariosUsage, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) > 0:
		return usagef("bench scenarios: unexpected argument %q; it takes flags only", rest[0])
	case *limit < 5 || *limit > engine.MaxLimit:
		return usagef("bench scenarios: --limit %d: use 5 to %d (hit@5 needs five items)", *limit, engine.MaxLimit)
	case *category != "" && !slices.Contains(scenarios.Categories(), *category):
		return usagef("bench scenarios: unknown category %q%s; categories: %s", *category,
			suggest(*category, scenarios.Categories(), func(s string) string { return s }), strings.Join(scenarios.Categories(), ", "))
	}
	var scs []scenarios.Scenario
	if *data == "" {
		scs, err = scenarios.Suite()
	} else {
		scs, err = scenarios.Load(*data)
		if errors.Is(err, os.ErrNotExist) {
			return &failure{msg: fmt.Sprintf("bench scenarios: no file or directory %s", *data), code: 1, err: err}
		}
	}
	if err != nil {
		return &failure{msg: fmt.Sprintf("bench scenarios: the scenarios do not validate: %v", err), code: 1, err: err}
	}
	scs = scenarios.Filter(scs, *category)
	if len(scs) == 0 {
		return &failure{msg: fmt.Sprintf("bench scenarios: no questions in category %s", *category), code: 1}
	}

	dir, err := os.MkdirTemp("", "mnemon-bench-scenarios-")
	if err != nil {
		return fmt.Errorf("bench scenarios: %w", err)
	}
	defer os.RemoveAll(dir)
	eng, closeEng, err := openBenchEngine(ctx, filepath.Join(dir, "scenarios.db"), nil)
	if err != nil {
		return fmt.Errorf("bench scenarios: %w", err)
	}
	defer closeEng()
	var progress io.Writer
	if stderrIsTerminal(env.Stderr) {
		progress = env.Stderr
	}
	o := scenarios.Options{Limit: *limit, Progress: progress}
	if !*noFiller {
		if o.Filler, err = scenarios.Filler(); err != nil {
			return fmt.Errorf("bench scenarios: %w", err)
		}
	}
	rep, err := scenarios.Run(ctx, eng, scs, o)
	if err != nil {
		return fmt.Errorf("bench scenarios: %w", err)
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.Markdown(env.Stdout, scenarios.MarkdownOptions{Misses: *verbose, Facts: *facts})
	return nil
}
