package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{in: "30s", want: 30 * time.Second},
		{in: " 5m ", want: 5 * time.Minute},
		{in: "720h", want: 720 * time.Hour},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "0", want: 0},
		{in: "7d", want: 7 * 24 * time.Hour},
		{in: "1.5d", want: 36 * time.Hour},
		{in: "30", bad: true}, // a bare number has no unit: seconds or days?
		{in: "soon", bad: true},
		{in: "d", bad: true},
		{in: "infd", bad: true},
		{in: "1e3d", bad: true},
		{in: "-7d", want: -7 * 24 * time.Hour}, // parsed; the setting refuses it by name
		{in: "1000000d", bad: true},            // beyond time.Duration
	} {
		got, err := parseDuration(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("parseDuration(%q) = %v, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// TestServeConfigDurations: every duration of the server config read in
// both spellings (a Go duration string, and the deprecated number of
// seconds), the environment over the file, and the errors naming the
// field.
func TestServeConfigDurations(t *testing.T) {
	t.Parallel()
	defaults := serverTimeouts{shutdown: 30 * time.Second, request: 30 * time.Second, read: 2 * time.Minute,
		write: 2 * time.Minute, idle: 2 * time.Minute, job: time.Minute, indexLag: 30 * time.Second}
	with := func(f func(*serverTimeouts)) serverTimeouts {
		t := defaults
		f(&t)
		return t
	}
	cases := []struct {
		name       string
		file       string // "" for no config file
		env        map[string]string
		want       serverTimeouts
		deprecated []string // fields warned about, in order
		bad        string   // the error, when the config is refused
	}{
		{name: "defaults", want: defaults},
		{name: "zero is the default", file: `{"request_timeout": "0s", "job_timeout_seconds": 0}`, want: defaults,
			deprecated: []string{"job_timeout_seconds"}},
		{name: "durations", file: `{"shutdown_timeout": "15s", "request_timeout": "10s", "read_timeout": "1m",
			"write_timeout": "90s", "idle_timeout": "5m", "job_timeout": "5m", "job_rescue_after": "10m"}`,
			want: serverTimeouts{15 * time.Second, 10 * time.Second, time.Minute, 90 * time.Second, 5 * time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Second}},
		{name: "deprecated seconds", file: `{"shutdown_timeout_seconds": 15, "request_timeout_seconds": 0.5, "read_timeout_seconds": 60,
			"write_timeout_seconds": 90, "idle_timeout_seconds": 300, "job_timeout_seconds": 300, "job_rescue_after_seconds": 600}`,
			want: serverTimeouts{15 * time.Second, 500 * time.Millisecond, time.Minute, 90 * time.Second, 5 * time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Second},
			deprecated: []string{"shutdown_timeout_seconds", "request_timeout_seconds", "read_timeout_seconds", "write_timeout_seconds",
				"idle_timeout_seconds", "job_timeout_seconds", "job_rescue_after_seconds"}},
		{name: "both spellings mixed across settings", file: `{"job_timeout": "2m", "job_rescue_after_seconds": 300}`,
			want: with(func(t *serverTimeouts) { t.job, t.rescue = 2*time.Minute, 5*time.Minute }), deprecated: []string{"job_rescue_after_seconds"}},
		{name: "environment", env: map[string]string{"MNEMON_REQUEST_TIMEOUT": "45s", "MNEMON_JOB_RESCUE_AFTER": "3m"},
			want: with(func(t *serverTimeouts) { t.request, t.rescue = 45*time.Second, 3*time.Minute })},
		{name: "environment over the file's deprecated field", file: `{"request_timeout_seconds": 10}`, env: map[string]string{"MNEMON_REQUEST_TIMEOUT": "20s"},
			want: with(func(t *serverTimeouts) { t.request = 20 * time.Second })},
		{name: "environment over the file's field", file: `{"idle_timeout": "10s"}`, env: map[string]string{"MNEMON_IDLE_TIMEOUT": "20s"},
			want: with(func(t *serverTimeouts) { t.idle = 20 * time.Second })},

		{name: "both spellings of one setting", file: `{"request_timeout": "10s", "request_timeout_seconds": 10}`,
			bad: "request_timeout and request_timeout_seconds are both set; keep request_timeout"},
		{name: "not a duration", file: `{"read_timeout": "ten seconds"}`, bad: `read_timeout "ten seconds" is not a duration: use a duration like 30s, 5m or 720h`},
		{name: "a bare number", file: `{"write_timeout": "30"}`, bad: `write_timeout "30" is not a duration`},
		{name: "a number where a duration string goes", file: `{"job_timeout": 30}`, bad: "job_timeout must be a string holding a duration, not number"},
		{name: "a number for maintain_every", file: `{"maintain_every": 3600}`, bad: "maintain_every must be a string holding a duration"},
		{name: "negative duration", file: `{"idle_timeout": "-5s"}`, bad: `idle_timeout "-5s": must not be negative`},
		{name: "seconds beyond any duration", file: `{"idle_timeout_seconds": 1e300}`, bad: "idle_timeout_seconds 1e+300: too long"},
		{name: "negative seconds", file: `{"idle_timeout_seconds": -5}`, bad: `idle_timeout_seconds -5: must not be negative`},
		{name: "bad variable", env: map[string]string{"MNEMON_SHUTDOWN_TIMEOUT": "15"}, bad: `MNEMON_SHUTDOWN_TIMEOUT="15": not a duration`},
		{name: "rescue within the job timeout", file: `{"job_timeout": "2m", "job_rescue_after": "90s"}`,
			bad: "job_rescue_after 1m30s must exceed the job timeout (2m)"},
		{name: "rescue within the default job timeout, in seconds", file: `{"job_rescue_after_seconds": 30}`,
			bad: "job_rescue_after_seconds 30s must exceed the job timeout (1m)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := ""
			if c.file != "" {
				path = filepath.Join(t.TempDir(), "mnemon.json")
				if err := os.WriteFile(path, []byte(c.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			a := &app{env: Env{Getenv: func(k string) string { return c.env[k] }}}
			cfg, err := a.serverConfig(serveOptions{config: path})
			var got serverTimeouts
			if err == nil {
				got, err = cfg.timeouts()
			}
			if c.bad != "" {
				if err == nil || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("error %v, want one saying %q", err, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("timeouts\n got %+v\nwant %+v", got, c.want)
			}
			warnings := cfg.deprecations()
			if len(warnings) != len(c.deprecated) {
				t.Fatalf("deprecations %q, want one for each of %q", warnings, c.deprecated)
			}
			for i, field := range c.deprecated {
				replacement := strings.TrimSuffix(field, "_seconds")
				if !strings.Contains(warnings[i], field+" is deprecated") || !strings.Contains(warnings[i], `"`+replacement+`"`) {
					t.Fatalf("warning %q does not name %s and the field replacing it, %s", warnings[i], field, replacement)
				}
			}
		})
	}
}

func TestSyncDefaultEverywhere(t *testing.T) {
	t.Parallel()
	// One default for every command: the one-shot commands and mcp read
	// it through syncLevel(""), serve and worker through their config.
	if got, err := syncLevel(""); err != nil || got != "NORMAL" {
		t.Fatalf(`syncLevel("") = %q, %v; want NORMAL`, got, err)
	}
	for _, so := range []serveOptions{{}, {sync: "full"}} {
		a := &app{env: Env{Getenv: func(string) string { return "" }}}
		if _, err := a.serverConfig(so); err != nil {
			t.Fatal(err)
		}
		want, _ := syncLevel(so.sync)
		if a.synchronous != want {
			t.Fatalf("serve with --sync %q: synchronous %q, want %q", so.sync, a.synchronous, want)
		}
	}

	// mcp and a one-shot command, end to end: the level reaches the store
	// (mcp logs it), and MNEMON_SYNC is read by both.
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"mcp", "--log-level", "info"}, "sync=normal"},
		{map[string]string{"MNEMON_SYNC": "full"}, []string{"mcp", "--log-level", "info"}, "sync=full"},
		{map[string]string{"MNEMON_SYNC": "full"}, []string{"mcp", "--log-level", "info", "--sync", "normal"}, "sync=normal"},
	} {
		vars := map[string]string{"MNEMON_DB": migratedDB(t, filepath.Join(t.TempDir(), "m.db"))}
		for k, v := range c.env {
			vars[k] = v
		}
		code, _, errs := runEnv(t, t.Context(), vars, "", c.args...)
		if code != 0 || !strings.Contains(errs, c.want) {
			t.Fatalf("mnemon %v with %v: exit %d, stderr %q; want %q", c.args, c.env, code, errs, c.want)
		}
	}
}
