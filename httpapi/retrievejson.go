package httpapi

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/httpapi/wire"
)

// writeRetrieve writes a retrieve response: every search sends one, and
// encoding/json's reflection over its items and their channel maps was the
// larger part of writing it. appendRetrieveResponse writes the very bytes
// json.Encoder would (TestRetrieveJSONMatchesEncoder); a response it cannot
// write so (a score that is not finite, which encoding/json refuses) goes
// through writeJSON, which fails as before.
func writeRetrieve(w http.ResponseWriter, out *wire.RetrieveResponse) error {
	buf := retrieveBufs.Get().(*[]byte)
	b, ok := appendRetrieveResponse((*buf)[:0], out)
	if !ok {
		retrieveBufs.Put(buf)
		return writeJSON(w, http.StatusOK, out)
	}
	b = append(b, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b)
	if cap(b) <= maxPooledJSON {
		*buf = b[:0]
		retrieveBufs.Put(buf)
	}
	return err
}

// retrieveBufs holds writeRetrieve's buffers.
var retrieveBufs = sync.Pool{New: func() any { return new([]byte) }}

// appendRetrieveResponse appends r as encoding/json encodes it (without the
// encoder's newline); ok is false when r holds a number JSON cannot.
func appendRetrieveResponse(b []byte, r *wire.RetrieveResponse) ([]byte, bool) {
	b = append(b, `{"retrieval_id":`...)
	b = appendJSONString(b, r.RetrievalID)
	b = append(b, `,"context":`...)
	b = appendJSONString(b, r.Context)
	b = append(b, `,"tokens_used":`...)
	b = strconv.AppendInt(b, int64(r.TokensUsed), 10)
	b = append(b, `,"items":`...)
	if r.Items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Items {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendRetrieveItem(b, &r.Items[i]); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	if r.Hint != "" {
		b = append(b, `,"hint":`...)
		b = appendJSONString(b, r.Hint)
	}
	if len(r.Notes) > 0 {
		b = append(b, `,"notes":`...)
		b = appendJSONStrings(b, r.Notes)
	}
	return append(b, '}'), true
}

func appendRetrieveItem(b []byte, it *wire.RetrieveItem) ([]byte, bool) {
	if !finite(it.Score) || !finite(it.Trust) || !finite(it.Uncertainty) {
		return b, false
	}
	b = append(b, `{"memory_id":`...)
	b = appendJSONString(b, it.MemoryID)
	b = append(b, `,"version_id":`...)
	b = appendJSONString(b, it.VersionID)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, it.Kind)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, it.Type)
	b = append(b, `,"content":`...)
	b = appendJSONString(b, it.Content)
	b = append(b, `,"score":`...)
	b = appendJSONFloat(b, it.Score)
	b = append(b, `,"tokens":`...)
	b = strconv.AppendInt(b, int64(it.Tokens), 10)
	b = append(b, `,"trust":`...)
	b = appendJSONFloat(b, it.Trust)
	b = append(b, `,"uncertainty":`...)
	b = appendJSONFloat(b, it.Uncertainty)
	b = append(b, `,"action":`...)
	b = appendJSONString(b, it.Action)
	b = append(b, `,"episode_ids":`...)
	b = appendJSONStrings(b, it.EpisodeIDs)
	b = append(b, `,"channels":`...)
	if it.Channels == nil {
		b = append(b, "null"...)
	} else {
		var namesBuf [8]string
		names := namesBuf[:0]
		for name := range it.Channels {
			names = append(names, name)
		}
		slices.Sort(names)
		b = append(b, '{')
		for i, name := range names {
			h := it.Channels[name]
			if !finite(h.Score) {
				return b, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, name)
			b = append(b, `:{"rank":`...)
			b = strconv.AppendInt(b, int64(h.Rank), 10)
			b = append(b, `,"score":`...)
			b = appendJSONFloat(b, h.Score)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	b = append(b, `,"explanation":`...)
	b = appendJSONString(b, it.Explanation)
	return append(b, '}'), true
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONFloat writes a finite f as encoding/json writes a float64.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json does
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const jsonHex = "0123456789abcdef"

// jsonSafe marks the ASCII bytes a JSON string holds as they are (HTML
// escaping on).
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString writes s as encoding/json does with HTML escaping on
// (json.Encoder's default): <, > and & as \u003c, \u003e, \u0026, U+2028
// and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', jsonHex[c>>4], jsonHex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', jsonHex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
