package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/mcpserver"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/webui"
)

// DefaultAddr is where mnemon serve listens unless told otherwise.
const DefaultAddr = "127.0.0.1:7077"

// serverConfig is mnemon serve's configuration. Flags override the
// environment, which overrides the file, which overrides the defaults.
type serverConfig struct {
	Addr         string `json:"addr"`
	DB           string `json:"db"`
	Workers      *int   `json:"workers"`
	InsecureOpen bool   `json:"insecure_open"`
	// ReadOnly serves a read replica (serve --read-only): the database is
	// opened for reading only, no job runs, and every write is refused
	// with store_read_only.
	ReadOnly  bool   `json:"read_only"`
	Sync      string `json:"sync"`       // normal or full
	LogFormat string `json:"log_format"` // json or text
	LogLevel  string `json:"log_level"`  // debug, info, warn, error
	// Durations are Go duration strings ("30s", "5m"; see durations.go);
	// "" and "0" give the default.
	ShutdownTimeout string `json:"shutdown_timeout"`

	MaxBodyBytes   int64   `json:"max_body_bytes"`
	MaxImportBytes int64   `json:"max_import_bytes"`
	MaxEvents      int     `json:"max_events"`
	MaxQueryBytes  int     `json:"max_query_bytes"`
	RatePerSecond  float64 `json:"rate_per_second"`
	RateBurst      int     `json:"rate_burst"`
	RequestTimeout string  `json:"request_timeout"`
	ReadTimeout    string  `json:"read_timeout"`
	WriteTimeout   string  `json:"write_timeout"`
	IdleTimeout    string  `json:"idle_timeout"`

	JobAttempts    int    `json:"job_max_attempts"`
	JobTimeout     string `json:"job_timeout"`
	JobRescueAfter string `json:"job_rescue_after"`

	// The same durations as numbers of seconds: the spelling before every
	// duration was a string. Still read, and reported as deprecated.
	ShutdownSecs   *float64 `json:"shutdown_timeout_seconds"`
	RequestSecs    *float64 `json:"request_timeout_seconds"`
	ReadSecs       *float64 `json:"read_timeout_seconds"`
	WriteSecs      *float64 `json:"write_timeout_seconds"`
	IdleSecs       *float64 `json:"idle_timeout_seconds"`
	JobTimeoutSecs *float64 `json:"job_timeout_seconds"`
	RescueSecs     *float64 `json:"job_rescue_after_seconds"`

	// Maintenance (see cli/lifecycle.go): how often, as a Go duration
	// ("1h", "0" never), and dedupe's cosine threshold.
	MaintainEvery   string  `json:"maintain_every"`
	DedupeThreshold float64 `json:"dedupe_threshold"`
	// HistoryKeep: superseded versions compaction keeps per memory (0:
	// the engine's default; -1: all).
	HistoryKeep int `json:"history_keep"`
	// Trust thresholds of retrieval's actions (see trustRanking).
	TrustFollowAt *float64 `json:"trust_follow_at"`
	TrustHintAt   *float64 `json:"trust_hint_at"`
	// Consolidation by the maintenance job (see consolidation): when a
	// session is summarised, how long a forgotten episode's text stays,
	// and how long summaries and month digests may be ("" and 0: the
	// defaults of SPEC §4).
	ConsolidateAfter string `json:"consolidate_after"`
	PurgeAfter       string `json:"purge_after"`
	SummaryTokens    int    `json:"summary_tokens"`
	DigestTokens     int    `json:"digest_tokens"`

	// Models are the optional model providers (models.go); the
	// MNEMON_EMBEDDINGS_* and MNEMON_CHAT_* variables override them.
	Models *modelsConfig `json:"models"`

	// Replicas (docs/replicas.md): the memory cap of the in-process
	// indexes in MiB (0: engine.DefaultIndexMemory), and how far an index
	// may fall behind the change log before /readyz reports the server
	// unavailable (a duration; default 30s).
	IndexMemoryMB int    `json:"index_memory_mb"`
	MaxIndexLag   string `json:"max_index_lag"`
	// CompactOnExitMB: the largest SQLite file, in MiB, compacted when
	// the server stops (0: defaultCompactOnExitMB; -1: never).
	CompactOnExitMB int `json:"compact_on_exit_mb"`
	// maxIndexLagSecs is always nil: max_index_lag has no spelling in
	// seconds (durationSetting wants one).
	maxIndexLagSecs *float64
}

// defaultMaxIndexLag is how far behind the change log an index may fall
// before /readyz reports the server unavailable.
const defaultMaxIndexLag = 30 * time.Second

// indexMemory is the engine's IndexMemory for the config.
func (cfg *serverConfig) indexMemory() int64 { return int64(cfg.IndexMemoryMB) << 20 }

// loadServerConfig reads the config file (if any) and the MNEMON_*
// environment into cfg; flags are applied afterwards by the caller.
func loadServerConfig(path string, getenv func(string) string) (*serverConfig, error) {
	cfg := &serverConfig{}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, &failure{msg: fmt.Sprintf("config %s: %v", path, errors.Unwrap(err)), code: 1, err: err}
		}
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		err = dec.Decode(cfg)
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// The models section's endpoints share their fields through an
			// embedded struct, whose name is no field of the file.
			te.Field = strings.ReplaceAll(te.Field, ".endpointConfig", "")
		}
		switch {
		case errors.As(err, &te) && cfg.isDuration(te.Field):
			return nil, usagef("config %s: %s must be a string holding a duration, not %s: %s (see 'mnemon help serve' for the fields)", path, te.Field, te.Value, durationHint)
		case errors.As(err, &te):
			return nil, usagef("config %s: %s must be a %s, not %s (see 'mnemon help serve' for the fields)", path, te.Field, jsonKind(te.Type.Kind()), te.Value)
		case err != nil:
			return nil, usagef("config %s: %v (see 'mnemon help serve' for the fields)", path, strings.TrimPrefix(err.Error(), "json: "))
		case dec.More():
			return nil, usagef("config %s: more than one JSON object; write one JSON object with the settings", path)
		}
	}
	env := func(name string, apply func(string) error) error {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			if err := apply(v); err != nil {
				return usagef("%s=%q: %v", name, v, err)
			}
		}
		return nil
	}
	atoi := func(dst *int) func(string) error {
		return func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return errors.New("want a whole number")
			}
			*dst = n
			return nil
		}
	}
	for _, e := range []struct {
		name  string
		apply func(string) error
	}{
		{"MNEMON_ADDR", func(v string) error { cfg.Addr = v; return nil }},
		{"MNEMON_WORKERS", func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return errors.New("want a whole number")
			}
			cfg.Workers = &n
			return nil
		}},
		{"MNEMON_INSECURE_OPEN", func(v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("use true or false")
			}
			cfg.InsecureOpen = b
			return nil
		}},
		{"MNEMON_READ_ONLY", func(v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("use true or false")
			}
			cfg.ReadOnly = b
			return nil
		}},
		{"MNEMON_SYNC", func(v string) error {
			if _, err := syncLevel(v); err != nil {
				return err
			}
			cfg.Sync = v
			return nil
		}},
		{"MNEMON_MAINTAIN_EVERY", func(v string) error { cfg.MaintainEvery = v; return nil }},
		{"MNEMON_DEDUPE_THRESHOLD", parseThreshold(&cfg.DedupeThreshold)},
		{"MNEMON_HISTORY_KEEP", atoi(&cfg.HistoryKeep)},
		{"MNEMON_INDEX_MEMORY_MB", atoi(&cfg.IndexMemoryMB)},
		{"MNEMON_COMPACT_ON_EXIT_MB", atoi(&cfg.CompactOnExitMB)},
		{"MNEMON_CONSOLIDATE_AFTER", func(v string) error { cfg.ConsolidateAfter = v; return nil }},
		{"MNEMON_PURGE_AFTER", func(v string) error { cfg.PurgeAfter = v; return nil }},
		{"MNEMON_LOG_FORMAT", func(v string) error { cfg.LogFormat = v; return nil }},
		{"MNEMON_LOG_LEVEL", func(v string) error { cfg.LogLevel = v; return nil }},
		{"MNEMON_MAX_EVENTS", atoi(&cfg.MaxEvents)},
		{"MNEMON_RATE_BURST", atoi(&cfg.RateBurst)},
		{"MNEMON_TRUST_FOLLOW_AT", parseFloatPtr(&cfg.TrustFollowAt)},
		{"MNEMON_TRUST_HINT_AT", parseFloatPtr(&cfg.TrustHintAt)},
		{"MNEMON_RATE_PER_SECOND", func(v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return errors.New("want a number of requests per second, like 50")
			}
			cfg.RatePerSecond = f
			return nil
		}},
	} {
		if err := env(e.name, e.apply); err != nil {
			return nil, err
		}
	}
	models, err := applyModelsEnv(cfg.Models, getenv)
	if err != nil {
		return nil, err
	}
	cfg.Models = models
	for _, d := range cfg.durationSettings(&serverTimeouts{}) {
		// The variable overrides the file, in either spelling.
		err := env(d.env, func(v string) error {
			if _, err := parseDuration(v); err != nil {
				return errors.New("not a duration: " + durationHint)
			}
			*d.value, *d.seconds = v, nil
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// durationSettings lists the config's durations with their defaults, each
// resolving into its field of t.
func (cfg *serverConfig) durationSettings(t *serverTimeouts) []durationSetting {
	return []durationSetting{
		{"shutdown_timeout", "MNEMON_SHUTDOWN_TIMEOUT", &cfg.ShutdownTimeout, &cfg.ShutdownSecs, 30 * time.Second, &t.shutdown},
		{"request_timeout", "MNEMON_REQUEST_TIMEOUT", &cfg.RequestTimeout, &cfg.RequestSecs, 30 * time.Second, &t.request},
		{"read_timeout", "MNEMON_READ_TIMEOUT", &cfg.ReadTimeout, &cfg.ReadSecs, 2 * time.Minute, &t.read},
		{"write_timeout", "MNEMON_WRITE_TIMEOUT", &cfg.WriteTimeout, &cfg.WriteSecs, 2 * time.Minute, &t.write},
		{"idle_timeout", "MNEMON_IDLE_TIMEOUT", &cfg.IdleTimeout, &cfg.IdleSecs, 2 * time.Minute, &t.idle},
		{"job_timeout", "MNEMON_JOB_TIMEOUT", &cfg.JobTimeout, &cfg.JobTimeoutSecs, time.Minute, &t.job},
		// 0: jobs' default, the job timeout plus a minute, at least 2 minutes.
		{"job_rescue_after", "MNEMON_JOB_RESCUE_AFTER", &cfg.JobRescueAfter, &cfg.RescueSecs, 0, &t.rescue},
		{"max_index_lag", "MNEMON_MAX_INDEX_LAG", &cfg.MaxIndexLag, &cfg.maxIndexLagSecs, defaultMaxIndexLag, &t.indexLag},
	}
}

// isDuration reports whether field is the config field of a duration.
func (cfg *serverConfig) isDuration(field string) bool {
	switch field {
	case "maintain_every", "consolidate_after", "purge_after", "models.embeddings.timeout", "models.chat.timeout":
		return true
	}
	for _, d := range cfg.durationSettings(&serverTimeouts{}) {
		if d.field == field {
			return true
		}
	}
	return false
}

// serverTimeouts are the config's durations, defaults filled in.
type serverTimeouts struct {
	shutdown, request, read, write, idle, job, rescue, indexLag time.Duration
}

// timeouts resolves the config's durations (see durationSetting.resolve)
// and checks that a running job is taken for dead only after it could
// have timed out.
func (cfg *serverConfig) timeouts() (serverTimeouts, error) {
	var t serverTimeouts
	rescueField := ""
	for _, s := range cfg.durationSettings(&t) {
		d, field, err := s.resolve()
		if err != nil {
			return t, err
		}
		*s.into = d
		if s.into == &t.rescue {
			rescueField = field
		}
	}
	if t.rescue > 0 && t.rescue <= t.job {
		return t, usagef("%s %s must exceed the job timeout (%s): a running job is taken for dead only after it could have timed out", rescueField, shortDuration(t.rescue), shortDuration(t.job))
	}
	return t, nil
}

// deprecations are the warnings for the deprecated fields the config
// uses, each naming the field that replaces it.
func (cfg *serverConfig) deprecations() []string {
	var out []string
	for _, d := range cfg.durationSettings(&serverTimeouts{}) {
		if w := d.deprecation(); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// jsonKind names a config field's type as a JSON user sees it.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64:
		return "whole number"
	case reflect.Float64:
		return "number"
	}
	return k.String()
}

// newLogger builds the server's structured logger.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	switch strings.ToLower(level) {
	case "", "info":
		lv = slog.LevelInfo
	case "debug":
		lv = slog.LevelDebug
	case "warn", "warning":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		return nil, usagef("log level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(format) {
	case "", "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, usagef("log format %q: use json or text", format)
}

// loopback reports whether addr's host only accepts local connections.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveOptions are the flags of serve and worker.
type serveOptions struct {
	addr, config, logFormat, logLevel, sync string
	// pprof is the loopback HOST:PORT of the profiling server (serve
	// --pprof); empty: none.
	pprof        string
	workers      *int  // nil: not given
	insecureOpen *bool // nil: not given
	readOnly     *bool // nil: not given (serve only)
	indexMemory  *int  // MiB; nil: not given
	compact      *int  // MiB; nil: not given
}

// optBool is a boolean flag that remembers whether it was given, so that
// --insecure-open=false overrides the environment and the config file.
type optBool struct{ p **bool }

func (o optBool) IsBoolFlag() bool { return true }
func (o optBool) Get() any         { return o.p != nil && *o.p != nil && **o.p }
func (o optBool) String() string {
	if o.p == nil || *o.p == nil {
		return "false"
	}
	return strconv.FormatBool(**o.p)
}
func (o optBool) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	*o.p = &b
	return nil
}

// optInt is an integer flag that remembers whether it was given, so that
// every value given is checked, -1 included, rather than some taken for
// "not given".
type optInt struct{ p **int }

func (o optInt) Get() any {
	if o.p == nil || *o.p == nil {
		return 0
	}
	return **o.p
}
func (o optInt) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return strconv.Itoa(**o.p)
}
func (o optInt) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return err
	}
	*o.p = &n
	return nil
}

func serveCmd() *command {
	var so serveOptions
	return &command{
		name:    "serve",
		summary: "run the HTTP API with background workers",
		help: `Serves the HTTP/JSON API (/v1, see /openapi.json) on the database, and runs
extraction jobs in the background.

With no API key configured the server is open, takes the namespace from the
X-Mnemon-Namespace header (default "default"), and listens on loopback only:
a non-loopback --addr is refused unless --insecure-open is given. Create keys
with 'mnemon keys create'; then every request needs Authorization: Bearer KEY.

SIGTERM or Ctrl-C stops accepting, lets requests in flight finish, and lets
running jobs finish (a job cut off is retried on the next start).

Read-only (--read-only, MNEMON_READ_ONLY=true, "read_only": true): serve a
read replica. The database is opened for reading only (on PostgreSQL the
schema is checked, never migrated, and every connection is read-only; a
SQLite file must exist and is never written), no job or maintenance runs,
retrieval works but stores no trace (its notes say so, and its retrieval_id
takes no feedback), and every write (capture, remember, forget, feedback,
import, consolidate, promote, job retry) is refused with 409 and the code
store_read_only, over HTTP and MCP alike. Point writers and 'mnemon worker'
at the same database read-write.

Durability (--sync): with "normal" (the default) an acknowledged write
survives a crash or kill of mnemon; a power cut or an operating-system crash
may lose the last fraction of a second of writes, never corrupting the file.
With "full" every commit is synced to disk before it is acknowledged, which
costs a disk flush per commit (several milliseconds on many disks).

Configuration: flags, then MNEMON_ADDR, MNEMON_DB, MNEMON_WORKERS,
MNEMON_INSECURE_OPEN, MNEMON_READ_ONLY, MNEMON_SYNC, MNEMON_LOG_FORMAT, MNEMON_LOG_LEVEL,
MNEMON_MAX_EVENTS, MNEMON_RATE_PER_SECOND, MNEMON_RATE_BURST,
MNEMON_MAINTAIN_EVERY, MNEMON_DEDUPE_THRESHOLD, MNEMON_HISTORY_KEEP,
MNEMON_CONSOLIDATE_AFTER, MNEMON_PURGE_AFTER, MNEMON_TRUST_FOLLOW_AT,
MNEMON_TRUST_HINT_AT, MNEMON_SHUTDOWN_TIMEOUT, MNEMON_REQUEST_TIMEOUT,
MNEMON_READ_TIMEOUT, MNEMON_WRITE_TIMEOUT, MNEMON_IDLE_TIMEOUT,
MNEMON_JOB_TIMEOUT, MNEMON_JOB_RESCUE_AFTER, MNEMON_INDEX_MEMORY_MB,
MNEMON_MAX_INDEX_LAG, MNEMON_COMPACT_ON_EXIT_MB, then --config
FILE (JSON with the fields addr, db, workers, insecure_open, read_only, sync,
log_format, log_level, shutdown_timeout, max_body_bytes,
max_import_bytes, max_events, max_query_bytes, rate_per_second, rate_burst,
request_timeout, read_timeout, write_timeout, idle_timeout,
job_max_attempts, job_timeout, job_rescue_after, maintain_every,
dedupe_threshold, history_keep, consolidate_after, purge_after,
summary_tokens, digest_tokens, trust_follow_at, trust_hint_at,
index_memory_mb, max_index_lag, compact_on_exit_mb, models).

Compaction (--compact-on-exit MB, MNEMON_COMPACT_ON_EXIT_MB,
"compact_on_exit_mb"): when serve stops, a SQLite file of at most MB MiB
(default 64; -1 never) that this server wrote to is rewritten packed
(VACUUM) if that gives back at least 2 % of it: indexes fill their pages to
80-90 % as rows arrive. It takes about 0.4 s for 16 MB, holds no request
(the server has stopped taking them), is cut off after 30 s, and a
compaction cut short leaves the file as it was.

Replicas: every server holds the search index of the namespaces it serves,
at most index_memory_mb MiB of them (--index-memory; default 2048): past it,
the least recently used namespaces are dropped and read again on their next
use. On PostgreSQL several servers share one database; each follows the
others' writes (woken by LISTEN/NOTIFY, polling every 500ms as the floor),
and /readyz answers 503 when an index has missed committed changes for
longer than max_index_lag (default 30s). See docs/replicas.md.

Model providers (optional; without them mnemon uses no model): the models
section names an OpenAI-compatible embeddings endpoint and a chat endpoint,
  "models": {"embeddings": {"base_url": "http://127.0.0.1:11434/v1",
    "model": "nomic-embed-text", "dimensions": 768}, "chat": {...}}
with the fields base_url, model, api_key_env (the variable holding the key)
or api_key_file, timeout (per attempt, default 30s), max_retries (default
3), concurrency (default 4), and for embeddings dimensions (when not set,
asked of the endpoint with one call) and batch_size (default 64). MNEMON_EMBEDDINGS_<FIELD> and MNEMON_CHAT_<FIELD>
(MNEMON_EMBEDDINGS_BASE_URL, ...) override them; every command reads the
variables, so remember and recall embed with the same model as the server.
A model named without a base_url is served at OpenAI's
(https://api.openai.com/v1) when a key source is set, else at a local
Ollama's (http://127.0.0.1:11434/v1): MNEMON_EMBEDDINGS_MODEL and
MNEMON_CHAT_MODEL are enough for Ollama; doctor and the log say which.
The embeddings endpoint embeds every write and query. The chat endpoint
(its base_url and key default to the embeddings endpoint's) extracts facts
in the background extraction job (models.extraction: both by default with
a chat endpoint, model, or rules) and answers POST /v1/agent/respond; it
can also judge duplicates (duplicate_judge), write summaries (summaries:
model) and rerank (rerank). Switching embedder re-embeds. See the README's
"Model providers".

Durations are Go duration strings everywhere: "30s", "5m", "720h" (a
number of days, "7d", is read too). The older fields in seconds
(shutdown_timeout_seconds, request_timeout_seconds, read_timeout_seconds,
write_timeout_seconds, idle_timeout_seconds, job_timeout_seconds,
job_rescue_after_seconds) are deprecated: still read, with a warning naming
the field that replaces them; a file that sets both spellings of one setting is
refused.

Maintenance: the workers run 'mnemon lifecycle --dedupe' over every
namespace every maintain_every (a duration such as 30m or 6h; default 1h;
0 never), the first time one interval after start; see 'mnemon help
lifecycle'. It then consolidates old sessions (see 'mnemon help
consolidate': sessions quiet for consolidate_after, default 168h, are
summarised in at most summary_tokens, default 200; a forgotten episode's
text is purged purge_after later, default 720h; a month's sessions fold into
a digest of at most digest_tokens, default 400), promotes procedures and
compacts: each memory keeps its newest history_keep superseded versions
(default 32; -1 keeps all), and the change log its last day.

Re-embedding: memories written with another embedder than this mnemon's
(an upgrade changed the default) are re-embedded in the background, in
committed batches, by a job queued at start when there are any and by every
maintenance run; a run cut off carries on at the next. Until then the
semantic channel cannot see them; the others can. 'mnemon doctor' counts
them.

Rate limit: with API keys, each key may send rate_per_second requests a
second (default 5000, more than one client sending one request at a time
reaches), with bursts of rate_burst (default twice the rate); more is a 429.
In open mode each client address is limited alike, except on a loopback
address, where there is no limit unless rate_per_second is set.

Trust: a retrieved item is FOLLOW at trust >= trust_follow_at (default 0.75),
HINT at >= trust_hint_at (default 0.45), else IGNORE (not packed).

Examples:
  mnemon serve
  mnemon serve --addr 127.0.0.1:8080 --db /var/lib/mnemon/mnemon.db --workers 4
  curl -s localhost:7077/v1/memories/retrieve -d '{"query":"which editor?"}'`,
		flags: func(fs *flag.FlagSet, _ *options) {
			fs.StringVar(&so.addr, "addr", "", "listen on `HOST:PORT` (default "+DefaultAddr+")")
			fs.StringVar(&so.config, "config", "", "read settings from a JSON `FILE`")
			fs.Var(optInt{&so.workers}, "workers", "extraction jobs run at once, 0 to 256; 0 runs none here (use 'mnemon worker') (default 2)")
			fs.Var(optBool{&so.insecureOpen}, "insecure-open", "allow a non-loopback address with no API key configured")
			fs.Var(optBool{&so.readOnly}, "read-only", "serve a read replica: open the database read-only, run no jobs, refuse writes with store_read_only (see above)")
			fs.StringVar(&so.sync, "sync", "", "durability of a commit: normal (default) or full (see above)")
			fs.StringVar(&so.logFormat, "log-format", "", "log as json (default) or text")
			fs.StringVar(&so.logLevel, "log-level", "", "debug (a line for every request), info (default: refused, slow and failed requests), warn or error")
			fs.StringVar(&so.pprof, "pprof", "", "serve Go's profiles (/debug/pprof/) on this loopback `HOST:PORT`, apart from the API")
			fs.Var(optInt{&so.indexMemory}, "index-memory", "cap the in-process search indexes at `MB` MiB, evicting least recently used namespaces (default 2048)")
			fs.Var(optInt{&so.compact}, "compact-on-exit", "on stopping, compact a SQLite file of at most `MB` MiB when that gives back 2 % of it (see Compaction above); -1 never (default 64)")
		},
		creates: true,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) > 0 {
				return usagef("serve takes no arguments (got %q); run 'mnemon help serve'", args[0])
			}
			return a.serve(ctx, so)
		},
	}
}

func (a *app) serverConfig(so serveOptions) (*serverConfig, error) {
	cfg, err := loadServerConfig(so.config, a.env.Getenv)
	if err != nil {
		return nil, err
	}
	if so.addr != "" {
		cfg.Addr = so.addr
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if so.workers != nil {
		cfg.Workers = so.workers
	}
	if so.readOnly != nil {
		cfg.ReadOnly = *so.readOnly
	}
	if cfg.ReadOnly {
		// A read-only server runs no job: they all write. Workers asked
		// for are a contradiction to report, not to drop silently.
		if cfg.Workers != nil && *cfg.Workers > 0 {
			return nil, usagef("workers %d with read-only: a read-only server runs no jobs (they write); run the workers ('mnemon worker' or a read-write 'mnemon serve') against the primary, and leave workers unset or 0 here", *cfg.Workers)
		}
		n := 0
		cfg.Workers = &n
		a.readOnly, a.creates = true, false
	}
	if so.indexMemory != nil {
		cfg.IndexMemoryMB = *so.indexMemory
	}
	if so.compact != nil {
		cfg.CompactOnExitMB = *so.compact
	}
	if a.compactBytes, err = compactOnExit(cfg.CompactOnExitMB); err != nil {
		return nil, err
	}
	if cfg.Workers == nil {
		n := 2
		cfg.Workers = &n
	}
	if *cfg.Workers < 0 || *cfg.Workers > 256 {
		return nil, usagef("workers %d: use 0 to 256", *cfg.Workers)
	}
	// 0 means the default for each of these; a negative one is a mistake,
	// not a request for the default.
	for _, n := range []struct {
		name string
		v    float64
	}{
		{"max_body_bytes", float64(cfg.MaxBodyBytes)}, {"max_import_bytes", float64(cfg.MaxImportBytes)},
		{"max_events (MNEMON_MAX_EVENTS)", float64(cfg.MaxEvents)}, {"max_query_bytes", float64(cfg.MaxQueryBytes)},
		{"job_max_attempts", float64(cfg.JobAttempts)},
		{"index_memory_mb (--index-memory, MNEMON_INDEX_MEMORY_MB)", float64(cfg.IndexMemoryMB)},
		{"summary_tokens", float64(cfg.SummaryTokens)}, {"digest_tokens", float64(cfg.DigestTokens)},
	} {
		if n.v < 0 {
			return nil, usagef("%s %g: must not be negative (0 or leaving it out gives the default)", n.name, n.v)
		}
	}
	if _, err := cfg.timeouts(); err != nil {
		return nil, err
	}
	if so.insecureOpen != nil {
		cfg.InsecureOpen = *so.insecureOpen
	}
	if so.sync != "" {
		cfg.Sync = so.sync
	}
	if a.synchronous, err = syncLevel(cfg.Sync); err != nil {
		return nil, usagef("sync %q: %v", cfg.Sync, err)
	}
	if so.logFormat != "" {
		cfg.LogFormat = so.logFormat
	}
	if so.logLevel != "" {
		cfg.LogLevel = so.logLevel
	}
	if err := cfg.checkMaintenance(); err != nil {
		return nil, err
	}
	if err := cfg.Models.check(a.env.Getenv); err != nil {
		return nil, err
	}
	a.models, a.modelsRead = cfg.Models, true
	if cfg.DB != "" && a.dbPath == defaultDBPath(a.env) && a.env.Getenv("MNEMON_DB") == "" {
		a.dbPath = cfg.DB
	}
	return cfg, nil
}

// openQueue opens the job queue on the app's database.
func (a *app) openQueue(ctx context.Context, cfg *serverConfig, t serverTimeouts, log *slog.Logger) (*jobs.Queue, error) {
	return jobs.Open(ctx, a.opened.withDriver(jobs.Config{
		Engine:  a.engine,
		Workers: *cfg.Workers, Logger: log, MaxAttempts: cfg.JobAttempts,
		JobTimeout: t.job, RescueAfter: t.rescue,
		MaintainEvery: cfg.maintainInterval(),
		ReadOnly:      cfg.ReadOnly,
	}))
}

// serverStart resolves the timeouts of a config serverConfig accepted and
// logs its deprecated fields.
func serverStart(cfg *serverConfig, log *slog.Logger) (serverTimeouts, error) {
	for _, w := range cfg.deprecations() {
		log.Warn(w)
	}
	return cfg.timeouts()
}

func (a *app) serve(ctx context.Context, so serveOptions) error {
	cfg, err := a.serverConfig(so)
	if err != nil {
		return err
	}
	log, err := newLogger(a.env.Stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		return err
	}
	timeouts, err := serverStart(cfg, log)
	if err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		return usagef("--addr %q: use HOST:PORT, like %s", cfg.Addr, DefaultAddr)
	}
	if so.pprof != "" && !loopback(so.pprof) {
		return usagef("--pprof %q: profiles expose the process's memory and code paths; use a loopback HOST:PORT, like 127.0.0.1:6060", so.pprof)
	}
	if err := a.openStore(ctx); err != nil {
		return err
	}
	keys, err := a.store.CountActiveAPIKeys(ctx)
	if err != nil {
		return err
	}
	local := loopback(cfg.Addr)
	if keys == 0 && !local && !cfg.InsecureOpen {
		return usagef("no API key is configured, so the server would be open to anyone who can reach %s; listen on loopback (--addr %s), create a key first (mnemon keys create --namespace NAME --role admin), or pass --insecure-open", cfg.Addr, DefaultAddr)
	}
	ranking, err := cfg.trustRanking()
	if err != nil {
		return err
	}
	cons, err := cfg.consolidation()
	if err != nil {
		return err
	}
	ecfg, err := a.withModels(engine.Config{Store: a.store, Logger: log, Ranking: ranking, DedupeThreshold: cfg.DedupeThreshold, HistoryKeep: cfg.HistoryKeep, Consolidation: cons, IndexMemory: cfg.indexMemory()})
	if err != nil {
		return err
	}
	eng, err := engine.New(ecfg)
	if err != nil {
		return err
	}
	a.engine = eng
	a.logModels(log)
	began := time.Now()
	if err := eng.Warm(ctx); err != nil {
		return err
	}
	log.Info("index loaded", "db", redactDB(a.dbPath), "duration_ms", time.Since(began).Milliseconds(), "namespaces", len(eng.IndexSizes()))
	defer follow(eng)()
	q, err := a.openQueue(ctx, cfg, timeouts, log)
	if err != nil {
		return err
	}
	openRate := 0.0 // as rate_per_second
	if local && cfg.RatePerSecond == 0 {
		// Open mode on loopback is one user's own machine: no limit
		// unless one is configured.
		openRate = -1
	}
	ui, err := webui.New("/ui/")
	if err != nil {
		return err
	}
	api, err := httpapi.New(httpapi.Config{
		Engine: eng, Keys: a.store, Queue: q, Logger: log, Version: Version, Ready: q.Ready, UI: ui,
		MaxIndexLag: timeouts.indexLag,
		RequireKeys: !local && !cfg.InsecureOpen,
		MCP:         mcpserver.HTTPHandler(eng, mcpserver.Options{Version: Version, Logger: log}),
		Limits: httpapi.Limits{
			MaxBodyBytes: cfg.MaxBodyBytes, MaxImportBytes: cfg.MaxImportBytes, MaxEvents: cfg.MaxEvents,
			MaxQueryBytes: cfg.MaxQueryBytes, RatePerSecond: cfg.RatePerSecond, RateBurst: cfg.RateBurst, OpenRatePerSecond: openRate,
			RequestTimeout: timeouts.request,
		},
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		msg := fmt.Sprintf("listen on %s: %v", cfg.Addr, err)
		if errors.Is(err, syscall.EADDRINUSE) {
			msg = fmt.Sprintf("listen on %s: the port is taken (another mnemon serve?); stop that process or pick another port with --addr", cfg.Addr)
		}
		return &failure{msg: msg, code: 1, err: err}
	}
	// Profiles listen before the address is announced (MNEMON_ADDR_FILE),
	// so whoever reads it finds both.
	if so.pprof != "" {
		stop, err := servePprof(so.pprof, log)
		if err != nil {
			ln.Close()
			return err
		}
		defer stop()
	}
	// The workers start last: every return before the shutdown below must
	// leave none running on a store that is about to close.
	if err := q.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{
		Handler:           api,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       timeouts.read,
		WriteTimeout:      timeouts.write,
		IdleTimeout:       timeouts.idle,
		MaxHeaderBytes:    http.DefaultMaxHeaderBytes, // the backstop: the API refuses over 64 KiB itself, as a problem
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	mode := "api keys"
	if keys == 0 {
		mode = "open (no API key configured)"
	}
	log.Info("listening", "addr", "http://"+ln.Addr().String(), "inspector", "http://"+ln.Addr().String()+"/ui/", "auth", mode, "workers", *cfg.Workers, "read_only", cfg.ReadOnly, "sync", strings.ToLower(a.synchronous), "db", redactDB(a.dbPath))
	if file := a.env.Getenv("MNEMON_ADDR_FILE"); file != "" {
		// Tests and supervisors learn the port of --addr 127.0.0.1:0 here.
		// Renamed into place, so a reader never sees a partial address.
		err := os.WriteFile(file+".tmp", []byte(ln.Addr().String()), 0o600)
		if err == nil {
			err = os.Rename(file+".tmp", file)
		}
		if err != nil {
			ln.Close()
			_ = q.Stop(context.Background())
			return &failure{msg: fmt.Sprintf("MNEMON_ADDR_FILE: %v", err), code: 1, err: err}
		}
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		_ = q.Stop(context.Background())
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests and running jobs")
	grace := timeouts.shutdown
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	shutdownErr := srv.Shutdown(sctx)
	if err := q.Stop(sctx); err != nil {
		log.Warn("jobs still running at shutdown will be retried on the next start", "error", err)
	}
	eng.FlushTraces()
	if shutdownErr != nil {
		log.Warn("requests still running at shutdown were cut off", "error", shutdownErr)
	}
	log.Info("stopped")
	return nil
}

func workerCmd() *command {
	var so serveOptions
	return &command{
		name:    "worker",
		summary: "run background jobs without the API",
		help: `Runs extraction jobs queued by 'mnemon serve' (started with --workers 0) or
by another worker, until SIGTERM or Ctrl-C; running jobs finish first.

Every process follows the database's change log (every write is logged in its
own transaction), so a 'mnemon serve' beside this worker serves what it
extracted within about half a second. On one machine with the embedded store,
workers inside 'mnemon serve' (the default) are still the simpler choice.

Examples:
  mnemon worker --workers 4
  mnemon worker --db /var/lib/mnemon/mnemon.db --log-format text`,
		flags: func(fs *flag.FlagSet, _ *options) {
			fs.StringVar(&so.config, "config", "", "read settings from a JSON `FILE` (as serve)")
			fs.Var(optInt{&so.workers}, "workers", "jobs run at once, 1 to 256 (default 2)")
			fs.StringVar(&so.sync, "sync", "", "durability of a commit: normal (default) or full (see 'mnemon help serve')")
			fs.StringVar(&so.logFormat, "log-format", "", "log as json (default) or text")
			fs.StringVar(&so.logLevel, "log-level", "", "debug (a line for every request), info (default: refused, slow and failed requests), warn or error")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) > 0 {
				return usagef("worker takes no arguments (got %q); run 'mnemon help worker'", args[0])
			}
			cfg, err := a.serverConfig(so)
			if err != nil {
				return err
			}
			if cfg.ReadOnly {
				return usagef("a worker writes what it extracts, so it cannot be read-only: unset read_only (MNEMON_READ_ONLY) for 'mnemon worker'")
			}
			if *cfg.Workers == 0 {
				return usagef("a worker with --workers 0 would run nothing; use 1 or more")
			}
			log, err := newLogger(a.env.Stderr, cfg.LogFormat, cfg.LogLevel)
			if err != nil {
				return err
			}
			timeouts, err := serverStart(cfg, log)
			if err != nil {
				return err
			}
			if err := a.openStore(ctx); err != nil {
				return err
			}
			cons, err := cfg.consolidation()
			if err != nil {
				return err
			}
			ecfg, err := a.withModels(engine.Config{Store: a.store, Logger: log, DedupeThreshold: cfg.DedupeThreshold, HistoryKeep: cfg.HistoryKeep, Consolidation: cons, IndexMemory: cfg.indexMemory()})
			if err != nil {
				return err
			}
			eng, err := engine.New(ecfg)
			if err != nil {
				return err
			}
			a.engine = eng
			a.logModels(log)
			defer follow(eng)()
			q, err := a.openQueue(ctx, cfg, timeouts, log)
			if err != nil {
				return err
			}
			if err := q.Start(ctx); err != nil {
				return err
			}
			log.Info("worker running", "workers", *cfg.Workers, "db", redactDB(a.dbPath))
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.Background(), timeouts.shutdown)
			defer cancel()
			if err := q.Stop(sctx); err != nil {
				log.Warn("jobs still running at shutdown will be retried", "error", err)
			}
			log.Info("stopped")
			return nil
		},
	}
}

func jobsCmd() *command {
	var state string
	return &command{
		name:    "jobs",
		args:    "[retry JOB_ID]",
		summary: "list background jobs (failed ones with their error); retry a failed one",
		help: `Lists background jobs, newest first: every namespace's, unless --namespace is
given. States: pending (queued or waiting to retry), running, succeeded,
failed (gave up; the error says why).

'mnemon jobs retry JOB_ID' queues a failed job again, with one more attempt;
a running 'mnemon serve' or 'mnemon worker' on the same database runs it.
An extraction job that failed keeps its episodes unextracted until then.

Examples:
  mnemon jobs
  mnemon jobs --state failed
  mnemon jobs --namespace acme --json
  mnemon jobs retry job_01jv4n3s8m6d0c9x2qf7a5k1ew`,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&state, "state", "", "only jobs in this `STATE`: pending, running, succeeded or failed")
			fs.IntVar(&o.limit, "limit", 20, "at most `N` jobs")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) > 0 {
				if args[0] != "retry" {
					return usagef("jobs takes no arguments but 'retry JOB_ID' (got %q); run 'mnemon help jobs'", args[0])
				}
				if len(args) != 2 {
					return usagef("jobs retry takes one job id, like 'mnemon jobs retry job_01jv4n3s8m6d0c9x2qf7a5k1ew' (see 'mnemon jobs')")
				}
				return a.retryJob(ctx, o, args[1])
			}
			var states []string
			if state != "" {
				ok := false
				for _, s := range jobs.States {
					ok = ok || s == state
				}
				if !ok {
					return usagef("--state %q: use pending, running, succeeded or failed", state)
				}
				states = []string{state}
			}
			if o.limit < 1 || o.limit > 10000 {
				return usagef("--limit %d: use 1 to 10000", o.limit)
			}
			if err := a.openStore(ctx); err != nil {
				return err
			}
			q, err := jobs.Open(ctx, a.opened.withDriver(jobs.Config{}))
			if err != nil {
				return err
			}
			p := jobs.ListParams{States: states, Limit: o.limit}
			if o.nsSet {
				p.Namespace = a.ns
			}
			list, err := q.List(ctx, p)
			if err != nil {
				return err
			}
			if o.json {
				if list == nil {
					list = []*jobs.Job{}
				}
				return writeJSON(a.env.Stdout, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(a.env.Stdout, "no jobs")
				return nil
			}
			for _, j := range list {
				line := fmt.Sprintf("%-30s %-9s %-12s attempt %d/%d  %s", j.ID, j.State, j.Namespace,
					j.Attempt, j.MaxAttempts, j.CreatedAt.Format(time.RFC3339))
				if j.Error != "" {
					line += "  error: " + clip(j.Error, 200)
				}
				fmt.Fprintln(a.env.Stdout, line)
			}
			return nil
		},
	}
}

// retryJob queues the failed job id again.
func (a *app) retryJob(ctx context.Context, o *options, id string) error {
	if err := jobs.CheckID(id); err != nil {
		return err
	}
	if err := a.openStore(ctx); err != nil {
		return err
	}
	q, err := jobs.Open(ctx, a.opened.withDriver(jobs.Config{}))
	if err != nil {
		return err
	}
	ns := ""
	if o.nsSet {
		ns = a.ns
	}
	j, err := q.Retry(ctx, ns, id)
	switch {
	case errors.Is(err, memory.ErrNotFound):
		return &failure{msg: fmt.Sprintf("no job %s; list jobs with 'mnemon jobs'", id), code: 1, err: err}
	case errors.Is(err, memory.ErrConflict):
		msg, _ := describe(ctx, err)
		return &failure{msg: msg, code: 1, err: err}
	case err != nil:
		return err
	}
	if o.json {
		return writeJSON(a.env.Stdout, j)
	}
	fmt.Fprintf(a.env.Stdout, "%s queued again (attempts %d of %d so far); a running 'mnemon serve' or 'mnemon worker' runs it\n", j.ID, j.Attempt, j.MaxAttempts)
	return nil
}

// followEvery is how often a server or worker applies to its index what
// other processes on the same database wrote: the staleness of a server
// beside a 'mnemon worker', for instance.
const followEvery = 500 * time.Millisecond

// follow keeps eng's index current with other processes' writes until the
// returned stop is called (before the store closes).
func follow(eng *engine.Engine) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		eng.Follow(ctx, followEvery)
	}()
	return func() {
		cancel()
		<-done
	}
}
