package memory

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Binary encodings of trace items, told apart by their first byte. Version
// 1 wrote every string and float64 in full: 24 KB for the ~120 candidates
// of a typical retrieval, most of it two 30-byte ids, repeated names and
// eight-byte numbers that have four decimals. Version 2 (written since)
// keeps the same values exactly in about a third of that; both read back.
//
// Version 4 is version 2 or 3 deflated (tracezip.go).
//
// Version 3 is version 2 with the Packed byte read as flags: 1 packed,
// 2 used by an answer (TraceItem.Used). It is written only when an item
// is Used, so a plain retrieval's items encode exactly as before.
const (
	traceBinaryV1      = 1
	traceBinaryVersion = 2
	traceBinaryV3      = 3
)

// ErrBadTraceItems reports a binary trace item encoding that cannot be read.
var ErrBadTraceItems = errors.New("bad trace items encoding")

// AppendBinary appends a compact binary encoding of the items to b. Every
// retrieval writes its trace, so stores keep this rather than JSON: it is
// several times cheaper to write and smaller on disk. DecodeTraceItems
// reads it back exactly.
//
// Version 2, after the version byte, a nil flag and the item count:
//
//	MemoryID     front-coded: uvarint bytes shared with the previous
//	             item's MemoryID, then the rest as a string
//	VersionID    its first 4 bytes (the id's type, "ver_") as a name,
//	             then front-coded against MemoryID past its first 4
//	             (ids made in one write share their time and counter)
//	Channels     list length (0 nil, else 1+n); per hit a name, a varint
//	             rank and a number
//	Fused        number
//	Terms        list length; per term a name and a number
//	Final        number
//	Rank, Tokens varints
//	Trust        number
//	Action       name
//	Packed       byte
//	Reason       name
//	Explanation  string
//
// A name is a uvarint: i+1 for the i-th name of the encoding's table, or 0
// followed by a string that joins the table (until it holds maxTraceNames).
// A number is a varint: even, 2q for q/10,000 when that is exactly the
// value (scores are mostly rounded to four decimals); 1, followed by the
// eight bytes of the float64, for any other value.
func (ts TraceItems) AppendBinary(b []byte) []byte {
	version := byte(traceBinaryVersion)
	for i := range ts {
		if ts[i].Used {
			version = traceBinaryV3
			break
		}
	}
	b = append(b, version)
	if ts == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(ts)))
	var names traceNames
	prev := ""
	for i := range ts {
		t := &ts[i]
		b = appendFront(b, prev, t.MemoryID)
		prev = t.MemoryID
		head := t.VersionID[:min(idHead, len(t.VersionID))]
		b = names.append(b, head)
		b = appendFront(b, t.MemoryID[min(idHead, len(t.MemoryID)):], t.VersionID[len(head):])
		b = appendMapLen(b, t.Channels == nil, len(t.Channels))
		for _, h := range t.Channels {
			b = names.append(b, h.Channel)
			b = binary.AppendVarint(b, int64(h.Rank))
			b = appendNum(b, h.Score)
		}
		b = appendNum(b, t.Fused)
		b = appendMapLen(b, t.Terms == nil, len(t.Terms))
		for _, term := range t.Terms {
			b = names.append(b, term.Name)
			b = appendNum(b, term.Value)
		}
		b = appendNum(b, t.Final)
		b = binary.AppendVarint(b, int64(t.Rank))
		b = binary.AppendVarint(b, int64(t.Tokens))
		b = appendNum(b, t.Trust)
		b = names.append(b, string(t.Action))
		var flags byte
		if t.Packed {
			flags |= 1
		}
		if t.Used {
			flags |= 2
		}
		b = append(b, flags)
		b = names.append(b, t.Reason)
		b = appendStr(b, t.Explanation)
	}
	return b
}

// idHead is the length of an id's type prefix ("mem_", "ver_").
const idHead = 4

// maxTraceNames bounds one encoding's name table, and so the linear search
// through it: a trace has a dozen distinct channel, term, action and reason
// names; reasons that name an id or a number are rarer.
const maxTraceNames = 64

// traceNames is the name table of one encoding or decoding.
type traceNames struct {
	list []string
}

func (t *traceNames) append(b []byte, s string) []byte {
	for i, x := range t.list {
		if x == s {
			return binary.AppendUvarint(b, uint64(i)+1)
		}
	}
	if len(t.list) < maxTraceNames {
		t.list = append(t.list, s)
	}
	return appendStr(append(b, 0), s)
}

func (t *traceNames) read(r *binReader) string {
	i := r.uvarint()
	if i == 0 {
		s := r.str()
		if len(t.list) < maxTraceNames {
			t.list = append(t.list, s)
		}
		return s
	}
	if i > uint64(len(t.list)) {
		r.fail("name")
		return ""
	}
	return t.list[i-1]
}

// appendFront writes s as the length of its common prefix with ref and the
// rest.
func appendFront(b []byte, ref, s string) []byte {
	n := 0
	for n < len(ref) && n < len(s) && ref[n] == s[n] {
		n++
	}
	b = binary.AppendUvarint(b, uint64(n))
	return appendStr(b, s[n:])
}

func (r *binReader) front(ref string) string {
	n := r.uvarint()
	if n > uint64(len(ref)) {
		r.fail("shared prefix")
		return ""
	}
	rest := r.str()
	if r.err != nil {
		return ""
	}
	return ref[:n] + rest
}

// numScale is the fixed-point scale of short numbers: four decimals.
const numScale = 10000

func appendNum(b []byte, v float64) []byte {
	if x := v * numScale; !math.IsNaN(x) && math.Abs(x) < 1<<52 {
		q := int64(math.Round(x))
		if back := float64(q) / numScale; back == v && math.Signbit(back) == math.Signbit(v) {
			return binary.AppendVarint(b, q<<1)
		}
	}
	b = binary.AppendVarint(b, 1)
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

func (r *binReader) num() float64 { return r.numOf(r.varint()) }

// numOf finishes reading a number whose varint was x.
func (r *binReader) numOf(x int64) float64 {
	switch {
	case x&1 == 0:
		return float64(x>>1) / numScale
	case x == 1:
		return r.float()
	}
	r.fail("number")
	return 0
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendMapLen writes 0 for a nil list, else 1 + its length.
func appendMapLen(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

// DecodeTraceItems reads what AppendBinary, AppendCompressed or
// AppendCompact wrote, in any version.
// Malformed input is an error wrapping ErrBadTraceItems, never a panic.
func DecodeTraceItems(b []byte) (TraceItems, error) {
	if len(b) > 0 && b[0] == traceBinaryDeflated {
		inner, err := inflateTrace(b)
		if err != nil {
			return nil, err
		}
		b = inner
	}
	r := binReader{b: b}
	v := r.byte()
	if v != traceBinaryV1 && v != traceBinaryVersion && v != traceBinaryV3 && v != traceBinaryV5 && v != traceBinaryV6 && v != traceBinaryV7 {
		return nil, fmt.Errorf("%w: version %d", ErrBadTraceItems, v)
	}
	if r.byte() == 0 {
		return nil, r.done()
	}
	n := r.uvarint()
	if n > uint64(len(b)) { // every item takes at least one byte
		return nil, fmt.Errorf("%w: %d items in %d bytes", ErrBadTraceItems, n, len(b))
	}
	ts := make(TraceItems, n)
	switch v {
	case traceBinaryV1:
		return ts, decodeV1(&r, ts)
	case traceBinaryV5, traceBinaryV6, traceBinaryV7:
		if err := decodeV5(&r, ts, v); err != nil {
			return nil, err
		}
		return ts, nil
	}
	var names traceNames
	prev := ""
	for i := range ts {
		t := &ts[i]
		t.MemoryID = r.front(prev)
		prev = t.MemoryID
		head := names.read(&r)
		t.VersionID = head + r.front(t.MemoryID[min(idHead, len(t.MemoryID)):])
		if m := r.mapLen(); m >= 0 {
			t.Channels = make(ChannelHits, 0, m)
			for j := 0; j < m && r.err == nil; j++ {
				k := names.read(&r)
				rank := r.varint()
				t.Channels = append(t.Channels, NamedChannelHit{Channel: k, ChannelHit: ChannelHit{Rank: int(rank), Score: r.num()}})
			}
		}
		t.Fused = r.num()
		if m := r.mapLen(); m >= 0 {
			t.Terms = make(Terms, 0, m)
			for j := 0; j < m && r.err == nil; j++ {
				k := names.read(&r)
				t.Terms = append(t.Terms, Term{Name: k, Value: r.num()})
			}
		}
		t.Final = r.num()
		t.Rank = int(r.varint())
		t.Tokens = int(r.varint())
		t.Trust = r.num()
		t.Action = Action(names.read(&r))
		if flags := r.byte(); v == traceBinaryV3 {
			t.Packed, t.Used = flags&1 != 0, flags&2 != 0
		} else {
			t.Packed = flags == 1
		}
		t.Reason = names.read(&r)
		t.Explanation = r.str()
		if r.err != nil {
			return nil, r.err
		}
	}
	return ts, r.done()
}

// decodeV1 reads the items of a version 1 encoding.
func decodeV1(r *binReader, ts TraceItems) error {
	for i := range ts {
		t := &ts[i]
		t.MemoryID = r.str()
		t.VersionID = r.str()
		if m := r.mapLen(); m >= 0 {
			t.Channels = make(ChannelHits, 0, m)
			for j := 0; j < m && r.err == nil; j++ {
				k := r.str()
				rank := r.varint()
				t.Channels = append(t.Channels, NamedChannelHit{Channel: k, ChannelHit: ChannelHit{Rank: int(rank), Score: r.float()}})
			}
		}
		t.Fused = r.float()
		if m := r.mapLen(); m >= 0 {
			t.Terms = make(Terms, 0, m)
			for j := 0; j < m && r.err == nil; j++ {
				k := r.str()
				t.Terms = append(t.Terms, Term{Name: k, Value: r.float()})
			}
		}
		t.Final = r.float()
		t.Rank = int(r.varint())
		t.Tokens = int(r.varint())
		t.Trust = r.float()
		t.Action = Action(r.str())
		t.Packed = r.byte() == 1
		t.Reason = r.str()
		t.Explanation = r.str()
		if r.err != nil {
			return r.err
		}
	}
	return r.done()
}

// binReader reads the binary encoding, remembering the first error.
type binReader struct {
	b   []byte
	err error
}

func (r *binReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: truncated %s", ErrBadTraceItems, what)
	}
	r.b = nil
}

func (r *binReader) byte() byte {
	if len(r.b) < 1 {
		r.fail("byte")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *binReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("length")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *binReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *binReader) float() float64 {
	if len(r.b) < 8 {
		r.fail("float")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *binReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("string")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// mapLen returns -1 for a nil list.
func (r *binReader) mapLen() int {
	n := r.uvarint()
	if n == 0 {
		return -1
	}
	if n-1 > uint64(len(r.b)) {
		r.fail("map")
		return -1
	}
	return int(n - 1)
}

func (r *binReader) done() error {
	if r.err == nil && len(r.b) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrBadTraceItems, len(r.b))
	}
	return r.err
}
