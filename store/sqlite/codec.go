package sqlite

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// zeroTimeNanos stores the zero time.Time. It is the smallest int64, so the
// zero time sorts before every real instant, as it does in Go; real instants
// are limited to years 1678..2261 (what int64 nanoseconds can hold), which
// keeps this value unambiguous.
const zeroTimeNanos = math.MinInt64

// A time column said once (migration 0027): episodes' recorded_at beside
// occurred_at, memories' updated_at beside created_at. Both are nearly
// always the same instant, so the second stores 0 (which takes no bytes)
// when it is its reference's very value. The instant 0 itself (1970-01-01
// exactly) is then stored as epochNanos, a value no real instant has:
// years before 1678 are refused (encoder.time), and zeroTimeNanos is the
// smallest int64, not this one.
const epochNanos = math.MinInt64 + 1

// sameTime is the stored form of t, a time column read beside ref.
func sameTime(t, ref int64) int64 {
	switch t {
	case ref:
		return 0
	case 0:
		return epochNanos
	}
	return t
}

// timeFromStored reverses sameTime.
func timeFromStored(stored, ref int64) int64 {
	switch stored {
	case 0:
		return ref
	case epochNanos:
		return 0
	}
	return stored
}

// encoder turns domain values into column values and remembers the first
// failure, so an insert's argument list reads as one expression and the
// error is still checked once, before the statement runs.
type encoder struct {
	err  error
	bufs *sync.Pool // optional: reused buffers for large encoded values
	held []*[]byte  // buffers in use until release
}

func (c *encoder) fail(field string, err error) {
	if c.err == nil {
		c.err = memory.Within(err, "%s", field)
	}
}

func (c *encoder) time(field string, t time.Time) int64 {
	if t.IsZero() {
		return zeroTimeNanos
	}
	if y := t.UTC().Year(); y < 1678 || y > 2261 {
		c.fail(field, memory.Invalidf("%s is outside the storable years 1678-2261", t.Format(time.RFC3339Nano)))
		return 0
	}
	return t.UnixNano()
}

// timePtr stores nil as NULL.
func (c *encoder) timePtr(field string, t *time.Time) any {
	if t == nil {
		return nil
	}
	return c.time(field, *t)
}

// json encodes v; nil slices and maps become JSON null, so they come back
// nil, and empty ones come back empty.
func (c *encoder) json(field string, v any) string {
	var (
		b   []byte
		err error
	)
	if m, ok := v.(json.Marshaler); ok {
		// Types with their own encoder (trace items) are trusted to write
		// valid JSON; json.Marshal would re-scan every byte to check.
		b, err = m.MarshalJSON()
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		c.fail(field, memory.Invalidf("%v", err))
		return ""
	}
	return string(b)
}

// traceItems encodes trace items in their binary form, into a recycled
// buffer when the executor has one. The driver copies bound bytes, so the
// buffer is free again once the statement has run; the caller returns it
// with release.
//
// SQLite stores them in the compact version 6 (memory.AppendCompact):
// traces were the largest item of a store after its versions, and SQLite
// does not compress values itself. Version 4 (deflated) was smaller, but
// deflating cost the trace writer more CPU than the rest of a retrieval's
// trace; rows of every version still read.
func (c *encoder) traceItems(items memory.TraceItems) []byte {
	if c.bufs == nil {
		return items.AppendCompact(nil)
	}
	buf := c.buf()
	*buf = items.AppendCompact((*buf)[:0])
	return *buf
}

// buf takes a buffer from the pool, held until release.
func (c *encoder) buf() *[]byte {
	b, _ := c.bufs.Get().(*[]byte)
	if b == nil {
		b = new([]byte)
	}
	c.held = append(c.held, b)
	return b
}

// release returns the encoder's buffers to the pool.
func (c *encoder) release() {
	for _, b := range c.held {
		c.bufs.Put(b)
	}
	c.held = nil
}

// traceItems decodes a trace's items: the binary encoding, or JSON text
// written before migration 3.
func (d *decoder) traceItems() memory.TraceItems {
	b := d.blob()
	if d.err != nil {
		return nil
	}
	if len(b) > 0 && (b[0] == '[' || b[0] == 'n') {
		var items memory.TraceItems
		if s := string(b); s != "null" {
			if err := decodeJSON(s, &items); err != nil {
				d.err = fmt.Errorf("decode column %q: %w", d.src.name(d.i-1), err)
			}
		}
		return items
	}
	items, err := memory.DecodeTraceItems(b)
	if err != nil {
		d.err = fmt.Errorf("decode column %q: %w", d.src.name(d.i-1), err)
	}
	return items
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// blob stores an empty embedding as NULL so that "no embedding" has one
// representation.
func blob(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// colKind is the storage class of one column value.
type colKind uint8

const (
	kindNull colKind = iota
	kindInt
	kindFloat
	kindText
	kindBlob
)

func (k colKind) String() string {
	return [...]string{"NULL", "INTEGER", "REAL", "TEXT", "BLOB"}[k]
}

// row is one result row, read column by column. Two sources implement it:
// rows scanned through database/sql, and rows read straight from SQLite by
// the fast scan (fastscan.go), so both share the decoders below.
type row interface {
	kind(i int) colKind
	int64At(i int) int64
	float64At(i int) float64
	textAt(i int) string
	// symAt is textAt for columns with few distinct values (status, kind,
	// scope ids...): equal values share one string from syms.
	symAt(i int, syms *symbols) string
	blobAt(i int) []byte // a copy the caller may keep
	name(i int) string
}

// decoder walks a row's columns in order and converts each to its domain
// type. The first unexpected type or undecodable JSON is kept and
// reported; nothing is silently zeroed.
type decoder struct {
	src  row
	n    int // number of columns
	i    int // next column
	err  error
	syms symbols
	// packed keeps an embedding in its stored form (search.PackVector's)
	// rather than unpacking it: for a caller that decodes it anyway
	// (search.DecodeVector reads both), see StreamVersionBatches.
	packed bool
}

func (d *decoder) reset(src row, n int) {
	d.src, d.n, d.i, d.err = src, n, 0, nil
}

// symbols interns the values of low-cardinality columns for the length of
// one query. A scan of 100k versions would otherwise allocate a dozen
// copies of "active", "semantic", the namespace and the user id per row,
// and the engine keeps those versions in memory. The table stops growing
// at maxSymbols, so a column that turns out to have many values costs
// only lookups.
type symbols map[string]string

const maxSymbols = 4096

// intern returns the table's copy of b, adding one if there is room. The
// lookup with string(b) does not allocate.
func (t *symbols) intern(b []byte) string {
	if s, ok := (*t)[string(b)]; ok {
		return s
	}
	s := string(b)
	t.add(s)
	return s
}

// internCopy is intern for a string that must not be kept (a slice of
// a larger one): the table keeps a copy.
func (t *symbols) internCopy(s string) string {
	if v, ok := (*t)[s]; ok {
		return v
	}
	s = strings.Clone(s)
	t.add(s)
	return s
}

// internString is intern for a value that is already a string.
func (t *symbols) internString(s string) string {
	if v, ok := (*t)[s]; ok {
		return v
	}
	t.add(s)
	return s
}

func (t *symbols) add(s string) {
	if *t == nil {
		*t = make(symbols)
	}
	if len(*t) < maxSymbols {
		(*t)[s] = s
	}
}

// next returns the index of the next column, or -1 past the end.
func (d *decoder) next() int {
	if d.i >= d.n {
		if d.err == nil {
			d.err = fmt.Errorf("decode: row has only %d columns", d.n)
		}
		return -1
	}
	d.i++
	return d.i - 1
}

func (d *decoder) fail(i int, want string) {
	if d.err == nil {
		d.err = fmt.Errorf("decode column %q: want %s, got %s", d.src.name(i), want, d.src.kind(i))
	}
}

func (d *decoder) str() string {
	i := d.next()
	if i < 0 {
		return ""
	}
	if d.src.kind(i) != kindText {
		d.fail(i, "TEXT")
		return ""
	}
	return d.src.textAt(i)
}

// sym reads a TEXT column with few distinct values, interned.
func (d *decoder) sym() string {
	i := d.next()
	if i < 0 {
		return ""
	}
	if d.src.kind(i) != kindText {
		d.fail(i, "TEXT")
		return ""
	}
	return d.src.symAt(i, &d.syms)
}

func (d *decoder) int() int64 {
	i := d.next()
	if i < 0 {
		return 0
	}
	if d.src.kind(i) != kindInt {
		d.fail(i, "INTEGER")
		return 0
	}
	return d.src.int64At(i)
}

func (d *decoder) float() float64 {
	i := d.next()
	if i < 0 {
		return 0
	}
	switch d.src.kind(i) {
	case kindFloat:
		return d.src.float64At(i)
	case kindInt:
		return float64(d.src.int64At(i))
	default:
		d.fail(i, "REAL")
		return 0
	}
}

func (d *decoder) bool() bool { return d.int() != 0 }

// nullStr reads a nullable TEXT column; NULL is "".
func (d *decoder) nullStr() string {
	if d.i < d.n && d.src.kind(d.i) == kindNull {
		d.i++
		return ""
	}
	return d.str()
}

// nullText is s for a nullable TEXT column: NULL when !ok.
func nullText(s string, ok bool) any {
	if !ok {
		return nil
	}
	return s
}

// blob reads a nullable BLOB; NULL is nil.
func (d *decoder) blob() []byte {
	i := d.next()
	if i < 0 {
		return nil
	}
	switch d.src.kind(i) {
	case kindNull:
		return nil
	case kindBlob:
		return d.src.blobAt(i)
	default:
		d.fail(i, "BLOB")
		return nil
	}
}

// embedding reads a version's vector: the bytes it was written with, which
// the row may hold packed (search.PackVector, migration 0020).
func (d *decoder) embedding() []byte {
	b := d.blob()
	if d.err != nil || d.packed || !search.IsPacked(b) {
		return b
	}
	u, err := search.UnpackVector(b)
	if err != nil {
		d.err = fmt.Errorf("decode column %q: %w", d.src.name(d.i-1), err)
		return nil
	}
	return u
}

func (d *decoder) time() time.Time { return nanosTime(d.int()) }

// timePair reads a time and the next column, a time stored by sameTime
// against it.
func (d *decoder) timePair() (time.Time, time.Time) {
	ref := d.int()
	return nanosTime(ref), nanosTime(timeFromStored(d.int(), ref))
}

// timePtr reads a nullable time; NULL is nil.
func (d *decoder) timePtr() *time.Time {
	if d.i < d.n && d.src.kind(d.i) == kindNull {
		d.i++
		return nil
	}
	t := d.time()
	return &t
}

// json decodes a JSON column into dst. "null" (a nil slice or map at write)
// leaves dst nil.
func (d *decoder) json(dst any) {
	s := d.str()
	if s == "null" || s == "" || d.err != nil { // "": episodes' nil metadata (migration 0021)
		return
	}
	if err := decodeJSON(s, dst); err != nil {
		d.err = fmt.Errorf("decode column %q: %w", d.src.name(d.i-1), err)
	}
}

// sqlRow is a row scanned through database/sql into []any, the cheapest
// destination it offers (no reflection, no conversion).
type sqlRow struct {
	cols []string
	vals []any
	ptrs []any
}

func newSQLRow(rows rowSet) (*sqlRow, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	r := &sqlRow{cols: cols, vals: make([]any, len(cols)), ptrs: make([]any, len(cols))}
	for i := range r.vals {
		r.ptrs[i] = &r.vals[i]
	}
	return r, nil
}

func (r *sqlRow) scan(rows rowSet) error { return rows.Scan(r.ptrs...) }

func (r *sqlRow) kind(i int) colKind {
	switch r.vals[i].(type) {
	case int64:
		return kindInt
	case float64:
		return kindFloat
	case string:
		return kindText
	case []byte:
		return kindBlob
	default:
		return kindNull
	}
}

func (r *sqlRow) int64At(i int) int64     { return r.vals[i].(int64) }
func (r *sqlRow) float64At(i int) float64 { return r.vals[i].(float64) }
func (r *sqlRow) textAt(i int) string     { return r.vals[i].(string) }

func (r *sqlRow) symAt(i int, syms *symbols) string { return syms.internString(r.vals[i].(string)) }
func (r *sqlRow) name(i int) string                 { return r.cols[i] }

// blobAt hands out the slice as is: database/sql already copied the
// driver's bytes for a *any destination.
func (r *sqlRow) blobAt(i int) []byte { return r.vals[i].([]byte) }
