package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/mnemon-dev/mnemon/search"
)

// topHits picks what sorting every hit and taking the first k picked, in
// the same order, scores tied or not, for k below, at and above the count.
func TestTopHitsIsSortedPrefix(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 2, 7, 50, 51, 400, 3885} {
		for _, k := range []int{0, 1, 10, 50, 5000} {
			hits := make([]search.Hit, n)
			for i := range hits {
				// Few distinct scores, so most comparisons fall to the id.
				hits[i] = search.Hit{ID: fmt.Sprintf("ver_%06d", r.IntN(1_000_000)*n+i), Score: float64(r.IntN(4)) / 4}
			}
			want := slices.Clone(hits)
			sort.Slice(want, func(i, j int) bool {
				if want[i].Score != want[j].Score {
					return want[i].Score > want[j].Score
				}
				return want[i].ID > want[j].ID
			})
			want = want[:min(k, n)]
			if got := topHits(slices.Clone(hits), k); !slices.Equal(got, want) {
				t.Errorf("n %d, k %d: got %v, want %v", n, k, head(got), head(want))
			}
		}
	}
}

func head(h []search.Hit) []search.Hit { return h[:min(len(h), 5)] }
