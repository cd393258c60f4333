package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mnemon-dev/mnemon/bench/scale"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

func scaleSuite() benchSuite {
	return benchSuite{
		name:    "scale",
		summary: "ingest throughput, retrieve latency, storage and RSS as memories and sessions grow",
		run:     runScale,
	}
}

const scaleUsage = `Measures how mnemon holds up as memory grows, in two arms:

Memories in one namespace (--sizes): one store grows through each size in
turn. Seeded statements (search/searchtest's generator) are written by
RememberBatch, keyed so each is exactly one fact; each fact also adds its
episode, so N memories are N/2 statements. At each size: ingest rate over
the segment since the previous size (facts/s and memory items/s), retrieve
p50/p95/p99 over --queries timed queries after a warm-up, the database
and WAL file sizes, and the process's RSS (VmRSS now and VmHWM peak, from
/proc/self/status) and live Go heap.

Sessions of one user (--sessions): seeded conversations of --turns turns
in which the user restates, changes and adds facts, captured turn by turn
through the capture path with extraction, into one namespace. At each
session count: capture rate, retrieve latency and storage; once without
consolidation and once with it (the periodic run after every session:
sessions a week old summarised, episodes past their retention forgotten,
their text purged; sessions are a day apart but arrive within seconds, so
the purge window is shortened to nothing: the next run purges).

Targets (issue 4): retrieve p95 <= 10 ms at 100k and <= 50 ms at 1M
memories; ingest >= 2,000 memories/s batched (judged on facts/s); storage
flat within 10 % from 200 to 1,000 sessions with consolidation on.

Everything happens in a temporary directory; your database is never
touched. 1M memories takes many minutes and several GB of RAM: opt in.
On a shared machine one run's rates can be half another's: --runs 3
repeats everything and reports the median of each number.
--svg DIR writes one SVG plot per curve (latency and storage against size
and against sessions). --replot FILE prints a report saved with --json
again, as tables or plots, without measuring anything (for example a
report of medians over several runs).

Examples:
  mnemon bench scale
  mnemon bench scale --sizes 1k,10k,100k,1M --svg docs/benchmarks
  mnemon bench scale --runs 3 --json > scale.json
  mnemon bench scale --sizes 1k --sessions 50,100 --queries 200 --json`

func runScale(ctx context.Context, env Env, args []string) error {
	fs := benchFlags("scale")
	sizes := fs.String("sizes", "1k,10k,100k", "memories in one namespace, comma-separated `LIST` (k and M suffixes; 'none' to skip)")
	sessions := fs.String("sessions", "50,100,200,1000", "session counts, comma-separated `LIST` ('none' to skip)")
	turns := fs.Int("turns", 20, "turns per session (`N`)")
	queries := fs.Int("queries", 500, "timed retrievals per point (`N`)")
	seed := fs.Uint64("seed", 1, "generator `SEED`")
	batch := fs.Int("batch", 1000, "statements per RememberBatch call (`N`)")
	runs := fs.Int("runs", 1, "repeat everything `N` times and report per-point medians (odd N: a true middle)")
	svgDir := fs.String("svg", "", "write one SVG plot per curve into `DIR`")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	replot := fs.String("replot", "", "measure nothing: read a report saved with --json from `FILE` and print it and its plots (--svg) again")
	rest, err := parseBenchFlags(env, fs, "scale", scaleUsage, args)
	if err != nil {
		return err
	}
	if *replot != "" {
		b, err := os.ReadFile(*replot)
		if err != nil {
			return fmt.Errorf("bench scale: --replot: %w", err)
		}
		var rep scale.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			return fmt.Errorf("bench scale: --replot %s: not a report saved with --json: %w", *replot, err)
		}
		rep.ScoreTargets()
		return printScale(env, &rep, *svgDir, *asJSON)
	}
	szs, err := parseCounts(*sizes, 2, 10_000_000)
	if err != nil {
		return usagef("bench scale: --sizes: %v", err)
	}
	sss, err := parseCounts(*sessions, 1, 100_000)
	if err != nil {
		return usagef("bench scale: --sessions: %v", err)
	}
	switch {
	case len(rest) > 0:
		return usagef("bench scale: unexpected argument %q; it takes flags only", rest[0])
	case len(szs) == 0 && len(sss) == 0:
		return usagef("bench scale: --sizes and --sessions are both none; nothing to measure")
	case *turns < 2 || *turns > 1000:
		return usagef("bench scale: --turns %d: use 2 to 1000", *turns)
	case *queries < 1 || *queries > 1_000_000:
		return usagef("bench scale: --queries %d: use 1 to 1000000", *queries)
	case *runs < 1 || *runs > 100:
		return usagef("bench scale: --runs %d: use 1 to 100", *runs)
	case *batch < 1 || *batch > engine.MaxEvents:
		return usagef("bench scale: --batch %d: use 1 to %d", *batch, engine.MaxEvents)
	}

	dir, err := os.MkdirTemp("", "mnemon-bench-scale-")
	if err != nil {
		return fmt.Errorf("bench scale: %w", err)
	}
	defer os.RemoveAll(dir)
	o := scale.Options{
		Sizes: szs, Sessions: sss, Turns: *turns, Queries: *queries, Seed: *seed, Batch: *batch, Runs: *runs, Dir: dir,
		DataBytes: sqlite.DataBytes, TraceBytes: sqlite.TraceBytes,
		Open: func(ctx context.Context, path string, cfg engine.Config) (*engine.Engine, func() error, error) {
			opened, err := openBenchDB(ctx, path)
			if err != nil {
				return nil, nil, err
			}
			st := opened.store
			cfg.Store = st
			eng, err := engine.New(cfg)
			if err != nil {
				st.Close()
				return nil, nil, err
			}
			return eng, func() error {
				eng.Close()
				return st.Close()
			}, nil
		},
	}
	if stderrIsTerminal(env.Stderr) {
		o.Progress = env.Stderr
	}
	rep, err := scale.Run(ctx, o)
	if err != nil {
		return err
	}
	return printScale(env, rep, *svgDir, *asJSON)
}

func printScale(env Env, rep *scale.Report, svgDir string, asJSON bool) error {
	if svgDir != "" {
		if err := writePlots(svgDir, rep.Plots()); err != nil {
			return fmt.Errorf("bench scale: --svg: %w", err)
		}
	}
	if asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.Markdown(env.Stdout)
	return nil
}

func writePlots(dir string, plots map[string]scale.Plot) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(plots))
	for n := range plots {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f, err := os.Create(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		err = scale.WriteSVG(f, plots[n])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parseCounts reads "1k,10k,1M" into ascending, distinct counts within
// [lo, hi]; "none" or "" is no counts.
func parseCounts(s string, lo, hi int) ([]int, error) {
	if s == "" || s == "none" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := 1
		switch {
		case strings.HasSuffix(f, "k") || strings.HasSuffix(f, "K"):
			mult, f = 1000, f[:len(f)-1]
		case strings.HasSuffix(f, "M"):
			mult, f = 1_000_000, f[:len(f)-1]
		}
		n, err := strconv.Atoi(strings.ReplaceAll(f, "_", ""))
		if err != nil || n*mult < lo || n*mult > hi {
			return nil, fmt.Errorf("%q: use whole numbers from %d to %d, with k or M if you like", f, lo, hi)
		}
		out = append(out, n*mult)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
