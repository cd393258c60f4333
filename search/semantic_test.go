package search_test

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/search/searchtest"
)

// TestSemanticPruningExact checks the pruned Semantic against brute-force
// cosine on built-in embeddings, where pruning actually triggers.
func TestSemanticPruningExact(t *testing.T) {
	t.Parallel()
	emb := embed.NewBuiltin()
	g := searchtest.NewGenerator(11)
	texts := g.Sentences(3000)
	ix := search.NewIndex()
	vecs := make([]search.Vector, len(texts))
	for i, s := range texts {
		vecs[i] = emb.Vector(s)
		ix.Upsert(search.Doc{ID: fmt.Sprintf("d%05d", i), Vector: vecs[i]})
	}
	for qi, q := range searchtest.NewGenerator(12).Sentences(search.Scaled(60)) {
		qv := emb.Vector(q)
		for _, floor := range []float64{0.05, 0.2, 0.4} {
			var want []search.Hit
			for i, v := range vecs {
				if s := float64(qv.Dot(v)); s >= floor {
					want = append(want, search.Hit{ID: fmt.Sprintf("d%05d", i), Score: s})
				}
			}
			sort.Slice(want, func(a, b int) bool {
				if want[a].Score != want[b].Score {
					return want[a].Score > want[b].Score
				}
				return want[a].ID < want[b].ID
			})
			want = want[:min(len(want), 20)]
			got := ix.Semantic(qv, 20, floor, nil)
			if len(got) != len(want) {
				t.Fatalf("query %d floor %v: %d hits, want %d", qi, floor, len(got), len(want))
			}
			for i := range got {
				if math.Abs(got[i].Score-want[i].Score) > 1e-4 {
					t.Fatalf("query %d floor %v hit %d: %v, want %v", qi, floor, i, got[i], want[i])
				}
			}
		}
	}
}
