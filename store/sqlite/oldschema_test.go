package sqlite

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// openAtSchema creates a file at path holding the schema as the first n
// migrations left it, as an older mnemon wrote it (application id and
// schema version included), and opens it with the plain driver: a
// migration test writes the rows of that time into it, then migrateOld
// opens it with Open, which migrates the rest.
func openAtSchema(t *testing.T, path string, n int) *sql.DB {
	t.Helper()
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:n] {
		if _, err := db.ExecContext(t.Context(), m.sql); err != nil {
			t.Fatalf("migration %d: %v", m.version, err)
		}
		if _, err := db.ExecContext(t.Context(), "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)", m.version, m.name); err != nil {
			t.Fatal(err)
		}
	}
	execAll(t, db, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID), fmt.Sprintf("PRAGMA user_version = %d", n))
	return db
}

// execAll runs each statement on db, failing the test at the first error.
func execAll(t *testing.T, db *sql.DB, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// migrateOld closes the file openAtSchema made and opens it with Open,
// migrating it; the store is closed when the test ends.
func migrateOld(t *testing.T, old *sql.DB, path string) *Store {
	t.Helper()
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// memoryUpdatedAt reads a memory's updated_at in SQL whether the row is as
// migration 0027 stores it (0 for its created_at) or older: the fixtures
// of the older migrations' tests have no updated_at of 0.
const memoryUpdatedAt = `CASE updated_at WHEN 0 THEN created_at WHEN -9223372036854775807 THEN 0 ELSE updated_at END`

// beforeSaidOnce turns a row as this code stores it back into the forms
// before migration 0027 (see 0027_said_once.sql), so a test can copy rows
// this code wrote into a file at an older schema: the times said once, an
// episode's coded speaker, an admission's coded decision and operation and
// its version by seq (db is the store the row was read from). (A span over all of the
// content, "~", is left as it is: no migration before 0027 reads spans,
// and 0027 leaves "~" alone.)
func beforeSaidOnce(t *testing.T, db *sql.DB, table string, names []string, row []any) {
	t.Helper()
	col := func(name string) int {
		i := slices.Index(names, name)
		if i < 0 {
			t.Fatalf("%s has no column %s", table, name)
		}
		return i
	}
	switch table {
	case "episodes":
		r := col("recorded_at")
		row[r] = timeFromStored(row[r].(int64), row[col("occurred_at")].(int64))
		row[col("speaker")] = plainCode(t, speakers.decode, row[col("speaker")])
	case "memories":
		u := col("updated_at")
		row[u] = timeFromStored(row[u].(int64), row[col("created_at")].(int64))
	case "admissions":
		if seq, ok := row[col("version_id")].(int64); ok {
			if err := db.QueryRow(`SELECT id FROM versions WHERE namespace = ? AND memory_id = ? AND seq = ?`,
				row[col("namespace")], row[col("memory_id")], seq).Scan(&row[col("version_id")]); err != nil {
				t.Fatal(err)
			}
		}
		row[col("decision")] = plainCode(t, decisions.decode, row[col("decision")])
		row[col("operation")] = plainCode(t, decodeSym, row[col("operation")])
	}
}

// plainCode is a coded TEXT column's value as its name.
func plainCode(t *testing.T, decode func(string) (string, error), v any) string {
	t.Helper()
	var stored string
	switch v := v.(type) {
	case string:
		stored = v
	case []byte:
		stored = string(v)
	default:
		t.Fatalf("a coded column holds %T", v)
	}
	plain, err := decode(stored)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

// withoutLaterColumns drops from a row of today's schema the columns a
// later migration added (memories.slot_hash, 0026, which computes it), for
// copying the row into a file at an older schema.
func withoutLaterColumns(names []string, row []any) ([]string, []any) {
	var n []string
	var r []any
	for i, name := range names {
		if name != "slot_hash" {
			n, r = append(n, name), append(r, row[i])
		}
	}
	return n, r
}

// undoSaidOnce takes a store this code wrote back to the forms before
// migration 0027, in SQL, for a test that runs the migrations from an
// older schema again on it.
func undoSaidOnce(t *testing.T, db *sql.DB) {
	t.Helper()
	plain := func(col string, names []string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "CASE WHEN %s = '' THEN '' WHEN unicode(%s) = %d THEN substr(%s, 2)", col, col, codeEscape, col)
		for i, n := range names {
			if n != "" {
				fmt.Fprintf(&b, " WHEN %s = char(%d) THEN %s", col, i, sqlQuote(n))
			}
		}
		fmt.Fprintf(&b, " ELSE %s END", col)
		return b.String()
	}
	execAll(t, db,
		`DROP TRIGGER versions_unref_admissions`,
		`UPDATE admissions SET version_id = (SELECT v.id FROM versions v WHERE v.namespace = admissions.namespace
			AND v.memory_id = admissions.memory_id AND v.seq = admissions.version_id) WHERE typeof(version_id) = 'integer'`,
		`UPDATE admissions SET decision = `+plain("decision", decisionNames[:])+`, operation = `+plain("operation", symNames[:]),
		`DROP INDEX admissions_reinforcements`,
		`CREATE INDEX admissions_reinforcements ON admissions (namespace, memory_id, created_at, id) WHERE operation = 'REINFORCE'`,
		`UPDATE episodes SET recorded_at = CASE recorded_at WHEN 0 THEN occurred_at WHEN -9223372036854775807 THEN 0 ELSE recorded_at END,
			speaker = `+plain("speaker", speakerNames[:]),
		`UPDATE memories SET updated_at = `+memoryUpdatedAt,
		`UPDATE versions SET evidence_spans = '~0:0:' || length(CAST(`+versionContentExpr+` AS BLOB)) WHERE evidence_spans = '~'`,
	)
}
