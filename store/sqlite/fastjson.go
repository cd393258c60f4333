package sqlite

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/memory"
)

// decodeJSON decodes a JSON column into dst. Every version carries two JSON
// lists (evidence episode ids and spans) and all of them are decoded when
// the engine rebuilds its index at start, where encoding/json alone costs
// more than reading the rest of the row. So the exact shapes json.Marshal
// writes for those two lists are parsed by hand; anything else (escapes,
// another key order, odd numbers) falls through to encoding/json, which
// stays the definition of correct (FuzzDecodeJSON holds the two to the same
// answers).
func decodeJSON(s string, dst any) error {
	switch p := dst.(type) {
	case *[]string:
		if v, ok := parseStrings(s); ok {
			*p = v
			return nil
		}
	case *[]memory.Span:
		if v, ok := parseSpans(s); ok {
			*p = v
			return nil
		}
	}
	return json.Unmarshal([]byte(s), dst)
}

// jsonScanner reads the simple JSON that json.Marshal writes. Every method
// reports false on anything it does not handle, and the caller gives up.
type jsonScanner struct {
	s string
	i int
}

func (p *jsonScanner) lit(l string) bool {
	if strings.HasPrefix(p.s[p.i:], l) {
		p.i += len(l)
		return true
	}
	return false
}

// str reads a string without escapes, control characters or invalid UTF-8
// (json.Marshal escapes all of those, so a plain string here means exactly
// what it says).
func (p *jsonScanner) str() (string, bool) {
	if !p.lit(`"`) {
		return "", false
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			v := p.s[start:p.i]
			p.i++
			return v, utf8.ValidString(v)
		case c == '\\' || c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// int reads an integer as json.Marshal writes an int: an optional minus
// and digits without a leading zero, short enough not to overflow.
func (p *jsonScanner) int() (int, bool) {
	start := p.i
	neg := p.lit("-")
	digits := p.i
	n := 0
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		n = n*10 + int(p.s[p.i]-'0')
		p.i++
	}
	nd := p.i - digits
	if nd == 0 || nd > 18 || (nd > 1 && p.s[digits] == '0') || (neg && p.i-start == 1) {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

func (p *jsonScanner) end() bool { return p.i == len(p.s) }

func parseStrings(s string) ([]string, bool) {
	p := jsonScanner{s: s}
	if !p.lit("[") {
		return nil, false
	}
	out := []string{}
	if p.lit("]") {
		return out, p.end()
	}
	for {
		v, ok := p.str()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if p.lit("]") {
			return out, p.end()
		}
		if !p.lit(",") {
			return nil, false
		}
	}
}

func parseSpans(s string) ([]memory.Span, bool) {
	p := jsonScanner{s: s}
	if !p.lit("[") {
		return nil, false
	}
	out := []memory.Span{}
	if p.lit("]") {
		return out, p.end()
	}
	for {
		var sp memory.Span
		var ok bool
		if !p.lit(`{"episode_id":`) {
			return nil, false
		}
		if sp.EpisodeID, ok = p.str(); !ok {
			return nil, false
		}
		if !p.lit(`,"start":`) {
			return nil, false
		}
		if sp.Start, ok = p.int(); !ok {
			return nil, false
		}
		if !p.lit(`,"end":`) {
			return nil, false
		}
		if sp.End, ok = p.int(); !ok {
			return nil, false
		}
		if !p.lit("}") {
			return nil, false
		}
		out = append(out, sp)
		if p.lit("]") {
			return out, p.end()
		}
		if !p.lit(",") {
			return nil, false
		}
	}
}
