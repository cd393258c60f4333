package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestRecallContext(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	events := `{"kind":"user_message","speaker":"ana","content":"Ana: How was the weekend?","occurred_at":"2026-05-01T10:00:00Z"}
{"kind":"user_message","speaker":"bo","content":"Bo: We took the kayak to the lake.","occurred_at":"2026-05-01T10:00:05Z"}
{"kind":"user_message","speaker":"ana","content":"Ana: Did it leak?","occurred_at":"2026-05-01T10:00:10Z"}`
	if code, _, errs := runCLI(t, db, events, "capture", "-"); code != 0 {
		t.Fatalf("capture: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI(t, db, "", "recall", "lake", "--context", "1", "-k", "1")
	if code != 0 || !strings.Contains(out, "   before: Ana: How was the weekend?\n   after: Ana: Did it leak?\n") {
		t.Fatalf("recall --context 1: exit %d %s\n%s", code, errs, out)
	}
	if code, _, errs := runCLI(t, db, "", "recall", "lake", "--context", "9"); code != 2 || !strings.Contains(errs, "--context 9") {
		t.Fatalf("recall --context 9: exit %d: %s", code, errs)
	}
}

// TestRecallKnownAt: --known-at before anything was stored finds nothing,
// now finds the fact; a bad time is a wrong call.
func TestRecallKnownAt(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	if code, _, errs := runCLI(t, db, "", "remember", "I live in Lisbon."); code != 0 {
		t.Fatalf("remember: %s", errs)
	}
	if code, out, errs := runCLI(t, db, "", "recall", "where do I live", "--known-at", "2000-01-01"); code != 0 || strings.Contains(out, "Lisbon") {
		t.Fatalf("known in 2000: exit %d %s\n%s", code, errs, out)
	}
	if code, out, errs := runCLI(t, db, "", "recall", "where do I live"); code != 0 || !strings.Contains(out, "Lisbon") {
		t.Fatalf("now: exit %d %s\n%s", code, errs, out)
	}
	if code, _, errs := runCLI(t, db, "", "recall", "x", "--known-at", "someday"); code != 2 || !strings.Contains(errs, "known-at") {
		t.Fatalf("bad --known-at: exit %d %s", code, errs)
	}
}
