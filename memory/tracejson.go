package memory

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// TraceItems are a trace's candidates. Every retrieval persists one, so it
// has a hand-written JSON encoder: reflection over a hundred items with
// small maps cost more than the retrieval itself. Decoding uses the
// standard library; the field names are TraceItem's tags.
type TraceItems []TraceItem

// MarshalJSON encodes the items exactly as encoding/json would, minus HTML
// escaping, with map keys sorted.
func (ts TraceItems) MarshalJSON() ([]byte, error) {
	return ts.AppendJSON(make([]byte, 0, 512*len(ts)+2)), nil
}

// AppendJSON appends the items' JSON to b, so a caller can reuse buffers.
func (ts TraceItems) AppendJSON(b []byte) []byte {
	if ts == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = ts[i].appendJSON(b)
	}
	return append(b, ']')
}

func (t *TraceItem) appendJSON(b []byte) []byte {
	b = append(b, `{"memory_id":`...)
	b = appendString(b, t.MemoryID)
	b = append(b, `,"version_id":`...)
	b = appendString(b, t.VersionID)
	b = append(b, `,"channels":`...)
	b = t.Channels.appendJSON(b)
	b = append(b, `,"fused":`...)
	b = appendFloat(b, t.Fused)
	b = append(b, `,"terms":`...)
	b = t.Terms.appendJSON(b)
	b = append(b, `,"final":`...)
	b = appendFloat(b, t.Final)
	b = append(b, `,"rank":`...)
	b = appendInt(b, t.Rank)
	b = append(b, `,"tokens":`...)
	b = appendInt(b, t.Tokens)
	b = append(b, `,"trust":`...)
	b = appendFloat(b, t.Trust)
	b = append(b, `,"action":`...)
	b = appendString(b, string(t.Action))
	b = append(b, `,"packed":`...)
	b = strconv.AppendBool(b, t.Packed)
	b = append(b, `,"reason":`...)
	b = appendString(b, t.Reason)
	if t.Explanation != "" {
		b = append(b, `,"explanation":`...)
		b = appendString(b, t.Explanation)
	}
	if t.Used {
		b = append(b, `,"used":true`...)
	}
	return append(b, '}')
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// appendFloat writes f as encoding/json does for float64 (NaN and
// infinities, which JSON cannot hold, become 0).
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
