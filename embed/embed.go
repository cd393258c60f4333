// Package embed turns text into vectors for the semantic channel. The
// built-in embedders need no model files and no network. Builtin hashes
// lexical features into a large sparse space: deterministic, fast, and it
// finds paraphrases that share words, word forms or concepts. WordVectors,
// the default, adds an average of embedded GloVe word vectors (package
// vectors), so paraphrases in other words meet too. Model-backed embedders
// (OpenAI-compatible providers) implement the same interface.
package embed

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/mnemon-dev/mnemon/search"
)

// Embedder turns texts into L2-normalised vectors. Name and Dim identify the
// vector space: vectors from embedders that differ in either are not
// comparable, so both belong in an embedding's provenance.
type Embedder interface {
	Name() string
	Dim() int
	Embed(ctx context.Context, texts []string) ([]search.Vector, error)
}

var _ Embedder = (*Builtin)(nil)

// BuiltinDim is the size of the built-in embedder's hashed feature space:
// 2^18 keeps collisions between the ~100 features of two short texts rare
// (expected shared buckets by chance ≈ 100·100/2^18 ≈ 0.04).
const BuiltinDim = 1 << 18

// Feature weights. A word contributes its stem (the strongest evidence), a
// block of character n-grams of the stem (morphology and typos: "programm"
// vs "program"), concept features from the thesaurus (synonyms), and each
// adjacent pair of words a bigram (phrases). The values were tuned on the
// table in embed_test.go: paraphrases mostly score 0.3–0.85, unrelated text under 0.05 (sharing only a name gives ~0.2).
const (
	weightUnigram = 1.0
	weightNgrams  = 0.6 // L2 norm of one word's n-gram block
	weightConcept = 0.8
	weightBigram  = 0.5
)

// Prefix lengths, in runes including the leading "<" mark: 4 to 6 runes is
// 3 to 5 letters of the stem.
const (
	minPrefix = 4
	maxPrefix = 6
)

// Builtin is the offline hashed-feature embedder. It is safe for concurrent
// use.
type Builtin struct {
	an       *search.Analyzer
	concepts map[string][]string // stem → concept names
	pool     sync.Pool           // *[]feature
}

type feature struct {
	idx uint32
	val float32
}

// NewBuiltin returns the built-in embedder.
func NewBuiltin() *Builtin {
	return &Builtin{an: search.NewAnalyzer(), concepts: conceptTable()}
}

// conceptTable maps each stem of conceptGroups to its concept names. It is
// built once per process and only read afterwards: every engine (and every
// test) makes its own embedder, and analysing the groups each time was a
// tenth of the engine tests' CPU.
var conceptTable = sync.OnceValue(func() map[string][]string {
	an := search.NewAnalyzer()
	concepts := map[string][]string{}
	for _, g := range conceptGroups {
		name := g[0]
		for _, w := range g {
			// Words, as Vector reads text: the stems, without the
			// parts of a compound the index adds.
			an.Words(w, func(_, t string) {
				if !slices.Contains(concepts[t], name) {
					concepts[t] = append(concepts[t], name)
				}
			})
		}
	}
	return concepts
})

// Name identifies the feature scheme; change it whenever features or
// weights change, because stored vectors stop being comparable.
func (b *Builtin) Name() string { return "builtin-hash-v1" }

// Dim returns BuiltinDim.
func (b *Builtin) Dim() int { return BuiltinDim }

// Embed returns one sparse normalised vector per text. Text with no content
// words yields a zero vector (Dim 0).
func (b *Builtin) Embed(ctx context.Context, texts []string) ([]search.Vector, error) {
	out := make([]search.Vector, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		out[i] = b.Vector(t)
	}
	return out, nil
}

// Vector embeds one text.
func (b *Builtin) Vector(text string) search.Vector {
	fp, _ := b.pool.Get().(*[]feature)
	if fp == nil {
		fp = new([]feature)
	}
	fs := (*fp)[:0]
	var gram [2*64 + 8]byte
	prev := ""
	b.an.Words(text, func(_, term string) {
		fs = append(fs, hashed('u', term, "", weightUnigram))
		if prev != "" {
			fs = append(fs, hashed('b', prev, term, weightBigram))
		}
		prev = term
		for _, c := range b.concepts[term] {
			fs = append(fs, hashed('c', c, "", weightConcept))
		}
		fs = appendNgrams(fs, gram[:0], term)
	})
	v := collapse(fs)
	*fp = fs[:0]
	b.pool.Put(fp)
	return v
}

// appendNgrams adds the prefixes of "<term" of 4 to 6 runes that are shorter
// than the term itself, weighted so the block has L2 norm weightNgrams. They
// tie together word forms the stemmer leaves apart ("programm" from
// programmer, "program" from programming; "colour" and "color") and
// survive typos late in a word. Prefixes rather than all character n-grams
// because they are far more specific: inner 3-grams such as "ing" or "er>"
// occur in most documents, and on a 100k corpus made queries visit ~17x more
// postings for little gain in ranking. Numbers get none.
func appendNgrams(fs []feature, buf []byte, term string) []feature {
	if term == "" || (term[0] >= '0' && term[0] <= '9') {
		return fs
	}
	buf = append(buf, '<')
	buf = append(buf, term...)
	var ends [8]int // byte offsets where prefixes of 4, 5, 6 runes end
	n, runes := 0, 0
	for i := range buf {
		if buf[i]&0xC0 != 0x80 { // rune start
			if runes >= minPrefix && runes <= maxPrefix {
				ends[n] = i
				n++
			}
			runes++
		}
	}
	// The last candidate must leave at least one rune out, or it would
	// repeat the unigram; the loop above only records prefixes followed
	// by another rune, which guarantees that.
	if n == 0 {
		return fs
	}
	w := float32(weightNgrams / math.Sqrt(float64(n)))
	for _, e := range ends[:n] {
		fs = append(fs, hashedBytes('g', buf[:e], w))
	}
	return fs
}

// collapse sorts features by index, sums collisions and repeats, drops
// zeros and normalises.
func collapse(fs []feature) search.Vector {
	if len(fs) == 0 {
		return search.Vector{}
	}
	slices.SortFunc(fs, func(a, b feature) int {
		switch {
		case a.idx < b.idx:
			return -1
		case a.idx > b.idx:
			return 1
		}
		return 0
	})
	v := search.Vector{Dim: BuiltinDim, Indices: make([]uint32, 0, len(fs)), Values: make([]float32, 0, len(fs))}
	for _, f := range fs {
		if k := len(v.Indices); k > 0 && v.Indices[k-1] == f.idx {
			v.Values[k-1] += f.val
			continue
		}
		v.Indices = append(v.Indices, f.idx)
		v.Values = append(v.Values, f.val)
	}
	k := 0
	for i := range v.Indices {
		if v.Values[i] != 0 {
			v.Indices[k], v.Values[k] = v.Indices[i], v.Values[i]
			k++
		}
	}
	if k == 0 {
		return search.Vector{}
	}
	v.Indices, v.Values = v.Indices[:k:k], v.Values[:k:k]
	search.Normalize(&v)
	return v
}

// FNV-1a, 64-bit, over a kind byte and the feature's bytes, then a
// splitmix64 finaliser so the low bits (the index) and the top bit (the
// sign) are well mixed. Signed hashing makes colliding features cancel in
// expectation instead of always adding up. Fixed constants: the same text
// hashes the same on every platform and run.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

func signed(h uint64, w float32) feature {
	h = mix(h)
	if h>>63 != 0 {
		w = -w
	}
	return feature{idx: uint32(h & (BuiltinDim - 1)), val: w}
}

func hashed(kind byte, a, b string, w float32) feature {
	h := uint64(fnvOffset)
	h = (h ^ uint64(kind)) * fnvPrime
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * fnvPrime
	}
	if b != "" {
		h *= fnvPrime // FNV step for a zero separator byte: "ab"+"c" ≠ "a"+"bc"
		for i := 0; i < len(b); i++ {
			h = (h ^ uint64(b[i])) * fnvPrime
		}
	}
	return signed(h, w)
}

func hashedBytes(kind byte, p []byte, w float32) feature {
	h := uint64(fnvOffset)
	h = (h ^ uint64(kind)) * fnvPrime
	for _, c := range p {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return signed(h, w)
}
