package cli

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// A store as schema 25 kept it (memories_slot holding the whole slot, no
// slot_hash column) exports the same after migration 0026, and the slots
// are still found: remembering one of its facts again reinforces it.
func TestMigrateSlotHashKeepsExport(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "m.db")
	for _, text := range []string{
		"The nightly export job writes to the cold bucket.",
		"I prefer tabs over spaces.",
		"My favorite editor is Helix.",
		"Actually my favorite editor is Zed now.",
		"Rotate the staging keys every month.",
	} {
		mustRun(t, db, "remember", text)
	}
	before := mustRun(t, db, "export")

	// Back to schema 25: the index as 0024 made it, the column gone.
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DROP INDEX memories_slot`,
		`ALTER TABLE memories DROP COLUMN slot_hash`,
		`CREATE UNIQUE INDEX memories_slot ON memories (namespace, subject, "key", agent_id, user_id, project_id, session_id)`,
		`DELETE FROM schema_migrations WHERE version = 26`,
		`PRAGMA user_version = 25`,
	} {
		if _, err := raw.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	mustRun(t, db, "migrate")
	if after := mustRun(t, db, "export"); stripExportHeader(after) != stripExportHeader(before) {
		t.Errorf("export after migration 0026 differs:\n%s\nbefore:\n%s", after, before)
	}
	// The fact's slot is found by its hash: a changed preference updates
	// the one memory of prefers:indentation, not a second memory of it.
	mustRun(t, db, "remember", "Actually I prefer spaces over tabs now.")
	if n := strings.Count(mustRun(t, db, "export"), `"key":"prefers:indentation"`); n != 3 {
		// the memory and its two versions
		t.Errorf("prefers:indentation named %d times in the export after changing it, want 3 (one memory, two versions)", n)
	}
}
