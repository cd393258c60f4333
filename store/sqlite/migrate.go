package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
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

// goSteps finish the migration of the same number where SQL alone cannot:
// they run after its SQL, in the same transaction.
var goSteps = map[int]func(ctx context.Context, e *executor) error{
	12: archivePurgedRows,
	20: migrateShortForms,
	21: migrateEpisodes,
	27: migrateSaidOnce,
}

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the embedded migrations and checks that they are
// numbered 1, 2, 3... without gaps, so a missing file cannot silently skip a
// step.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, "migrations")
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
		body, err := fs.ReadFile(fsys, path.Join("migrations", name))
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

// identity is what a file says about itself before mnemon touches it.
type identity struct {
	appID, version, objects int64
}

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readIdentity(ctx context.Context, q queryRower) (identity, error) {
	var id identity
	if err := q.QueryRowContext(ctx, "PRAGMA application_id").Scan(&id.appID); err != nil {
		return id, err
	}
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&id.version); err != nil {
		return id, err
	}
	if id.appID == ApplicationID {
		// Ours: the object count only tells a new, empty file from
		// another application's, and reading sqlite_schema makes SQLite
		// parse the whole schema on the probe's connection, which is
		// then thrown away (the two pragmas read the header only).
		return id, nil
	}
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&id.objects); err != nil {
		return id, err
	}
	return id, nil
}

// check refuses a file that is not a mnemon database (nor a new one) or
// whose schema is newer than latest.
func (id identity) check(path string, latest int) error {
	switch {
	case id.appID == ApplicationID:
	case id.appID == 0 && id.version == 0 && id.objects == 0:
		// A new, empty database: ours to initialise.
	default:
		return fmt.Errorf("sqlite: open %s: %w", path, corruptf(
			"it is a SQLite database of another application (application_id %#x, user_version %d, %d schema objects)",
			id.appID, id.version, id.objects))
	}
	if id.version > int64(latest) {
		return fmt.Errorf("sqlite: open %s: %w", path, unusable(memory.ErrSchemaTooNew,
			fmt.Sprintf("the file has schema version %d, this mnemon knows up to %d; upgrade mnemon", id.version, latest)))
	}
	return nil
}

// checkExisting refuses what check lets through as a new database when
// opts wants an existing one: an empty SQLite database; and, for a
// read-only store, an older schema, which cannot be read without being
// migrated.
func (id identity) checkExisting(path string, latest int, opts Options) error {
	if opts.Existing && id.appID != ApplicationID {
		return fmt.Errorf("sqlite: open %s: %w", path, unusable(memory.ErrCorrupt, "it is an empty SQLite database with nothing of mnemon's in it; "+
			"a command that stores (mnemon remember, capture or import) makes it a mnemon database"))
	}
	if opts.ReadOnly && id.version < int64(latest) {
		return fmt.Errorf("sqlite: open %s: %w", path, unusable(memory.ErrSchemaTooOld, fmt.Sprintf(
			"the file has schema version %d and this mnemon reads version %d; "+
				"a command that writes (mnemon remember, capture, import or serve) upgrades it", id.version, latest)))
	}
	return nil
}

// probe identifies the file on a plain connection, before the store's own
// connections switch it to WAL mode: a foreign or too-new file is refused
// without a byte of it changed.
func probe(ctx context.Context, path string, opts Options) error {
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(opts.BusyTimeout.Milliseconds(), 10)+")")
	if opts.Existing {
		q.Set("mode", "rw") // never create the file
		q.Add("_pragma", "query_only(1)")
	}
	db, err := sql.Open("sqlite", fileURI(path, q))
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	defer db.Close()
	// One read transaction, so the three values come from one snapshot even
	// while another process is initialising the file.
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return openErr(path, err)
	}
	id, err := readIdentity(ctx, tx)
	_ = tx.Rollback() // read-only: nothing to keep
	if err != nil {
		return openErr(path, err)
	}
	if err := id.check(path, ms[len(ms)-1].version); err != nil {
		return err
	}
	if err := id.checkExisting(path, ms[len(ms)-1].version, opts); err != nil {
		return err
	}
	return db.Close()
}

// migrate brings the schema up to date in one write transaction: BEGIN
// IMMEDIATE makes a second process opening the same new file wait for the
// first instead of migrating it twice, and a failed step leaves the file as
// it was. The file's identity is checked again under that lock, since probe
// ran without it. The schema version lives in PRAGMA user_version (read
// without touching any table) and each applied step is recorded in
// schema_migrations.
func migrate(ctx context.Context, db *sql.DB, path string) error {
	ms, err := loadMigrations(migrationFiles)
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

	id, err := readIdentity(ctx, tx)
	if err != nil {
		return openErr(path, err)
	}
	if err := id.check(path, latest); err != nil {
		return err
	}
	version := id.version
	if version == int64(latest) {
		return nil // up to date; the deferred rollback ends the read
	}

	now := time.Now().UTC().UnixNano()
	for _, m := range ms[version:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("sqlite: open %s: migration %04d_%s: %w", path, m.version, m.name, mapErr(err))
		}
		if step := goSteps[m.version]; step != nil {
			if err := step(ctx, &executor{tx: tx}); err != nil {
				return fmt.Errorf("sqlite: open %s: migration %04d_%s: %w", path, m.version, m.name, err)
			}
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
	if version > 0 {
		// An upgrade: the steps that rebuild tables leave the old copies'
		// pages free (reclaim.go). Giving them back is not part of the
		// upgrade: the schema is current and the file sound either way, so
		// a VACUUM that fails (another process holding the write lock past
		// the busy timeout, a full disk) leaves the file as it was and the
		// store opens; `mnemon migrate` tries again and reports.
		_, _, _ = reclaimFree(ctx, db)
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

// SchemaVersion is the schema version this build writes: the number of its
// newest migration.
func SchemaVersion() int {
	ms, err := loadMigrations(migrationFiles)
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}
