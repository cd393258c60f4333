package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/mnemon-dev/mnemon/memory"
)

// Opening a 100k-version namespace spent as long decoding the rows (ids
// from their compact form, strings, evidence lists and spans, symbols) as
// SQLite spent reading them, all on the one goroutine the rest of the load
// waited on. StreamVersionBatches copies each row out of SQLite as it is
// (values and bytes, no decoding) into a batch, and the index loader
// decodes the batches on every core while this goroutine reads on.

var _ memory.VersionBatchStreamer = (*Store)(nil)

// streamBatchRows is how many rows a batch of StreamVersionBatches holds.
const streamBatchRows = 256

// StreamVersionBatches implements memory.VersionBatchStreamer over
// StreamVersions' statement. A batch's decode may run after the scan has
// ended: a batch holds copies of its rows, nothing of SQLite's.
func (s *Store) StreamVersionBatches(ctx context.Context, p memory.ScanParams, fn func(decode func() ([]*memory.Version, error)) error) error {
	const op = "stream versions"
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("sqlite: %s: %w", op, err)
	}
	if s.closed.Load() {
		return fmt.Errorf("sqlite: %s: %w", op, errClosed)
	}
	// Decoders, with their symbol tables, are reused by the goroutines
	// that decode this stream's batches, and by no other stream.
	decoders := &sync.Pool{New: func() any { return &decoder{packed: true} }}
	var b *rawBatch
	textHint, blobHint := 0, 0
	send := func() error {
		full := b
		b = nil
		textHint, blobHint = full.text.Len(), len(full.blobs)
		if err := fn(func() ([]*memory.Version, error) { return full.decode(decoders) }); err != nil {
			return errStopped{err}
		}
		return nil
	}
	err := fastRowScan(ctx, s.fast, qStreamVersions, p.Namespace, func(r *fastRows) error {
		if b == nil {
			b = newRawBatch(r.cols, textHint, blobHint)
		}
		b.add(r)
		if b.rows == streamBatchRows {
			return send()
		}
		return nil
	})
	if err == nil && b != nil {
		err = send()
	}
	var stopped errStopped
	if errors.As(err, &stopped) {
		return stopped.err
	}
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", op, err)
	}
	return nil
}

// rawBatch holds rows copied out of SQLite undecoded: per cell its storage
// class and either its number (an INTEGER, a REAL's bits) or where its
// bytes are (offset<<32 | length) in text (TEXT) or blobs (BLOB).
type rawBatch struct {
	cols  []string
	rows  int
	kinds []colKind
	nums  []int64
	// text is every TEXT value of the batch, one after the other: decoded,
	// it becomes one string whose slices are the versions' strings (one
	// allocation rather than one per value).
	text  strings.Builder
	blobs []byte
}

func newRawBatch(cols []string, textHint, blobHint int) *rawBatch {
	n := streamBatchRows * len(cols)
	b := &rawBatch{cols: cols, kinds: make([]colKind, 0, n), nums: make([]int64, 0, n),
		blobs: make([]byte, 0, blobHint+blobHint/8)}
	b.text.Grow(textHint)
	return b
}

// add copies the current row of r.
func (b *rawBatch) add(r *fastRows) {
	tls, stmt := r.c.tls, r.stmt
	for i := range b.cols {
		k := r.kind(i)
		var x int64
		switch k {
		case kindInt:
			x = r.int64At(i)
		case kindFloat:
			x = int64(math.Float64bits(r.float64At(i)))
		case kindText:
			p := sqlite3.Xsqlite3_column_text(tls, stmt, int32(i))
			n := int(sqlite3.Xsqlite3_column_bytes(tls, stmt, int32(i)))
			off := b.text.Len()
			if p != 0 && n > 0 {
				b.text.Write(libc.GoBytes(p, n))
			} else {
				n = 0
			}
			x = int64(off)<<32 | int64(n)
		case kindBlob:
			p := sqlite3.Xsqlite3_column_blob(tls, stmt, int32(i))
			n := int(sqlite3.Xsqlite3_column_bytes(tls, stmt, int32(i)))
			off := len(b.blobs)
			if p != 0 && n > 0 {
				b.blobs = append(b.blobs, libc.GoBytes(p, n)...)
			} else {
				n = 0
			}
			x = int64(off)<<32 | int64(n)
		}
		b.kinds = append(b.kinds, k)
		b.nums = append(b.nums, x)
	}
	b.rows++
}

// decode decodes the batch's rows into one block of versions. Their
// strings are slices of one string holding the batch's text, so a version
// kept keeps its batch's text (the index keeps every version it loads);
// symbols are copied, since a decoder's table outlives the batch.
func (b *rawBatch) decode(decoders *sync.Pool) ([]*memory.Version, error) {
	d := decoders.Get().(*decoder)
	defer func() {
		d.src = nil
		decoders.Put(d)
	}()
	text := b.text.String()
	if b.text.Cap()-len(text) > len(text)/8 {
		// Grown past its need (or sized for a larger batch): the versions
		// keep it, so not its slack.
		text = strings.Clone(text)
	}
	r := &rawRow{b: b, text: text}
	block := make([]memory.Version, b.rows)
	out := make([]*memory.Version, b.rows)
	for i := range block {
		r.base = i * len(b.cols)
		d.reset(r, len(b.cols))
		decodeVersionInto(d, &block[i])
		if d.err != nil {
			return nil, fmt.Errorf("sqlite: stream versions: %w", d.err)
		}
		out[i] = &block[i]
	}
	return out, nil
}

// rawRow is one row of a rawBatch, read as a row.
type rawRow struct {
	b    *rawBatch
	text string
	base int // the row's first cell
}

func (r *rawRow) kind(i int) colKind      { return r.b.kinds[r.base+i] }
func (r *rawRow) int64At(i int) int64     { return r.b.nums[r.base+i] }
func (r *rawRow) float64At(i int) float64 { return math.Float64frombits(uint64(r.b.nums[r.base+i])) }
func (r *rawRow) name(i int) string       { return r.b.cols[i] }
func (r *rawRow) bounds(i int) (int, int) {
	x := r.b.nums[r.base+i]
	return int(x >> 32), int(x>>32) + int(uint32(x))
}
func (r *rawRow) textAt(i int) string { lo, hi := r.bounds(i); return r.text[lo:hi] }
func (r *rawRow) symAt(i int, syms *symbols) string {
	lo, hi := r.bounds(i)
	if lo == hi {
		return ""
	}
	return syms.internCopy(r.text[lo:hi])
}

// blobAt returns the value's bytes in the batch, capped so an append
// cannot reach the next value: the caller may keep them but not change
// them.
func (r *rawRow) blobAt(i int) []byte {
	lo, hi := r.bounds(i)
	if lo == hi {
		return nil
	}
	return r.b.blobs[lo:hi:hi]
}
