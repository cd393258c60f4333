package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSemanticDenseTail checks that declaring a dense tail (SetDenseTail)
// changes how vectors are stored, not what Semantic returns: on random
// hashed-plus-dense vectors, with bulk builds, upserts, replacements,
// removals, other embedders' vectors, filters and queries without a tail, the
// result equals brute-force cosine and the result of an index without the
// declaration.
//
// It runs twice: as shipped, and with the block scanned in two concurrent
// halves (the path of blocks of 32k rows and more). Not parallel with
// other tests: it changes parallelTailRows.
func TestSemanticDenseTail(t *testing.T) {
	for _, rows := range []int{parallelTailRows, 1000} {
		t.Run(fmt.Sprintf("parallel from %d rows", rows), func(t *testing.T) {
			saved := parallelTailRows
			parallelTailRows = rows
			defer func() { parallelTailRows = saved }()
			testSemanticDenseTail(t)
		})
	}
}

func testSemanticDenseTail(t *testing.T) {
	const head, tail = 1 << 12, 16
	const dim = head + tail
	r := rand.New(rand.NewPCG(7, 11))
	vec := func(withTail bool) Vector {
		m := map[uint32]float32{}
		for range 3 + r.IntN(20) {
			m[uint32(r.IntN(200))] = float32(r.Float64())
		}
		v := Vector{Dim: dim}
		for j := range uint32(head) {
			if x, ok := m[j]; ok {
				v.Indices = append(v.Indices, j)
				v.Values = append(v.Values, x)
			}
		}
		if withTail {
			for j := range uint32(tail) {
				v.Indices = append(v.Indices, head+j)
				v.Values = append(v.Values, float32(r.NormFloat64()))
			}
		}
		c, _ := canonical(v)
		return c
	}
	docs := make([]Doc, 0, 3000)
	for i := range 3000 {
		v := vec(r.IntN(10) > 0)
		if i%97 == 0 {
			v = Vector{Dim: 64, Indices: []uint32{3}, Values: []float32{1}} // another embedder
		}
		docs = append(docs, Doc{ID: fmt.Sprintf("d%04d", i), Vector: v})
	}
	plain, tailed, upserted := NewIndex(), NewIndex(), NewIndex()
	tailed.SetDenseTail(dim, tail)
	upserted.SetDenseTail(dim, tail)
	plain.Build(docs)
	tailed.Build(docs)
	for _, d := range docs {
		upserted.Upsert(d)
	}
	live := map[string]Vector{}
	for _, d := range docs {
		live[d.ID] = d.Vector
	}
	// Churn: replace some, remove some, in all three.
	for i := range 500 {
		id := docs[r.IntN(len(docs))].ID
		for _, ix := range []*Index{plain, tailed, upserted} {
			if i%3 == 0 {
				ix.Remove(id)
			}
		}
		if i%3 == 0 {
			delete(live, id)
			continue
		}
		v := vec(true)
		for _, ix := range []*Index{plain, tailed, upserted} {
			ix.Upsert(Doc{ID: id, Vector: v})
		}
		live[id] = v
	}
	for q := range 60 {
		qv := vec(q%5 != 0)
		floor := []float64{0, 0.1, 0.3}[q%3]
		// No filter, a mild one, and one that rejects most documents
		// (the lazy top k then falls back to the plain one).
		keep := []func(string) bool{nil, func(id string) bool { return id[len(id)-1] != '3' }, func(id string) bool { return id[len(id)-1] == '7' }}[q%3]
		if q%4 == 1 {
			keep = nil
		}
		want := plain.Semantic(qv, 10, floor, keep)
		for name, ix := range map[string]*Index{"tailed": tailed, "upserted": upserted} {
			got := ix.Semantic(qv, 10, floor, keep)
			if len(got) != len(want) {
				t.Fatalf("query %d %s: %d hits, plain index %d", q, name, len(got), len(want))
			}
			for i := range got {
				if got[i].ID != want[i].ID && math.Abs(got[i].Score-want[i].Score) > 1e-5 {
					t.Fatalf("query %d %s: hit %d = %v, plain index %v", q, name, i, got[i], want[i])
				}
				if math.Abs(got[i].Score-float64(qv.Dot(live[got[i].ID]))) > 1e-5 {
					t.Fatalf("query %d %s: hit %v, brute force %v", q, name, got[i], qv.Dot(live[got[i].ID]))
				}
			}
		}
	}
}

// Scoring the rows with the best head scores first (tailSeeds) only
// reorders the scan: the hits and their scores are bit for bit those of
// the plain scan, ties (duplicate vectors) and filters included, in one
// scan and in two concurrent halves. Not parallel with other tests: it
// changes tailSeeding and parallelTailRows.
func TestTailSeedsSameHits(t *testing.T) {
	const head, tail = 1 << 12, 64
	const dim = head + tail
	r := rand.New(rand.NewPCG(3, 5))
	vec := func() Vector {
		v := Vector{Dim: dim}
		for j := range uint32(head) {
			if r.IntN(40) == 0 && j < 400 {
				v.Indices = append(v.Indices, j)
				v.Values = append(v.Values, float32(r.Float64()))
			}
		}
		for j := range uint32(tail) {
			v.Indices = append(v.Indices, head+j)
			v.Values = append(v.Values, float32(r.NormFloat64())/float32(j+1))
		}
		c, _ := canonical(v)
		return c
	}
	ix := NewIndex()
	ix.SetDenseTail(dim, tail)
	var docs []Doc
	for i := range 4000 {
		v := vec()
		if i%5 == 1 {
			v = docs[i-1].Vector // the same text stored twice: tied scores
		}
		docs = append(docs, Doc{ID: fmt.Sprintf("d%04d", i), Vector: v})
	}
	ix.Build(docs)
	saved := parallelTailRows
	defer func() { parallelTailRows = saved }()
	for q := range 80 {
		qv := vec()
		keep := []func(string) bool{nil, func(id string) bool { return id[len(id)-1] != '3' }}[q%2]
		// Half the queries scan the block in two concurrent halves, each
		// passing over its half's seeds.
		parallelTailRows = []int{saved, 1000}[q/2%2]
		for _, k := range []int{1, 10, 50} {
			tailSeeding = true
			seeded := ix.Semantic(qv, k, 0.05, keep)
			tailSeeding = false
			plain := ix.Semantic(qv, k, 0.05, keep)
			tailSeeding = true
			if len(plain) == 0 {
				t.Fatalf("query %d k %d: no hits to compare", q, k)
			}
			if !slices.Equal(seeded, plain) {
				t.Fatalf("query %d k %d:\n seeded %v\n plain  %v", q, k, seeded, plain)
			}
		}
	}
}

// The checkpoint bounds of the tail scan (tailScan: after the first
// eighth of a row, eight values into its middle run, and at its half) only
// skip rows that cannot make the result: the hits and their scores are bit
// for bit those of a scan that scores every row whole through dotRow (the
// arithmetic the written-out path for 64-value rows repeats), with
// duplicate vectors (tied scores), filters, floors, several k, rows
// replaced and removed, both scan paths (seeded, and two concurrent
// halves), and tails of 64 values (the written-out path) and of other
// lengths; and the scores are brute-force cosines. Not parallel with other
// tests: it changes tailBounds, tailWide and parallelTailRows.
func TestTailBoundsSameHits(t *testing.T) {
	for _, tail := range []int{64, 16, 72} {
		for _, rows := range []int{parallelTailRows, 1000} {
			t.Run(fmt.Sprintf("tail %d parallel from %d rows", tail, rows), func(t *testing.T) {
				saved := parallelTailRows
				parallelTailRows = rows
				defer func() { parallelTailRows = saved }()
				testTailBoundsSameHits(t, tail)
			})
		}
	}
}

func testTailBoundsSameHits(t *testing.T, tail int) {
	const head = 1 << 12
	dim := head + tail
	r := rand.New(rand.NewPCG(uint64(tail), 17))
	vec := func() Vector {
		v := Vector{Dim: dim}
		for j := range uint32(head) {
			if r.IntN(40) == 0 && j < 400 {
				v.Indices = append(v.Indices, j)
				v.Values = append(v.Values, float32(r.Float64()))
			}
		}
		for j := range uint32(tail) {
			x := float32(r.NormFloat64()) / float32(j/4+1) // strongest first, as principal components
			if r.IntN(8) == 0 {
				x = float32(r.IntN(3)-1) / 4 // exact values: more equal sums
			}
			v.Indices = append(v.Indices, uint32(head)+j)
			v.Values = append(v.Values, x)
		}
		c, _ := canonical(v)
		return c
	}
	ix, _, live := churnedTailIndex(r, dim, tail, 4000, 600,
		func(int) Vector { return vec() },
		func(i int) bool { return i%5 == 1 || i%7 == 2 },
		func(i int, docs []Doc) Vector {
			v := vec()
			if i%2 == 0 {
				v = docs[r.IntN(len(docs))].Vector
			}
			return v
		})
	defer func() { tailBounds, tailWide = true, true }()
	compared := 0
	for q := range 60 {
		qv := vec()
		if q%6 == 5 {
			for id := range live {
				qv = live[id] // a stored vector: a tie at the top
				break
			}
		}
		floor := []float64{math.Inf(-1), 0, 0.05, 0.3}[q%4]
		keep := []func(string) bool{nil, func(id string) bool { return id[len(id)-1] != '3' }, func(id string) bool { return id[len(id)-1] == '7' }}[q%3]
		for _, k := range []int{1, 10, 50} {
			tailBounds = true
			pruned := ix.Semantic(qv, k, floor, keep)
			tailBounds, tailWide = false, false // every row whole, through dotRow
			whole := ix.Semantic(qv, k, floor, keep)
			tailBounds, tailWide = true, true
			if !slices.EqualFunc(pruned, whole, func(a, b Hit) bool {
				return a.ID == b.ID && math.Float64bits(a.Score) == math.Float64bits(b.Score)
			}) {
				t.Fatalf("query %d k %d floor %v:\n pruned %v\n whole  %v", q, k, floor, pruned, whole)
			}
			for _, h := range pruned {
				if want := float64(qv.Dot(live[h.ID])); math.Abs(h.Score-want) > 1e-5 {
					t.Fatalf("query %d k %d: hit %v, brute force %v", q, k, h, want)
				}
			}
			compared += len(pruned)
		}
	}
	if compared == 0 {
		t.Fatal("no hits compared")
	}
}

// Scanning only the rows the query's head touched, when the bound on the
// others (|q_tail| · the block's largest row norm) is below the floor or
// the seeds' k-th best (touchedOnly), gives bit for bit the hits of the
// scan of every row: with vectors laid out as the word-vector embedder
// lays them out (a hashed head and a dense tail, each √½ of a unit
// vector), documents and queries without a tail, queries whose words the
// head shares with no document, queries carrying a stored document's
// very tail (an untouched row at the bound itself), several floors (none,
// zero, above the bound) and k (up to math.MaxInt), filters, tied scores
// (the same vector stored twice), and rows replaced and removed (a stale,
// larger bound), in one scan and in two concurrent halves. It also checks
// that both paths were taken. Not parallel with other tests: it changes
// tailTouchedOnly, touchedOnlyHook and parallelTailRows.
func TestTailTouchedOnlySameHits(t *testing.T) {
	const head, tail = 1 << 12, 64
	const dim = head + tail
	r := rand.New(rand.NewPCG(23, 29))
	// words: a few hundred head dimensions, each a "word"; a document or
	// query holds a handful, and a tail unless it has no known word.
	var tailOf func() []float64 // a live document's tail, for a query (below)
	vec := func(words int, withTail bool, vocab int) Vector {
		v := Vector{Dim: dim}
		picked := map[uint32]bool{}
		for range words {
			picked[uint32(r.IntN(vocab))] = true
		}
		var hs float64
		for j := range uint32(head) {
			if picked[j] {
				x := 0.5 + r.Float64()
				v.Indices = append(v.Indices, j)
				v.Values = append(v.Values, float32(x))
				hs += x * x
			}
		}
		hw := math.Sqrt(0.5 / hs)
		if !withTail {
			hw = 1 / math.Sqrt(hs)
		}
		for i := range v.Values {
			v.Values[i] = float32(float64(v.Values[i]) * hw)
		}
		if withTail {
			xs := make([]float64, tail)
			for j := range xs {
				xs[j] = r.NormFloat64() + 0.8 // a shared direction, as word-vector averages have
			}
			if tailOf != nil {
				xs = tailOf()
			}
			var ts float64
			for _, x := range xs {
				ts += x * x
			}
			for j, x := range xs {
				v.Indices = append(v.Indices, uint32(head+j))
				v.Values = append(v.Values, float32(x*math.Sqrt(0.5/ts)))
			}
		}
		c, _ := canonical(v)
		return c
	}
	ix, docs, live := churnedTailIndex(r, dim, tail, 3000, 300,
		func(i int) Vector { return vec(1+r.IntN(4), i%13 != 0, 300) },
		func(i int) bool { return i%9 == 4 },
		func(int, []Doc) Vector { return vec(1+r.IntN(4), true, 300) })
	only, full := 0, 0
	touchedOnlyHook = func() { only++ }
	saved := parallelTailRows
	defer func() { touchedOnlyHook, tailTouchedOnly, parallelTailRows = nil, true, saved }()
	compared := 0
	for q := range 240 {
		// Every other pair of queries scans the block in two concurrent
		// halves when it scans every row.
		parallelTailRows = []int{saved, 1000}[q/2%2]
		var qv Vector
		switch q % 4 {
		case 0:
			qv = vec(1+r.IntN(2), false, 300) // no known word: no tail
		case 1:
			qv = vec(1+r.IntN(2), true, 600) // words no document may hold
		case 2:
			qv = vec(1+r.IntN(2), true, 300)
		case 3:
			// A document's very tail, with words it may not hold: an
			// untouched row whose score is the bound itself.
			var d Vector
			for j := r.IntN(len(docs)); ; j = (j + 1) % len(docs) {
				if d = live[docs[j].ID]; len(d.Indices) > tail {
					break
				}
			}
			tailOf = func() []float64 {
				xs := make([]float64, tail)
				for j := range xs {
					xs[j] = float64(d.Values[len(d.Values)-tail+j])
				}
				return xs
			}
			qv = vec(1+r.IntN(3), true, 600)
			tailOf = nil
		}
		floor := []float64{math.Inf(-1), 0, 0.2, 0.55}[q%4/2+2*(q/4%2)]
		keep := []func(string) bool{nil, func(id string) bool { return id[len(id)-1] != '3' }, func(id string) bool { return id[len(id)-1] == '7' }}[q%3]
		for _, k := range []int{1, 10, 50, math.MaxInt} {
			before := only
			tailTouchedOnly = true
			got := ix.Semantic(qv, k, floor, keep)
			tailTouchedOnly = false
			want := ix.Semantic(qv, k, floor, keep)
			if only == before {
				full++
			}
			if !slices.EqualFunc(got, want, func(a, b Hit) bool {
				return a.ID == b.ID && math.Float64bits(a.Score) == math.Float64bits(b.Score)
			}) {
				t.Fatalf("query %d k %d floor %v:\n touched only %v\n every row    %v", q, k, floor, got, want)
			}
			for _, h := range got {
				if w := float64(qv.Dot(live[h.ID])); math.Abs(h.Score-w) > 1e-5 {
					t.Fatalf("query %d k %d: hit %v, brute force %v", q, k, h, w)
				}
			}
			compared += len(got)
		}
	}
	if compared == 0 || only < 50 || full < 50 {
		t.Fatalf("%d hits compared, %d scans of the touched rows alone, %d of every row: want both paths taken", compared, only, full)
	}
	t.Logf("%d hits compared; %d scans of the touched rows alone, %d of every row", compared, only, full)
}

// churnedTailIndex builds an index with a dense tail of n documents ("d"
// and a number), each made by mk unless dup says it repeats an earlier
// one's vector (the same text stored twice: tied scores), then touches
// churn random documents: every third removed, the others replaced by
// what replace makes. It returns the index, the documents as built and
// the vectors live after the churn. The random draws come in the order
// the tests that share it always drew them.
func churnedTailIndex(r *rand.Rand, dim, tail, n, churn int, mk func(i int) Vector, dup func(i int) bool, replace func(i int, docs []Doc) Vector) (*Index, []Doc, map[string]Vector) {
	ix := NewIndex()
	ix.SetDenseTail(dim, tail)
	docs := make([]Doc, 0, n)
	live := map[string]Vector{}
	for i := range n {
		v := mk(i)
		if dup(i) {
			v = docs[r.IntN(i)].Vector
		}
		docs = append(docs, Doc{ID: fmt.Sprintf("d%04d", i), Vector: v})
		live[docs[i].ID] = v
	}
	ix.Build(docs)
	for i := range churn {
		id := docs[r.IntN(len(docs))].ID
		if i%3 == 0 {
			ix.Remove(id)
			delete(live, id)
			continue
		}
		v := replace(i, docs)
		ix.Upsert(Doc{ID: id, Vector: v})
		live[id] = v
	}
	return ix, docs, live
}
