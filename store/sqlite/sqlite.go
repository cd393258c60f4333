// Package sqlite implements memory.Store on one SQLite file, with the pure-Go
// driver modernc.org/sqlite (no cgo, so mnemon stays one static binary).
//
// The file runs in WAL mode so readers never block the writer. Writes go
// through one dedicated connection, because SQLite allows one writer at a
// time anyway and a single writer turns lock contention into a queue instead
// of SQLITE_BUSY retries; reads use a pool of query-only connections. The
// writer opens the file through a VFS of the store's own (walvfs.go) that
// writes a commit's WAL frames with one write call. Every
// connection gets its pragmas from the DSN, so a connection the pool opens
// later is configured exactly like the first. Walking a whole namespace
// (ScanVersions and the other Scan methods) reads on connections of its
// own, outside database/sql, because the engine's start-up waits on it (see
// fastscan.go).
//
// The schema lives in migrations/, applied at Open and recorded in
// PRAGMA user_version and the schema_migrations table.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/mnemon-dev/mnemon/internal/diskfree"
	"github.com/mnemon-dev/mnemon/memory"
)

// ApplicationID is written to the file header (PRAGMA application_id) so a
// mnemon database can be told from any other SQLite file. It spells "mnem".
const ApplicationID = 0x6d6e656d

// Options configures Open. The zero value is the durable default.
type Options struct {
	// Synchronous is SQLite's synchronous level: "FULL" (the default) syncs
	// the WAL on every commit, so an acknowledged write survives a power
	// cut; "NORMAL" syncs only at checkpoints, which is faster and still
	// never corrupts the file, but may lose the last commits on power loss.
	Synchronous string
	// BusyTimeout is how long a statement waits for a lock held by another
	// process using the same file (a CLI next to a server). Default 5s.
	BusyTimeout time.Duration
	// Readers caps the pool of read connections. Default 4.
	Readers int
	// WALLimit is the write-ahead log size, in bytes, past which the
	// background checkpointer briefly holds writers back to copy the whole
	// log and truncate it. Under back-to-back writes a checkpoint that
	// never blocks the writer never catches up with it, so without this
	// the log grows without bound. Each truncation stalls the writes in
	// flight (70 to 90 ms seen at 100k memories under load), so the
	// default is large: 256 MiB.
	WALLimit int64
	// Existing opens only a database that exists: a missing file is not
	// created (os.ErrNotExist), and an empty file or an empty SQLite
	// database is not made a new one (memory.ErrCorrupt). An older schema
	// is still migrated.
	Existing bool
	// ReadOnly opens an Existing database for reading only, for the
	// commands that only read: an older schema is not migrated
	// (memory.ErrSchemaTooOld) and every statement that would write
	// fails. The file is left as it was found.
	ReadOnly bool
	// CompactOnClose is the largest file, in bytes, that Close compacts
	// (reclaim.go: a VACUUM when at least compactMinShare of the file is
	// space a rewrite gives back); 0 never compacts. The long-running
	// commands (serve, mcp) set it; a one-shot command leaves it 0, so it
	// never pays for the measurement on exit.
	CompactOnClose int64
}

func (o Options) withDefaults() (Options, error) {
	switch strings.ToUpper(strings.TrimSpace(o.Synchronous)) {
	case "", "FULL":
		o.Synchronous = "FULL"
	case "NORMAL":
		o.Synchronous = "NORMAL"
	default:
		return o, memory.Invalidf("synchronous %q: use FULL or NORMAL", o.Synchronous)
	}
	if o.WALLimit < 0 {
		return o, memory.Invalidf("WAL limit %d: must not be negative", o.WALLimit)
	}
	if o.WALLimit == 0 {
		o.WALLimit = 256 << 20
	}
	if o.BusyTimeout < 0 {
		return o, memory.Invalidf("busy timeout %v: must not be negative", o.BusyTimeout)
	}
	if o.BusyTimeout == 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.Readers < 0 {
		return o, memory.Invalidf("readers %d: must not be negative", o.Readers)
	}
	if o.Readers == 0 {
		o.Readers = 4
	}
	if o.CompactOnClose < 0 {
		return o, memory.Invalidf("compact on close %d: must not be negative", o.CompactOnClose)
	}
	return o, nil
}

// Store is memory.Store on a SQLite file. It is safe for concurrent use.
type Store struct {
	path   string
	opts   Options
	closed atomic.Bool // for the fast scans, which bypass the pools
	fast   *fastPool   // the fast scans' idle connections (fastscan.go)
	writer *sql.DB     // exactly one connection
	reader *sql.DB     // query-only pool
	// Prepared statements for the frequent queries, per pool, each
	// prepared once it is first used (stmts.go).
	wstmts *stmtCache
	rstmts *stmtCache
	read   *executor // runs reads on the reader pool
	// raw runs write transactions' statements on the writer's handle
	// (rawwrite.go); nil on a read-only store, or once the handle
	// turned out unreachable (database/sql then runs them).
	raw   *rawWriter
	noRaw atomic.Bool
	ckpt  *checkpointer
	// jsonBufs recycles the buffers large JSON columns (trace items) are
	// encoded into.
	jsonBufs sync.Pool
	// full: the last write transaction failed for lack of space (see
	// StorageFull).
	full atomic.Bool
	// wrote: a write transaction committed since Open (Close compacts
	// only a file this process changed).
	wrote atomic.Bool
}

var _ memory.Store = (*Store)(nil)

// Open opens the mnemon database at path, creating the file (and its parent
// directory) if missing and migrating the schema to the latest version.
//
// A file that is not a SQLite database, or a SQLite database of another
// application, is refused with an error wrapping memory.ErrCorrupt; a
// database written by a newer mnemon with memory.ErrSchemaTooNew. Neither is
// ever modified.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("sqlite: open: %w", memory.Invalidf("empty database path"))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if opts.ReadOnly {
		opts.Existing = true
	}
	if err := prepareFile(abs, opts.Existing); err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}

	s := &Store{path: abs, opts: opts}
	ok := false
	defer func() {
		if !ok {
			_ = s.Close() // the error that made Open fail is the one to report
		}
	}()

	s.writer, err = sql.Open("sqlite", dsn(abs, opts, false))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	// One connection that lives as long as the store: SQLite serialises
	// writers anyway, and keeping the connection keeps its prepared
	// statements.
	s.writer.SetMaxOpenConns(1)
	s.writer.SetMaxIdleConns(1)
	s.writer.SetConnMaxLifetime(0)
	s.writer.SetConnMaxIdleTime(0)

	// The probe runs before the writer's first connection, which switches
	// the file to WAL mode.
	err = retryBusy(ctx, opts.BusyTimeout, func() error {
		if err := probe(ctx, abs, opts); err != nil {
			return err
		}
		if opts.ReadOnly {
			return nil // probe found the schema current
		}
		return migrate(ctx, s.writer, abs)
	})
	if err != nil {
		return nil, err
	}

	s.reader, err = sql.Open("sqlite", dsn(abs, opts, true))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	s.reader.SetMaxOpenConns(opts.Readers)
	s.reader.SetMaxIdleConns(opts.Readers)
	s.reader.SetConnMaxLifetime(0)
	s.reader.SetConnMaxIdleTime(0)

	s.wstmts, s.rstmts = newStmtCache(s.writer), newStmtCache(s.reader)
	s.read = &executor{db: s.reader, stmts: s.rstmts, store: s}
	s.fast = &fastPool{path: abs, opts: opts, max: opts.Readers}
	if !opts.ReadOnly {
		if s.ckpt, err = startCheckpointer(abs, opts); err != nil {
			return nil, err
		}
		if s.raw, err = newRawWriter(); err != nil {
			return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
		}
	}
	ok = true
	return s, nil
}

// retryBusy runs fn again while it fails with SQLITE_BUSY, up to limit.
// Processes opening one new file at once contend for it while it is still
// in rollback-journal mode, where SQLite answers SQLITE_BUSY at once instead
// of waiting when waiting could deadlock; after a short pause one of them
// wins and the others find the schema in place.
func retryBusy(ctx context.Context, limit time.Duration, fn func() error) error {
	deadline := time.Now().Add(limit)
	wait := 5 * time.Millisecond
	for {
		err := fn()
		var se interface{ Code() int }
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// dsn builds the connection string: a file: URI, so names with '?', '#' or
// '%' reach SQLite intact, with the pragmas in it so every connection the
// pool ever opens gets them.
//
// A ReadOnly store's connections are opened read-write (mode=rw: never
// created) but query-only, rather than with mode=ro: a mode=ro connection
// cannot remove the -wal and -shm files on close, so every read would
// leave them behind. They set no journal mode, which would write to the
// file.
func dsn(path string, opts Options, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(opts.BusyTimeout.Milliseconds(), 10)+")")
	if opts.ReadOnly {
		q.Set("mode", "rw")
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "query_only(1)")
		return fileURI(path, q)
	}
	if opts.Existing {
		q.Set("mode", "rw") // never create the file
	}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous("+opts.Synchronous+")")
	if readOnly {
		// A reader that tried to write would be a bug; make it fail loudly.
		q.Add("_pragma", "query_only(1)")
	} else {
		// Take the write lock at BEGIN, not at the first write: a deferred
		// transaction that reads first and then writes can fail with
		// SQLITE_BUSY when another process wrote in between, without
		// waiting for busy_timeout.
		q.Set("_txlock", "immediate")
		// Checkpoints run in the background (checkpoint.go), never in a
		// commit.
		q.Add("_pragma", "wal_autocheckpoint(0)")
		// A commit's WAL frames in one write call (walvfs.go).
		if registerWALVFS() == nil {
			q.Set("vfs", walVFSName)
		}
	}
	return fileURI(path, q)
}

// fileURI makes a file: URI for SQLite. The path is percent-encoded, and a
// Windows drive path gets the leading slash URIs require (file:///C:/...).
func fileURI(path string, q url.Values) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// prepareFile creates the parent directory, creates a missing database file
// readable by its owner only (memories are private), and refuses an existing
// file that does not even start like a SQLite database. SQLite alone would
// report some damaged headers only at the first query, or take a file too
// short to hold a header for an empty database and write over it. With
// existing it creates nothing, and an empty file is no database.
func prepareFile(path string, existing bool) error {
	if existing {
		if _, err := os.Stat(path); err != nil {
			return err
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create directory: %w", err)
	}
	if !existing {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f.Close()
		}
		if !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("create file: %w", err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return memory.Invalidf("%s is a directory, not a database file", path)
	}
	if st.Size() == 0 {
		if existing {
			return unusable(memory.ErrCorrupt, "the file is empty (0 bytes), so nothing was ever stored in it; "+
				"a command that stores (mnemon remember, capture or import) makes it a new database")
		}
		return nil // an empty file is a new database
	}
	header := make([]byte, 100) // the SQLite file header
	n, err := io.ReadFull(f, header)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if n < len(header) {
		return corruptf("the file is %d bytes, shorter than a SQLite header", n)
	}
	if string(header[:16]) != "SQLite format 3\x00" {
		return corruptf("the file is not a SQLite database")
	}
	return nil
}

// corruptf returns an error wrapping memory.ErrCorrupt that tells the user
// what is wrong and what to do: mnemon never repairs or overwrites such a
// file on its own.
func corruptf(format string, args ...any) error {
	return unusable(memory.ErrCorrupt, fmt.Sprintf(format, args...)+"; mnemon will not touch it: move it aside or choose another database path")
}

// unusable is a database file the store cannot use, kind one of
// memory.ErrCorrupt, ErrSchemaTooNew or ErrSchemaTooOld, in words for the
// person who chose the file (the HTTP API tells its clients less).
func unusable(kind error, msg string) error {
	code := memory.CodeStoreCorrupt
	if errors.Is(kind, memory.ErrSchemaTooOld) {
		code = memory.CodeStoreTooOld
	}
	return &memory.Error{Code: code, Kind: kind, Message: kind.Error() + ": " + msg}
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// ReadOnly reports whether the store was opened for reading only
// (Options.ReadOnly): every write fails with memory.ErrReadOnly.
func (s *Store) ReadOnly() bool { return s.opts.ReadOnly }

// errReadOnly is what a write on a read-only store returns.
func errReadOnly(cause error) error {
	return &memory.Error{Code: memory.CodeStoreReadOnly, Kind: memory.ErrReadOnly, Cause: cause,
		Message: "this mnemon opened the database for reading only: nothing was written; send writes to a process that opened it read-write"}
}

// IntegrityCheck runs SQLite's full integrity check and foreign key check
// and returns an error wrapping memory.ErrCorrupt if either finds damage. It
// reads the whole file, so it belongs in a doctor command, not in Open.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	rows, err := s.reader.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("sqlite: integrity check: %w", mapErr(err))
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return fmt.Errorf("sqlite: integrity check: %w", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return fmt.Errorf("sqlite: integrity check: %w", mapErr(err))
	}
	rows.Close()

	fk, err := s.reader.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return fmt.Errorf("sqlite: foreign key check: %w", mapErr(err))
	}
	if fk.Next() { // one orphan is enough to report
		problems = append(problems, "a version references a missing memory")
	}
	if err := fk.Err(); err != nil {
		fk.Close()
		return fmt.Errorf("sqlite: foreign key check: %w", mapErr(err))
	}
	fk.Close()

	if len(problems) > 0 {
		return fmt.Errorf("sqlite: integrity check %s: %w", s.path,
			corruptf("%s", strings.Join(problems, "; ")))
	}
	return nil
}

// errClosed answers calls that bypass database/sql after Close.
var errClosed = errors.New("store is closed")

// Close closes both pools. Calls after Close return an error; a second Close
// returns nil.
func (s *Store) Close() error {
	s.closed.Store(true)
	if s.fast != nil {
		s.fast.close()
	}
	var errs []error
	if s.ckpt != nil {
		errs = append(errs, s.ckpt.close())
		s.ckpt = nil
	}
	for _, c := range []*stmtCache{s.rstmts, s.wstmts} {
		if c != nil {
			errs = append(errs, c.close())
		}
	}
	if s.raw != nil {
		s.raw.close() // before the writer closes the handle
	}
	if s.writer != nil {
		errs = append(errs, s.compactOnClose())
	}
	if s.reader != nil {
		errs = append(errs, s.reader.Close())
	}
	if s.writer != nil {
		errs = append(errs, s.writer.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

// InTx runs fn in one write transaction on the writer connection. It
// commits if fn returns nil and rolls back if fn returns an error or panics
// (the panic is re-raised after the rollback). fn's error is returned as is.
func (s *Store) InTx(ctx context.Context, fn func(tx memory.Executor) error) error {
	if s.opts.ReadOnly {
		// Refused before BEGIN, as on PostgreSQL: the caller learns why
		// (store_read_only), not SQLite's "attempt to write a readonly
		// database" halfway through its transaction.
		return errReadOnly(nil)
	}
	if s.raw != nil && !s.noRaw.Load() {
		handled, err := s.inRawTx(ctx, func(e *executor) error { return fn(e) })
		if handled {
			return err
		}
		s.noRaw.Store(true) // this driver's connection has no handle to reach
	}
	// Before BEGIN, where this waits for the writer's one connection
	// anyway.
	s.wstmts.preparePending(ctx)
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", mapErr(err))
	}
	e := &executor{tx: tx, stmts: s.wstmts, write: true, bufs: &s.jsonBufs}
	return s.finishTx(ctx, tx, e, func(e *executor) error { return fn(e) })
}

// finishTx runs fn in tx, begun, and commits; it rolls back if fn returns
// an error or panics (the panic is re-raised after the rollback).
func (s *Store) finishTx(ctx context.Context, tx *sql.Tx, e *executor, fn func(e *executor) error) error {
	done := false
	defer func() {
		e.ended = true
		if !done {
			// fn panicked: undo its writes, then let the panic continue.
			_ = tx.Rollback()
		}
	}()
	if err := checkNotUpgraded(ctx, e); err != nil {
		done = true
		_ = tx.Rollback()
		return err
	}
	if err := fn(e); err != nil {
		done = true
		if isFull(err) {
			// Whoever wrote in fn (River's insert, say) did not map it.
			s.full.Store(true)
			if !errors.Is(err, memory.ErrStorageFull) {
				err = fmt.Errorf("%w: %w", memory.ErrStorageFull, err)
			}
		}
		if rbErr := tx.Rollback(); rbErr != nil && !errors.Is(rbErr, sql.ErrTxDone) {
			return errors.Join(err, fmt.Errorf("sqlite: rollback: %w", rbErr))
		}
		return err
	}
	if e.raw != nil {
		// The raw path's transaction does not watch ctx (inRawTx): a
		// request cancelled by now is rolled back here, as database/sql
		// rolls back a transaction whose context ended.
		if err := ctx.Err(); err != nil {
			done = true
			_ = tx.Rollback()
			return fmt.Errorf("sqlite: commit: %w", err)
		}
	}
	done = true
	if err := tx.Commit(); err != nil {
		s.full.Store(isFull(err))
		return fmt.Errorf("sqlite: commit: %w", mapErr(err))
	}
	s.full.Store(false) // a write commits: there is room again
	s.wrote.Store(true)
	return nil
}

// schemaVersion is the schema version this build migrates files to.
var schemaVersion = sync.OnceValue(func() int64 {
	ms, err := loadMigrations(migrationFiles)
	if err != nil || len(ms) == 0 {
		return 0 // Open has refused the build already
	}
	return int64(ms[len(ms)-1].version)
})

// checkNotUpgraded refuses to write to a file that a newer mnemon has
// migrated since this store opened it: a long-running serve or mcp left on
// the old binary while the CLI of a new one upgrades the file would
// otherwise write rows in forms the newer schema no longer reads (and read
// rows it cannot decode). It reads the file header's user_version inside
// the write transaction, so no upgrade can come in between.
func checkNotUpgraded(ctx context.Context, e *executor) error {
	rows, err := e.query(ctx, "PRAGMA user_version")
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", mapErr(err))
	}
	defer rows.Close()
	var v int64
	if rows.Next() {
		if err := rows.Scan(&v); err != nil {
			return fmt.Errorf("sqlite: begin: %w", mapErr(err))
		}
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("sqlite: begin: %w", mapErr(err))
	}
	if latest := schemaVersion(); latest > 0 && v > latest {
		return fmt.Errorf("sqlite: begin: %w", unusable(memory.ErrSchemaTooNew, fmt.Sprintf(
			"a newer mnemon upgraded the file to schema version %d while this process ran (it writes version %d); "+
				"nothing was written: restart this process with the newer mnemon", v, latest)))
	}
	return nil
}

// isFull reports whether err is SQLite's SQLITE_FULL: the disk is full, or
// the database reached its page limit.
func isFull(err error) bool {
	var se interface{ Code() int }
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL
}

// minRoom is the free space under which a store whose last write failed
// for lack of space is still taken for full.
const minRoom = 1 << 20

// StorageFull returns an error wrapping memory.ErrStorageFull while the
// store is full: its last write transaction failed for lack of space, and
// there is still no room. It clears by itself: at the next write that
// commits, or here, once the file system has minRoom free again and the
// database is under its page limit. Readiness checks call it, so a server
// that takes no writes while it is reported full still recovers. Cheap
// when the store is not full: nothing is read.
func (s *Store) StorageFull(ctx context.Context) error {
	if !s.full.Load() {
		return nil
	}
	room := true
	if free, err := diskfree.Bytes(filepath.Dir(s.path)); err == nil && free < minRoom {
		room = false
	}
	// The page limit is the writer connection's (PRAGMA max_page_count).
	var pages, limit int64
	if err := s.writer.QueryRowContext(ctx, "SELECT page_count, max_page_count FROM pragma_page_count(), pragma_max_page_count()").Scan(&pages, &limit); err == nil && pages >= limit {
		room = false
	}
	if room {
		s.full.Store(false)
		return nil
	}
	return fmt.Errorf("%w: the last write failed for lack of space and there is still none", memory.ErrStorageFull)
}

// ReadTx runs fn in one transaction on the reader pool. In WAL mode its
// snapshot is taken at the first read and holds until it ends, so a long
// export sees one state of the store; writers go on meanwhile (the WAL
// keeps what the snapshot needs until it ends).
func (s *Store) ReadTx(ctx context.Context, fn func(tx memory.Executor) error) error {
	tx, err := s.reader.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin read: %w", mapErr(err))
	}
	defer tx.Rollback() // nothing to commit: it only read
	return fn(&executor{tx: tx, stmts: s.rstmts})
}

// write runs one executor call in its own transaction.
func (s *Store) write(ctx context.Context, fn func(e *executor) error) error {
	return s.InTx(ctx, func(tx memory.Executor) error { return fn(tx.(*executor)) })
}

// Namespaces lists every namespace that holds a row, sorted.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) {
	rows, err := s.read.query(ctx, qNamespaces)
	if err != nil {
		return nil, fmt.Errorf("sqlite: namespaces: %w", mapErr(err))
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var ns string
		if err := rows.Scan(&ns); err != nil {
			return nil, fmt.Errorf("sqlite: namespaces: %w", err)
		}
		out = append(out, nsName(ns))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: namespaces: %w", mapErr(err))
	}
	// Sorted by name: the default namespace is stored as '', first.
	slices.Sort(out)
	return out, nil
}

// mapErr turns SQLite result codes into the domain's sentinels, keeping the
// original error in the chain for the message.
func mapErr(err error) error {
	// Both the driver's *sqlite.Error and the fast scan's errors have it.
	var se interface{ Code() int }
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return memory.Conflictf(err, "it is stored already (the same id, or the same record twice)")
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return fmt.Errorf("%w: the memory it belongs to does not exist: %w", memory.ErrNotFound, err)
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return fmt.Errorf("%w: %w", memory.ErrCorrupt, err)
	case sqlite3.SQLITE_FULL:
		return fmt.Errorf("%w: %w", memory.ErrStorageFull, err)
	case sqlite3.SQLITE_READONLY:
		// Not Options.ReadOnly (refused before BEGIN): the file or its
		// directory cannot be written.
		return &memory.Error{Code: memory.CodeStoreReadOnly, Kind: memory.ErrReadOnly, Cause: err,
			Message: "the database file cannot be written (its permissions, or a read-only file system): nothing was written"}
	}
	return err
}

// The Store's Executor methods: reads run on the reader pool, each write in
// its own transaction on the writer.

func (s *Store) CreateEpisodes(ctx context.Context, p memory.CreateEpisodesParams) error {
	return s.write(ctx, func(e *executor) error { return e.CreateEpisodes(ctx, p) })
}

func (s *Store) GetEpisode(ctx context.Context, p memory.GetParams) (*memory.Episode, error) {
	return s.read.GetEpisode(ctx, p)
}

func (s *Store) ListEpisodes(ctx context.Context, p memory.ListEpisodesParams) ([]*memory.Episode, error) {
	return s.read.ListEpisodes(ctx, p)
}

func (s *Store) CreateMemory(ctx context.Context, m *memory.Memory) error {
	return s.write(ctx, func(e *executor) error { return e.CreateMemory(ctx, m) })
}

func (s *Store) GetMemory(ctx context.Context, p memory.GetParams) (*memory.Memory, error) {
	return s.read.GetMemory(ctx, p)
}

func (s *Store) FindMemory(ctx context.Context, p memory.FindMemoryParams) (*memory.Memory, error) {
	return s.read.FindMemory(ctx, p)
}

// ReadSlotHead implements memory.SlotHeadReader. It reads in one
// snapshot: the slot, then its live versions.
func (s *Store) ReadSlotHead(ctx context.Context, p memory.FindMemoryParams) (h *memory.SlotHead, err error) {
	err = s.ReadTx(ctx, func(tx memory.Executor) error {
		h, err = tx.(memory.SlotHeadReader).ReadSlotHead(ctx, p)
		return err
	})
	return h, err
}

func (s *Store) CreateVersion(ctx context.Context, v *memory.Version) error {
	return s.write(ctx, func(e *executor) error { return e.CreateVersion(ctx, v) })
}

func (s *Store) UpdateVersionState(ctx context.Context, v *memory.Version) error {
	return s.write(ctx, func(e *executor) error { return e.UpdateVersionState(ctx, v) })
}

func (s *Store) SetEmbedding(ctx context.Context, p memory.SetEmbeddingParams) error {
	return s.write(ctx, func(e *executor) error { return e.SetEmbedding(ctx, p) })
}

func (s *Store) GetVersion(ctx context.Context, p memory.GetParams) (*memory.Version, error) {
	return s.read.GetVersion(ctx, p)
}

func (s *Store) ListVersions(ctx context.Context, p memory.ListVersionsParams) ([]*memory.Version, error) {
	return s.read.ListVersions(ctx, p)
}

// ListUnsettledVersions reads in one snapshot: the contested groups'
// settled members are read after the index.
func (s *Store) ListUnsettledVersions(ctx context.Context, p memory.ScanParams) (out []*memory.Version, err error) {
	err = s.ReadTx(ctx, func(tx memory.Executor) error {
		out, err = tx.ListUnsettledVersions(ctx, p)
		return err
	})
	return out, err
}

func (s *Store) ScanAdmissions(ctx context.Context, p memory.ScanParams, fn func(*memory.Admission) error) error {
	return s.read.ScanAdmissions(ctx, p, fn)
}

func (s *Store) ScanTraces(ctx context.Context, p memory.ScanParams, fn func(*memory.Trace) error) error {
	return s.read.ScanTraces(ctx, p, fn)
}

func (s *Store) ScanVersions(ctx context.Context, p memory.ScanParams, fn func(*memory.Version) error) error {
	return s.read.ScanVersions(ctx, p, fn)
}

var _ memory.VersionStreamer = (*Store)(nil)

// StreamVersions implements memory.VersionStreamer: ScanVersions' fast
// path (fastscan.go) with the versions a search index never holds left in
// the database, one statement on one connection, so one snapshot.
func (s *Store) StreamVersions(ctx context.Context, p memory.ScanParams, fn func(*memory.Version) error) error {
	return scan(ctx, s.read, p.Namespace, "stream versions", qStreamVersions, decodeVersion, fn)
}

func (s *Store) CreateAdmissions(ctx context.Context, p memory.CreateAdmissionsParams) error {
	return s.write(ctx, func(e *executor) error { return e.CreateAdmissions(ctx, p) })
}

func (s *Store) PageVersions(ctx context.Context, p memory.PageVersionsParams) ([]*memory.Version, error) {
	return s.read.PageVersions(ctx, p)
}

func (s *Store) ListAdmissions(ctx context.Context, p memory.ListAdmissionsParams) ([]*memory.Admission, error) {
	return s.read.ListAdmissions(ctx, p)
}

func (s *Store) CreateTrace(ctx context.Context, t *memory.Trace) error {
	return s.write(ctx, func(e *executor) error { return e.CreateTrace(ctx, t) })
}

func (s *Store) GetTrace(ctx context.Context, p memory.GetParams) (*memory.Trace, error) {
	return s.read.GetTrace(ctx, p)
}

func (s *Store) ListTraces(ctx context.Context, p memory.ListTracesParams) ([]*memory.Trace, error) {
	return s.read.ListTraces(ctx, p)
}

func (s *Store) ScanMemories(ctx context.Context, p memory.ScanParams, fn func(*memory.Memory) error) error {
	return s.read.ScanMemories(ctx, p, fn)
}

// ScanEpisodes reads the live and the archived episodes in one snapshot.
func (s *Store) ScanEpisodes(ctx context.Context, p memory.ScanParams, fn func(*memory.Episode) error) error {
	return s.ReadTx(ctx, func(tx memory.Executor) error { return tx.ScanEpisodes(ctx, p, fn) })
}

func (s *Store) Stats(ctx context.Context, p memory.StatsParams) (*memory.Stats, error) {
	return s.read.Stats(ctx, p)
}

// TraceBytes is how much of DataBytes the retrieval traces take (their
// table and its indexes, from SQLite's dbstat): the record of every
// retrieval, kept for the access horizon however many sessions there are.
func TraceBytes(ctx context.Context, path string) (int64, error) {
	db, err := sql.Open("sqlite", dsn(path, Options{Synchronous: "NORMAL"}, true))
	if err != nil {
		return 0, fmt.Errorf("sqlite: trace size: %w", err)
	}
	defer db.Close()
	var n int64
	err = db.QueryRowContext(ctx, `SELECT COALESCE(SUM(pgsize), 0) FROM dbstat
	WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name = 'traces')`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlite: trace size: %w", mapErr(err))
	}
	return n, nil
}

// DataBytes is the size of what the database at path holds: its pages in
// use (page_count less the free list) times the page size, read through
// the write-ahead log, so neither the log's high-water mark nor pages
// freed by deletes and not yet reused count. It opens a connection of its
// own and may be called while a Store has the file open.
func DataBytes(ctx context.Context, path string) (int64, error) {
	db, err := sql.Open("sqlite", dsn(path, Options{Synchronous: "NORMAL"}, true))
	if err != nil {
		return 0, fmt.Errorf("sqlite: data size: %w", err)
	}
	defer db.Close()
	var pages, free, size int64
	for _, q := range []struct {
		pragma string
		into   *int64
	}{{"page_count", &pages}, {"freelist_count", &free}, {"page_size", &size}} {
		if err := db.QueryRowContext(ctx, "PRAGMA "+q.pragma).Scan(q.into); err != nil {
			return 0, fmt.Errorf("sqlite: data size: %s: %w", q.pragma, mapErr(err))
		}
	}
	return (pages - free) * size, nil
}
