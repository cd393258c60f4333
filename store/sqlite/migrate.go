package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// migrationFiles holds the numbered schema migrations, NNNN_name.sql. They
// are applied in order, each once, and never edited after release: a change
// to the schema is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the embedded migrations and checks that they are
// numbered 1, 2, 3... without gaps, so a missing file cannot silently skip a
// step.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		if !ok {
			return nil, fmt.Errorf("migration %s: name it NNNN_description.sql", name)
		}
		v, err := strconv.Atoi(num)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name it NNNN_description.sql", name)
		}
		body, err := fs.ReadFile(migrationFiles, path.Join("migrations", name))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: rest, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %04d_%s: expected version %d", m.version, m.name, i+1)
		}
	}
	if len(ms) == 0 {
		return nil, errors.New("no migrations embedded")
	}
	return ms, nil
}

// migrate checks that the file is a mnemon database (or a new one) and
// brings its schema up to date, all in one write transaction: BEGIN
// IMMEDIATE makes a second process opening the same new file wait for the
// first instead of migrating it twice, and a failed step leaves the file as
// it was. The schema version lives in PRAGMA user_version (read without
// touching any table) and each applied step is recorded in
// schema_migrations.
func migrate(ctx context.Context, db *sql.DB, path string) error {
	ms, err := loadMigrations()
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	latest := ms[len(ms)-1].version

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return openErr(path, err)
	}
	// Rolls back a read-only check or a failed step; a no-op after Commit.
	defer func() { _ = tx.Rollback() }()

	var appID, version, objects int64
	if err := tx.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return openErr(path, err)
	}
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return openErr(path, err)
	}
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&objects); err != nil {
		return openErr(path, err)
	}
	switch {
	case appID == ApplicationID:
	case appID == 0 && version == 0 && objects == 0:
		// A new, empty database: ours to initialise.
	default:
		return fmt.Errorf("sqlite: open %s: %w", path, corruptf(
			"it is a SQLite database of another application (application_id %#x, user_version %d, %d schema objects)",
			appID, version, objects))
	}
	if version > int64(latest) {
		return fmt.Errorf("sqlite: open %s: %w: the file has schema version %d, this mnemon knows up to %d; upgrade mnemon",
			path, memory.ErrSchemaTooNew, version, latest)
	}
	if version == int64(latest) {
		return nil // up to date; the deferred rollback ends the read
	}

	now := time.Now().UTC().UnixNano()
	for _, m := range ms[version:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("sqlite: open %s: migration %04d_%s: %w", path, m.version, m.name, mapErr(err))
		}
		if _, err := tx.ExecContext(ctx,
			"INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
			m.version, m.name, now); err != nil {
			return fmt.Errorf("sqlite: open %s: record migration %04d: %w", path, m.version, mapErr(err))
		}
	}
	// Pragmas take no bound parameters; both values are integers we own.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
		return fmt.Errorf("sqlite: open %s: set application id: %w", path, mapErr(err))
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", latest)); err != nil {
		return fmt.Errorf("sqlite: open %s: set schema version: %w", path, mapErr(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: open %s: commit migrations: %w", path, mapErr(err))
	}
	return nil
}

// openErr explains a failure to read the file at all. SQLite reports a
// damaged or foreign file (SQLITE_NOTADB, SQLITE_CORRUPT) at the first
// statement, which here is the connection's own pragmas.
func openErr(path string, err error) error {
	mapped := mapErr(err)
	if errors.Is(mapped, memory.ErrCorrupt) {
		return fmt.Errorf("sqlite: open %s: %w", path, corruptf("SQLite cannot read it (%v)", err))
	}
	return fmt.Errorf("sqlite: open %s: %w", path, mapped)
}
