package embed

import (
	"context"
	"fmt"
	"math"

	"github.com/mnemon-dev/mnemon/embed/vectors"
	"github.com/mnemon-dev/mnemon/search"
)

// WordVectors is the default embedder: the built-in hashed features (exact
// words, word forms, concepts, phrases) joined with a SIF-weighted average of
// GloVe word vectors (package vectors), so text that shares no word but
// means the same ("kids" and "son", "car" and "vehicle", "dinner" and
// "cilantro") still gets a cosine. Words the table does not know (names,
// jargon, typos) count through the hashed features only.
//
// A vector is sparse with Dim BuiltinDim + the table's Dim: the hashed
// features at their usual indices, scaled by HashedShare's square root,
// then the dense average in the last dimensions, scaled by the rest. Both
// parts are unit-normed, so a cosine is HashedShare · hashed cosine +
// (1 − HashedShare) · word-vector cosine. DenseTail tells the search index
// that those last dimensions are dense.
type WordVectors struct {
	hash *Builtin
	wh   float32 // weight of the hashed part
	wd   float32 // weight of the dense part
}

var _ Embedder = (*WordVectors)(nil)

// WordVectorsName is WordVectors' Name.
const WordVectorsName = "builtin-glove64-sif-v1"

// HashedShare is the hashed features' share of a WordVectors cosine.
const HashedShare = 0.5

// SIF weighting (Arora, Liang and Ma, 2017): a word weighs a/(a + p(w)),
// p(w) its corpus frequency, so "time" or "people" weigh little next to
// "cilantro". GloVe ships no counts, only the frequency order, so p follows
// Zipf's law from the rank: p(r) = 1 / ((r+1) · H), H the harmonic number
// of GloVe 6B's 400,000-word vocabulary.
const (
	sifA         = 1e-3
	zipfHarmonic = 13.48 // ln(400000) + Euler–Mascheroni
)

// NewWordVectors returns the word-vector embedder. The table is decoded on
// first use.
func NewWordVectors() *WordVectors {
	return &WordVectors{
		hash: NewBuiltin(),
		wh:   float32(math.Sqrt(HashedShare)),
		wd:   float32(math.Sqrt(1 - HashedShare)),
	}
}

// Name identifies the scheme; change it whenever the table, the weights or
// the layout change.
func (w *WordVectors) Name() string { return WordVectorsName }

// Dim returns BuiltinDim plus the word vectors' dimensions.
func (w *WordVectors) Dim() int { return BuiltinDim + w.DenseTail() }

// DenseTail returns how many trailing dimensions are dense (see
// search.Index.SetDenseTail).
func (w *WordVectors) DenseTail() int { return vectors.Load().Dim() }

// Embed returns one normalised vector per text. Text with no content words
// yields a zero vector (Dim 0).
func (w *WordVectors) Embed(ctx context.Context, texts []string) ([]search.Vector, error) {
	out := make([]search.Vector, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		out[i] = w.Vector(t)
	}
	return out, nil
}

// Vector embeds one text.
func (w *WordVectors) Vector(text string) search.Vector {
	h := w.hash.Vector(text)
	if h.IsZero() {
		return h
	}
	tb := vectors.Load()
	n := tb.Dim()
	v := search.Vector{Dim: BuiltinDim + n, Indices: make([]uint32, len(h.Indices), len(h.Indices)+n), Values: make([]float32, len(h.Values), len(h.Values)+n)}
	copy(v.Indices, h.Indices)
	for i, x := range h.Values {
		v.Values[i] = w.wh * x
	}
	dense := make([]float32, n)
	found := false
	w.hash.an.Words(text, func(word, _ string) {
		if r, ok := tb.Lookup(word); ok {
			tb.AddTo(dense, r, sifWeight(tb.Rank(r)))
			found = true
		}
	})
	var ss float64
	for _, x := range dense {
		ss += float64(x) * float64(x)
	}
	if !found || ss == 0 {
		// No known word: the hashed part alone, still unit-normed, so it
		// meets documents' hashed parts at the same scale as theirs.
		v.Values = v.Values[:0]
		v.Values = append(v.Values, h.Values...)
		return v
	}
	scale := w.wd / float32(math.Sqrt(ss))
	for j, x := range dense {
		if x != 0 {
			v.Indices = append(v.Indices, uint32(BuiltinDim+j))
			v.Values = append(v.Values, scale*x)
		}
	}
	return v
}

func sifWeight(rank int) float32 {
	p := 1 / (float64(rank+1) * zipfHarmonic)
	return float32(sifA / (sifA + p))
}

// ByName returns a new built-in embedder by its Name: WordVectorsName (the
// default) or the hashed-only "builtin-hash-v1". It reports false for any
// other name.
func ByName(name string) (Embedder, bool) {
	switch name {
	case WordVectorsName:
		return NewWordVectors(), true
	case NewBuiltin().Name():
		return NewBuiltin(), true
	}
	return nil, false
}
