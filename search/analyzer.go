// Package search holds mnemon's derived retrieval structures: the text
// analyzer, a per-namespace BM25 inverted index and a vector index. It is
// pure (no I/O), safe for concurrent use, and built to answer a query in tens
// of microseconds on 100k documents.
package search

import (
	"hash/maphash"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"github.com/mnemon-dev/mnemon/embed/vectors"
)

// maxTermBytes caps one term. Longer runs of letters are hashes, base64 or
// URLs glued together; keeping a prefix is enough to match them again and
// keeps the stem cache and the vocabulary from filling up with megabyte keys.
const maxTermBytes = 64

// stemCacheSize is the number of slots in an Analyzer's stem cache. English
// text in one namespace rarely has more than ~50k distinct words, and a
// miss only costs one stemming call, so 64k direct-mapped slots (512 KiB of
// pointers) keep the hit rate high at a bounded size.
const stemCacheSize = 1 << 16

// Analyzer turns text into index terms. The same normalisation is applied to
// documents and queries:
//
//   - Tokens are maximal runs of Unicode letters and digits; everything else
//     separates tokens. Han, Hiragana and Katakana characters, which are
//     written without spaces, become one token each.
//   - Letters are lower-cased and Latin accents are folded ("Café" → "cafe",
//     "Straße" → "strasse"); combining marks are dropped.
//   - An apostrophe inside a word is handled as English does: "Rosalind's"
//     → "rosalind", "don't" → "don" (a stop word), "O'Brien" → "obrien".
//   - "c++", "g++", "notepad++" keep their "++", and a single letter followed
//     by "#" keeps it ("c#", "f#"), because these are names of things agents
//     talk about and would otherwise vanish into "c" and "f".
//   - English stop words are dropped.
//   - Words made only of ASCII letters are stemmed with the Snowball English
//     stemmer; numbers and mixed tokens ("mp3", "gpt4") are kept as they are.
//   - In a document (Terms, not QueryTerms), a closed compound the
//     vocabulary does not know is also indexed by its two parts
//     ("snowboots" → "snow", "boots"; "desklamp" → "desk", "lamp"; see
//     compoundParts), so "which boots?" finds the snowboots. Queries keep
//     the whole word: "snowboots" asks for those, not for any snow.
//
// Stemming dominates the cost, so stems are cached in a bounded, lock-free,
// direct-mapped cache. An Analyzer is safe for concurrent use.
type Analyzer struct {
	seed  maphash.Seed
	cache []atomic.Pointer[stemEntry]
}

// stemEntry is one cached token: the normalised token as it appeared, the
// term it becomes, and whether it is a stop word. Entries are immutable once
// published, so readers need no lock.
type stemEntry struct {
	word string
	term string // the index term
	// stem is the Snowball stem Words reports: the built-in embedder's
	// features are of it, so an index-only exception (stemExceptions)
	// leaves every stored vector as it was.
	stem string
	stop bool
	// parts are the terms of a closed compound's two parts, indexed
	// beside term in a document (see compoundParts); nil for most words.
	parts []string
}

// NewAnalyzer returns an Analyzer with an empty stem cache.
func NewAnalyzer() *Analyzer {
	return &Analyzer{
		seed:  maphash.MakeSeed(),
		cache: make([]atomic.Pointer[stemEntry], stemCacheSize),
	}
}

// Terms returns the index terms of text in order, duplicates kept, for
// indexing a document (term frequency and document length come from it).
func (a *Analyzer) Terms(text string) []string {
	out := make([]string, 0, len(text)/8+1)
	a.scan(text, func(tok []byte) {
		e := a.lookup(tok)
		if !e.stop {
			out = append(out, e.term)
			out = append(out, e.parts...)
		}
	})
	return out
}

// MaxQueryTerms caps QueryTerms: a query is a question, and a pasted
// document used as one would otherwise cost a posting-list scan per word.
const MaxQueryTerms = 256

// QueryTerms returns the distinct index terms of text in first-seen order,
// at most MaxQueryTerms of them, for querying. It accepts any input,
// including invalid UTF-8, in time linear in its length.
func (a *Analyzer) QueryTerms(text string) []string {
	var out []string
	var seen map[string]struct{} // only once a linear scan gets long
	a.each(text, func(term string) {
		if len(out) >= MaxQueryTerms {
			return
		}
		if seen == nil {
			for _, t := range out {
				if t == term {
					return
				}
			}
			if len(out) == 16 {
				seen = make(map[string]struct{}, 64)
				for _, t := range out {
					seen[t] = struct{}{}
				}
			}
		} else if _, dup := seen[term]; dup {
			return
		}
		if seen != nil {
			seen[term] = struct{}{}
		}
		out = append(out, term)
	})
	return out
}

// Words calls fn with every token of text after splitting, lower-casing,
// accent folding and stop-word removal but before stemming, in order. The
// built-in embedder uses it to derive character n-grams from the surface
// form, which carries morphology the stem has removed. term is the Snowball
// stem, before the index's own exceptions and without a compound's parts,
// so the embedder's vectors do not move when those change.
func (a *Analyzer) Words(text string, fn func(word, term string)) {
	a.scan(text, func(tok []byte) {
		e := a.lookup(tok)
		if !e.stop {
			fn(e.word, e.stem)
		}
	})
}

// each calls fn with every term of text.
func (a *Analyzer) each(text string, fn func(term string)) {
	a.scan(text, func(tok []byte) {
		e := a.lookup(tok)
		if !e.stop {
			fn(e.term)
		}
	})
}

// lookup returns the cache entry for the normalised token tok, stemming it on
// a miss. The hit path allocates nothing: comparing e.word with string(tok)
// does not copy.
func (a *Analyzer) lookup(tok []byte) *stemEntry {
	slot := &a.cache[maphash.Bytes(a.seed, tok)&(stemCacheSize-1)]
	if e := slot.Load(); e != nil && e.word == string(tok) {
		return e
	}
	word := string(tok)
	e := &stemEntry{word: word, term: word, stem: word, stop: isStopWord(word)}
	if !e.stop && len(word) > 2 && isASCIILetters(tok) {
		e.stem = english.Stem(word, false)
		e.term = e.stem
		if t, ok := stemExceptions[word]; ok {
			e.term = t
		}
		if head, mod, ok := compoundParts(word); ok {
			e.parts = []string{english.Stem(mod, false), english.Stem(head, false)}
		}
	}
	slot.Store(e)
	return e
}

// stemExceptions are words the Snowball stemmer folds into a word of
// another meaning: "likely" is no form of "like" ("rain is likely" says
// nothing of what anyone likes), "evening" none of "even", "university"
// none of "universe". Each keeps a term of its own.
var stemExceptions = map[string]string{
	"likely": "likely", "lately": "lately", "hardly": "hardly", "barely": "barely",
	"nearly": "nearly", "presently": "presently", "kindly": "kindly", "shortly": "shortly",
	"evening": "evening", "evenings": "evening",
	"university": "university", "universities": "university",
}

// Closed compounds: a word of at least minCompound letters that the word
// vectors' vocabulary (GloVe's 100,000 most frequent words) does not hold,
// made of two words of at least minPart letters each among the commonPart
// most frequent. A word the vocabulary knows is left whole: "weekend" is
// no end and "password" no word. The longest head (the last part, what the
// thing is: snowboots are boots) wins, and a head that is also a suffix
// ("-less", "-able", "-ship") makes no compound: "scoopable" is no "able".
const (
	minCompound = 8
	minPart     = 4
	commonPart  = 20000
)

// suffixWords are English derivational suffixes that are words too.
var suffixWords = map[string]bool{
	"able": true, "less": true, "ness": true, "ship": true, "ling": true, "like": true,
	"ward": true, "wards": true, "wise": true, "hood": true, "some": true, "ment": true,
	"ists": true, "ions": true, "ings": true,
}

// compoundParts splits a lower-case ASCII word into its head and modifier
// when it is a closed compound (see minCompound).
func compoundParts(word string) (head, modifier string, ok bool) {
	if len(word) < minCompound {
		return "", "", false
	}
	tb := vectors.Load()
	if _, known := tb.Lookup(word); known {
		return "", "", false
	}
	common := func(w string) bool {
		r, ok := tb.Lookup(w)
		return ok && tb.Rank(r) < commonPart && !isStopWord(w)
	}
	for i := minPart; i <= len(word)-minPart; i++ {
		h, m := word[i:], word[:i]
		if suffixWords[h] || !common(h) {
			continue
		}
		if common(m) {
			return h, m, true
		}
	}
	return "", "", false
}

func isASCIILetters(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// scan splits text into normalised tokens and calls emit with each. The
// slice passed to emit is reused; emit must copy what it keeps.
func (a *Analyzer) scan(text string, emit func(tok []byte)) {
	var buf [maxTermBytes + utf8.UTFMax]byte
	n := 0
	flush := func() {
		if n > 0 {
			emit(buf[:n])
			n = 0
		}
	}
	put := func(r rune) {
		if n >= maxTermBytes {
			return
		}
		if r < utf8.RuneSelf {
			buf[n] = byte(r)
			n++
			return
		}
		n += utf8.EncodeRune(buf[n:], r)
	}
	for i := 0; i < len(text); {
		c := text[i]
		// ASCII fast path: most text is ASCII.
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				put(rune(c))
				i++
				continue
			case 'A' <= c && c <= 'Z':
				put(rune(c + ('a' - 'A')))
				i++
				continue
			case c == '\'':
				if n > 0 {
					next, end := clitic(text, i+1)
					if end {
						flush()
					}
					i = next
					continue
				}
			case c == '+':
				if n > 0 && i+1 < len(text) && text[i+1] == '+' && !wordAt(text, i+2) {
					put('+')
					put('+')
					i += 2
					flush()
					continue
				}
			case c == '#':
				if n == 1 && isASCIILetters(buf[:1]) && !wordAt(text, i+1) {
					put('#')
					i++
					flush()
					continue
				}
			}
			flush()
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '’':
			if n > 0 {
				next, end := clitic(text, i+size)
				if end {
					flush()
				}
				i = next
				continue
			}
			flush()
		case unicode.Is(unicode.Mn, r):
			// Combining mark: dropping it folds decomposed accents.
		case isIdeograph(r):
			flush()
			put(r)
			flush()
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if f, ok := foldTable[r]; ok {
				for _, fc := range f {
					put(fc)
				}
			} else {
				put(unicode.ToLower(r))
			}
		default:
			flush()
		}
		i += size
	}
	flush()
}

// clitic looks at the letters after an apostrophe at text[j-1] inside a
// word. English clitics ('s, 't, 're, 've, 'll, 'd, 'm) are dropped and end
// the word ("Rosalind's" → "rosalind"); other letters continue the word
// without the apostrophe ("O'Brien" → "obrien"). It returns where scanning
// resumes and whether the word ends there.
func clitic(text string, j int) (next int, endWord bool) {
	end := j
	for end < len(text) && isASCIILetter(text[end]) {
		end++
	}
	if end == j {
		return j, true
	}
	switch lowerASCII(text[j:end]) {
	case "s", "t", "re", "ve", "ll", "d", "m":
		return end, true
	}
	return j, false
}

func isASCIILetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// lowerASCII lower-cases a short ASCII clitic without allocating for the
// common already-lower case.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for k := range b {
				if 'A' <= b[k] && b[k] <= 'Z' {
					b[k] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// wordAt reports whether text[i] starts a letter or digit, so "c++" and "c#"
// are recognised only when they stand alone ("c++11" stays "c", "11").
func wordAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isIdeograph reports scripts written without spaces between words. Each
// character becomes its own token: crude, but it makes CJK text searchable
// without a dictionary segmenter.
func isIdeograph(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}
