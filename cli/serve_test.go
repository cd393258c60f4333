package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/testutil"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// running is a long-running command (serve, worker) started in-process.
type running struct {
	url    string // serve only: http://127.0.0.1:PORT
	stderr *testutil.SyncBuffer
	cancel context.CancelFunc
	done   chan struct{}
	code   int
}

// exited waits up to d for the command to return and reports its status.
func (r *running) exited(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-r.done:
		return r.code
	case <-time.After(d):
		t.Fatalf("still running %s after it was told to stop; stderr:\n%s", d, r.stderr.String())
		return -1
	}
}

// stop cancels the command's context (SIGTERM in a real process) and
// checks that it exits 0 promptly.
func (r *running) stop(t *testing.T) time.Duration {
	t.Helper()
	began := time.Now()
	r.cancel()
	if code := r.exited(t, 20*time.Second); code != 0 {
		t.Fatalf("exit %d after its context was cancelled; stderr:\n%s", code, r.stderr.String())
	}
	return time.Since(began)
}

// start runs mnemon args in-process with exactly vars as its environment.
func start(t *testing.T, vars map[string]string, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{stderr: &testutil.SyncBuffer{}, cancel: cancel, done: make(chan struct{})}
	env := Env{Stdout: io.Discard, Stderr: r.stderr, Getenv: func(k string) string { return vars[k] }}
	go func() {
		defer close(r.done)
		r.code = Main(ctx, args, env)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
			t.Errorf("mnemon %v did not stop", args)
		}
	})
	return r
}

// startServe runs mnemon serve in-process and waits until it listens. vars
// is its environment; MNEMON_ADDR_FILE is added.
func startServe(t *testing.T, vars map[string]string, args ...string) *running {
	t.Helper()
	env := map[string]string{"MNEMON_ADDR_FILE": filepath.Join(t.TempDir(), "addr")}
	for k, v := range vars {
		env[k] = v
	}
	r := start(t, env, append([]string{"serve"}, args...)...)
	// A bound, not a wait: on a busy 2-core machine under -race, opening
	// a new file and migrating River's tables has taken over 20 s.
	addr, err := waitAddr(env["MNEMON_ADDR_FILE"], time.Minute, r.done)
	if err != nil {
		t.Fatalf("serve: %v; exit %d; stderr:\n%s", err, r.code, r.stderr.String())
	}
	r.url = "http://" + addr
	return r
}

// waitAddr waits for serve to write its listen address to file, and
// returns it dialable on loopback (a wildcard host becomes 127.0.0.1).
func waitAddr(file string, d time.Duration, exited <-chan struct{}) (string, error) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil && len(b) > 0 {
			_, port, err := net.SplitHostPort(string(b))
			if err == nil {
				return net.JoinHostPort("127.0.0.1", port), nil
			}
		}
		select {
		case <-exited:
			return "", fmt.Errorf("exited before listening")
		case <-time.After(10 * time.Millisecond):
		}
	}
	return "", fmt.Errorf("no address in %s after %s", file, d)
}

// call sends one request and returns the status and body. body is JSON
// encoded unless it is already a string.
func call(t *testing.T, method, url string, body any, header ...string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{Timeout: 30 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}

// event is one capture event.
type event struct {
	Kind       string `json:"kind"`
	Content    string `json:"content"`
	OccurredAt string `json:"occurred_at"`
}

type captureBody struct {
	SessionID string  `json:"session_id"`
	Events    []event `json:"events"`
}

type captureAck struct {
	EpisodeIDs []string `json:"episode_ids"`
	JobID      string   `json:"job_id"`
	JobState   string   `json:"job_state"`
}

func captureOf(session string, at time.Time, contents ...string) captureBody {
	b := captureBody{SessionID: session}
	for i, c := range contents {
		b.Events = append(b.Events, event{Kind: "user_message", Content: c,
			OccurredAt: at.Add(time.Duration(i) * time.Second).UTC().Format(time.RFC3339)})
	}
	return b
}

// jobState reads a job's state over the API.
func jobState(t *testing.T, url, id string) (string, []byte) {
	t.Helper()
	code, body := call(t, "GET", url+"/v1/jobs/"+id, nil)
	if code != http.StatusOK {
		t.Fatalf("GET /v1/jobs/%s: %d %s", id, code, body)
	}
	var j struct {
		State string `json:"state"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		t.Fatal(err)
	}
	return j.State, body
}

func TestServeRefusesOpenNetworkAddress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))
	vars := map[string]string{"MNEMON_DB": db}

	// No key, every interface: refused, with the way out named.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code, _, errs := runEnv(t, ctx, vars, "", "serve", "--addr", "0.0.0.0:0")
	oneLine(t, code, errs, 2, "--insecure-open")
	for _, want := range []string{"0.0.0.0:0", "mnemon keys create"} {
		if !strings.Contains(errs, want) {
			t.Fatalf("refusal lacks %q: %s", want, errs)
		}
	}
	code, _, errs = runEnv(t, ctx, vars, "", "serve", "--addr", ":0")
	oneLine(t, code, errs, 2, "--insecure-open")

	// Told to, it serves open: no key needed.
	s := startServe(t, vars, "--addr", "0.0.0.0:0", "--insecure-open", "--log-level", "error")
	if code, body := call(t, "GET", s.url+"/healthz", nil); code != http.StatusOK {
		t.Fatalf("healthz: %d %s", code, body)
	}
	if code, body := call(t, "POST", s.url+"/v1/episodes?wait=true", captureOf("s1", time.Now(), "I live in Lisbon.")); code != http.StatusOK {
		t.Fatalf("open capture: %d %s", code, body)
	}
	s.stop(t)

	// Once a key exists the same address is served, and only with a key.
	out := mustRun(t, db, "keys", "create", "--namespace", "default", "--role", "admin")
	key := strings.SplitN(out, "\n", 2)[0]
	s = startServe(t, vars, "--addr", "0.0.0.0:0", "--log-level", "error")
	code, body := call(t, "GET", s.url+"/v1/memories", nil)
	if code != http.StatusUnauthorized || !strings.Contains(string(body), `"code"`) {
		t.Fatalf("no key: %d %s", code, body)
	}
	code, body = call(t, "GET", s.url+"/v1/memories", nil, "Authorization", "Bearer "+key)
	if code != http.StatusOK || !strings.Contains(string(body), "Lisbon") {
		t.Fatalf("with key: %d %s", code, body)
	}
	s.stop(t)
}

func TestServeConfigPrecedence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "mnemon.json")
	if err := os.WriteFile(file, []byte(`{"addr": "127.0.0.1:7001", "workers": 3, "log_level": "warn",
		"max_events": 30, "insecure_open": true, "rate_burst": 9, "db": "/from/file.db", "sync": "full"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MNEMON_ADDR": "127.0.0.1:7002", "MNEMON_WORKERS": "4", "MNEMON_MAX_EVENTS": "20", "MNEMON_SYNC": "normal"}
	cases := []struct {
		name string
		env  map[string]string
		so   serveOptions
		want serverConfig
		db   string
	}{
		{"defaults", nil, serveOptions{}, serverConfig{Addr: DefaultAddr, Workers: ptr(2)}, ""},
		{"file", nil, serveOptions{config: file},
			serverConfig{Addr: "127.0.0.1:7001", Workers: ptr(3), LogLevel: "warn", MaxEvents: 30, InsecureOpen: true, RateBurst: 9, DB: "/from/file.db", Sync: "full"}, "/from/file.db"},
		{"env over file", env, serveOptions{config: file},
			serverConfig{Addr: "127.0.0.1:7002", Workers: ptr(4), LogLevel: "warn", MaxEvents: 20, InsecureOpen: true, RateBurst: 9, DB: "/from/file.db", Sync: "normal"}, "/from/file.db"},
		{"flags over env", env, serveOptions{config: file, workers: ptr(0), addr: "127.0.0.1:7003", logLevel: "debug", sync: "full"},
			serverConfig{Addr: "127.0.0.1:7003", Workers: ptr(0), LogLevel: "debug", MaxEvents: 20, InsecureOpen: true, RateBurst: 9, DB: "/from/file.db", Sync: "full"}, "/from/file.db"},
		{"MNEMON_DB over file", map[string]string{"MNEMON_DB": "/from/env.db"}, serveOptions{config: file},
			serverConfig{Addr: "127.0.0.1:7001", Workers: ptr(3), LogLevel: "warn", MaxEvents: 30, InsecureOpen: true, RateBurst: 9, DB: "/from/file.db", Sync: "full"}, "/from/env.db"},
		{"flag turns insecure_open off", map[string]string{"MNEMON_INSECURE_OPEN": "true"}, serveOptions{config: file, insecureOpen: ptr(false)},
			serverConfig{Addr: "127.0.0.1:7001", Workers: ptr(3), LogLevel: "warn", MaxEvents: 30, RateBurst: 9, DB: "/from/file.db", Sync: "full"}, "/from/file.db"},
		{"env turns insecure_open off", map[string]string{"MNEMON_INSECURE_OPEN": "false"}, serveOptions{config: file},
			serverConfig{Addr: "127.0.0.1:7001", Workers: ptr(3), LogLevel: "warn", MaxEvents: 30, RateBurst: 9, DB: "/from/file.db", Sync: "full"}, "/from/file.db"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := &app{env: Env{Getenv: func(k string) string { return c.env[k] }}}
			a.dbPath = c.env["MNEMON_DB"] // as run() sets it
			cfg, err := a.serverConfig(c.so)
			if err != nil {
				t.Fatal(err)
			}
			got, want := *cfg, c.want
			if *got.Workers != *want.Workers {
				t.Fatalf("workers %d, want %d", *got.Workers, *want.Workers)
			}
			got.Workers, want.Workers = nil, nil
			if got != want {
				t.Fatalf("config\n got %+v\nwant %+v", got, want)
			}
			if a.dbPath != c.db {
				t.Fatalf("database %q, want %q", a.dbPath, c.db)
			}
			if wantSync := strings.ToUpper(c.want.Sync); a.synchronous != wantSync && (wantSync != "" || a.synchronous != "NORMAL") {
				t.Fatalf("synchronous %q for sync %q", a.synchronous, c.want.Sync)
			}
		})
	}

	// End to end: the file names the database and the address, the
	// environment the workers and the limit, a flag the log level.
	db := migratedDB(t, filepath.Join(dir, "e2e.db"))
	e2e := filepath.Join(dir, "e2e.json")
	if err := os.WriteFile(e2e, []byte(`{"db": "`+db+`", "addr": "127.0.0.1:0", "workers": 3, "log_level": "error", "max_events": 5, "idle_timeout_seconds": 90}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, map[string]string{"MNEMON_WORKERS": "1", "MNEMON_MAX_EVENTS": "2", "MNEMON_LOG_LEVEL": "error"},
		"--config", e2e, "--log-level", "info")
	var listening struct {
		Msg     string `json:"msg"`
		Addr    string `json:"addr"`
		Workers int    `json:"workers"`
		DB      string `json:"db"`
	}
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		if strings.Contains(line, `"msg":"listening"`) {
			if err := json.Unmarshal([]byte(line), &listening); err != nil {
				t.Fatal(err)
			}
		}
	}
	if listening.Workers != 1 || listening.DB != db || !strings.HasPrefix(listening.Addr, "http://127.0.0.1:") {
		t.Fatalf("listening line %+v; stderr:\n%s", listening, s.stderr.String())
	}
	// The deprecated field is read, and the log says what to write instead.
	if want := `config field idle_timeout_seconds is deprecated: write \"idle_timeout\": \"1m30s\"`; !strings.Contains(s.stderr.String(), want) {
		t.Fatalf("stderr lacks %s:\n%s", want, s.stderr.String())
	}
	code, body := call(t, "POST", s.url+"/v1/episodes", captureOf("s", time.Now(), "a", "b", "c"))
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "too_many_events") {
		t.Fatalf("3 events with MNEMON_MAX_EVENTS=2: %d %s", code, body)
	}
	s.stop(t)
}

func ptr[T any](v T) *T { return &v }

// compact_on_exit_mb: the file, the environment and the flag, in that
// order, give the store's CompactOnClose; 0 is the default, -1 never.
func TestServeCompactOnExit(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mnemon.json")
	if err := os.WriteFile(file, []byte(`{"compact_on_exit_mb": 8}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		so   serveOptions
		want int64
	}{
		{"default", nil, serveOptions{}, defaultCompactOnExitMB << 20},
		{"file", nil, serveOptions{config: file}, 8 << 20},
		{"env over file", map[string]string{"MNEMON_COMPACT_ON_EXIT_MB": "-1"}, serveOptions{config: file}, 0},
		{"flag over env", map[string]string{"MNEMON_COMPACT_ON_EXIT_MB": "-1"}, serveOptions{config: file, compact: ptr(16)}, 16 << 20},
		{"flag 0 is the default", nil, serveOptions{config: file, compact: ptr(0)}, defaultCompactOnExitMB << 20},
	} {
		a := &app{env: Env{Getenv: func(k string) string { return c.env[k] }}}
		if _, err := a.serverConfig(c.so); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if a.compactBytes != c.want {
			t.Errorf("%s: CompactOnClose %d, want %d", c.name, a.compactBytes, c.want)
		}
	}
}

func TestServeConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.json", `{"addr": "127.0.0.1:0",`)
	unknown := write("unknown.json", `{"adress": "127.0.0.1:0"}`)
	wrongType := write("type.json", `{"workers": "two"}`)
	trailing := write("trailing.json", `{"workers": 1} {"workers": 2}`)
	tooMany := write("many.json", `{"workers": 1000}`)
	rescue := write("rescue.json", `{"job_timeout": "5s", "job_rescue_after": "5s"}`)
	rescueDefault := write("rescue-default.json", `{"job_rescue_after_seconds": 30}`)
	negTimeout := write("neg-timeout.json", `{"request_timeout_seconds": -1}`)
	negAttempts := write("neg-attempts.json", `{"job_max_attempts": -2}`)
	cases := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want []string
	}{
		{"missing file", nil, []string{"serve", "--config", filepath.Join(dir, "nope.json")}, 1, []string{"nope.json", "no such file"}},
		{"bad json", nil, []string{"serve", "--config", bad}, 2, []string{"bad.json", "mnemon help serve"}},
		{"unknown field", nil, []string{"serve", "--config", unknown}, 2, []string{"unknown.json", `"adress"`}},
		{"wrong type", nil, []string{"serve", "--config", wrongType}, 2, []string{"type.json", "workers"}},
		{"trailing data", nil, []string{"serve", "--config", trailing}, 2, []string{"trailing.json", "one JSON object"}},
		{"workers out of range", nil, []string{"serve", "--config", tooMany}, 2, []string{"workers 1000: use 0 to 256"}},
		{"rescue before timeout", nil, []string{"serve", "--config", rescue}, 2, []string{"job_rescue_after 5s must exceed the job timeout (5s)"}},
		{"rescue before default timeout", nil, []string{"worker", "--config", rescueDefault}, 2, []string{"job_rescue_after_seconds 30s must exceed the job timeout (1m)"}},
		{"bad MNEMON_WORKERS", map[string]string{"MNEMON_WORKERS": "many"}, []string{"serve"}, 2, []string{`MNEMON_WORKERS="many"`, "whole number"}},
		{"bad MNEMON_INSECURE_OPEN", map[string]string{"MNEMON_INSECURE_OPEN": "maybe"}, []string{"serve"}, 2, []string{`MNEMON_INSECURE_OPEN="maybe"`, "true or false"}},
		{"bad MNEMON_RATE_PER_SECOND", map[string]string{"MNEMON_RATE_PER_SECOND": "fast"}, []string{"serve"}, 2, []string{`MNEMON_RATE_PER_SECOND="fast"`, "number"}},
		{"bad MNEMON_MAX_EVENTS", map[string]string{"MNEMON_MAX_EVENTS": "1e3"}, []string{"serve"}, 2, []string{`MNEMON_MAX_EVENTS="1e3"`}},
		{"bad --insecure-open", nil, []string{"serve", "--insecure-open=maybe"}, 2, []string{`--insecure-open`, "true or false"}},
		{"bad log level", nil, []string{"serve", "--log-level", "loud"}, 2, []string{`log level "loud"`}},
		{"bad addr", nil, []string{"serve", "--addr", "localhost"}, 2, []string{`--addr "localhost"`, "HOST:PORT"}},
		{"bad --sync", nil, []string{"serve", "--sync", "always"}, 2, []string{`sync "always": use normal or full`}},
		{"bad MNEMON_SYNC", map[string]string{"MNEMON_SYNC": "off"}, []string{"worker"}, 2, []string{`MNEMON_SYNC="off": use normal or full`}},
		{"bad MNEMON_SYNC for a one-shot command", map[string]string{"MNEMON_SYNC": "off"}, []string{"remember", "I prefer tea."}, 2, []string{`MNEMON_SYNC="off": use normal or full`}},
		{"bad mcp --sync", nil, []string{"mcp", "--sync", "sometimes"}, 2, []string{`--sync "sometimes": use normal or full`}},
		{"bad --compact-on-exit", nil, []string{"serve", "--compact-on-exit", "-2"}, 2, []string{"compact_on_exit_mb -2", "-1 for never"}},
		{"bad MNEMON_COMPACT_ON_EXIT_MB", map[string]string{"MNEMON_COMPACT_ON_EXIT_MB": "big"}, []string{"serve"}, 2, []string{`MNEMON_COMPACT_ON_EXIT_MB="big"`}},
		{"bad mcp --compact-on-exit", nil, []string{"mcp", "--compact-on-exit", "lots"}, 2, []string{`--compact-on-exit "lots": want a whole number of MiB`}},
		{"bad mcp MNEMON_COMPACT_ON_EXIT_MB", map[string]string{"MNEMON_COMPACT_ON_EXIT_MB": "-7"}, []string{"mcp"}, 2, []string{"compact_on_exit_mb -7"}},
		{"worker bad env", map[string]string{"MNEMON_WORKERS": "x"}, []string{"worker"}, 2, []string{`MNEMON_WORKERS="x"`}},
		{"worker with no workers", nil, []string{"worker", "--workers", "0"}, 2, []string{"would run nothing"}},
		{"negative --workers", nil, []string{"serve", "--workers", "-1"}, 2, []string{"workers -1: use 0 to 256"}},
		{"negative MNEMON_WORKERS", map[string]string{"MNEMON_WORKERS": "-3"}, []string{"serve"}, 2, []string{"workers -3: use 0 to 256"}},
		{"worker negative --workers", nil, []string{"worker", "--workers=-1"}, 2, []string{"workers -1: use 0 to 256"}},
		{"worker absurd --workers", nil, []string{"worker", "--workers", "100000"}, 2, []string{"workers 100000: use 0 to 256"}},
		{"--workers not a number", nil, []string{"serve", "--workers", "two"}, 2, []string{`--workers "two": use a whole number`}},
		{"negative MNEMON_MAX_EVENTS", map[string]string{"MNEMON_MAX_EVENTS": "-5"}, []string{"serve"}, 2, []string{"max_events (MNEMON_MAX_EVENTS) -5: must not be negative"}},
		{"negative config timeout", nil, []string{"serve", "--config", negTimeout}, 2, []string{"request_timeout_seconds -1: must not be negative"}},
		{"negative config attempts", nil, []string{"worker", "--config", negAttempts}, 2, []string{"job_max_attempts -2: must not be negative"}},
		{"serve argument", nil, []string{"serve", "now"}, 2, []string{"serve takes no arguments"}},
		{"read-only with workers", nil, []string{"serve", "--read-only", "--workers", "2"}, 2, []string{"workers 2 with read-only", "runs no jobs"}},
		{"read-only with MNEMON_WORKERS", map[string]string{"MNEMON_READ_ONLY": "true", "MNEMON_WORKERS": "1"}, []string{"serve"}, 2, []string{"workers 1 with read-only"}},
		{"bad MNEMON_READ_ONLY", map[string]string{"MNEMON_READ_ONLY": "maybe"}, []string{"serve"}, 2, []string{`MNEMON_READ_ONLY="maybe"`, "true or false"}},
		{"read-only worker", map[string]string{"MNEMON_READ_ONLY": "true"}, []string{"worker"}, 2, []string{"cannot be read-only"}},
		{"read-only on no database", nil, []string{"serve", "--read-only"}, 1, []string{"no database at"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "m.db")
			vars := map[string]string{"MNEMON_DB": db}
			for k, v := range c.env {
				vars[k] = v
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			code, _, errs := runEnv(t, ctx, vars, "", c.args...)
			oneLine(t, code, errs, c.code, c.want[0])
			for _, w := range c.want[1:] {
				if !strings.Contains(errs, w) {
					t.Fatalf("stderr %q lacks %q", errs, w)
				}
			}
			if strings.Contains(errs, "serverConfig") || strings.Contains(errs, "strconv.") {
				t.Fatalf("stderr shows Go internals: %q", errs)
			}
			if _, err := os.Stat(db); err == nil {
				t.Fatalf("a wrong call created the database")
			}
		})
	}
}

func TestServeLifecycle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))
	cfg := filepath.Join(dir, "mnemon.json")
	if err := os.WriteFile(cfg, []byte(`{"shutdown_timeout": "15s", "job_timeout": "5m"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, map[string]string{"MNEMON_DB": db}, "--addr", "127.0.0.1:0", "--config", cfg, "--workers", "1")

	code, body := call(t, "GET", s.url+"/healthz", nil)
	if code != http.StatusOK || !strings.Contains(string(body), `"ok"`) {
		t.Fatalf("healthz: %d %s", code, body)
	}
	code, body = call(t, "POST", s.url+"/v1/episodes?wait=true", captureOf("s1", time.Now(), "Atlas uses pnpm.", "I live in Lisbon."))
	var ack captureAck
	if err := json.Unmarshal(body, &ack); err != nil || code != http.StatusOK || len(ack.EpisodeIDs) != 2 || ack.JobState != jobs.StateSucceeded {
		t.Fatalf("capture ?wait=true: %d %s", code, body)
	}
	if state, body := jobState(t, s.url, ack.JobID); state != jobs.StateSucceeded {
		t.Fatalf("job after wait: %s", body)
	}
	code, body = call(t, "GET", s.url+"/v1/memories", nil)
	if code != http.StatusOK || !strings.Contains(string(body), "pnpm") || !strings.Contains(string(body), "Lisbon") {
		t.Fatalf("memories after capture: %d %s", code, body)
	}

	// A capture in flight when the server is told to stop: its body is
	// still arriving. The server stops accepting, then finishes it,
	// extraction included (wait=true), and only then exits.
	pr, pw := io.Pipe()
	req, err := http.NewRequest("POST", s.url+"/v1/episodes?wait=true", pr)
	if err != nil {
		t.Fatal(err)
	}
	// With Expect: 100-continue the client sends no body until the
	// server's handler starts reading it, so the first write to the pipe
	// returns once the request is in the handler.
	req.Header.Set("Expect", "100-continue")
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
	defer client.CloseIdleConnections()
	type result struct {
		code int
		body []byte
		err  error
	}
	got := make(chan result, 1)
	go func() {
		res, err := client.Do(req)
		if err != nil {
			got <- result{err: err}
			return
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		got <- result{res.StatusCode, b, err}
	}()
	data, err := json.Marshal(captureOf("s2", time.Now(), "Kestrel uses bazel."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pw.Write(data[:10]); err != nil { // returns once the server reads the body
		t.Fatal(err)
	}
	began := time.Now()
	s.cancel()
	// New connections are refused while the request is in flight.
	host := strings.TrimPrefix(s.url, "http://")
	refused := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", host, time.Second)
		if err != nil {
			refused = true
			break
		}
		c.Close()
	}
	if !refused {
		t.Fatal("still accepting connections 10 s after shutdown began")
	}
	select {
	case <-s.done:
		t.Fatalf("exited with a request in flight; stderr:\n%s", s.stderr.String())
	default:
	}
	if _, err := pw.Write(data[10:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	var r result
	select {
	case r = <-got:
	case <-time.After(20 * time.Second):
		t.Fatalf("the request in flight got no answer; stderr:\n%s", s.stderr.String())
	}
	if r.err != nil || r.code != http.StatusOK || !strings.Contains(string(r.body), `"job_state":"succeeded"`) {
		t.Fatalf("request in flight during shutdown: %v %d %s\nstderr:\n%s", r.err, r.code, r.body, s.stderr.String())
	}
	if code := s.exited(t, 20*time.Second); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, s.stderr.String())
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Fatalf("shutdown took %s", took)
	}
	if errs := s.stderr.String(); !strings.Contains(errs, `"msg":"stopped"`) || strings.Contains(errs, "cut off") || strings.Contains(errs, "retried") || strings.Contains(errs, `"level":"ERROR"`) {
		t.Fatalf("shutdown log:\n%s", errs)
	}

	// Idle, it stops at once.
	s = startServe(t, map[string]string{"MNEMON_DB": db}, "--addr", "127.0.0.1:0")
	if took := s.stop(t); took > 5*time.Second {
		t.Fatalf("an idle server took %s to stop", took)
	}

	// An address file it cannot write: a clear failure, nothing left running.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, _, errs := runEnv(t, ctx, map[string]string{"MNEMON_DB": db, "MNEMON_ADDR_FILE": filepath.Join(dir, "no", "such", "dir", "addr")},
		"", "serve", "--addr", "127.0.0.1:0", "--log-level", "error")
	oneLine(t, code, errs, 1, "MNEMON_ADDR_FILE: ")
}

func TestWorkerAndJobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))
	vars := map[string]string{"MNEMON_DB": db}
	s := startServe(t, vars, "--addr", "127.0.0.1:0", "--workers", "0")

	code, body := call(t, "POST", s.url+"/v1/episodes", captureOf("s1", time.Now(), "Atlas uses pnpm."))
	var ack captureAck
	if err := json.Unmarshal(body, &ack); err != nil || code != http.StatusAccepted || ack.JobID == "" {
		t.Fatalf("capture: %d %s", code, body)
	}
	// That no worker takes the job shows in nothing but its state staying
	// pending: give a worker that should not exist a few polls (50 ms
	// each) to take it.
	time.Sleep(200 * time.Millisecond)
	if state, body := jobState(t, s.url, ack.JobID); state != jobs.StatePending {
		t.Fatalf("with --workers 0 the job ran: %s", body)
	}
	// A job whose payload no worker can run: it fails for good.
	enqueueBroken(t, db)

	out := mustRun(t, db, "jobs")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], ack.JobID+" ") || !strings.Contains(lines[1], "pending") {
		t.Fatalf("jobs:\n%s", out)
	}
	if out := mustRun(t, db, "jobs", "--state", "failed"); out != "no jobs\n" {
		t.Fatalf("jobs --state failed before any ran:\n%s", out)
	}
	code, _, errs := runCLI(t, db, "", "jobs", "--state", "broken")
	oneLine(t, code, errs, 2, `--state "broken": use pending, running, succeeded or failed`)
	code, _, errs = runCLI(t, db, "", "jobs", "--limit", "0")
	oneLine(t, code, errs, 2, "--limit 0")

	// The server's index holds the namespace now (loaded by this
	// retrieval), without the unextracted capture.
	if code, body := call(t, "POST", s.url+"/v1/memories/retrieve", `{"query": "which package manager does Atlas use?"}`); code != http.StatusOK || strings.Contains(string(body), "pnpm") {
		t.Fatalf("retrieve before extraction: %d %s", code, body)
	}

	// A worker runs what the server queued.
	w := start(t, vars, "worker", "--workers", "2", "--log-format", "text")
	deadline := time.Now().Add(20 * time.Second)
	for {
		state, body := jobState(t, s.url, ack.JobID)
		if state == jobs.StateSucceeded {
			break
		}
		if state == jobs.StateFailed || time.Now().After(deadline) {
			t.Fatalf("job under the worker: %s; worker stderr:\n%s", body, w.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The server follows what the worker extracted (within followEvery).
	for {
		code, body := call(t, "POST", s.url+"/v1/memories/retrieve", `{"query": "which package manager does Atlas use?"}`)
		if code != http.StatusOK {
			t.Fatalf("retrieve: %d %s", code, body)
		}
		if strings.Contains(string(body), `"kind":"semantic"`) && strings.Contains(string(body), "pnpm") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never served the worker's extraction: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var failed []*jobs.Job
	for time.Now().Before(deadline) {
		if err := json.Unmarshal([]byte(mustRun(t, db, "jobs", "--state", "failed", "--json")), &failed); err != nil {
			t.Fatal(err)
		}
		if len(failed) > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(failed) != 1 || failed[0].Error == "" || failed[0].State != jobs.StateFailed || failed[0].Namespace != "bad name!" {
		t.Fatalf("failed jobs: %+v", failed)
	}
	if took := w.stop(t); took > 10*time.Second {
		t.Fatalf("worker took %s to stop", took)
	}
	if !strings.Contains(w.stderr.String(), "worker running") {
		t.Fatalf("worker log:\n%s", w.stderr.String())
	}

	out = mustRun(t, db, "jobs", "--state", "failed")
	if !strings.Contains(out, "failed") || !strings.Contains(out, "error: ") {
		t.Fatalf("jobs --state failed:\n%s", out)
	}
	// Retry: only a failed job, by a well-formed id that exists.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"jobs", "retry"}, 2, "jobs retry takes one job id"},
		{[]string{"jobs", "rerun", failed[0].ID}, 2, `but 'retry JOB_ID' (got "rerun")`},
		{[]string{"jobs", "retry", "42"}, 2, `job id "42": job ids look like job_01jv4n3s8m6d0c9x2qf7a5k1ew`},
		{[]string{"jobs", "retry", "job_999"}, 1, "no job job_999; list jobs with 'mnemon jobs'"},
		{[]string{"jobs", "retry", ack.JobID}, 1, "is succeeded: only a failed job can be retried"},
		{[]string{"--namespace", "default", "jobs", "retry", failed[0].ID}, 1, "no job " + failed[0].ID},
	} {
		code, _, errs := runCLI(t, db, "", c.args...)
		oneLine(t, code, errs, c.code, c.want)
	}
	if out := mustRun(t, db, "jobs", "retry", failed[0].ID); !strings.Contains(out, failed[0].ID+" queued again") {
		t.Fatalf("jobs retry:\n%s", out)
	}
	if out := mustRun(t, db, "jobs", "--state", "pending"); !strings.HasPrefix(out, failed[0].ID+" ") {
		t.Fatalf("the retried job is not pending:\n%s", out)
	}
	var all []*jobs.Job
	if err := json.Unmarshal([]byte(mustRun(t, db, "jobs", "--json")), &all); err != nil || len(all) != 2 {
		t.Fatalf("jobs --json: %v %+v", err, all)
	}
	if all[1].ID != ack.JobID || all[1].State != jobs.StateSucceeded {
		t.Fatalf("the captured job: %+v", all[1])
	}
	if out := mustRun(t, db, "--namespace", "default", "jobs", "--state", "pending"); out != "no jobs\n" {
		t.Fatalf("jobs --namespace default --state failed:\n%s", out)
	}
	if out := mustRun(t, db, "jobs", "--state", "succeeded", "--limit", "1"); !strings.HasPrefix(out, ack.JobID+" ") {
		t.Fatalf("jobs --state succeeded:\n%s", out)
	}
	s.stop(t)

	// The worker's extraction is in the database.
	st := keyStore(t, db)
	n := 0
	if err := st.ScanVersions(t.Context(), memory.ScanParams{Namespace: memory.DefaultNamespace}, func(v *memory.Version) error {
		if v.Kind == memory.KindSemantic && strings.Contains(v.Content, "pnpm") {
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d pnpm facts after the worker ran", n)
	}

	// jobs never creates a database.
	missing := filepath.Join(dir, "none.db")
	code, _, errs = runCLI(t, missing, "", "jobs")
	oneLine(t, code, errs, 1, "no database at")
}

// enqueueBroken queues an extraction job for a namespace that cannot exist.
func enqueueBroken(t *testing.T, db string) {
	t.Helper()
	ctx := t.Context()
	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, err := jobs.Open(ctx, jobs.Config{Driver: riversqlite.New(st.WriterDB()), TxOf: sqlite.SQLTx})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.InTx(ctx, func(tx memory.Executor) error {
		_, err := q.Enqueue(ctx, tx, engine.ExtractJob{Namespace: "bad name!", EpisodeIDs: []string{"ep_missing"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func TestServeWorkerJobsHelpTeaches(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		want []string
	}{
		{"serve", []string{"Examples:", "mnemon serve --addr", "--insecure-open", "MNEMON_ADDR", "job_rescue_after", "MNEMON_JOB_TIMEOUT", "Go duration", "deprecated", "SIGTERM", "--read-only", "MNEMON_READ_ONLY", "read_only", "store_read_only"}},
		{"worker", []string{"Examples:", "mnemon worker --workers", "--workers 0"}},
		{"jobs", []string{"Examples:", "mnemon jobs --state failed", "pending", "succeeded"}},
	} {
		for _, args := range [][]string{{"help", c.name}, {c.name, "--help"}} {
			code, out, errs := runCLI(t, filepath.Join(t.TempDir(), "m.db"), "", args...)
			if code != 0 || errs != "" {
				t.Fatalf("mnemon %v: exit %d: %s", args, code, errs)
			}
			if strings.Contains(out, "(default -1)") || strings.Count(out, "(default 2)") > 1 {
				t.Fatalf("mnemon %v shows two defaults for --workers:\n%s", args, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Fatalf("mnemon %v lacks %q:\n%s", args, w, out)
				}
			}
		}
	}
}

// TestServePortTaken: a taken port says so and what to do.
func TestServePortTaken(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	vars := map[string]string{"MNEMON_DB": migratedDB(t, filepath.Join(t.TempDir(), "m.db"))}
	code, _, errs := runEnv(t, ctx, vars, "", "serve", "--addr", ln.Addr().String())
	// The log may say what started first; the failure is the last line.
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	last := lines[len(lines)-1]
	if code != 1 || !strings.HasPrefix(last, "mnemon: ") || !strings.Contains(last, "port is taken") || !strings.Contains(last, "--addr") {
		t.Fatalf("exit %d, stderr %q; want exit 1 ending in a line naming the taken port and --addr", code, errs)
	}
}

// TestServeReadOnlySQLite: 'mnemon serve --read-only' on a SQLite file
// serves what was stored, refuses a write with 409 store_read_only, and
// leaves the file as it found it.
func TestServeReadOnlySQLite(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	mustRun(t, db, "remember", "I live in Lisbon.")
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	r := startServe(t, map[string]string{"MNEMON_DB": db, "MNEMON_READ_ONLY": "true"}, "--log-level", "warn")
	post := func(path, body string) (int, string) {
		res, err := http.Post(r.url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := post("/v1/memories/retrieve", `{"query":"where do I live?"}`); code != http.StatusOK || !strings.Contains(body, "Lisbon") || !strings.Contains(body, "store.read_only") {
		t.Errorf("retrieve: %d %s; want Lisbon and the note that no trace was stored", code, body)
	}
	if code, body := post("/v1/memories", `{"text":"I like tea."}`); code != http.StatusConflict || !strings.Contains(body, `"code":"store_read_only"`) {
		t.Errorf("remember: %d %s; want 409 store_read_only", code, body)
	}
	r.stop(t)
	after, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("a read-only serve changed the database file")
	}
	if code, out, _ := runCLI(t, db, "", "facts"); code != 0 || strings.Contains(out, "tea") {
		t.Errorf("facts after the read-only serve: exit %d: %s", code, out)
	}
}
