package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// zeroTimeNanos stores the zero time.Time. It is the smallest int64, so the
// zero time sorts before every real instant, as it does in Go; real instants
// are limited to years 1678..2261 (what int64 nanoseconds can hold), which
// keeps this value unambiguous.
const zeroTimeNanos = math.MinInt64

// encoder turns domain values into column values and remembers the first
// failure, so an insert's argument list reads as one expression and the
// error is still checked once, before the statement runs.
type encoder struct{ err error }

func (c *encoder) fail(field string, err error) {
	if c.err == nil {
		c.err = fmt.Errorf("%s: %w", field, err)
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
	b, err := json.Marshal(v)
	if err != nil {
		c.fail(field, memory.Invalidf("%v", err))
		return ""
	}
	return string(b)
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

// decoder reads one row that was scanned into []any, the cheapest path
// through database/sql (no reflection, no conversion), and converts each
// value to its domain type. The first unexpected type or undecodable JSON is
// kept and reported; nothing is silently zeroed.
type decoder struct {
	cols []string
	vals []any
	ptrs []any
	i    int
	err  error
}

func newDecoder(rows *sql.Rows) (*decoder, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	d := &decoder{cols: cols, vals: make([]any, len(cols)), ptrs: make([]any, len(cols))}
	for i := range d.vals {
		d.ptrs[i] = &d.vals[i]
	}
	return d, nil
}

// scan reads the next row's values; call it after rows.Next.
func (d *decoder) scan(rows *sql.Rows) error {
	d.i, d.err = 0, nil
	return rows.Scan(d.ptrs...)
}

func (d *decoder) next() any {
	if d.i >= len(d.vals) {
		d.fail("", "a column", nil)
		return nil
	}
	v := d.vals[d.i]
	d.i++
	return v
}

func (d *decoder) fail(col, want string, got any) {
	if d.err != nil {
		return
	}
	if col == "" && d.i > 0 && d.i <= len(d.cols) {
		col = d.cols[d.i-1]
	}
	d.err = fmt.Errorf("decode column %q: want %s, got %T", col, want, got)
}

func (d *decoder) str() string {
	switch v := d.next().(type) {
	case string:
		return v
	case []byte:
		return string(v)
	default:
		d.fail("", "text", v)
		return ""
	}
}

func (d *decoder) int() int64 {
	v := d.next()
	n, ok := v.(int64)
	if !ok {
		d.fail("", "integer", v)
	}
	return n
}

func (d *decoder) float() float64 {
	switch v := d.next().(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	default:
		d.fail("", "real", v)
		return 0
	}
}

func (d *decoder) bool() bool { return d.int() != 0 }

func (d *decoder) blob() []byte {
	switch v := d.next().(type) {
	case nil:
		return nil
	case []byte:
		// database/sql already copied the driver's bytes for a *any
		// destination, so the slice is ours to keep.
		return v
	default:
		d.fail("", "blob", v)
		return nil
	}
}

func (d *decoder) time() time.Time {
	n := d.int()
	if n == zeroTimeNanos {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func (d *decoder) timePtr() *time.Time {
	if d.i < len(d.vals) && d.vals[d.i] == nil {
		d.i++
		return nil
	}
	t := d.time()
	return &t
}

// json decodes a JSON column into dst. "null" (a nil slice or map at write)
// leaves dst nil without calling the decoder, which matters when scanning
// 100k versions whose evidence is mostly empty.
func (d *decoder) json(dst any) {
	s := d.str()
	if s == "null" || d.err != nil {
		return
	}
	if err := json.Unmarshal([]byte(s), dst); err != nil {
		d.err = fmt.Errorf("decode column %q: %w", d.cols[d.i-1], err)
	}
}
