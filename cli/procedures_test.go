package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProceduresCommand(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	var lines []string
	at := time.Now().UTC().Add(-time.Hour)
	event := func(session, kind, content, meta string) {
		at = at.Add(time.Second)
		line := fmt.Sprintf(`{"kind":%q,"content":%q,"occurred_at":%q,"session_id":%q`, kind, content, at.Format(time.RFC3339Nano), session)
		if meta != "" {
			line += `,"metadata":` + meta
		}
		lines = append(lines, line+"}")
	}
	for i := range 3 {
		s := fmt.Sprintf("s%d", i)
		event(s, "tool_call", "pnpm install", "")
		event(s, "tool_call", fmt.Sprintf("pnpm run deploy --tag v%d", i), "")
		event(s, "task_result", "deployed", `{"task_type":"deploy_atlas","outcome":"success"}`)
	}
	if code, _, errs := runCLI(t, db, strings.Join(lines, "\n"), "capture"); code != 0 {
		t.Fatalf("capture: exit %d: %s", code, errs)
	}

	code, out, errs := runCLI(t, db, "", "procedures", "--promote")
	if code != 0 {
		t.Fatalf("procedures --promote: exit %d: %s", code, errs)
	}
	for _, want := range []string{"1 promoted", "deploy_atlas", "fresh, never used", "3 successful sessions", "1. Run pnpm install", "2. Run pnpm run deploy"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, out, errs = runCLI(t, db, "", "procedures", "--json")
	if code != 0 {
		t.Fatalf("procedures --json: exit %d: %s", code, errs)
	}
	var got struct {
		Procedures []struct {
			TaskType string `json:"task_type"`
			Stale    bool   `json:"stale"`
		} `json:"procedures"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Procedures) != 1 || got.Procedures[0].TaskType != "deploy_atlas" {
		t.Errorf("json: %v: %s", err, out)
	}

	if code, _, _ := runCLI(t, db, "", "procedures", "extra"); code != 2 {
		t.Errorf("procedures with an argument: exit %d, want 2", code)
	}
	code, out, errs = runCLI(t, db, "", "procedures", "--help")
	if code != 0 || !strings.Contains(out+errs, "task_result") {
		t.Errorf("help: exit %d:\n%s%s", code, out, errs)
	}
}
