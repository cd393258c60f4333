package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemon-dev/mnemon/memory"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one numbered file of migrations/.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations reads the embedded files, ordered by number. Numbers must
// start at 1 and have no gaps, so a missing file is caught here rather than
// skipped on some databases.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with its number and '_'", e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(e.Name(), ".sql"), sql: string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected number %d", m.name, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the schema version this build writes: the number of its
// newest migration.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// lockClass is the first key of the store's advisory locks ("mn"); the
// second names what is locked.
const lockClass = 0x6d6e

// migrate brings the schema (the connection's current_schema) to the latest
// version. Processes that start together serialise on a session advisory
// lock keyed by the schema, so one of them migrates and the others find the
// schema current. Each migration commits with its schema_migrations row, so
// one that fails leaves the schema at the version before it.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: open: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext(current_schema()))`, lockClass); err != nil {
		return fmt.Errorf("postgres: migrate: lock: %w", err)
	}
	defer func() {
		// Unlock even if ctx is done: the connection goes back to the pool.
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`, lockClass)
	}()

	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	    version    integer PRIMARY KEY,
	    name       text    NOT NULL,
	    applied_at timestamptz NOT NULL
	)`); err != nil {
		return fmt.Errorf("postgres: migrate: %w", mapErr(err))
	}
	var current int
	if err := conn.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("postgres: migrate: %w", mapErr(err))
	}
	latest := ms[len(ms)-1].version
	if current > latest {
		return fmt.Errorf("postgres: open: %w", &memory.Error{
			Code: memory.CodeStoreCorrupt, Kind: memory.ErrSchemaTooNew,
			Message: fmt.Sprintf("%s: the database is at schema version %d, this mnemon knows up to %d; upgrade mnemon (it was not modified)",
				memory.ErrSchemaTooNew, current, latest),
		})
	}
	for _, m := range ms[current:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.version, m.name, time.Now().UTC())
			return err
		})
		if err != nil {
			return fmt.Errorf("postgres: migrate to %s: %w", m.name, mapErr(err))
		}
	}
	return nil
}

// sqlstateUpgraded is the SQLSTATE beginWrite's check raises: the
// database's schema is newer than this build's.
const sqlstateUpgraded = "MN001"

// beginWrite is the statement that opens every write transaction: BEGIN,
// then mnemon_check_schema (migration 0003), which fails when a newer
// mnemon has migrated the database since this store opened it. A serve or
// worker left running on an old binary while a newer one upgrades the
// schema would otherwise write rows in forms the newer schema no longer
// reads. Both go in one round trip (a simple-protocol string of two
// statements); a failed check makes pgx close the connection, so the
// aborted transaction never returns to the pool.
var beginWrite = sync.OnceValue(func() string {
	return fmt.Sprintf("BEGIN; SELECT mnemon_check_schema(%d)", SchemaVersion())
})

// errUpgraded is memory.ErrSchemaTooNew for beginWrite's failed check;
// newer is the schema version the database holds.
func errUpgraded(newer string, cause error) error {
	return &memory.Error{
		Code: memory.CodeStoreCorrupt, Kind: memory.ErrSchemaTooNew, Cause: cause,
		Message: fmt.Sprintf("%s: a newer mnemon upgraded the database to schema version %s while this process ran (it writes version %d); "+
			"nothing was written: restart this process with the newer mnemon", memory.ErrSchemaTooNew, newer, SchemaVersion()),
	}
}

// checkSchema is migrate's check for a read-only open: the schema must be
// exactly this build's. Nothing is created, locked or written, so a reader
// never changes a database a writer owns; an older or missing schema is
// memory.ErrSchemaTooOld (a writer, or 'mnemon migrate', upgrades it).
func checkSchema(ctx context.Context, pool *pgxpool.Pool) error {
	latest := SchemaVersion()
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return fmt.Errorf("postgres: open: %w", mapErr(err))
	}
	current := 0
	if exists {
		if err := pool.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
			return fmt.Errorf("postgres: open: %w", mapErr(err))
		}
	}
	switch {
	case current > latest:
		return fmt.Errorf("postgres: open: %w", &memory.Error{
			Code: memory.CodeStoreCorrupt, Kind: memory.ErrSchemaTooNew,
			Message: fmt.Sprintf("%s: the database is at schema version %d, this mnemon knows up to %d; upgrade mnemon (it was not modified)",
				memory.ErrSchemaTooNew, current, latest),
		})
	case current < latest:
		return fmt.Errorf("postgres: open: %w", &memory.Error{
			Code: memory.CodeStoreTooOld, Kind: memory.ErrSchemaTooOld,
			Message: fmt.Sprintf("the database is at schema version %d and this mnemon reads version %d; opened for reading only, it is not migrated: "+
				"run 'mnemon migrate' (or start a read-write serve or worker) once", current, latest),
		})
	}
	return nil
}

// errNoRows reports pgx's "no rows" for QueryRow.
func errNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
