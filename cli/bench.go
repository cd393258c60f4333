package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// benchSuite is one suite of `mnemon bench`. Each suite parses its own
// flags from args and writes its report to env.Stdout (progress, if any, to
// env.Stderr). Adding a suite is one line in benchSuites.
type benchSuite struct {
	name    string
	summary string
	run     func(ctx context.Context, env Env, args []string) error
}

// benchDBFile, when not nil, lays down the database file at path before a
// suite opens its fresh store there. Only tests set it, to copy a file
// migrated once per test binary instead of migrating every suite's files
// anew under -race; the command itself leaves it nil and migrates.
var benchDBFile func(path string) error

// openBenchDB opens a suite's fresh SQLite file at path. The file is thrown
// away, so commits skip the per-commit fsync (synchronous=NORMAL).
func openBenchDB(ctx context.Context, path string) (*openedStore, error) {
	if benchDBFile != nil {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			if err := benchDBFile(path); err != nil {
				return nil, err
			}
		}
	}
	return openDB(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
}

// benchSuites lists the suites in the order help shows them.
func benchSuites() []benchSuite {
	return []benchSuite{
		locomoSuite(),
		syntheticSuite(),
		scenariosSuite(),
		scaleSuite(),
	}
}

func benchCmd() *command {
	return &command{
		name: "bench", args: "SUITE", summary: "measure retrieval quality and speed on a benchmark suite",
		help: benchHelp(), noStore: true, raw: true,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			return runBench(ctx, a.env, args)
		},
	}
}

func benchHelp() string {
	var b strings.Builder
	b.WriteString("Suites:\n")
	for _, s := range benchSuites() {
		fmt.Fprintf(&b, "  %-9s %s\n", s.name, s.summary)
	}
	b.WriteString(`
Every suite builds its own memory in a temporary directory (your database is
never touched), prints a markdown table for people or JSON with --json, and
shows progress on stderr when stderr is a terminal.
Run 'mnemon bench SUITE --help' for a suite's flags.`)
	return b.String()
}

func runBench(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		printCommandHelp(env.Stdout, benchCmd())
		return nil
	}
	var names []string
	for _, s := range benchSuites() {
		if s.name == args[0] {
			return s.run(ctx, env, args[1:])
		}
		names = append(names, s.name)
	}
	if strings.HasPrefix(args[0], "-") {
		return usagef("bench: name a suite before the flags, as in: mnemon bench %s %s; suites: %s", names[0], args[0], strings.Join(names, ", "))
	}
	return usagef("bench: unknown suite %q%s; suites: %s", args[0], suggest(args[0], names, func(s string) string { return s }), strings.Join(names, ", "))
}

// benchFlags returns a flag set for a suite that prints its own help.
func benchFlags(suite string) *flag.FlagSet {
	fs := flag.NewFlagSet("mnemon bench "+suite, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseBenchFlags parses a suite's flags. --help prints usage and the
// suite's flags and returns flag.ErrHelp, which Main treats as success.
func parseBenchFlags(env Env, fs *flag.FlagSet, suite, usage string, args []string) ([]string, error) {
	positional, err := parseInterspersed(fs, args)
	if err == flag.ErrHelp {
		fmt.Fprintf(env.Stdout, "Usage: mnemon bench %s [flags]\n\n%s\n\nFlags:\n", suite, strings.TrimSpace(usage))
		var fl []*flag.Flag
		fs.VisitAll(func(f *flag.Flag) { fl = append(fl, f) })
		printFlags(env.Stdout, fl)
		return nil, err
	}
	if err != nil {
		return nil, usagef("bench %s: %s; run 'mnemon bench %s --help'", suite, flagProblem(fs, err), suite)
	}
	return positional, nil
}

// stderrIsTerminal reports whether progress may be drawn on w: only on an
// interactive terminal, never into a file, a pipe or a test's buffer.
func stderrIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
