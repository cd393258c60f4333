package sqlite

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// The engine rebuilds its search index from ScanVersions at every start, so
// reading 100k versions is on the path to a ready server. Through
// database/sql every column costs three calls into SQLite, each taking the
// connection mutex the driver always enables (SQLITE_OPEN_FULLMUTEX), plus
// database/sql's per-row locking and a second copy of every blob; together
// that is more than twice the cost of reading the pages. The Store's Scan
// methods therefore read on connections of their own, opened straight
// through modernc's SQLite (the same library the driver wraps) without the
// mutex, which is safe because a connection is used by one call on one
// goroutine at a time: a scan takes one from the Store's idle ones (or
// opens one) and gives it back when done (fastPool). Keeping them matters:
// a new connection parses the whole schema at its first statement, which
// cost more than a small namespace's scan. They are query-only and read the
// file memory-mapped. Everything else, and scans inside a transaction, go
// through database/sql.
//
// No unsafe here: C memory is read through libc.GoBytes, which copies
// nothing, and every value handed out is copied into Go memory first.

// fastMmapSize is how much of the file a scan connection maps; SQLite
// falls back to reads beyond it or where mapping fails.
const fastMmapSize = 1 << 30

// ptrSize is the size of a C pointer, which equals Go's int on every
// platform Go supports.
const ptrSize = strconv.IntSize / 8

// sqliteError is an error from SQLite on a fast-scan connection. It has the
// same Code method as the driver's error, so mapErr treats both alike.
type sqliteError struct {
	code int
	msg  string
}

func (e *sqliteError) Error() string { return e.msg }
func (e *sqliteError) Code() int     { return e.code }

// fastConn is one SQLite connection used by one goroutine.
type fastConn struct {
	tls *libc.TLS
	db  uintptr
}

// openRawConn opens a connection to path with nothing set on it but the
// busy timeout; opening reads no schema.
func openRawConn(path string, busy time.Duration) (*fastConn, error) {
	c := &fastConn{tls: libc.NewTLS()}
	name, err := libc.CString(path)
	if err != nil {
		c.tls.Close()
		return nil, err
	}
	defer libc.Xfree(c.tls, name)
	pdb := libc.Xmalloc(c.tls, ptrSize)
	if pdb == 0 {
		c.tls.Close()
		return nil, errors.New("out of memory")
	}
	defer libc.Xfree(c.tls, pdb)
	// Read-write without create, like the pool's readers: a read-only
	// connection can fail to attach to the shared memory of a WAL file.
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, pdb, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_NOMUTEX, 0)
	c.db = readPtr(pdb)
	if rc != sqlite3.SQLITE_OK {
		err := c.err(rc)
		c.close()
		return nil, err
	}
	sqlite3.Xsqlite3_extended_result_codes(c.tls, c.db, 1)
	sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, int32(busy.Milliseconds()))
	return c, nil
}

// openFastConn opens a scan connection: query-only, memory-mapped.
func openFastConn(path string, opts Options) (*fastConn, error) {
	c, err := openRawConn(path, opts.BusyTimeout)
	if err != nil {
		return nil, err
	}
	for _, pragma := range []string{
		"PRAGMA query_only = 1",
		"PRAGMA mmap_size = " + strconv.Itoa(fastMmapSize),
	} {
		if err := c.exec(pragma); err != nil {
			c.close()
			return nil, err
		}
	}
	return c, nil
}

// readPtr reads the pointer an out-parameter received.
func readPtr(p uintptr) uintptr {
	b := libc.GoBytes(p, ptrSize)
	if ptrSize == 8 {
		return uintptr(binary.NativeEndian.Uint64(b))
	}
	return uintptr(binary.NativeEndian.Uint32(b))
}

func (c *fastConn) close() {
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	c.tls.Close()
}

func (c *fastConn) err(rc int32) error {
	if c.db == 0 {
		return &sqliteError{code: int(rc), msg: fmt.Sprintf("%s (%d)", libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc)), rc)}
	}
	code := sqlite3.Xsqlite3_extended_errcode(c.tls, c.db)
	return &sqliteError{code: int(code), msg: fmt.Sprintf("%s (%d)", libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)), code)}
}

func (c *fastConn) exec(q string) error {
	cq, err := libc.CString(q)
	if err != nil {
		return err
	}
	defer libc.Xfree(c.tls, cq)
	if rc := sqlite3.Xsqlite3_exec(c.tls, c.db, cq, 0, 0, 0); rc != sqlite3.SQLITE_OK {
		return c.err(rc)
	}
	return nil
}

// fastRows is a running statement. It implements row over the current
// result row.
type fastRows struct {
	c     *fastConn
	stmt  uintptr
	cols  []string
	binds []uintptr // C copies of the text parameters, freed at close
}

// query prepares q and binds args as text parameters.
func (c *fastConn) query(q string, args ...string) (*fastRows, error) {
	cq, err := libc.CString(q)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, cq)
	pstmt := libc.Xmalloc(c.tls, ptrSize)
	if pstmt == 0 {
		return nil, errors.New("out of memory")
	}
	defer libc.Xfree(c.tls, pstmt)
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, cq, -1, pstmt, 0); rc != sqlite3.SQLITE_OK {
		return nil, c.err(rc)
	}
	r := &fastRows{c: c, stmt: readPtr(pstmt)}
	for i, a := range args {
		p, err := libc.CString(a)
		if err != nil {
			r.close()
			return nil, err
		}
		r.binds = append(r.binds, p)
		// The copy outlives the statement (freed in close), so SQLite
		// may keep the pointer: no destructor.
		if rc := sqlite3.Xsqlite3_bind_text(c.tls, r.stmt, int32(i+1), p, int32(len(a)), 0); rc != sqlite3.SQLITE_OK {
			err := c.err(rc)
			r.close()
			return nil, err
		}
	}
	n := int(sqlite3.Xsqlite3_column_count(c.tls, r.stmt))
	r.cols = make([]string, n)
	for i := range r.cols {
		r.cols[i] = libc.GoString(sqlite3.Xsqlite3_column_name(c.tls, r.stmt, int32(i)))
	}
	return r, nil
}

// next steps to the next row; false at the end or on error.
func (r *fastRows) next() (bool, error) {
	switch rc := sqlite3.Xsqlite3_step(r.c.tls, r.stmt); rc {
	case sqlite3.SQLITE_ROW:
		return true, nil
	case sqlite3.SQLITE_DONE:
		return false, nil
	default:
		return false, r.c.err(rc)
	}
}

func (r *fastRows) close() {
	if r.stmt != 0 {
		sqlite3.Xsqlite3_finalize(r.c.tls, r.stmt)
		r.stmt = 0
	}
	for _, p := range r.binds {
		libc.Xfree(r.c.tls, p)
	}
	r.binds = nil
}

func (r *fastRows) kind(i int) colKind {
	switch sqlite3.Xsqlite3_column_type(r.c.tls, r.stmt, int32(i)) {
	case sqlite3.SQLITE_INTEGER:
		return kindInt
	case sqlite3.SQLITE_FLOAT:
		return kindFloat
	case sqlite3.SQLITE_TEXT:
		return kindText
	case sqlite3.SQLITE_BLOB:
		return kindBlob
	default:
		return kindNull
	}
}

func (r *fastRows) int64At(i int) int64 {
	return sqlite3.Xsqlite3_column_int64(r.c.tls, r.stmt, int32(i))
}

func (r *fastRows) float64At(i int) float64 {
	return sqlite3.Xsqlite3_column_double(r.c.tls, r.stmt, int32(i))
}

// textAt copies the column's bytes into a Go string. The pointer is taken
// before the length, the order SQLite documents as safe.
func (r *fastRows) textAt(i int) string {
	p := sqlite3.Xsqlite3_column_text(r.c.tls, r.stmt, int32(i))
	n := int(sqlite3.Xsqlite3_column_bytes(r.c.tls, r.stmt, int32(i)))
	if p == 0 || n == 0 {
		return ""
	}
	return string(libc.GoBytes(p, n))
}

// symAt interns the column's bytes, copying them only the first time.
func (r *fastRows) symAt(i int, syms *symbols) string {
	p := sqlite3.Xsqlite3_column_text(r.c.tls, r.stmt, int32(i))
	n := int(sqlite3.Xsqlite3_column_bytes(r.c.tls, r.stmt, int32(i)))
	if p == 0 || n == 0 {
		return ""
	}
	return syms.intern(libc.GoBytes(p, n))
}

// blobAt copies the column's bytes into a new slice; an empty blob is nil,
// as the driver returns it.
func (r *fastRows) blobAt(i int) []byte {
	p := sqlite3.Xsqlite3_column_blob(r.c.tls, r.stmt, int32(i))
	n := int(sqlite3.Xsqlite3_column_bytes(r.c.tls, r.stmt, int32(i)))
	if p == 0 || n == 0 {
		return nil
	}
	b := make([]byte, n)
	copy(b, libc.GoBytes(p, n))
	return b
}

func (r *fastRows) name(i int) string { return r.cols[i] }

// fastScan streams the rows of q (one text parameter, the namespace)
// through decode into fn. fn's error is wrapped in errStopped.
func fastScan[T any](ctx context.Context, pool *fastPool, q, ns string, decode func(*decoder) T, fn func(T) error) error {
	var d decoder
	return fastRowScan(ctx, pool, q, ns, func(rows *fastRows) error {
		d.reset(rows, len(rows.cols))
		v := decode(&d)
		if d.err != nil {
			return d.err
		}
		if err := fn(v); err != nil {
			return errStopped{err}
		}
		return nil
	})
}

// fastRowScan calls each with every row of q (one text parameter, the
// namespace) on a connection of pool. An error each returns ends the scan
// and is returned as is; errStopped says the connection is still sound.
func fastRowScan(ctx context.Context, pool *fastPool, q, ns string, each func(*fastRows) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	c, err := pool.get()
	if err != nil {
		return mapErr(err)
	}
	rows, err := c.query(q, nsArg(ns))
	if err != nil {
		c.close() // not knowing what state it is in, keep none
		return mapErr(err)
	}
	defer func() {
		rows.close()
		// A database error leaves the connection in no known state; a
		// scan that ran to its end, or that fn or ctx stopped, leaves it
		// with no statement and no transaction open.
		var stopped errStopped
		if err == nil || errors.As(err, &stopped) || errors.Is(err, ctx.Err()) {
			pool.put(c)
		} else {
			c.close()
		}
	}()
	for n := 0; ; n++ {
		// A context check costs a little; a cancelled start-up should not
		// have to wait for 100k rows.
		if n%256 == 255 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		ok, err := rows.next()
		if err != nil {
			return mapErr(err)
		}
		if !ok {
			return nil
		}
		if err := each(rows); err != nil {
			return err
		}
	}
}

// fastPool keeps a Store's idle scan connections, at most max of them, so
// that a scan does not open (and parse the schema on) a connection of its
// own every time.
type fastPool struct {
	path   string
	opts   Options
	max    int
	mu     sync.Mutex
	idle   []*fastConn
	closed bool
}

// get takes an idle connection, or opens one.
func (p *fastPool) get() (*fastConn, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	return openFastConn(p.path, p.opts)
}

// put gives back a connection with no statement running: kept while there
// is room and the store is open, closed otherwise.
func (p *fastPool) put(c *fastConn) {
	p.mu.Lock()
	if !p.closed && len(p.idle) < p.max {
		p.idle = append(p.idle, c)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	c.close()
}

// close closes the idle connections; those in use are closed when given
// back.
func (p *fastPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, c := range idle {
		c.close()
	}
}

// walCheckpoint runs sqlite3_wal_checkpoint_v2 on the main database in mode
// and reports whether the whole log was copied. SQLITE_BUSY (another
// connection held the checkpoint back) is no error, as in PRAGMA
// wal_checkpoint: the log is just not all copied.
func (c *fastConn) walCheckpoint(mode int32) (bool, error) {
	out := libc.Xmalloc(c.tls, 8) // two C ints: frames in the log, frames copied
	if out == 0 {
		return false, errors.New("out of memory")
	}
	defer libc.Xfree(c.tls, out)
	rc := sqlite3.Xsqlite3_wal_checkpoint_v2(c.tls, c.db, 0, mode, out, out+4)
	b := libc.GoBytes(out, 8)
	frames, copied := int32(binary.NativeEndian.Uint32(b)), int32(binary.NativeEndian.Uint32(b[4:]))
	switch {
	case rc == sqlite3.SQLITE_OK:
		// frames is -1 when the connection has no WAL open: nothing was
		// checked, so nothing is known copied.
		return frames >= 0 && frames == copied, nil
	case rc&0xff == sqlite3.SQLITE_BUSY:
		return false, nil
	default:
		return false, c.err(rc)
	}
}
