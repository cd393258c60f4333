package sqlite

import (
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	sqlite3 "modernc.org/sqlite/lib"
)

// walVFSName names the VFS the writer opens the database with: the
// platform's default VFS, except that a commit's WAL frames reach the file
// in one write call.
//
// Why: SQLite writes each WAL frame as two write calls (its 24-byte header,
// then the page), and a remember's commit is 20 to 30 frames (one page of
// every B-tree it touches). On the machines measured a write call costs
// 5–7 µs of kernel time whatever its size, so those ~50 calls were about
// 30 % of `serve`'s CPU per remember. Here the writer's WAL file gathers a
// commit's frames in a buffer and writes them with one call when the
// commit frame's page arrives, before SQLite publishes the commit to
// readers (that happens after the frames are written, in the wal-index).
//
// Durability is unchanged: when SQLite's write of the commit frame
// returns, every frame of the transaction is in the file, as before; an
// xSync (synchronous=FULL, checkpoints) writes the buffer out first and
// then syncs. Any other call on the file (a read, its size, a truncate, a
// file control, close) writes the buffer out first, so SQLite never sees
// the file without its own writes. Only appended frames wait in the
// buffer: bytes written again below the log's end (a page changed twice
// in a transaction, the checksums SQLite then rewrites) are written at
// once, since the last of them, the commit frame's header, comes after the
// commit's page and nothing would follow it. A failed write fails the commit, as a
// failed frame write did. Only the writer's WAL is wrapped; the database
// file, the -shm and the readers' handles are the default VFS's own.
//
// This is the one place in the store that uses unsafe: SQLite's VFS is a C
// structure of function pointers, which the pure-Go SQLite (modernc)
// represents as Go function values behind uintptrs.
const walVFSName = "mnemon-wal"

const (
	walHeader      = 32 // bytes of the WAL file's header
	walFrameHeader = 24 // bytes of a WAL frame's header
	// walBufferMax bounds one write call: the default VFS's write masks a
	// call's length to 17 bits (seekAndWriteFd), so a longer buffer would
	// be written in pieces anyway, and a length of 128 KiB exactly would
	// write nothing. A remember's commit (~25 frames of 4 KiB) fits.
	walBufferMax = 0x1ffff
)

var walVFS struct {
	once sync.Once
	err  error

	base     uintptr // the default VFS (sqlite3_vfs*)
	baseOpen uintptr // its xOpen

	mu      sync.Mutex
	methods map[uintptr]uintptr   // the default VFS's io_methods -> ours
	files   map[uintptr]*walWrite // the wrapped WAL files, by sqlite3_file*
}

// walRewrites counts the writes of bytes already appended (tests check
// that they exercise that path).
var walRewrites atomic.Int64

// walWrite is a WAL file's frames not yet written.
type walWrite struct {
	base uintptr // the file's own io_methods
	buf  uintptr // C memory: the unwritten bytes, which belong at off
	cap  int
	n    int
	off  int64
	// end is the offset past the last byte appended to the log since it
	// last started over; a write below it rewrites appended bytes.
	end int64
	// commitNext: the last write was a commit frame's header, so the
	// next (its page) ends the commit.
	commitNext bool
}

// registerWALVFS registers walVFSName once per process.
func registerWALVFS() error {
	walVFS.once.Do(func() {
		tls := libc.NewTLS() // lives with the VFS, for the process
		base := sqlite3.Xsqlite3_vfs_find(tls, 0)
		if base == 0 {
			walVFS.err = errors.New("sqlite: no default VFS")
			return
		}
		size := types.Size_t(unsafe.Sizeof(sqlite3.Tsqlite3_vfs{}))
		p := libc.Xcalloc(tls, 1, size)
		name, err := libc.CString(walVFSName)
		if p == 0 || err != nil {
			walVFS.err = errors.New("sqlite: out of memory registering the WAL VFS")
			return
		}
		v := (*sqlite3.Tsqlite3_vfs)(cPtr(p))
		*v = *(*sqlite3.Tsqlite3_vfs)(cPtr(base))
		v.FpNext = 0
		v.FzName = name
		v.FxOpen = cFunc(walOpen)
		walVFS.base, walVFS.baseOpen = base, (*sqlite3.Tsqlite3_vfs)(cPtr(base)).FxOpen
		walVFS.methods = map[uintptr]uintptr{}
		walVFS.files = map[uintptr]*walWrite{}
		if rc := sqlite3.Xsqlite3_vfs_register(tls, p, 0); rc != sqlite3.SQLITE_OK {
			walVFS.err = errors.New("sqlite: registering the WAL VFS failed")
		}
	})
	return walVFS.err
}

// cFunc is a Go function as a C function pointer, the form modernc's
// SQLite stores in its structures (a pointer to the function value; a
// top-level function's value is static and never moves).
func cFunc[T any](f T) uintptr {
	return *(*uintptr)(unsafe.Pointer(&struct{ f T }{f}))
}

// goFunc is the reverse of cFunc, to call one of SQLite's function pointers.
func goFunc[T any](fp uintptr) T {
	return *(*T)(unsafe.Pointer(&struct{ fp uintptr }{fp}))
}

type (
	xOpenFn        = func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32
	xCloseFn       = func(*libc.TLS, uintptr) int32
	xReadWriteFn   = func(*libc.TLS, uintptr, uintptr, int32, int64) int32
	xTruncateFn    = func(*libc.TLS, uintptr, int64) int32
	xSyncFn        = func(*libc.TLS, uintptr, int32) int32
	xFileSizeFn    = func(*libc.TLS, uintptr, uintptr) int32
	xFileControlFn = func(*libc.TLS, uintptr, int32, uintptr) int32
)

// cPtr is an address in C memory (modernc's libc heap, outside Go's, so
// nothing moves it) as a pointer.
func cPtr(p uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&p))
}

func ioMethods(p uintptr) *sqlite3.Tsqlite3_io_methods {
	return (*sqlite3.Tsqlite3_io_methods)(cPtr(p))
}

// walOpen opens a file with the default VFS and, if it is a WAL, routes
// its writes through a buffer.
func walOpen(tls *libc.TLS, _, name, file uintptr, flags int32, outFlags uintptr) int32 {
	rc := goFunc[xOpenFn](walVFS.baseOpen)(tls, walVFS.base, name, file, flags, outFlags)
	if rc != sqlite3.SQLITE_OK || flags&sqlite3.SQLITE_OPEN_WAL == 0 {
		return rc
	}
	f := (*sqlite3.Tsqlite3_file)(cPtr(file))
	if f.FpMethods == 0 {
		return rc
	}
	walVFS.mu.Lock()
	defer walVFS.mu.Unlock()
	ours, ok := walVFS.methods[f.FpMethods]
	if !ok {
		// A copy of the file's methods with the ones that write, or see
		// what was written, replaced; kept for the process.
		ours = libc.Xmalloc(tls, types.Size_t(unsafe.Sizeof(sqlite3.Tsqlite3_io_methods{})))
		if ours == 0 {
			return rc // unwrapped: correct, only slower
		}
		m := ioMethods(ours)
		*m = *ioMethods(f.FpMethods)
		m.FxClose = cFunc(walClose)
		m.FxRead = cFunc(walRead)
		m.FxWrite = cFunc(walWriteAt)
		m.FxTruncate = cFunc(walTruncate)
		m.FxSync = cFunc(walSync)
		m.FxFileSize = cFunc(walFileSize)
		m.FxFileControl = cFunc(walFileControl)
		walVFS.methods[f.FpMethods] = ours
	}
	walVFS.files[file] = &walWrite{base: f.FpMethods}
	f.FpMethods = ours
	return rc
}

func walFileOf(file uintptr) *walWrite {
	walVFS.mu.Lock()
	w := walVFS.files[file]
	walVFS.mu.Unlock()
	return w
}

// flush writes the buffered bytes with one call of the file's own xWrite.
// On failure the bytes are dropped: the transaction they belong to fails.
func (w *walWrite) flush(tls *libc.TLS, file uintptr) int32 {
	if w.n == 0 {
		return sqlite3.SQLITE_OK
	}
	n := w.n
	w.n = 0
	return w.write(tls, file, w.buf, int32(n), w.off)
}

func walWriteAt(tls *libc.TLS, file, data uintptr, amt int32, off int64) int32 {
	w := walFileOf(file)
	// Read before anything is written out: a commit's page must end the
	// commit even when the buffer was too full to take it with the rest.
	endsCommit := w.commitNext
	w.commitNext = false
	if off == 0 && amt == walHeader {
		// The log starts over (the first commit after a checkpoint
		// caught up): what follows is appended from here.
		if rc := w.flush(tls, file); rc != sqlite3.SQLITE_OK {
			return rc
		}
		w.end = 0
	}
	if off < w.end {
		// Bytes already appended, written again: a page a transaction
		// changed twice, or the headers whose checksums SQLite rewrites
		// after such a change (the last of them, the commit frame's, comes
		// after the commit's page). Written now, after what came before.
		if rc := w.flush(tls, file); rc != sqlite3.SQLITE_OK {
			return rc
		}
		walRewrites.Add(1)
		return w.write(tls, file, data, amt, off)
	}
	if w.n > 0 && (off != w.off+int64(w.n) || w.n+int(amt) > walBufferMax) {
		// Not the next byte, or no room: what came before goes first.
		if rc := w.flush(tls, file); rc != sqlite3.SQLITE_OK {
			return rc
		}
	}
	w.end = off + int64(amt)
	if int(amt) > walBufferMax {
		return w.write(tls, file, data, amt, off)
	}
	if w.cap == 0 {
		p := libc.Xmalloc(tls, types.Size_t(walBufferMax))
		if p == 0 {
			return w.write(tls, file, data, amt, off) // unbuffered: correct, only slower
		}
		w.buf, w.cap = p, walBufferMax
	}
	if w.n == 0 {
		w.off = off
	}
	libc.Xmemcpy(tls, w.buf+uintptr(w.n), data, types.Size_t(amt))
	w.n += int(amt)
	// A frame header's second word is the database size in pages after a
	// commit, zero in every other frame.
	w.commitNext = amt == walFrameHeader && binary.BigEndian.Uint32(unsafe.Slice((*byte)(cPtr(data)), walFrameHeader)[4:8]) != 0
	if endsCommit {
		return w.flush(tls, file)
	}
	return sqlite3.SQLITE_OK
}

// write writes through, with the file's own xWrite.
func (w *walWrite) write(tls *libc.TLS, file, data uintptr, amt int32, off int64) int32 {
	return goFunc[xReadWriteFn](ioMethods(w.base).FxWrite)(tls, file, data, amt, off)
}

func walRead(tls *libc.TLS, file, data uintptr, amt int32, off int64) int32 {
	w := walFileOf(file)
	if rc := w.flush(tls, file); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return goFunc[xReadWriteFn](ioMethods(w.base).FxRead)(tls, file, data, amt, off)
}

func walTruncate(tls *libc.TLS, file uintptr, size int64) int32 {
	w := walFileOf(file)
	if rc := w.flush(tls, file); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return goFunc[xTruncateFn](ioMethods(w.base).FxTruncate)(tls, file, size)
}

func walSync(tls *libc.TLS, file uintptr, flags int32) int32 {
	w := walFileOf(file)
	if rc := w.flush(tls, file); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return goFunc[xSyncFn](ioMethods(w.base).FxSync)(tls, file, flags)
}

func walFileSize(tls *libc.TLS, file, size uintptr) int32 {
	w := walFileOf(file)
	if rc := w.flush(tls, file); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return goFunc[xFileSizeFn](ioMethods(w.base).FxFileSize)(tls, file, size)
}

func walFileControl(tls *libc.TLS, file uintptr, op int32, arg uintptr) int32 {
	w := walFileOf(file)
	if rc := w.flush(tls, file); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return goFunc[xFileControlFn](ioMethods(w.base).FxFileControl)(tls, file, op, arg)
}

func walClose(tls *libc.TLS, file uintptr) int32 {
	walVFS.mu.Lock()
	w := walVFS.files[file]
	delete(walVFS.files, file)
	walVFS.mu.Unlock()
	rc := w.flush(tls, file)
	if w.buf != 0 {
		libc.Xfree(tls, w.buf)
	}
	if crc := goFunc[xCloseFn](ioMethods(w.base).FxClose)(tls, file); rc == sqlite3.SQLITE_OK {
		rc = crc
	}
	return rc
}
