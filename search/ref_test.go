package search

import (
	"cmp"
	"math"
	"slices"
)

// semanticRef is the Semantic of commit 5e7b666, before phase 2 handed topK
// only the candidates, kept to check that the change alters nothing.
// It returns the top k documents by cosine similarity ≥ floor, best
// first, ties broken by ID, with the same keep contract as Lexical. Only
// documents whose vector has the query's Dim can match. Sparse vectors are
// scored exactly through per-dimension posting lists, visiting only the
// query's nonzero dimensions; dense vectors are compared brute force.
func (ix *Index) semanticRef(q Vector, k int, floor float64, keep func(id string) bool) []Hit {
	if k <= 0 {
		return nil
	}
	cq, ok := canonical(q)
	if !ok {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.dimDocs[uint32(cq.Dim)] == 0 {
		return nil
	}
	sc := ix.getScratch()
	acc, seen, touched := sc.acc, sc.seen, sc.touched[:0]

	// Order the query's dimensions by impact, the largest possible
	// contribution |q_j| · max_d |v_dj|. With the built-in embedder a few
	// word and concept dimensions carry most of the score while dozens of
	// character n-gram dimensions each add little but have long lists.
	qd := sc.qdims[:0]
	add := func(j uint32, qv float32) {
		if li, ok := ix.dimOf[j]; ok && len(ix.vlists[li].posts) > 0 {
			l := &ix.vlists[li]
			qd = append(qd, qdim{list: l, qv: qv, ub: math.Abs(float64(qv)) * float64(l.maxAbs)})
		}
	}
	if cq.Indices != nil {
		for i, j := range cq.Indices {
			add(j, cq.Values[i])
		}
	} else {
		for j, qv := range cq.Values {
			if qv != 0 {
				add(uint32(j), qv)
			}
		}
	}
	slices.SortFunc(qd, func(a, b qdim) int { return cmp.Compare(b.ub, a.ub) })
	rest := 0.0
	for _, x := range qd {
		rest += x.ub
	}

	// Phase 1 scores whole lists while a document seen in none of them so
	// far could still reach the floor; after that (MaxScore-style pruning)
	// no new document can, and only those already seen matter.
	const slack = 1e-5 // float32 accumulation error
	i := 0
	for ; i < len(qd); i++ {
		if floor > 0 && rest+slack < floor {
			break
		}
		l, qv := qd[i].list, qd[i].qv
		for _, pv := range l.posts {
			d := pv.doc
			// Signed features can sum to exactly zero, so membership is
			// tracked in a bitset rather than inferred from acc.
			if w, bit := d/64, uint64(1)<<(d%64); seen[w]&bit == 0 {
				seen[w] |= bit
				touched = append(touched, d)
			}
			acc[d] += qv * pv.val
		}
		rest -= qd[i].ub
	}
	// Phase 2 completes the scores of the documents that can still reach
	// the floor, looking them up in the remaining lists by galloping
	// search. The others keep partial scores below the floor, so topK
	// drops them.
	if i < len(qd) {
		mark := make([]uint64, len(seen))
		cands := sc.cands[:0]
		for _, d := range touched {
			if float64(acc[d])+rest+slack >= floor && ix.vdim[d] == uint32(cq.Dim) {
				cands = append(cands, d)
			}
		}
		// Galloping needs the candidates sorted, which only pays off while
		// they are few; a large set is handled by linear passes alone.
		few := len(cands) <= 512
		if few {
			slices.Sort(cands)
		}
		for _, d := range cands {
			mark[d/64] |= 1 << (d % 64)
		}
		for _, x := range qd[i:] {
			posts := x.list.posts
			if few && len(cands)*8 < len(posts) {
				p := 0
				for _, d := range cands {
					p = gallop(posts, p, d)
					if p == len(posts) {
						break
					}
					if posts[p].doc == d {
						acc[d] += x.qv * posts[p].val
					}
				}
				continue
			}
			// Many candidates: a linear pass with a bitset test is cheaper
			// than searching.
			for _, pv := range posts {
				if mark[pv.doc/64]&(1<<(pv.doc%64)) != 0 {
					acc[pv.doc] += x.qv * pv.val
				}
			}
		}
		for _, d := range cands {
			mark[d/64] = 0
		}
		sc.cands = cands[:0]
	}
	sc.qdims = qd[:0]

	if blk := ix.dense[cq.Dim]; blk != nil {
		for slot, d := range blk.ords {
			row := Vector{Dim: blk.dim, Values: blk.vals[slot*blk.dim : (slot+1)*blk.dim]}
			seen[d/64] |= 1 << (d % 64)
			touched = append(touched, d)
			acc[d] = cq.Dot(row)
		}
	}
	// Checking each document's Dim is needed only when vectors of several
	// sizes share the index (an embedder change not yet rebuilt).
	dimCheck := uint32(cq.Dim)
	if _, ok := ix.dimDocs[dimCheck]; ok && len(ix.dimDocs) == 1 {
		dimCheck = 0
	}
	hits := ix.topKRef(sc, touched, k, floor, dimCheck, keep)
	ix.putScratch(sc, touched)
	return hits
}

// topKRef is topK of commit 5e7b666: it selects the best k touched documents with score ≥ floor (and vector
// Dim == dim when dim > 0), calling keep only for those that would enter the
// current top k.
func (ix *Index) topKRef(sc *scratch, touched []uint32, k int, floor float64, dim uint32, keep func(string) bool) []Hit {
	h := sc.heap[:0]
	acc := sc.acc
	for _, d := range touched {
		c := cand{score: acc[d], ord: d}
		if float64(c.score) < floor {
			continue
		}
		// A document that only ties the k-th best stays out: breaking ties
		// here would call keep (a map lookup in the caller) for every one
		// of what can be thousands of equal scores.
		if len(h) == k && c.score <= h[0].score {
			continue
		}
		if dim != 0 && ix.vdim[d] != dim {
			continue
		}
		if keep != nil && !keep(ix.ids[d]) {
			continue
		}
		if len(h) < k {
			h = append(h, c)
			ix.siftUp(h, len(h)-1)
		} else {
			h[0] = c
			ix.siftDown(h, 0)
		}
	}
	slices.SortFunc(h, func(a, b cand) int {
		switch {
		case ix.worse(b, a):
			return -1
		case ix.worse(a, b):
			return 1
		}
		return 0
	})
	hits := make([]Hit, len(h))
	for i, c := range h {
		hits[i] = Hit{ID: ix.ids[c.ord], Score: float64(c.score)}
	}
	sc.heap = h[:0]
	return hits
}
