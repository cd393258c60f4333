package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// A remember is a handful of small statements in one write transaction,
// and through database/sql each of them paid more than SQLite's own work
// on a short row: Tx.StmtContext's new Stmt, the argument conversion, the
// driver's C copy of every text argument, the driver's column names and
// upper-cased declared types read again for every query, and, with a
// request's cancellable context, a goroutine per statement that waits for
// the cancellation (the driver's interrupt watcher). Together that was
// about a fifth of the server's CPU per remember.
//
// So a write transaction runs its statements straight on the writer
// connection's SQLite handle, with statements prepared once and kept
// across transactions (rawWriter). The connection is still database/sql's
// only writer connection, checked out for the whole transaction
// (sql.Conn), and BEGIN IMMEDIATE and COMMIT still go through its
// database/sql transaction, so SQLTx keeps working (River inserts its jobs
// through it, on the same connection, in the same transaction) and
// database/sql's view of the connection stays true. Only the statements
// in between bypass it. The handle is the driver connection's own, read
// once per connection (driverHandle); a driver whose connection does not
// have it leaves the store on the database/sql path.
//
// Cancellation: the transaction's statements do not watch the context
// (no goroutine per statement); it is checked before every statement and
// before COMMIT, so a request cancelled mid-transaction still rolls back
// at the next statement rather than inside one.

// rawStmtCap bounds the statements a rawWriter keeps prepared: the static
// statements and the list shapes are a few dozen; anything past the cap is
// prepared and finalized at each use.
const rawStmtCap = 512

// rawWriter runs statements on the writer connection's SQLite handle. It
// is used only by the transaction that holds the writer connection (so by
// one goroutine at a time), and by close.
type rawWriter struct {
	mu    sync.Mutex
	owner any // the driver connection whose handle db is
	fc    fastConn
	stmts map[string]*rawStmt
	// out is a C buffer for prepare's out-parameters (statement, tail).
	out uintptr
	// scratch holds a text or blob argument while it is bound; SQLite
	// copies it (SQLITE_TRANSIENT), so one buffer serves every argument.
	scratch    uintptr
	scratchCap int
	closed     bool
	// open are the rows of the current transaction not closed yet; the
	// transaction closes them as it ends (closeOpen), as database/sql
	// closes a transaction's rows, so none keeps a read transaction on
	// the handle after COMMIT or ROLLBACK or runs outside its transaction.
	open []*rawRows
}

func newRawWriter() (*rawWriter, error) {
	tls := libc.NewTLS()
	out := libc.Xmalloc(tls, 2*ptrSize)
	if out == 0 {
		tls.Close()
		return nil, errors.New("out of memory")
	}
	return &rawWriter{fc: fastConn{tls: tls}, stmts: map[string]*rawStmt{}, out: out}, nil
}

// driverHandle returns the sqlite3* handle of a modernc.org/sqlite driver
// connection (its unexported field db), or false for any other driver
// connection. Reading an unexported field through reflect needs no unsafe
// and fails softly: a driver version without the field keeps the store on
// database/sql (TestRawWritePathActive says so).
func driverHandle(dc any) (uintptr, bool) {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return 0, false
	}
	v = v.Elem()
	if v.Kind() != reflect.Struct || v.Type().PkgPath() != "modernc.org/sqlite" {
		return 0, false
	}
	f := v.FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Uintptr || f.Uint() == 0 {
		return 0, false
	}
	return uintptr(f.Uint()), true
}

// attach points w at the handle of the driver connection conn holds,
// dropping the statements prepared on an earlier connection. It returns
// false when the handle cannot be found.
func (w *rawWriter) attach(conn *sql.Conn) (bool, error) {
	ok := false
	err := conn.Raw(func(dc any) error {
		if w.fc.db != 0 && dc == w.owner {
			ok = true
			return nil
		}
		db, found := driverHandle(dc)
		if !found {
			return nil
		}
		// A new connection (the old one was closed): its statements
		// belong to the old handle, which SQLite keeps as a zombie
		// until they are finalized.
		w.finalizeAll()
		w.owner, w.fc.db, ok = dc, db, true
		return nil
	})
	if ok {
		w.settle()
		// The driver installs a progress handler that interrupts a
		// statement once the context of its own call in progress is done;
		// none of its calls is in progress while a raw statement runs, and
		// a flag left set by an earlier cancelled call must not interrupt
		// one. The driver installs it again at its next call.
		sqlite3.Xsqlite3_progress_handler(w.fc.tls, w.fc.db, 0, 0, 0)
	}
	return ok, err
}

// rawStmt is a statement kept prepared. busy is set while a call uses it:
// a query whose rows are still open when the same SQL runs again gets a
// statement of its own.
type rawStmt struct {
	st   uintptr
	busy bool
	// big is set when an argument over maxScratch was bound: SQLite's
	// copy of it stays with the statement until it is bound again, so
	// release drops the statement instead of keeping it.
	big bool
	q   string
}

func (w *rawWriter) finalizeAll() {
	for q, rs := range w.stmts {
		sqlite3.Xsqlite3_finalize(w.fc.tls, rs.st)
		delete(w.stmts, q)
	}
}

// settle resets the statements an earlier transaction left in use (rows
// not closed when its function panicked).
func (w *rawWriter) settle() {
	for _, rs := range w.stmts {
		if rs.busy {
			w.release(rs, 0)
		}
	}
}

// closeOpen closes the rows the transaction left open.
func (w *rawWriter) closeOpen() {
	for len(w.open) > 0 {
		w.open[len(w.open)-1].Close()
	}
}

// close finalizes every statement and frees the writer's C memory. The
// driver connection stays the driver's to close.
func (w *rawWriter) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.closed = true
	w.finalizeAll()
	if w.scratch != 0 {
		libc.Xfree(w.fc.tls, w.scratch)
		w.scratch = 0
	}
	libc.Xfree(w.fc.tls, w.out)
	w.fc.tls.Close()
}

// prepare returns q prepared: a kept statement (rs set, reset after use)
// or one to finalize after use. A q holding more than one statement is
// refused: the store runs scripts only in migrations, which do not come
// here.
func (w *rawWriter) prepare(q string) (uintptr, *rawStmt, error) {
	rs, ok := w.stmts[q]
	if ok && !rs.busy {
		rs.busy = true
		return rs.st, rs, nil
	}
	cq, err := libc.CString(q)
	if err != nil {
		return 0, nil, err
	}
	defer libc.Xfree(w.fc.tls, cq)
	pstmt, ptail := w.out, w.out+ptrSize
	keep := !ok && len(w.stmts) < rawStmtCap
	var flags uint32
	if keep {
		flags = sqlite3.SQLITE_PREPARE_PERSISTENT
	}
	if rc := sqlite3.Xsqlite3_prepare_v3(w.fc.tls, w.fc.db, cq, int32(len(q)+1), flags, pstmt, ptail); rc != sqlite3.SQLITE_OK {
		return 0, nil, w.fc.err(rc)
	}
	st := readPtr(pstmt)
	if tail := readPtr(ptail); tail != 0 && tail < cq+uintptr(len(q)) && !onlySpace(q[tail-cq:]) {
		sqlite3.Xsqlite3_finalize(w.fc.tls, st)
		return 0, nil, fmt.Errorf("sqlite: more than one statement in %.40q", q)
	}
	if st == 0 {
		return 0, nil, fmt.Errorf("sqlite: no statement in %.40q", q)
	}
	if !keep {
		return st, nil, nil
	}
	rs = &rawStmt{st: st, busy: true, q: q}
	w.stmts[q] = rs
	return st, rs, nil
}

func onlySpace(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', ';':
		default:
			return false
		}
	}
	return true
}

// bytesArg copies b into the scratch buffer and returns its address. The
// address is never 0, so an empty text binds as ” and not NULL.
func (w *rawWriter) bytesArg(b []byte, s string) (uintptr, error) {
	n := max(len(b), len(s))
	if n+1 > w.scratchCap {
		c := max(n+1, 2*w.scratchCap, 4096)
		p := libc.Xmalloc(w.fc.tls, libc.Tsize_t(c))
		if p == 0 {
			return 0, errors.New("out of memory")
		}
		if w.scratch != 0 {
			libc.Xfree(w.fc.tls, w.scratch)
		}
		w.scratch, w.scratchCap = p, c
	}
	dst := libc.GoBytes(w.scratch, n)
	if b != nil {
		copy(dst, b)
	} else {
		copy(dst, s)
	}
	return w.scratch, nil
}

// maxScratch is the largest scratch buffer kept between statements: a
// larger argument (an imported document) gets its buffer freed once bound.
const maxScratch = 1 << 20

func (w *rawWriter) trimScratch() {
	if w.scratchCap > maxScratch {
		libc.Xfree(w.fc.tls, w.scratch)
		w.scratch, w.scratchCap = 0, 0
	}
}

// bind binds args to st's parameters in order, with the conversions
// database/sql would make.
func (w *rawWriter) bind(st uintptr, rs *rawStmt, args []any) error {
	tls := w.fc.tls
	defer w.trimScratch()
	n := int(sqlite3.Xsqlite3_bind_parameter_count(tls, st))
	if len(args) < n {
		return fmt.Errorf("sqlite: missing argument with index %d", len(args)+1)
	}
	for i := 0; i < n; i++ {
		idx := int32(i + 1)
		v := args[i]
	again:
		var rc int32
		switch x := v.(type) {
		case nil:
			rc = sqlite3.Xsqlite3_bind_null(tls, st, idx)
		case string:
			p, err := w.bytesArg(nil, x)
			if err != nil {
				return err
			}
			if rs != nil && len(x) > maxScratch {
				rs.big = true
			}
			rc = sqlite3.Xsqlite3_bind_text(tls, st, idx, p, int32(len(x)), sqlite3.SQLITE_TRANSIENT)
		case []byte:
			if x == nil {
				rc = sqlite3.Xsqlite3_bind_null(tls, st, idx)
				break
			}
			p, err := w.bytesArg(x, "")
			if err != nil {
				return err
			}
			if rs != nil && len(x) > maxScratch {
				rs.big = true
			}
			rc = sqlite3.Xsqlite3_bind_blob(tls, st, idx, p, int32(len(x)), sqlite3.SQLITE_TRANSIENT)
		case int64:
			rc = sqlite3.Xsqlite3_bind_int64(tls, st, idx, x)
		case int:
			rc = sqlite3.Xsqlite3_bind_int64(tls, st, idx, int64(x))
		case float64:
			rc = sqlite3.Xsqlite3_bind_double(tls, st, idx, x)
		case bool:
			b := int64(0)
			if x {
				b = 1
			}
			rc = sqlite3.Xsqlite3_bind_int64(tls, st, idx, b)
		default:
			// What database/sql converts before the driver sees it:
			// other integer and float types, named string and byte
			// types, pointers, driver.Valuer.
			if vr, ok := v.(driver.Valuer); ok {
				cv, err := vr.Value()
				if err != nil {
					return fmt.Errorf("sqlite: argument %d: %w", i+1, err)
				}
				v = cv
			} else {
				cv, err := driver.DefaultParameterConverter.ConvertValue(v)
				if err != nil {
					return fmt.Errorf("sqlite: argument %d: %w", i+1, err)
				}
				v = cv
			}
			switch v.(type) {
			case nil, string, []byte, int64, float64, bool:
				goto again
			}
			return fmt.Errorf("sqlite: argument %d: unsupported type %T", i+1, v)
		}
		if rc != sqlite3.SQLITE_OK {
			return w.fc.err(rc)
		}
	}
	return nil
}

// release resets a kept statement (rs), or finalizes st, one that is not
// kept. A kept statement's bindings stay until the next use binds every
// parameter again: they are SQLite's own copies (SQLITE_TRANSIENT), and
// sqlite3_clear_bindings would expire a statement whose plan was made for
// its bound values (the admission insert), making SQLite prepare it again
// at every use. A statement that bound an argument over maxScratch is
// finalized instead, so no large copy stays bound to it.
func (w *rawWriter) release(rs *rawStmt, st uintptr) {
	if rs != nil && rs.big {
		delete(w.stmts, rs.q)
		st, rs = rs.st, nil
	}
	if rs != nil {
		sqlite3.Xsqlite3_reset(w.fc.tls, rs.st)
		rs.busy = false
		return
	}
	sqlite3.Xsqlite3_finalize(w.fc.tls, st)
}

// exec runs q to completion (a RETURNING clause's rows are read and
// dropped, as the driver does).
func (w *rawWriter) exec(q string, args []any) (sql.Result, error) {
	st, rs, err := w.prepare(q)
	if err != nil {
		return nil, err
	}
	defer w.release(rs, st)
	if err := w.bind(st, rs, args); err != nil {
		return nil, err
	}
	for {
		switch rc := sqlite3.Xsqlite3_step(w.fc.tls, st); rc {
		case sqlite3.SQLITE_ROW:
			continue
		case sqlite3.SQLITE_DONE:
			return rawResult{
				changes: sqlite3.Xsqlite3_changes64(w.fc.tls, w.fc.db),
				lastID:  sqlite3.Xsqlite3_last_insert_rowid(w.fc.tls, w.fc.db),
			}, nil
		default:
			return nil, w.fc.err(rc)
		}
	}
}

// query runs q and returns its rows, which the caller must close.
func (w *rawWriter) query(q string, args []any) (*rawRows, error) {
	st, rs, err := w.prepare(q)
	if err != nil {
		return nil, err
	}
	if err := w.bind(st, rs, args); err != nil {
		w.release(rs, st)
		return nil, err
	}
	r := &rawRows{w: w, rs: rs, n: int(sqlite3.Xsqlite3_column_count(w.fc.tls, st))}
	r.fastRows = fastRows{c: &w.fc, stmt: st}
	w.open = append(w.open, r)
	return r, nil
}

type rawResult struct{ changes, lastID int64 }

func (r rawResult) RowsAffected() (int64, error) { return r.changes, nil }
func (r rawResult) LastInsertId() (int64, error) { return r.lastID, nil }

// rawRows is a running statement on the writer's handle. It has the
// methods of *sql.Rows the store uses (rowSet), and is a row itself for
// the decoders, read in place.
type rawRows struct {
	fastRows
	w      *rawWriter
	rs     *rawStmt // nil: finalize at close
	n      int      // columns
	err    error
	closed bool
}

func (r *rawRows) Next() bool {
	if r.closed || r.err != nil {
		return false
	}
	ok, err := r.next()
	if err != nil {
		r.err = err
	}
	if !ok {
		r.Close()
	}
	return ok
}

func (r *rawRows) Err() error { return r.err }

func (r *rawRows) Close() error {
	if !r.closed {
		r.closed = true
		r.w.release(r.rs, r.stmt)
		if i := slices.Index(r.w.open, r); i >= 0 {
			r.w.open = slices.Delete(r.w.open, i, i+1)
		}
	}
	return nil
}

func (r *rawRows) Columns() ([]string, error) {
	cols := make([]string, r.n)
	for i := range cols {
		cols[i] = r.name(i)
	}
	return cols, nil
}

// name reads the column's name when asked (only error messages ask).
func (r *rawRows) name(i int) string {
	return libc.GoString(sqlite3.Xsqlite3_column_name(r.w.fc.tls, r.stmt, int32(i)))
}

// value is column i as the driver hands it to database/sql.
func (r *rawRows) value(i int) any {
	switch r.kind(i) {
	case kindInt:
		return r.int64At(i)
	case kindFloat:
		return r.float64At(i)
	case kindText:
		return r.textAt(i)
	case kindBlob:
		return r.blobAt(i)
	default:
		return nil
	}
}

// Scan copies the current row's columns into dest, for the destination
// types the store scans into; any other is an error.
func (r *rawRows) Scan(dest ...any) error {
	if r.closed {
		return errors.New("sql: Rows are closed")
	}
	if len(dest) != r.n {
		return fmt.Errorf("sql: expected %d destination arguments in Scan, not %d", r.n, len(dest))
	}
	for i, d := range dest {
		if err := r.scanInto(i, d); err != nil {
			return fmt.Errorf("sql: Scan error on column index %d, name %q: %w", i, r.name(i), err)
		}
	}
	return nil
}

func (r *rawRows) scanInto(i int, d any) error {
	k := r.kind(i)
	switch p := d.(type) {
	case *any:
		*p = r.value(i)
		return nil
	case *string:
		switch k {
		case kindText:
			*p = r.textAt(i)
		case kindBlob:
			*p = string(r.blobAt(i))
		case kindInt:
			*p = strconv.FormatInt(r.int64At(i), 10)
		case kindFloat:
			*p = strconv.FormatFloat(r.float64At(i), 'g', -1, 64)
		default:
			return errors.New("converting NULL to string is unsupported")
		}
		return nil
	case *[]byte:
		switch k {
		case kindNull:
			*p = nil
		case kindBlob:
			*p = r.blobAt(i)
		case kindText:
			*p = []byte(r.textAt(i))
		default:
			*p = []byte(fmt.Sprint(r.value(i)))
		}
		return nil
	case *int64:
		v, err := r.intValue(i, k)
		*p = v
		return err
	case *int:
		v, err := r.intValue(i, k)
		*p = int(v)
		return err
	case *float64:
		switch k {
		case kindFloat:
			*p = r.float64At(i)
		case kindInt:
			*p = float64(r.int64At(i))
		case kindNull:
			return errors.New("converting NULL to float64 is unsupported")
		default:
			f, err := strconv.ParseFloat(r.textAt(i), 64)
			*p = f
			return err
		}
		return nil
	case *bool:
		v, err := r.intValue(i, k)
		*p = v != 0
		return err
	case sql.Scanner:
		return p.Scan(r.value(i))
	}
	return fmt.Errorf("unsupported Scan destination %T", d)
}

func (r *rawRows) intValue(i int, k colKind) (int64, error) {
	switch k {
	case kindInt:
		return r.int64At(i), nil
	case kindNull:
		return 0, errors.New("converting NULL to int64 is unsupported")
	case kindFloat:
		f := r.float64At(i)
		if f != float64(int64(f)) {
			return 0, fmt.Errorf("converting %v to an integer loses its fraction", f)
		}
		return int64(f), nil
	default:
		return strconv.ParseInt(r.textAt(i), 10, 64)
	}
}

// rowSet is what the store reads from a query: *sql.Rows, or rawRows
// inside a write transaction.
type rowSet interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
	Columns() ([]string, error)
}

var (
	_ rowSet = (*sql.Rows)(nil)
	_ rowSet = (*rawRows)(nil)
	_ row    = (*rawRows)(nil)
)

// inRawTx is InTx on the raw path: the writer connection checked out,
// BEGIN and COMMIT through its database/sql transaction, the statements
// between them on its handle. handled is false when the connection's
// handle cannot be found; nothing has run then.
func (s *Store) inRawTx(ctx context.Context, fn func(e *executor) error) (handled bool, err error) {
	if err := ctx.Err(); err != nil {
		return true, fmt.Errorf("sqlite: begin: %w", err)
	}
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return true, fmt.Errorf("sqlite: begin: %w", mapErr(err))
	}
	defer conn.Close()
	w := s.raw
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return true, fmt.Errorf("sqlite: begin: %w", errClosed)
	}
	ok, err := w.attach(conn)
	if err != nil {
		return true, fmt.Errorf("sqlite: begin: %w", mapErr(err))
	}
	if !ok {
		return false, nil
	}
	// Not cancellable: database/sql would otherwise roll the transaction
	// back from another goroutine when ctx ends, between two raw
	// statements, which would then run outside any transaction. ctx is
	// checked before each statement and before COMMIT instead.
	tx, err := conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return true, fmt.Errorf("sqlite: begin: %w", mapErr(err))
	}
	e := &executor{tx: tx, raw: w, stmts: s.wstmts, write: true, bufs: &s.jsonBufs}
	return true, s.finishTx(ctx, tx, e, func(e *executor) error {
		// Before COMMIT or ROLLBACK, also when fn panics.
		defer w.closeOpen()
		return fn(e)
	})
}
