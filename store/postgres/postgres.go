// Package postgres implements memory.Store on PostgreSQL with pgx: the
// source of truth several mnemon processes can share, where SQLite keeps one
// file per machine.
//
// Connections come from a pgxpool; pgx prepares and caches each statement
// per connection, so the frequent queries are parsed once. Every Executor
// method filters on its namespace and every index leads with it. A
// multi-row create is one INSERT over unnest'ed arrays, all rows or none.
// The schema lives in migrations/, applied at Open under an advisory lock
// (migrate.go). Vectors are stored as bytea and searched by the engine's
// in-process index, as on SQLite; where the pgvector extension is
// installed, a copy is kept and searched there too (pgvector.go).
//
// A write transaction holds its namespace's write lock (an advisory lock)
// from its first write there to its end: the writers of one namespace
// queue as SQLite's one writer queues every writer, and the namespace's
// change log becomes visible in sequence order, so a follower never passes
// a change that commits later (changes.go, writeTx).
//
// Unlike SQLite, PostgreSQL aborts a transaction at its first failed
// statement. The store therefore keeps the errors a caller may expect and
// go on from (a duplicate id, a version of a missing memory) out of SQL:
// inserts say ON CONFLICT DO NOTHING and report the row they did not write,
// and a multi-row create that finds a duplicate deletes the rows it had
// just written, so a transaction that goes on after ErrConflict is intact.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemon-dev/mnemon/memory"
)

// Options configures Open. The zero value uses pgx's defaults.
type Options struct {
	// MaxConns caps the connection pool; 0 keeps pgxpool's default
	// (pool_max_conns in the URL, else max(4, number of CPUs)).
	MaxConns int32
	// ReadOnly opens the database for reading only, for a reader replica
	// or a command that only reads: the schema is checked, never created
	// or migrated (an older one is memory.ErrSchemaTooOld), and every
	// write fails with memory.ErrReadOnly (code store_read_only) before
	// it reaches the database. Every connection also sets
	// default_transaction_read_only, so PostgreSQL itself refuses a write
	// that comes another way (a job queue on the pool).
	ReadOnly bool
	// Tracer, when set, sees every statement the pool runs (pgx's
	// QueryTracer): for profiling round trips, as the backend benchmarks
	// do.
	Tracer pgx.QueryTracer
}

// Store is memory.Store on PostgreSQL. It is safe for concurrent use. The
// embedded executor runs each method on the pool: reads as they are, each
// write in a transaction of its own.
type Store struct {
	*executor
	pool     *pgxpool.Pool
	readOnly bool
	closed   atomic.Bool
}

var _ memory.Store = (*Store)(nil)

// Open connects to the database named by url (a postgres:// URL or a
// key=value DSN; search_path=... in it selects the schema) and migrates the
// schema to the latest version. A schema written by a newer mnemon is
// refused with an error wrapping memory.ErrSchemaTooNew and left untouched.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	if strings.TrimSpace(url) == "" {
		return nil, fmt.Errorf("postgres: open: %w", memory.Invalidf("empty database URL"))
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message may quote the URL, password included: keep it out.
		return nil, fmt.Errorf("postgres: open: %w", memory.Invalidf("the database URL does not parse"))
	}
	if opts.MaxConns < 0 {
		return nil, fmt.Errorf("postgres: open: %w", memory.Invalidf("max conns %d: must not be negative", opts.MaxConns))
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if opts.Tracer != nil {
		cfg.ConnConfig.Tracer = opts.Tracer
	}
	if opts.ReadOnly {
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if opts.ReadOnly {
		err = checkSchema(ctx, pool)
	} else {
		err = migrate(ctx, pool)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	vec, err := openVectors(ctx, pool, opts.ReadOnly)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{executor: &executor{q: pool, pool: pool, storeReadOnly: opts.ReadOnly, vec: vec, stats: &statsCheck{}}, pool: pool, readOnly: opts.ReadOnly}, nil
}

// ReadOnly reports whether the store was opened for reading only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// errReadOnly is what a write on a read-only store returns.
func errReadOnly(cause error) error {
	return &memory.Error{Code: memory.CodeStoreReadOnly, Kind: memory.ErrReadOnly, Cause: cause,
		Message: "this mnemon opened the database for reading only (a reader replica): nothing was written; send writes to a process that opened it read-write"}
}

// Pool returns the store's connection pool, for a job queue whose rows must
// commit in the store's own transactions.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Tx returns the pgx transaction behind an executor that InTx passed to its
// function, so a job can be inserted in that transaction.
func Tx(tx memory.Executor) (pgx.Tx, error) {
	e, ok := tx.(*executor)
	if !ok || e.tx == nil || e.readOnly {
		return nil, fmt.Errorf("postgres: %T is not an executor inside InTx", tx)
	}
	return e.tx, nil
}

// Close closes the pool. Calls after Close return an error; a second Close
// returns nil.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.pool.Close()
	return nil
}

// InTx runs fn in one read-committed transaction. It commits if fn returns
// nil and rolls back if fn returns an error or panics (the panic is
// re-raised after the rollback). fn's error is returned as is.
func (s *Store) InTx(ctx context.Context, fn func(tx memory.Executor) error) error {
	return s.executor.inTx(ctx, func(e *executor) error { return fn(e) })
}

// ReadTx runs fn in one REPEATABLE READ READ ONLY transaction: one snapshot
// of the database for all its reads, whatever commits meanwhile.
func (s *Store) ReadTx(ctx context.Context, fn func(tx memory.Executor) error) error {
	return s.executor.readTx(ctx, func(e *executor) error { return fn(e) })
}

// mapErr turns PostgreSQL errors into the domain's sentinels, keeping the
// original error in the chain for the log.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch {
	case pe.Code == "23505": // unique_violation
		return memory.Conflictf(err, "it is stored already (the same id, or the same record twice)")
	case pe.Code == "23503": // foreign_key_violation
		return fmt.Errorf("%w: the memory it belongs to does not exist: %w", memory.ErrNotFound, err)
	case pe.Code == "22021" || pe.Code == "22P05" || pe.Code == "22003" || pe.Code == "54000":
		// Text that is not valid UTF-8 (or holds NUL), a number out of
		// its column's range, a value too large: the caller's input.
		return &memory.Error{Code: memory.CodeInvalid, Kind: memory.ErrInvalid, Message: "a value cannot be stored: " + pe.Message, Cause: err}
	case pe.Code == "25006": // read_only_sql_transaction
		return errReadOnly(err)
	case pe.Code == sqlstateUpgraded: // beginWrite's check
		return errUpgraded(pe.Message, err)
	case pe.Code == "53100": // disk_full
		return fmt.Errorf("%w: %w", memory.ErrStorageFull, err)
	case strings.HasPrefix(pe.Code, "XX"): // data_corrupted, index_corrupted
		return fmt.Errorf("%w: %w", memory.ErrCorrupt, err)
	}
	return err
}
