package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
)

func TestLifecycleCommand(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	mustRun := func(args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, db, "", args...)
		if code != 0 {
			t.Fatalf("mnemon %v: exit %d: %s", args, code, errs)
		}
		return out
	}
	now := time.Now().UTC()
	mustRun("remember", "The user is in Berlin this week.", "--key", "visiting", "--value", "Berlin",
		"--valid-from", now.Add(-48*time.Hour).Format(time.RFC3339), "--valid-to", now.Add(-time.Hour).Format(time.RFC3339))
	mustRun("remember", "The user lives in Lisbon.", "--key", "lives_in", "--value", "Lisbon")

	out := mustRun("lifecycle", "--dry-run")
	if !strings.Contains(out, "would change 1 version") || !strings.Contains(out, "expired_valid_to") {
		t.Fatalf("dry run:\n%s", out)
	}
	if out := mustRun("facts"); !strings.Contains(out, "Berlin") {
		t.Fatalf("a dry run expired the fact:\n%s", out)
	}
	out = mustRun("lifecycle", "--dedupe")
	if !strings.Contains(out, "changed 1 version") || !strings.Contains(out, "active → expired (expired_valid_to)") ||
		!strings.Contains(out, "dedupe (cosine ≥ 0.92)") {
		t.Fatalf("run:\n%s", out)
	}
	if out := mustRun("facts"); strings.Contains(out, "Berlin") {
		t.Fatalf("the ended fact is still current:\n%s", out)
	}
	if out := mustRun("facts", "--history"); !strings.Contains(out, "Berlin") || !strings.Contains(out, "expired") {
		t.Fatalf("the ended fact is not history:\n%s", out)
	}
	var res lifecycleResult
	if err := json.Unmarshal([]byte(mustRun("lifecycle", "--json", "--dedupe")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Lifecycle == nil || len(res.Lifecycle.Changes) != 0 || res.Dedupe == nil || len(res.Dedupe.Changes) != 0 {
		t.Fatalf("second run: %+v %+v", res.Lifecycle, res.Dedupe)
	}

	for _, args := range [][]string{
		{"lifecycle", "now"},
		{"lifecycle", "--threshold", "1.5"},
		{"lifecycle", "--limit", "-1"},
	} {
		if code, _, errs := runCLI(t, db, "", args...); code != 2 || errs == "" {
			t.Fatalf("mnemon %v: exit %d (%s); want 2 with a message", args, code, errs)
		}
	}
	if out := mustRun("help", "lifecycle"); !strings.Contains(out, "half-life") || !strings.Contains(out, "--dedupe") {
		t.Fatalf("help:\n%s", out)
	}
}

func TestMaintenanceConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  map[string]string
		want time.Duration
		bad  bool
	}{
		{env: nil, want: time.Hour},
		{env: map[string]string{"MNEMON_MAINTAIN_EVERY": "6h"}, want: 6 * time.Hour},
		{env: map[string]string{"MNEMON_MAINTAIN_EVERY": "0"}, want: 0},
		{env: map[string]string{"MNEMON_MAINTAIN_EVERY": "5s"}, bad: true},
		{env: map[string]string{"MNEMON_MAINTAIN_EVERY": "soon"}, bad: true},
		{env: map[string]string{"MNEMON_DEDUPE_THRESHOLD": "0.95"}, want: time.Hour},
		{env: map[string]string{"MNEMON_DEDUPE_THRESHOLD": "2"}, bad: true},
		{env: map[string]string{"MNEMON_DEDUPE_THRESHOLD": "high"}, bad: true},
		{env: map[string]string{"MNEMON_HISTORY_KEEP": "8"}, want: time.Hour},
		{env: map[string]string{"MNEMON_HISTORY_KEEP": "-1"}, want: time.Hour},
		{env: map[string]string{"MNEMON_HISTORY_KEEP": "-2"}, bad: true},
		{env: map[string]string{"MNEMON_HISTORY_KEEP": "many"}, bad: true},
	} {
		cfg, err := loadServerConfig("", func(k string) string { return tc.env[k] })
		if err == nil {
			err = cfg.checkMaintenance()
		}
		if tc.bad {
			if err == nil {
				t.Fatalf("%v: no error", tc.env)
			}
			continue
		}
		if err != nil || cfg.maintainInterval() != tc.want {
			t.Fatalf("%v: every %v, %v; want %v", tc.env, cfg.maintainInterval(), err, tc.want)
		}
	}
}

// The maintenance job's consolidation settings: defaults, the variables
// and the config file's fields, checked as the consolidate flags are.
func TestConsolidationConfig(t *testing.T) {
	t.Parallel()
	def := engine.DefaultConsolidation()
	for _, tc := range []struct {
		name string
		env  map[string]string
		file string
		want func(c *engine.Consolidation)
		bad  string
	}{
		{name: "defaults", want: func(*engine.Consolidation) {}},
		{name: "variables", env: map[string]string{"MNEMON_CONSOLIDATE_AFTER": "3d", "MNEMON_PURGE_AFTER": "36h"},
			want: func(c *engine.Consolidation) { c.MinAge, c.PurgeAfter = 3*24*time.Hour, 36*time.Hour }},
		{name: "file", file: `{"consolidate_after": "14d", "purge_after": "90d", "summary_tokens": 120, "digest_tokens": 800}`,
			want: func(c *engine.Consolidation) {
				c.MinAge, c.PurgeAfter, c.SummaryTokens, c.DigestTokens = 14*24*time.Hour, 90*24*time.Hour, 120, 800
			}},
		{name: "not an age", env: map[string]string{"MNEMON_PURGE_AFTER": "soon"}, bad: `purge_after (MNEMON_PURGE_AFTER) "soon" is not an age`},
		{name: "no age", file: `{"consolidate_after": "0d"}`, bad: `consolidate_after (MNEMON_CONSOLIDATE_AFTER) "0d": use an age above zero`},
		{name: "summary too long", file: `{"summary_tokens": 9000}`, bad: "summary_tokens 9000: use a number from 20 to 4000"},
		{name: "digest too short", file: `{"digest_tokens": 5}`, bad: "digest_tokens 5: use a number from 20 to 8000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.file != "" {
				path = filepath.Join(t.TempDir(), "mnemon.json")
				if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := loadServerConfig(path, func(k string) string { return tc.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			err = cfg.checkMaintenance()
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("error %v, want one saying %q", err, tc.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := cfg.consolidation()
			if err != nil {
				t.Fatal(err)
			}
			want := def
			tc.want(&want)
			if got.MinAge != want.MinAge || got.PurgeAfter != want.PurgeAfter || got.SummaryTokens != want.SummaryTokens || got.DigestTokens != want.DigestTokens ||
				got.HalfLife != want.HalfLife || got.ForgetBelow != want.ForgetBelow || got.Summariser == nil {
				t.Fatalf("consolidation %+v, want %+v", got, want)
			}
		})
	}
}
