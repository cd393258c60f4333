package sqlite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// Compact column forms (migration 0019). Each is chosen at write only when
// it reads back to exactly the value written; anything else keeps the
// plain form, which the readers still accept.

// hashLen is the length of a SHA-256 as lowercase hex: the content hash
// every episode the engine makes carries.
const hashLen = 64

// hashArg is how a content hash is stored and looked up: its 32 bytes when
// it is lowercase hex SHA-256 (every hash the engine makes), the text as
// it is otherwise (an import's). Both directions are exact: lowercase hex
// of the bytes is the text again.
func hashArg(h string) any {
	if len(h) != hashLen {
		return h
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return h
		}
	}
	b, _ := hex.DecodeString(h) // checked above
	return b
}

// derivedHashLen is how many bytes of an episode's hash are stored when the
// hash is the SHA-256 of its content (migration 0021): the read computes
// the rest from the content, and episodes_by_hash indexes those bytes.
const derivedHashLen = 8

// episodeHashArg is how an episode's content hash is stored: its first 8
// bytes when it is the SHA-256 of content (every episode the engine makes;
// episodes are never updated, so it stays derivable), hashArg's form
// otherwise.
func episodeHashArg(h, content string) any {
	a := hashArg(h)
	if b, ok := a.([]byte); ok {
		if sum := sha256.Sum256([]byte(content)); bytes.Equal(sum[:], b) {
			return b[:derivedHashLen]
		}
	}
	return a
}

// hashLookupArgs are the values a stored hash of h may take: hashArg's
// form, and for a SHA-256 its derived prefix (which only the episode's
// content can confirm: the caller compares the hash as read).
func hashLookupArgs(h string) (full, short any) {
	full = hashArg(h)
	if b, ok := full.([]byte); ok {
		return full, b[:derivedHashLen]
	}
	return full, full
}

// hash reads a content hash stored by episodeHashArg (or hashArg), content
// being the episode's text.
func (d *decoder) hash(content string) string {
	i := d.next()
	if i < 0 {
		return ""
	}
	switch d.src.kind(i) {
	case kindText:
		return d.src.textAt(i)
	case kindBlob:
		b := d.src.blobAt(i)
		if len(b) == derivedHashLen {
			sum := sha256.Sum256([]byte(content))
			if !bytes.Equal(sum[:derivedHashLen], b) {
				d.fail(i, "the first bytes of the content's SHA-256")
				return ""
			}
			return hex.EncodeToString(sum[:])
		}
		return hex.EncodeToString(b)
	default:
		d.fail(i, "TEXT or BLOB")
		return ""
	}
}

// spansMark starts the compact form of evidence spans; JSON never does.
const spansMark = '~'

// spans encodes evidence spans. When every span's episode is one of ids and
// its offsets are not negative, the form is "~i:start:end,..." with i the
// episode's position in ids: a note's span, 68 bytes of JSON repeating a
// 30-character id, takes 8. Otherwise (and for nil or empty spans) JSON.
//
// The span of a note, or of an episode's own version, is all of its
// content, which is the first evidence episode's text: such a list (one
// span, of ids[0], from 0 to the content's length in bytes) is "~" alone
// (migration 0027), and the read takes the end from the content it read.
func (c *encoder) spans(ids []string, spans []memory.Span, content string) string {
	if len(spans) == 0 {
		return c.json("evidence_spans", spans)
	}
	if wholeSpan(ids, spans, content) {
		return spansWhole
	}
	b := make([]byte, 1, 1+12*len(spans))
	b[0] = spansMark
	for k, s := range spans {
		i := indexOf(ids, s.EpisodeID)
		if i < 0 || s.Start < 0 || s.End < 0 {
			return c.json("evidence_spans", spans)
		}
		if k > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(s.Start), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(s.End), 10)
	}
	return string(b)
}

// spansWhole is the stored form of a single span over all of the content.
const spansWhole = string(spansMark)

// wholeSpan reports whether spans is one span of the first evidence
// episode over all of content.
func wholeSpan(ids []string, spans []memory.Span, content string) bool {
	return len(spans) == 1 && len(ids) > 0 && spans[0].EpisodeID == ids[0] &&
		spans[0].Start == 0 && spans[0].End == len(content)
}

func indexOf(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// spans reads evidence spans in either form; ids are the version's
// evidence episode ids and content its content, read just before.
func (d *decoder) spans(ids []string, content string) []memory.Span {
	s := d.str()
	if d.err != nil {
		return nil
	}
	if s == spansWhole {
		if len(ids) == 0 {
			d.err = d.colErr(memory.Invalidf("a whole-content span without an evidence episode"))
			return nil
		}
		return []memory.Span{{EpisodeID: ids[0], Start: 0, End: len(content)}}
	}
	if len(s) == 0 || s[0] != spansMark {
		var out []memory.Span
		if s != "null" {
			if err := decodeJSON(s, &out); err != nil {
				d.err = d.colErr(err)
			}
		}
		return out
	}
	out, ok := parseCompactSpans(s[1:], ids)
	if !ok {
		d.err = d.colErr(memory.Invalidf("malformed compact spans %q", s))
	}
	return out
}

func parseCompactSpans(s string, ids []string) ([]memory.Span, bool) {
	out := make([]memory.Span, 0, strings.Count(s, ",")+1)
	for part := range strings.SplitSeq(s, ",") {
		fi, rest, ok1 := strings.Cut(part, ":")
		fs, fe, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 {
			return nil, false
		}
		i, err1 := strconv.Atoi(fi)
		start, err2 := strconv.Atoi(fs)
		end, err3 := strconv.Atoi(fe)
		if err1 != nil || err2 != nil || err3 != nil || i < 0 || i >= len(ids) {
			return nil, false
		}
		out = append(out, memory.Span{EpisodeID: ids[i], Start: start, End: end})
	}
	return out, true
}

// colErr wraps err with the name of the column just read.
func (d *decoder) colErr(err error) error {
	return fmt.Errorf("decode column %q: %w", d.src.name(d.i-1), err)
}
