package sqlite

import (
	"database/sql"
	"testing"
)

// openAtSchema creates a file at path holding the schema as the first n
// migrations left it, as an older mnemon wrote it, and opens it with the
// plain driver: a migration test writes the rows of that time into it,
// closes it and opens it with Open, which migrates the rest. The caller
// closes it.
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
	return db
}
