package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSemanticMatchesReference compares Semantic with the implementation
// of commit 5e7b666 (semanticRef) and with brute-force cosine, on random sparse vectors built to stress it:
// Zipf-distributed dimensions so some lists are long, signed values,
// duplicated vectors so scores tie at the k-th place, filters, removals,
// dense and mixed-Dim documents. The reference must agree exactly (same IDs
// in the same order, bit-identical scores); brute force up to rounding.
func TestSemanticMatchesReference(t *testing.T) {
	t.Parallel()
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 99))
		const dim = 1 << 12
		zipf := rand.NewZipf(r, 1.1, 4, dim-1)
		vec := func() Vector {
			nnz := 3 + r.IntN(40)
			m := map[uint32]float32{}
			for range nnz {
				v := float32(r.NormFloat64())
				if r.IntN(4) > 0 {
					v = float32(math.Abs(float64(v))) // mostly positive, as real embeddings
				}
				m[uint32(zipf.Uint64())] = v
			}
			v := Vector{Dim: dim}
			for j := range m {
				v.Indices = append(v.Indices, j)
			}
			slices.Sort(v.Indices)
			for _, j := range v.Indices {
				v.Values = append(v.Values, m[j])
			}
			c, _ := canonical(v)
			return c
		}
		n := 2000 + r.IntN(4000)
		docs := make([]Doc, 0, n)
		vecs := map[string]Vector{}
		for i := range n {
			var v Vector
			switch x := r.IntN(20); {
			case x < 3 && i > 0:
				v = docs[r.IntN(len(docs))].Vector // a duplicate: ties
			case x == 3 && seed%3 == 1:
				v = Vector{Dim: 64, Indices: []uint32{uint32(r.IntN(64))}, Values: []float32{1}} // another embedder
			case x == 4 && seed%3 == 2:
				d := make([]float32, dim)
				for range 8 {
					d[zipf.Uint64()] = float32(r.Float64())
				}
				v, _ = canonical(Vector{Dim: dim, Values: d}) // dense
			default:
				v = vec()
			}
			id := fmt.Sprintf("d%05d", i)
			docs = append(docs, Doc{ID: id, Vector: v})
			vecs[id] = v
		}
		ix := NewIndex()
		ix.Build(docs)
		for range n / 10 {
			id := docs[r.IntN(len(docs))].ID
			ix.Remove(id)
			delete(vecs, id)
		}
		for q := range scaled(150) {
			qv := vec()
			if q%5 == 0 {
				qv = docs[r.IntN(len(docs))].Vector
			}
			k := []int{1, 3, 10, 50, 200}[r.IntN(5)]
			floor := []float64{-1, 0, 0.05, 0.2, 0.5}[r.IntN(5)]
			var keep func(string) bool
			calls := map[string]bool{}
			if r.IntN(2) == 0 {
				mod := 2 + r.IntN(5)
				keep = func(id string) bool {
					calls[id] = true
					return id[len(id)-1]%byte(mod) != 0
				}
			}
			got := ix.Semantic(qv, k, floor, keep)
			want := ix.semanticRef(qv, k, floor, keep)
			if len(got) != len(want) {
				t.Fatalf("seed %d query %d k %d floor %v: %d hits, reference %d", seed, q, k, floor, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("seed %d query %d k %d floor %v hit %d: %v, reference %v", seed, q, k, floor, i, got[i], want[i])
				}
			}
			// Brute force: the same scores up to rounding. A sparse document
			// sharing no dimension with the query is not a match even when
			// the floor admits a score of 0.
			var brute []float64
			for id, v := range vecs {
				if v.Dim == qv.Dim && (keep == nil || keep(id)) && (!v.Sparse() || overlaps(v.Indices, qv)) {
					if s := float64(qv.Dot(v)); s >= floor {
						brute = append(brute, s)
					}
				}
			}
			slices.SortFunc(brute, func(a, b float64) int { return -cmpFloat(a, b) })
			brute = brute[:min(len(brute), k)]
			if len(brute) != len(got) {
				t.Fatalf("seed %d query %d: %d hits, brute force %d", seed, q, len(got), len(brute))
			}
			for i := range got {
				if math.Abs(got[i].Score-brute[i]) > 1e-4 {
					t.Fatalf("seed %d query %d hit %d: %v, brute force %v", seed, q, i, got[i].Score, brute[i])
				}
			}
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func overlaps(a []uint32, q Vector) bool {
	for _, j := range a {
		if q.Sparse() {
			if _, ok := slices.BinarySearch(q.Indices, j); ok {
				return true
			}
		} else if q.Values[j] != 0 {
			return true
		}
	}
	return false
}
