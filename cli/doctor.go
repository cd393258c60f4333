package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemon-dev/mnemon/internal/diskfree"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/postgres"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// Check outcomes of 'mnemon doctor'.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "fail"
)

// minFreeDisk is the free space under which doctor warns: SQLite needs
// room for the WAL and for a VACUUM's copy of the file.
const minFreeDisk = 1 << 30

// doctorCheck is one line of the report.
type doctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn, fail
	Detail string `json:"detail"`
}

// doctorReport is what 'mnemon doctor --json' prints.
type doctorReport struct {
	Database string        `json:"database"`
	Checks   []doctorCheck `json:"checks"`
	Healthy  bool          `json:"healthy"` // no check failed
}

func doctorCmd() *command {
	var config string
	return &command{
		name: "doctor", summary: "check the database and the engine: integrity, schema, disk, WAL, index, embeddings, backlog",
		readOnly: true,
		help: `Checks what a running mnemon depends on and says what to do about anything wrong:

  database   the file exists, opens and has this mnemon's schema
  integrity  SQLite's integrity and foreign key checks pass; on damage, whether 'mnemon export'
             can still read every namespace (then export and import rebuild the file) or not
  wal        the write-ahead log is below the size the checkpointer empties it at
  disk       the file system has room for the WAL and a VACUUM's copy (1 GiB free or the file's size)
  index      every namespace's search index loads (and how long it took)
  embeddings every memory item has vectors of the current embedder (after an upgrade that
             changed it, a server or worker re-embeds the rest in the background)
  backlog    episodes captured but not yet extracted (a server or 'mnemon worker' extracts them)
  embeddings provider, chat provider
             when a model provider is configured (MNEMON_EMBEDDINGS_*, MNEMON_CHAT_*, or the
             models section of --config): one tiny call to each endpoint, reporting the model,
             the vector length (which must match dimensions) and the latency
  config     with --config FILE, or when a MNEMON_ variable is wrong: the settings 'mnemon serve'
             and 'mnemon worker' would read are valid; deprecated fields (timeouts in seconds)
             are a warning naming the field that replaces them

Exit status 0 when nothing failed (warnings included), 1 when a check failed. A missing database
is a warning, not a failure: the first write creates it. Nothing is written: an older database is
reported, and upgraded by the next command that writes to it.
  mnemon doctor
  mnemon doctor --db /var/lib/mnemon/mnemon.db --json
  mnemon doctor --config /etc/mnemon.json`,
		flags: func(fs *flag.FlagSet, _ *options) {
			fs.StringVar(&config, "config", "", "also check the server settings in this JSON `FILE` (as 'mnemon serve --config')")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 0 {
				return usagef("doctor takes no arguments; got %q", strings.Join(args, " "))
			}
			rep := a.doctor(ctx, config)
			if o.json {
				if err := writeJSON(a.env.Stdout, rep); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(a.env.Stdout, 0, 4, 2, ' ', 0)
				for _, c := range rep.Checks {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Status, c.Name, c.Detail)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			if !rep.Healthy {
				return &failure{msg: "doctor: a check failed (see above)", code: 1}
			}
			return nil
		},
	}
}

// doctor runs the checks in order; a check that makes the rest
// meaningless (no file, a file that does not open) ends the report.
func (a *app) doctor(ctx context.Context, config string) *doctorReport {
	abs, err := filepath.Abs(a.dbPath)
	if err != nil || isPostgresURL(a.dbPath) {
		abs = redactDB(a.dbPath)
	}
	rep := &doctorReport{Database: abs, Checks: []doctorCheck{}, Healthy: true}
	add := func(name, status, format string, args ...any) {
		rep.Checks = append(rep.Checks, doctorCheck{Name: name, Status: status, Detail: fmt.Sprintf(format, args...)})
		if status == checkFail {
			rep.Healthy = false
		}
	}
	a.checkConfig(ctx, config, add)
	a.checkModels(ctx, add)
	if a.dbPath == "" {
		add("database", checkFail, "no database path: HOME is not set; name the file with --db FILE or MNEMON_DB")
		return rep
	}
	if isPostgresURL(a.dbPath) {
		a.doctorPostgres(ctx, abs, add)
		return rep
	}
	fi, err := os.Stat(a.dbPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		add("database", checkWarn, "no database at %s yet: the first write creates it (mnemon remember, capture or import)", abs)
		a.checkDisk(filepath.Dir(abs), 0, add)
		return rep
	case err != nil:
		add("database", checkFail, "%s: %v", abs, err)
		return rep
	}
	if err := a.openStore(ctx); err != nil {
		status := checkFail
		if errors.Is(err, memory.ErrSchemaTooOld) {
			status = checkWarn // sound, and upgraded by the next write
		}
		add("database", status, "%v", err)
		return rep
	}
	add("database", checkOK, "%s (%s)", abs, sizeText(fi.Size()))
	if v, err := a.opened.schemaVersion(ctx); err == nil {
		add("backend", checkOK, "SQLite, schema version %d (this mnemon writes %d)", v, sqlite.SchemaVersion())
	}

	if err := a.opened.sqlite.IntegrityCheck(ctx); err != nil {
		add("integrity", checkFail, "%s", a.damaged(ctx, err))
	} else {
		add("integrity", checkOK, "integrity and foreign key checks pass")
	}

	wal := int64(0)
	if wfi, err := os.Stat(a.dbPath + "-wal"); err == nil {
		wal = wfi.Size()
	}
	const walLimit = 256 << 20 // sqlite.Options.WALLimit's default
	if wal > walLimit {
		add("wal", checkWarn, "%s, above the %s at which the checkpointer empties it: a reader holding a snapshot open keeps it growing; restart long-lived readers", sizeText(wal), sizeText(walLimit))
	} else {
		add("wal", checkOK, "%s", sizeText(wal))
	}
	a.checkDisk(filepath.Dir(abs), fi.Size()+wal, add)
	a.doctorEngine(ctx, add)
	return rep
}

// doctorPostgres checks a PostgreSQL database (named by where, without its
// password). doctor opens it read-only, as a reader replica does: an older
// schema is reported, not migrated. The file checks are SQLite's:
// PostgreSQL's own tools check its storage.
func (a *app) doctorPostgres(ctx context.Context, where string, add func(name, status, format string, args ...any)) {
	if err := a.openStore(ctx); err != nil {
		msg, _ := describe(ctx, err)
		status := checkFail
		if errors.Is(err, memory.ErrSchemaTooOld) {
			status = checkWarn // sound, and upgraded by 'mnemon migrate' or the first writer
		}
		add("database", status, "%s", msg)
		return
	}
	info, err := a.opened.pg.Info(ctx)
	if err != nil {
		add("database", checkFail, "%v", err)
		return
	}
	add("database", checkOK, "PostgreSQL %s, schema version %d", where, info.SchemaVersion)
	add("backend", checkOK, "PostgreSQL server %s, schema version %d (this mnemon writes %d), opened read-only by doctor",
		firstWord(info.Server), info.SchemaVersion, postgres.SchemaVersion())
	if info.Pgvector.Present() {
		add("pgvector", checkOK, "%s: vectors are kept in a vector column with an HNSW index as well (see docs/replicas.md)", info.Pgvector)
	} else {
		add("pgvector", checkOK, "%s: not needed; every process searches vectors in its own in-process index", info.Pgvector)
	}
	add("changes", checkOK, "change log at position %d: %s held for %s (every replica follows it; 'mnemon serve' reports its own lag at /readyz)",
		info.LastChange, plural(int(info.Entries), "entry", "entries"), plural(int(info.Namespaces), "namespace", "namespaces"))
	add("files", checkOK, "integrity, WAL and disk checks are SQLite-only: not run on PostgreSQL (check it with its own tools, e.g. pg_amcheck)")
	a.doctorEngine(ctx, add)
}

// firstWord is s up to its first space: "15.20 (Debian ...)" is "15.20".
func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

// checkIndexLag says whether the index doctor just loaded has missed
// changes committed since (another process writing meanwhile), and where
// each namespace's change log stands.
func (a *app) checkIndexLag(ctx context.Context, names []string, add func(name, status, format string, args ...any)) {
	var parts []string
	for _, ns := range names {
		last, err := a.store.LastChange(ctx, memory.ScanParams{Namespace: ns})
		if err != nil {
			add("lag", checkFail, "%v", err)
			return
		}
		parts = append(parts, fmt.Sprintf("%s at %d", ns, last))
	}
	where := "no namespace has changes"
	if len(parts) > 0 {
		where = "positions: " + strings.Join(parts, ", ")
	}
	ns, lag, err := a.engine.IndexLag(ctx, 0)
	switch {
	case err != nil:
		add("lag", checkFail, "%v", err)
	case ns != "":
		add("lag", checkWarn, "namespace %s's index has missed changes for %s: another process is writing faster than this one follows (%s)", ns, lag.Round(time.Millisecond), where)
	default:
		add("lag", checkOK, "the index holds every committed change (%s)", where)
	}
}

// doctorEngine checks what the engine loads from an open store: the index,
// the embeddings and the extraction backlog.
func (a *app) doctorEngine(ctx context.Context, add func(name, status, format string, args ...any)) {
	if err := a.open(ctx); err != nil {
		add("index", checkFail, "%v", err)
		return
	}
	began := time.Now()
	if err := a.engine.Warm(ctx); err != nil {
		if errors.Is(err, memory.ErrCorrupt) {
			add("index", checkFail, "the search index cannot load: the file is damaged (%s)", damage(err))
		} else {
			add("index", checkFail, "loading the search index: %v", err)
		}
		return
	}
	sizes := a.engine.IndexSizes()
	names := make([]string, 0, len(sizes))
	total := 0
	for ns, n := range sizes {
		names = append(names, ns)
		total += n
	}
	sort.Strings(names)
	add("index", checkOK, "%s, %s indexed, loaded in %s", plural(len(names), "namespace", "namespaces"),
		plural(total, "memory item", "memory items"), time.Since(began).Round(time.Millisecond))
	a.checkIndexLag(ctx, names, add)

	stale, staleNS := 0, 0
	for _, ns := range names {
		n, err := a.engine.StaleEmbeddings(ctx, ns)
		if err != nil {
			add("embeddings", checkFail, "%v", err)
			return
		}
		stale += n
		if n > 0 {
			staleNS++
		}
	}
	if emb := a.engine.Embedder(); stale == 0 {
		add("embeddings", checkOK, "every memory item has vectors of %s", emb.Name())
	} else {
		add("embeddings", checkWarn, "%s in %s still %s vectors of another embedder than %s: the semantic channel cannot see them until 'mnemon serve' or 'mnemon worker' re-embeds them (a background job at start; other channels still find them)",
			plural(stale, "memory item", "memory items"), plural(staleNS, "namespace", "namespaces"), map[bool]string{true: "has", false: "have"}[stale == 1], emb.Name())
	}

	backlogs, err := a.engine.ExtractionBacklogs(ctx)
	switch {
	case err != nil:
		add("backlog", checkFail, "%v", err)
	case len(backlogs) == 0:
		add("backlog", checkOK, "no episode awaits extraction")
	default:
		var parts []string
		for _, ns := range sortedKeys(backlogs) {
			parts = append(parts, fmt.Sprintf("%s %d", ns, backlogs[ns]))
		}
		add("backlog", checkWarn, "episodes awaiting extraction (%s): run 'mnemon serve' or 'mnemon worker' to extract them; 'mnemon jobs' lists failed jobs", strings.Join(parts, ", "))
	}
}

// damaged says what to do about a file that failed the integrity check
// (err). Advice must work: it exports every namespace to nowhere, and
// advises 'mnemon export' only if that read everything; otherwise it says
// plainly that the file cannot be exported.
func (a *app) damaged(ctx context.Context, err error) string {
	what := fmt.Sprintf("the file is damaged (%s)", damage(err))
	names, nerr := a.store.Namespaces(ctx)
	if nerr == nil {
		nerr = a.open(ctx)
	}
	for _, ns := range names {
		if nerr != nil {
			break
		}
		_, nerr = a.engine.Export(ctx, ns, io.Discard)
	}
	if nerr == nil {
		return fmt.Sprintf("%s, but every namespace still exports whole (%s): copy them into a new database, "+
			"for each namespace NS: mnemon --db %s --namespace NS export --out NS.jsonl, then "+
			"mnemon --db NEW.db --namespace NS import NS.jsonl; and use NEW.db from then on",
			what, strings.Join(names, ", "), a.dbPath)
	}
	return fmt.Sprintf("%s, and 'mnemon export' cannot read it whole: stop writing to it and keep a copy; "+
		"restore from a backup (a copy of the file, or an earlier export read into a new database with "+
		"'mnemon import'), or try SQLite's recovery: sqlite3 %s .recover | sqlite3 NEW.db, then check "+
		"what it rescued with 'mnemon --db NEW.db doctor'", what, a.dbPath)
}

// sqliteCode is the result code SQLite appends to its messages (" (11)").
var sqliteCode = regexp.MustCompile(` \(\d+\)$`)

// damage is what SQLite said about a damaged file, without mnemon's
// operation names or its generic advice.
func damage(err error) string {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, memory.ErrCorrupt.Error()+": "); ok {
		msg = after
	}
	msg, _, _ = strings.Cut(msg, "; mnemon will not touch it")
	return clip(sqliteCode.ReplaceAllString(msg, ""), 200)
}

// checkDisk warns when the directory's file system is short of room.
func (a *app) checkDisk(dir string, used int64, add func(name, status, format string, args ...any)) {
	free, err := diskfree.Bytes(dir)
	if err != nil {
		add("disk", checkWarn, "free space of %s unknown: %v", dir, err)
		return
	}
	if need := max(int64(minFreeDisk), used); free < need {
		add("disk", checkWarn, "%s free in %s, under %s: writes fail when it runs out; free space or move the file", sizeText(free), dir, sizeText(need))
		return
	}
	add("disk", checkOK, "%s free in %s", sizeText(free), dir)
}

// sizeText spells a byte count in binary units.
func sizeText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n), "KMGTPE"
	i := -1
	for v >= unit && i < len(suffix)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, suffix[i])
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkConfig checks the settings serve and worker would read: the
// MNEMON_ variables and the config file at path. It adds no line when no
// file is named and the variables are fine.
func (a *app) checkConfig(ctx context.Context, path string, add func(name, status, format string, args ...any)) {
	// A copy of the app: reading a config may set the database path and
	// the sync level, which this doctor run must not take.
	probe := &app{env: a.env, dbPath: a.dbPath}
	cfg, err := probe.serverConfig(serveOptions{config: path})
	switch {
	case err != nil:
		msg, _ := describe(ctx, err)
		add("config", checkFail, "%s", msg)
	case len(cfg.deprecations()) > 0:
		add("config", checkWarn, "%s", strings.Join(cfg.deprecations(), "; "))
	case path != "":
		add("config", checkOK, "%s", path)
	}
	if err == nil && path != "" {
		// The file's model providers are the ones a server would use:
		// doctor checks them and counts vectors against their embedder.
		a.models, a.modelsRead = probe.models, true
	}
}
