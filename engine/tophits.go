package engine

import (
	"cmp"
	"slices"

	"github.com/mnemon-dev/mnemon/search"
)

// topHits returns the k best of hits, best first: the higher score, and at
// equal scores the greater (newer) id. It is the first k of hits sorted so,
// found without sorting them all: a key word of a common slot ("city" for
// every lives_in version ever written) lists thousands of hits, of which a
// channel keeps ChannelCap. hits is reordered.
func topHits(hits []search.Hit, k int) []search.Hit {
	if k <= 0 {
		return hits[:0]
	}
	if len(hits) > k {
		// hits[:k] is a heap with the worst of the best k at its root.
		for i := k/2 - 1; i >= 0; i-- {
			siftWorst(hits[:k], i)
		}
		for _, h := range hits[k:] {
			if hitBefore(h, hits[0]) {
				hits[0] = h
				siftWorst(hits[:k], 0)
			}
		}
		hits = hits[:k]
	}
	slices.SortFunc(hits, func(a, b search.Hit) int {
		if hitBefore(a, b) {
			return -1
		}
		if hitBefore(b, a) {
			return 1
		}
		return 0
	})
	return hits
}

// hitBefore reports whether a ranks before b: the higher score, then the
// greater id.
func hitBefore(a, b search.Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return cmp.Less(b.ID, a.ID)
}

// siftWorst restores the heap property below i: every parent ranks after
// its children, so the root is the worst.
func siftWorst(h []search.Hit, i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && hitBefore(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && hitBefore(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
