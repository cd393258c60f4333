// Package tokens counts cl100k_base tokens offline, for packing retrieved
// memories into a caller's token budget.
package tokens

import (
	"fmt"
	"hash/maphash"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// cacheSize is the number of slots in the piece cache. A piece is usually
// one word with its leading space, and a namespace's vocabulary fits easily.
const cacheSize = 1 << 16

// maxCachedPiece keeps long pieces (URLs, base64, runs of punctuation) out of
// the cache: they are rare and would only evict useful entries.
const maxCachedPiece = 48

// maxExactPiece bounds the piece handed to the library in one call. The
// library's regular expression backtracks quadratically on long runs of
// whitespace ("\n \n \n ..." of 200 KB takes over 20 s), so longer pieces
// are counted in chunks of this size. cl100k_base tokens are rarely longer
// than ~20 bytes, so each cut adds at most about one token: under 1% on the
// pathological inputs this path exists for, and nothing on ordinary text,
// whose pieces are words.
const maxExactPiece = 256

// Counter counts cl100k_base tokens. The vocabulary is compiled into the
// binary by github.com/tiktoken-go/tokenizer, so nothing is downloaded.
//
// The library splits text with a backtracking regular expression (regexp2)
// before BPE, which runs at ~5 MB/s: 20 µs for a short memory, too slow to
// count 50 candidates inside a 1 ms retrieval. cl100k_base encodes each
// piece of the split independently, so Counter splits text itself with a
// hand-written equivalent of the pattern
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// and caches each piece's BPE token count, asking the library only on a
// miss. A differential fuzz test (FuzzCountMatchesLibrary) holds the two to
// the same answers. Invalid UTF-8 goes straight to the library, which
// replaces it rune by rune as Python's tiktoken does.
type Counter struct {
	codec tokenizer.Codec
	seed  maphash.Seed
	cache []atomic.Pointer[pieceCount]
}

type pieceCount struct {
	piece string
	n     int
}

// NewCounter returns a cl100k_base Counter.
func NewCounter() (*Counter, error) {
	c, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		return nil, fmt.Errorf("tokens: load cl100k_base: %w", err)
	}
	return &Counter{codec: c, seed: maphash.MakeSeed(), cache: make([]atomic.Pointer[pieceCount], cacheSize)}, nil
}

// Count returns the number of cl100k_base tokens in text. It is safe for
// concurrent use.
func (c *Counter) Count(text string) int {
	if !utf8.ValidString(text) {
		return c.library(text)
	}
	total := 0
	for i := 0; i < len(text); {
		n := nextPiece(text, i)
		total += c.piece(text[i : i+n])
		i += n
	}
	return total
}

func (c *Counter) library(s string) int {
	n, err := c.codec.Count(s)
	if err != nil {
		// Only the strict error mode fails, and the codec is left in the
		// default mode; count bytes as a safe overestimate regardless.
		return len(s)
	}
	return n
}

func (c *Counter) piece(p string) int {
	if len(p) > maxExactPiece {
		total := 0
		for len(p) > 0 {
			n := min(len(p), maxExactPiece)
			for n < len(p) && !utf8.RuneStart(p[n]) {
				n++
			}
			total += c.library(p[:n])
			p = p[n:]
		}
		return total
	}
	if len(p) > maxCachedPiece {
		return c.library(p)
	}
	slot := &c.cache[maphash.String(c.seed, p)&(cacheSize-1)]
	if e := slot.Load(); e != nil && e.piece == p {
		return e.n
	}
	n := c.library(p)
	slot.Store(&pieceCount{piece: p, n: n})
	return n
}

// Character classes of the pattern, with ASCII answered by comparisons
// before the Unicode tables: \p{L}, \p{N} and \s as regexp2 defines them.
func isL(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r)
}

func isN(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r)
}

func isS(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// isPunct is [^\s\p{L}\p{N}].
func isPunct(r rune) bool { return r >= 0 && !isS(r) && !isL(r) && !isN(r) }

// at decodes the rune at s[i]; past the end it returns -1, which belongs to
// no class.
func at(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// nextPiece returns the length of the piece the cl100k_base pattern matches
// at s[i] (i < len(s)); the alternatives are tried in the pattern's order,
// with the same backtracking outcomes.
func nextPiece(s string, i int) int {
	r, w := at(s, i)

	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if r == '\'' {
		if n := contraction(s[i+1:]); n > 0 {
			return 1 + n
		}
	}

	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isL(r) {
		return i + w + letters(s, i+w) - i
	}
	if r != '\r' && r != '\n' && !isN(r) {
		if r2, w2 := at(s, i+w); isL(r2) {
			return w + w2 + letters(s, i+w+w2)
		}
	}

	// \p{N}{1,3}
	if isN(r) {
		n := w
		for k := 0; k < 2; k++ {
			r2, w2 := at(s, i+n)
			if !isN(r2) {
				break
			}
			n += w2
		}
		return n
	}

	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
	start := i
	if r == ' ' {
		if r2, _ := at(s, i+1); isPunct(r2) {
			start = i + 1
		}
	}
	if r2, _ := at(s, start); isPunct(r2) {
		j := start
		for {
			r3, w3 := at(s, j)
			if !isPunct(r3) {
				break
			}
			j += w3
		}
		for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
			j++
		}
		return j - i
	}

	// Whitespace from here on: r is \s. Find the run [i, j).
	j, lastNL := i, -1
	for {
		r3, w3 := at(s, j)
		if !isS(r3) {
			break
		}
		if r3 == '\r' || r3 == '\n' {
			lastNL = j
		}
		j += w3
	}
	// \s*[\r\n]+ : greedy \s* backs off to the last newline of the run.
	if lastNL >= 0 {
		return lastNL + 1 - i
	}
	// \s+(?!\S) : the whole run at the end of input, else all but its last
	// rune (which then leads the next word), if that leaves at least one.
	if j == len(s) {
		return j - i
	}
	if _, lw := utf8.DecodeLastRuneInString(s[i:j]); j-lw > i {
		return j - lw - i
	}
	// \s+
	return j - i
}

// contraction returns the length of a clitic after an apostrophe, matched
// case-insensitively in the pattern's order.
func contraction(s string) int {
	lower := func(k int) byte {
		if k >= len(s) {
			return 0
		}
		c := s[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return c
	}
	switch c := lower(0); c {
	case 's', 't', 'm', 'd':
		return 1
	case 'r', 'v':
		if lower(1) == 'e' {
			return 2
		}
	case 'l':
		if lower(1) == 'l' {
			return 2
		}
	}
	return 0
}

// letters returns the byte length of the run of letters at s[i].
func letters(s string, i int) int {
	j := i
	for {
		r, w := at(s, j)
		if !isL(r) {
			return j - i
		}
		j += w
	}
}
