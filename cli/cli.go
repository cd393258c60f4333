// Package cli implements the mnemon command line. It is the only package
// that wires concrete stores and providers into the engine.
//
// Commands write to injected writers and return errors, so they run
// in-process in tests exactly as they do from a shell.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// Version is the mnemon release, set at build time with -ldflags.
var Version = "dev"

// Env is the process environment the CLI reads (MNEMON_DB, MNEMON_NAMESPACE).
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// usageError is a wrong call: exit status 2 and a hint.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// command is one subcommand.
type command struct {
	name    string
	args    string // positional arguments, for usage
	summary string
	help    string // longer explanation and examples
	flags   func(fs *flag.FlagSet, o *options)
	run     func(ctx context.Context, a *app, o *options, args []string) error
	noStore bool
}

// options holds every flag; each command registers the ones it takes.
type options struct {
	db, namespace string
	json          bool

	// scope
	agent, user, project, session string

	// remember
	typ, subject, key, value, criticality, speaker string
	confidence                                     float64
	observedAt, validFrom, validTo                 string

	// recall
	limit, budget int
	explain       bool
	asOf          string
	history       bool
	task          string
	disable       string

	// io
	out string
}

// app is what a running command needs.
type app struct {
	env    Env
	store  *sqlite.Store
	engine *engine.Engine
	ns     string
}

func commands() []*command {
	return []*command{
		rememberCmd(), captureCmd(), recallCmd(), factsCmd(), showCmd(), explainCmd(),
		forgetCmd(), statsCmd(), exportCmd(), importCmd(), versionCmd(),
	}
}

// Main runs mnemon with args (without the program name) and returns the
// process exit status: 0 success, 1 failure, 2 wrong call.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	err := run(ctx, args, env)
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(env.Stderr, "mnemon: %s\n", ue.msg)
		return 2
	}
	fmt.Fprintf(env.Stderr, "mnemon: %s\n", describe(err))
	return 1
}

func run(ctx context.Context, args []string, env Env) error {
	// Global flags may come before the command: mnemon --namespace bob recall x.
	var pre []string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		if a == "-h" || a == "--help" || a == "-help" {
			printUsage(env.Stdout)
			return nil
		}
		if a == "--version" {
			fmt.Fprintln(env.Stdout, "mnemon", Version)
			return nil
		}
		pre = append(pre, a)
		args = args[1:]
		if !strings.Contains(a, "=") && takesValue(a) && len(args) > 0 {
			pre = append(pre, args[0])
			args = args[1:]
		}
	}
	if len(args) == 0 {
		printUsage(env.Stdout)
		return nil
	}
	name := args[0]
	if name == "help" {
		if len(args) > 1 {
			if c := find(args[1]); c != nil {
				printCommandHelp(env.Stdout, c)
				return nil
			}
			return usagef("unknown command %q; run 'mnemon help' for the list", args[1])
		}
		printUsage(env.Stdout)
		return nil
	}
	c := find(name)
	if c == nil {
		return usagef("unknown command %q; run 'mnemon help' for the list", name)
	}
	o := &options{}
	fs := flag.NewFlagSet("mnemon "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.db, "db", "", "database file (env MNEMON_DB; default "+defaultDBPath(env)+")")
	fs.StringVar(&o.namespace, "namespace", "", "namespace (env MNEMON_NAMESPACE; default \"default\")")
	fs.BoolVar(&o.json, "json", false, "print JSON for scripts")
	if c.flags != nil {
		c.flags(fs, o)
	}
	positional, err := parseInterspersed(fs, append(pre, args[1:]...))
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(env.Stdout, c)
		return nil
	}
	if err != nil {
		return usagef("%s: %v; run 'mnemon help %s'", c.name, err, c.name)
	}
	a := &app{env: env}
	a.ns = o.namespace
	if a.ns == "" {
		a.ns = env.Getenv("MNEMON_NAMESPACE")
	}
	a.ns = memory.NormalizeNamespace(a.ns)
	if err := memory.ValidateNamespace(a.ns); err != nil {
		return usagef("%v", err)
	}
	if !c.noStore {
		path := o.db
		if path == "" {
			path = env.Getenv("MNEMON_DB")
		}
		if path == "" {
			path = defaultDBPath(env)
		}
		st, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			return err
		}
		defer st.Close()
		eng, err := engine.New(engine.Config{Store: st})
		if err != nil {
			return err
		}
		defer eng.Close()
		a.store, a.engine = st, eng
	}
	return c.run(ctx, a, o, positional)
}

// parseInterspersed parses flags that may follow positional arguments, as
// in: mnemon recall "which editor?" -k 1.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// takesValue reports whether a global flag consumes the next argument.
func takesValue(flagArg string) bool {
	name := strings.TrimLeft(flagArg, "-")
	return name == "db" || name == "namespace"
}

func find(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `mnemon: persistent memory for AI agents.

Usage: mnemon [--db FILE] [--namespace NAME] <command> [arguments] [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, `
Everything lives in one SQLite file (--db, env MNEMON_DB; default %s).
Namespaces (--namespace, env MNEMON_NAMESPACE) are separate tenants: nothing crosses.

Try:
  mnemon remember "My favorite editor is Vim. I live in Lisbon."
  mnemon remember "Actually, I switched to Neovim for my editor."
  mnemon recall "which editor does the user prefer?" -k 1
  mnemon facts --history

Run 'mnemon help <command>' for a command's flags.
`, defaultDBPath(Env{Getenv: os.Getenv}))
}

func printCommandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "Usage: mnemon %s %s [flags]\n\n%s\n", c.name, c.args, c.summary)
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.help))
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	o := &options{}
	fs.String("db", "", "database file (env MNEMON_DB)")
	fs.String("namespace", "", "namespace (env MNEMON_NAMESPACE; default \"default\")")
	fs.Bool("json", false, "print JSON for scripts")
	if c.flags != nil {
		c.flags(fs, o)
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	fmt.Fprintln(w, "\nFlags:")
	for _, n := range names {
		f := fs.Lookup(n)
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			def = " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "  --%-12s %s%s\n", n, f.Usage, def)
	}
}

// defaultDBPath is mnemon.db in the user's data directory.
func defaultDBPath(env Env) string {
	get := env.Getenv
	if get == nil {
		get = os.Getenv
	}
	if d := get("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "mnemon", "mnemon.db")
	}
	home := get("HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "mnemon", "mnemon.db")
	case "windows":
		if d := get("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "mnemon", "mnemon.db")
		}
	}
	return filepath.Join(home, ".local", "share", "mnemon", "mnemon.db")
}

// describe turns an error into one line that says what to do.
func describe(err error) string {
	msg := err.Error()
	switch {
	case errors.Is(err, memory.ErrCorrupt):
		return msg + "; point --db at a mnemon database, or move the file aside to start a new one"
	case errors.Is(err, memory.ErrSchemaTooNew):
		return msg + "; upgrade mnemon to open it"
	case errors.Is(err, memory.ErrNotFound):
		return msg + "; list ids with 'mnemon facts --history' or 'mnemon recall ... --json'"
	case errors.Is(err, memory.ErrInvalid):
		return msg
	}
	return msg
}
