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

// command is one subcommand.
type command struct {
	name    string
	args    string // positional arguments, for usage
	summary string
	help    string // longer explanation and examples
	flags   func(fs *flag.FlagSet, o *options)
	run     func(ctx context.Context, a *app, o *options, args []string) error
	noStore bool // never opens the database
	creates bool // may create a missing database named by --db or MNEMON_DB
	// readOnly commands only read: they open the database read-only, so
	// they never create, initialise or migrate a file.
	readOnly bool
	// raw commands get their arguments unparsed and parse their own
	// flags (bench: each suite has its own). They never open the database.
	raw bool
}

// options holds every flag; each command registers the ones it takes.
type options struct {
	db, namespace string
	json          bool
	nsSet         bool // --namespace was given, even if MNEMON_NAMESPACE is set

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
	knownAt       string
	history       bool
	sessionOnly   bool
	task          string
	disable       string
	context       int

	// stats
	all bool

	// io
	out    string
	outSet bool // --out was given, even if empty

	// keys
	role, name string
}

// app is what a running command needs. Commands check their arguments
// first and then call open, so a wrong call never creates a database; and
// only commands that store create a database at a path the user named
// (a typo in --db must not look like an empty memory).
type app struct {
	env      Env
	ns       string
	dbPath   string
	creates  bool // a missing database may be created
	readOnly bool // open the database read-only (see command.readOnly)
	// defaultPath: dbPath is the default database, named by neither
	// --db nor MNEMON_DB.
	defaultPath bool
	// synchronous is the store's synchronous level: defaultSync or
	// MNEMON_SYNC, or what serve, worker and mcp were told with --sync.
	synchronous string
	// compactBytes is the store's Options.CompactOnClose: set by the
	// long-running commands (serve, mcp), 0 for the others.
	compactBytes int64
	store        memory.Store
	// opened is the store with what only its backend has (see backend.go).
	opened *openedStore
	engine *engine.Engine
	// models are the model provider settings (see models.go); modelsRead
	// says they were read, from a config (serverConfig) or from the
	// environment (embedder), so nil means none are configured.
	models     *modelsConfig
	modelsRead bool
}

// open opens the database and the engine on it.
func (a *app) open(ctx context.Context) error {
	if a.engine != nil {
		return nil
	}
	if err := a.openStore(ctx); err != nil {
		return err
	}
	ecfg, err := a.withModels(engine.Config{Store: a.store})
	if err != nil {
		return err
	}
	eng, err := engine.New(ecfg)
	if err != nil {
		return err
	}
	a.engine = eng
	return nil
}

// openStore opens the database only, for commands that need no engine
// (keys): nothing is indexed or loaded.
func (a *app) openStore(ctx context.Context) error {
	if a.store != nil {
		return nil
	}
	if a.dbPath == "" {
		return usagef("no database path: HOME is not set; name the file with --db FILE or MNEMON_DB")
	}
	if isPostgresURL(a.dbPath) {
		o, err := openDB(ctx, a.dbPath, sqlite.Options{ReadOnly: a.readOnly})
		if err != nil {
			return pgOpenFailed(a.dbPath, err)
		}
		a.store, a.opened = o.store, o
		return nil
	}
	if !a.creates {
		if _, err := os.Stat(a.dbPath); errors.Is(err, os.ErrNotExist) {
			abs, aerr := filepath.Abs(a.dbPath)
			if aerr != nil {
				abs = a.dbPath
			}
			if a.defaultPath {
				return &failure{msg: fmt.Sprintf("no database at %s yet: nothing has been stored; the first mnemon remember, capture or import creates it", abs), code: 1, err: err}
			}
			return &failure{msg: fmt.Sprintf("no database at %s; check the path, or create it by storing something (mnemon remember, capture or import)", abs), code: 1, err: err}
		}
	}
	o, err := openDB(ctx, a.dbPath, sqlite.Options{Synchronous: a.synchronous, Existing: !a.creates, ReadOnly: a.readOnly, CompactOnClose: a.compactBytes})
	if err != nil {
		return openFailed(a.dbPath, err)
	}
	a.store, a.opened = o.store, o
	return nil
}

// close releases what open opened.
func (a *app) close() {
	if a.engine != nil {
		a.engine.Close()
	}
	if a.store != nil {
		a.store.Close()
	}
}

func commands() []*command {
	return []*command{
		rememberCmd(), captureCmd(), recallCmd(), factsCmd(), showCmd(), explainCmd(), forgetCmd(),
		feedbackCmd(), graphCmd(), proceduresCmd(), lifecycleCmd(), consolidateCmd(),
		statsCmd(), doctorCmd(), migrateCmd(), exportCmd(), importCmd(), keysCmd(), serveCmd(), workerCmd(), jobsCmd(), mcpCmd(), setupCmd(), hookCmd(),
		benchCmd(), versionCmd(),
	}
}

// Main runs mnemon with args (without the program name) and returns the
// process exit status: 0 success, 1 failure, 2 wrong call, 130 interrupted.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	err := run(ctx, args, env)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	msg, code := describe(ctx, err)
	fmt.Fprintf(env.Stderr, "mnemon: %s\n", msg)
	return code
}

// globalFlags are the flags every command takes; they may also come before
// the command name.
var globalFlags = map[string]bool{"db": true, "namespace": true, "json": false} // name: takes a value

func run(ctx context.Context, args []string, env Env) error {
	// Global flags may come before the command: mnemon --namespace bob recall x.
	var pre []string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		a := args[0]
		args = args[1:]
		switch a {
		case "-h", "--help", "-help":
			printUsage(env.Stdout, env)
			return nil
		case "--version", "-version":
			fmt.Fprintln(env.Stdout, "mnemon", Version)
			return nil
		case "--":
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takes, known := globalFlags[name]
		if !known {
			return usagef("unknown flag %s before the command%s; run 'mnemon help' for the list", a, suggest(name, globalFlagNames(), flagName))
		}
		pre = append(pre, a)
		if takes && !hasValue {
			if len(args) == 0 {
				return usagef("%s needs a value, as in: mnemon %s VALUE COMMAND ...", a, a)
			}
			pre = append(pre, args[0])
			args = args[1:]
		}
	}
	if len(args) == 0 {
		printUsage(env.Stdout, env)
		return nil
	}
	name := args[0]
	if name == "help" {
		if len(args) > 2 {
			return usagef("help takes one command name; run 'mnemon help' for the list")
		}
		if len(args) == 2 && args[1] != "help" {
			if c := find(args[1]); c != nil {
				printCommandHelp(env.Stdout, c)
				return nil
			}
			return unknownCommand(args[1])
		}
		printUsage(env.Stdout, env)
		return nil
	}
	c := find(name)
	if c == nil {
		return unknownCommand(name)
	}
	if c.raw {
		return c.run(ctx, &app{env: env}, &options{}, append(pre, args[1:]...))
	}
	o := &options{}
	fs := newFlagSet(c, o, env)
	positional, err := parseInterspersed(fs, append(pre, args[1:]...))
	fs.Visit(func(f *flag.Flag) {
		o.outSet = o.outSet || f.Name == "out"
		o.nsSet = o.nsSet || f.Name == "namespace"
	})
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(env.Stdout, c)
		return nil
	}
	if err != nil {
		return usagef("%s: %s; run 'mnemon help %s'", c.name, flagProblem(fs, err), c.name)
	}
	a := &app{env: env}
	a.ns = o.namespace
	nsSource := "--namespace"
	if a.ns == "" {
		a.ns = env.Getenv("MNEMON_NAMESPACE")
		nsSource = "MNEMON_NAMESPACE"
	}
	a.ns = memory.NormalizeNamespace(a.ns)
	if memory.ValidateNamespace(a.ns) != nil {
		return usagef("%s %q is not a namespace name: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", nsSource, a.ns)
	}
	if !c.noStore {
		// The durability of a commit: MNEMON_SYNC or the default, the
		// same for every command (serve, worker and mcp may override it
		// with --sync, serve and worker also with their config file).
		if a.synchronous, err = syncLevel(env.Getenv("MNEMON_SYNC")); err != nil {
			return usagef("MNEMON_SYNC=%q: %v", strings.TrimSpace(env.Getenv("MNEMON_SYNC")), err)
		}
		a.dbPath, a.creates, a.readOnly = o.db, c.creates, c.readOnly
		if a.dbPath == "" {
			a.dbPath = env.Getenv("MNEMON_DB")
		}
		if a.dbPath == "" {
			// The default database is created by the first command that
			// stores; before that, recall answers "nothing found" and the
			// other reads say there is no database yet.
			a.dbPath, a.defaultPath = defaultDBPath(env), true
		}
		defer a.close()
	}
	return c.run(ctx, a, o, positional)
}

// newFlagSet registers the global flags and c's own.
func newFlagSet(c *command, o *options, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet("mnemon "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dbHelp := "database `FILE`, or a postgres:// URL (env MNEMON_DB)"
	if d := defaultDBPath(env); d != "" {
		dbHelp = "database `FILE`, or a postgres:// URL (env MNEMON_DB; default " + d + ")"
	}
	fs.StringVar(&o.db, "db", "", dbHelp)
	fs.StringVar(&o.namespace, "namespace", "", "namespace `NAME` (env MNEMON_NAMESPACE; default \"default\")")
	fs.BoolVar(&o.json, "json", false, "print JSON for scripts")
	if c.flags != nil {
		c.flags(fs, o)
	}
	return fs
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

func globalFlagNames() []string {
	names := make([]string, 0, len(globalFlags))
	for n := range globalFlags {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func find(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// aliases are words a new user may try for a command.
var aliases = map[string]string{
	"add": "remember", "store": "remember", "save": "remember", "note": "remember",
	"search": "recall", "query": "recall", "find": "recall", "get": "recall", "ask": "recall",
	"list": "facts", "ls": "facts", "history": "facts",
	"delete": "forget", "rm": "forget", "remove": "forget", "del": "forget",
	"ingest": "capture", "log": "capture",
	"inspect": "show", "why": "explain", "status": "stats", "info": "stats",
	"dump": "export", "backup": "export", "restore": "import", "load": "import",
	"key": "keys", "apikey": "keys", "apikeys": "keys", "token": "keys", "tokens": "keys", "auth": "keys",
}

func unknownCommand(name string) error {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	hint := suggest(name, names, func(s string) string { return s })
	if hint == "" {
		if to, ok := aliases[strings.ToLower(name)]; ok {
			hint = " (did you mean " + to + "?)"
		}
	}
	return usagef("unknown command %q%s; run 'mnemon help' for the list", name, hint)
}

// suggest returns " (did you mean X?)" for the candidate closest to name
// (spelled with spell), or "" when none is close.
func suggest(name string, candidates []string, spell func(string) string) string {
	name = strings.ToLower(strings.TrimLeft(name, "-"))
	best, bestD := "", 3
	for _, c := range candidates {
		d := editDistance(name, c)
		if len(name) >= 3 && strings.HasPrefix(c, name) {
			d = 1
		}
		if d < bestD && d < len(c) {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + spell(best) + "?)"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func printUsage(w io.Writer, env Env) {
	fmt.Fprint(w, `mnemon: persistent memory for AI agents.

Usage: mnemon [--db FILE] [--namespace NAME] <command> [arguments] [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	where := defaultDBPath(env)
	if where == "" {
		where = "none: HOME is not set"
	}
	fmt.Fprintf(w, `
Everything lives in one SQLite file (--db, env MNEMON_DB; default %s),
or in PostgreSQL when --db is a postgres:// URL.
Namespaces (--namespace, env MNEMON_NAMESPACE) are separate tenants: nothing crosses.

Try:
  mnemon remember "My favorite editor is Vim. I live in Lisbon."
  mnemon remember "Actually, I switched to Neovim for my editor."
  mnemon recall "which editor does the user prefer?" -k 1
  mnemon facts --history

Run 'mnemon help <command>' for a command's flags. Exit status: 0 done, 1 failed,
2 wrong call (nothing was written), 130 interrupted.
`, where)
}

func printCommandHelp(w io.Writer, c *command) {
	usage := "mnemon " + c.name
	if c.args != "" {
		usage += " " + c.args
	}
	fmt.Fprintf(w, "Usage: %s [flags]\n\n%s.\n", usage, upperFirst(c.summary))
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.help))
	}
	if c.raw {
		return // its flags are its own, listed in its help
	}
	fs := newFlagSet(c, &options{}, Env{Getenv: func(string) string { return "" }})
	var own, global []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := globalFlags[f.Name]; ok {
			global = append(global, f)
		} else {
			own = append(own, f)
		}
	})
	if len(own) > 0 {
		fmt.Fprintln(w, "\nFlags:")
		printFlags(w, own)
	}
	fmt.Fprintln(w, "\nGlobal flags:")
	printFlags(w, global)
}

// printFlags lists flags as "  -k N           usage (default 10)", aligned.
func printFlags(w io.Writer, fl []*flag.Flag) {
	type row struct{ left, right string }
	rows := make([]row, 0, len(fl))
	width := 0
	for _, f := range fl {
		arg, usage := flag.UnquoteUsage(f)
		if p, ok := placeholders[f.Name]; ok {
			arg = p
		}
		switch arg {
		case "string":
			arg = "TEXT"
		case "int":
			arg = "N"
		case "float":
			arg = "X"
		}
		left := flagName(f.Name)
		if arg != "" {
			left += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && !strings.Contains(usage, "(default ") {
			usage += " (default " + f.DefValue + ")"
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.left, r.right)
	}
}

// placeholders name the values of flags whose usage text does not.
var placeholders = map[string]string{
	"key": "KEY", "value": "VALUE", "subject": "SUBJECT", "type": "TYPE",
	"criticality": "LEVEL", "confidence": "0..1", "workers": "N",
}

// flagName spells a flag the way help shows it: -k, --budget.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// defaultDBPath is mnemon.db in the user's data directory, or "" when there
// is no home directory to put it in.
func defaultDBPath(env Env) string {
	get := env.Getenv
	if get == nil {
		get = os.Getenv
	}
	if d := get("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "mnemon", "mnemon.db")
	}
	switch runtime.GOOS {
	case "windows":
		if d := get("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "mnemon", "mnemon.db")
		}
	}
	home := get("HOME")
	if home == "" && runtime.GOOS == "windows" {
		home = get("USERPROFILE")
	}
	if home == "" || !filepath.IsAbs(home) {
		// Never fall back to a path relative to the working directory: the
		// same command would find a different database in every directory.
		return ""
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "mnemon", "mnemon.db")
	}
	return filepath.Join(home, ".local", "share", "mnemon", "mnemon.db")
}
