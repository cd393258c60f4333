package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/postgres"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// The database setting (--db, MNEMON_DB, a server config's "db") names
// either a SQLite file or, as a postgres:// or postgresql:// URL, a
// PostgreSQL database. Nothing else selects PostgreSQL: a path is a path,
// even one that contains "postgres".

// isPostgresURL reports whether the database setting db selects PostgreSQL.
func isPostgresURL(db string) bool {
	l := strings.ToLower(strings.TrimSpace(db))
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// passwordParam matches a password given as a query parameter of a URL.
var passwordParam = regexp.MustCompile(`(?i)([?&]password=)[^&]*`)

// redactDB is the database setting as mnemon prints it: a URL without its
// password (in the user part or as ?password=), a path as it is.
func redactDB(db string) string {
	if !isPostgresURL(db) {
		return db
	}
	db = strings.TrimSpace(db)
	u, err := url.Parse(db)
	if err != nil {
		// A URL that does not parse is not printed: the password may be
		// anywhere in it.
		scheme, _, _ := strings.Cut(db, "://")
		return scheme + "://(a URL that does not parse)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return passwordParam.ReplaceAllString(u.String(), "${1}xxxxx")
}

// openedStore is the store the database setting names, and what a job
// queue on that database needs.
type openedStore struct {
	store memory.Store
	// sqlite is the store when it is SQLite, for what only a file has
	// (integrity check, WAL); nil on PostgreSQL.
	sqlite *sqlite.Store
	// pg is the store when it is PostgreSQL; nil on SQLite.
	pg *postgres.Store
}

// openDB opens the store db names: PostgreSQL for a URL (migrating its
// schema unless opts.ReadOnly, which opens it as a reader replica does:
// nothing is created, migrated or written), else the SQLite file with opts.
// It is the only place the CLI's commands open a store.
func openDB(ctx context.Context, db string, opts sqlite.Options) (*openedStore, error) {
	if isPostgresURL(db) {
		st, err := postgres.Open(ctx, strings.TrimSpace(db), postgres.Options{ReadOnly: opts.ReadOnly})
		if err != nil {
			return nil, err
		}
		return &openedStore{store: st, pg: st}, nil
	}
	st, err := sqlite.Open(ctx, db, opts)
	if err != nil {
		return nil, err
	}
	return &openedStore{store: st, sqlite: st}, nil
}

// withDriver sets cfg's River driver to the store's database: River's pgx
// driver on the PostgreSQL pool, or its SQLite driver on the file's writer,
// with the function that finds the driver's transaction in the store's, so
// jobs commit with the writes that enqueue them.
func (o *openedStore) withDriver(cfg jobs.Config) jobs.Config {
	if o.pg != nil {
		cfg.PgxDriver, cfg.PgxTxOf = riverpgxv5.New(o.pg.Pool()), postgres.Tx
	} else {
		cfg.Driver, cfg.TxOf = riversqlite.New(o.sqlite.WriterDB()), sqlite.SQLTx
	}
	return cfg
}

// schemaVersion reads the schema version the database is at.
func (o *openedStore) schemaVersion(ctx context.Context) (int, error) {
	var v int
	var err error
	if o.pg != nil {
		err = o.pg.Pool().QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	} else {
		err = o.sqlite.WriterDB().QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	}
	if err != nil {
		return 0, fmt.Errorf("reading the schema version: %w", err)
	}
	return v, nil
}

// pgOpenFailed says why the PostgreSQL database db did not open, naming it
// without its password.
func pgOpenFailed(db string, err error) error {
	where := redactDB(db)
	var pe *memory.Error
	cause := rootCause(err).Error()
	if errors.As(err, &pe) {
		cause = pe.Message
	}
	// pgx joins the error of each address it tried (one per line): the
	// first says why.
	cause, _, _ = strings.Cut(cause, "\n")
	// pgx names the user and database it failed to reach, never the
	// password; a URL that does not parse is not quoted (postgres.Open).
	switch {
	case errors.Is(err, memory.ErrSchemaTooNew), errors.Is(err, memory.ErrSchemaTooOld), errors.Is(err, memory.ErrCorrupt):
		return &failure{msg: fmt.Sprintf("database %s: %s", where, cause), code: 1, err: err}
	case errors.Is(err, memory.ErrInvalid):
		return usagef("database %s: %s", where, cause)
	}
	return &failure{msg: fmt.Sprintf("cannot open database %s: %s", where, cause), code: 1, err: err}
}
