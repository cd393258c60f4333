package memory

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// traceBinaryVersion starts every binary encoding of trace items.
const traceBinaryVersion = 1

// ErrBadTraceItems reports a binary trace item encoding that cannot be read.
var ErrBadTraceItems = errors.New("bad trace items encoding")

// AppendBinary appends a compact binary encoding of the items to b. Every
// retrieval writes its trace, so stores keep this rather than JSON: it is
// several times cheaper to write and smaller on disk. DecodeTraceItems
// reads it back exactly.
func (ts TraceItems) AppendBinary(b []byte) []byte {
	b = append(b, traceBinaryVersion)
	if ts == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(ts)))
	for i := range ts {
		t := &ts[i]
		b = appendStr(b, t.MemoryID)
		b = appendStr(b, t.VersionID)
		b = appendMapLen(b, t.Channels == nil, len(t.Channels))
		for _, h := range t.Channels {
			b = appendStr(b, h.Channel)
			b = binary.AppendVarint(b, int64(h.Rank))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.Score))
		}
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(t.Fused))
		b = appendMapLen(b, t.Terms == nil, len(t.Terms))
		for _, term := range t.Terms {
			b = appendStr(b, term.Name)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(term.Value))
		}
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(t.Final))
		b = binary.AppendVarint(b, int64(t.Rank))
		b = binary.AppendVarint(b, int64(t.Tokens))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(t.Trust))
		b = appendStr(b, string(t.Action))
		if t.Packed {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = appendStr(b, t.Reason)
		b = appendStr(b, t.Explanation)
	}
	return b
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

// DecodeTraceItems reads what AppendBinary wrote. Malformed input is an
// error wrapping ErrBadTraceItems, never a panic.
func DecodeTraceItems(b []byte) (TraceItems, error) {
	r := binReader{b: b}
	if v := r.byte(); v != traceBinaryVersion {
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
			return nil, r.err
		}
	}
	return ts, r.done()
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
