package sqlite

import (
	"database/sql"
	"fmt"
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
