package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLifecycleCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
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
