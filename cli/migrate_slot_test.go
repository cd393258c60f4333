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

	// Back to schema 25: the index as 0024 made it, the column gone, and
	// the rows in the forms before 0027 (0028 only remakes indexes, which
	// it drops first).
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	queries := append([]string{
		`DROP INDEX memories_slot`,
		`ALTER TABLE memories DROP COLUMN slot_hash`,
		`CREATE UNIQUE INDEX memories_slot ON memories (namespace, subject, "key", agent_id, user_id, project_id, session_id)`,
	}, beforeMigration27...)
	queries = append(beforeMigration29, queries...)
	queries = append(queries, `DELETE FROM schema_migrations WHERE version >= 26`, `PRAGMA user_version = 25`)
	for _, q := range queries {
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

// beforeMigration27 takes the rows a few remembers write back to the forms
// before SQLite migration 0027 (store/sqlite/migrations/0027_said_once.sql),
// with the codes of store/sqlite/symcodes.go written out.
// beforeMigration29 stores the default namespace by its name again, as
// before 0029 (the foreign key from versions to memories is checked per
// statement here).
var beforeMigration29 = func() []string {
	qs := []string{"PRAGMA foreign_keys = OFF"}
	for _, table := range []string{"episodes", "memories", "versions", "admissions", "changes", "traces", "feedback",
		"session_summaries", "episode_stubs", "procedure_uses", "procedure_cursor", "change_horizons", "episode_archive",
		"extraction_backlog", "extraction_waiting", "api_keys"} {
		qs = append(qs, `UPDATE `+table+` SET namespace = 'default' WHERE namespace = ''`)
	}
	return qs
}()

var beforeMigration27 = []string{
	`DROP TRIGGER versions_unref_admissions`,
	`UPDATE admissions SET version_id = (SELECT v.id FROM versions v WHERE v.namespace = admissions.namespace
		AND v.memory_id = admissions.memory_id AND v.seq = admissions.version_id) WHERE typeof(version_id) = 'integer'`,
	`UPDATE admissions SET decision = CASE decision WHEN char(1) THEN 'accept' WHEN char(2) THEN 'defer' WHEN char(3) THEN 'reject'
		WHEN char(4) THEN 'quarantine' ELSE decision END,
		operation = CASE operation WHEN char(19) THEN 'ADD' WHEN char(20) THEN 'REINFORCE' WHEN char(21) THEN 'SUPERSEDE'
		WHEN char(22) THEN 'CONTEST' WHEN char(23) THEN 'NOOP' ELSE operation END`,
	`DROP INDEX admissions_reinforcements`,
	`CREATE INDEX admissions_reinforcements ON admissions (namespace, memory_id, created_at, id) WHERE operation = 'REINFORCE'`,
	`UPDATE episodes SET recorded_at = CASE recorded_at WHEN 0 THEN occurred_at WHEN -9223372036854775807 THEN 0 ELSE recorded_at END,
		speaker = CASE speaker WHEN char(1) THEN 'user' WHEN char(2) THEN 'assistant' WHEN char(3) THEN 'agent'
		WHEN char(4) THEN 'system' WHEN char(5) THEN 'tool' ELSE speaker END`,
	`UPDATE memories SET updated_at = CASE updated_at WHEN 0 THEN created_at WHEN -9223372036854775807 THEN 0 ELSE updated_at END`,
	`UPDATE versions SET evidence_spans = '~0:0:' || length(CAST(CASE
		WHEN shared & 2 THEN (SELECT CASE WHEN s.shared & 8 THEN (SELECT e.content FROM episodes e
			WHERE e.namespace = s.namespace AND e.id = substr(s.evidence_episode_ids, 1, 16)) ELSE s.content END
			FROM versions s WHERE s.namespace = versions.namespace AND s.id = versions.same_as)
		WHEN shared & 8 THEN (SELECT e.content FROM episodes e
			WHERE e.namespace = versions.namespace AND e.id = substr(versions.evidence_episode_ids, 1, 16))
		ELSE content END AS BLOB)) WHERE evidence_spans = '~'`,
}
