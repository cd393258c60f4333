package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// rotVecs returns a generator of normalised hashed-plus-dense vectors whose
// tails are correlated, as word vectors are (a shared direction, and
// strong components spread over every dimension by a fixed random
// rotation): their principal axes are far from the coordinate axes, so a
// block's rotation (tailrot.go) is not close to the identity.
func rotVecs(r *rand.Rand, head, tail int) func() Vector {
	mix := make([][]float64, tail) // a random orthonormal basis (Gram–Schmidt)
	for i := range mix {
		for {
			v := make([]float64, tail)
			for j := range v {
				v[j] = r.NormFloat64()
			}
			for _, u := range mix[:i] {
				d := 0.0
				for j := range v {
					d += v[j] * u[j]
				}
				for j := range v {
					v[j] -= d * u[j]
				}
			}
			n := 0.0
			for _, x := range v {
				n += x * x
			}
			if n = math.Sqrt(n); n > 1e-3 {
				for j := range v {
					v[j] /= n
				}
				mix[i] = v
				break
			}
		}
	}
	dim := head + tail
	return func() Vector {
		v := Vector{Dim: dim}
		for j := range uint32(head) {
			if r.IntN(40) == 0 && j < 400 {
				v.Indices = append(v.Indices, j)
				v.Values = append(v.Values, float32(r.Float64()))
			}
		}
		x := make([]float64, tail)
		for i := range tail {
			c := r.NormFloat64() / float64(i/2+1)
			if i == 0 {
				c += 3 // the shared direction
			}
			for j := range x {
				x[j] += c * mix[i][j]
			}
		}
		for j := range uint32(tail) {
			val := float32(x[j])
			if r.IntN(10) == 0 {
				val = float32(r.IntN(3)-1) / 4 // exact values: more equal sums
			}
			v.Indices = append(v.Indices, uint32(head)+j)
			v.Values = append(v.Values, val)
		}
		c, _ := canonical(v)
		return c
	}
}

// TestTailRotationSameHits checks that the first checkpoint on a block's
// principal axes (tailrot.go) changes which rows are read, never the
// result: on correlated tails of 64 values (the written-out path), 16 and
// 72, an index whose blocks rotate and one whose blocks never do
// (minRotRows 0, the scan as it was) return the same hits with the same
// score bits, and both equal a scan that scores every row whole; with a
// bulk build, then rows added one by one past two doublings (the axes
// computed again), replaced and removed, duplicate vectors (tied scores),
// filters, floors and several k. Not parallel with other tests: it changes
// minRotRows and tailBounds.
func TestTailRotationSameHits(t *testing.T) {
	for _, tail := range []int{64, 16, 72} {
		t.Run(fmt.Sprintf("tail %d", tail), func(t *testing.T) { testTailRotationSameHits(t, tail) })
	}
}

func testTailRotationSameHits(t *testing.T, tail int) {
	const head = 1 << 12
	savedMin := minRotRows
	defer func() { minRotRows, tailBounds, tailWide = savedMin, true, true }()
	r := rand.New(rand.NewPCG(uint64(tail), 99))
	vec := rotVecs(r, head, tail)
	var docs []Doc
	live := map[string]Vector{}
	for i := range 3000 {
		v := vec()
		if i%6 == 1 {
			v = docs[r.IntN(i)].Vector // the same text stored twice
		}
		docs = append(docs, Doc{ID: fmt.Sprintf("d%05d", i), Vector: v})
	}
	// Rows the indexes get one by one after the build: past 2 × 1,200
	// and 2 × 2,400 rows, so the axes are computed three times.
	var later []Doc
	for i := range 2600 {
		v := vec()
		if i%5 == 2 {
			v = docs[r.IntN(len(docs))].Vector
		}
		later = append(later, Doc{ID: fmt.Sprintf("e%05d", i), Vector: v})
	}
	build := func(minRows int) *Index {
		minRotRows = minRows
		ix := NewIndex()
		ix.SetDenseTail(head+tail, tail)
		ix.Build(docs[:1200])
		for _, d := range later {
			ix.Upsert(d)
		}
		for _, d := range docs[1200:] {
			ix.Upsert(d)
		}
		return ix
	}
	rot, plain := build(1000), build(0)
	for _, d := range append(slices.Clone(docs), later...) {
		live[d.ID] = d.Vector
	}
	// Replacements and removals, the same in both.
	for i := range 500 {
		id := docs[r.IntN(len(docs))].ID
		if i%3 == 0 {
			rot.Remove(id)
			plain.Remove(id)
			delete(live, id)
			continue
		}
		v := vec()
		rot.Upsert(Doc{ID: id, Vector: v})
		plain.Upsert(Doc{ID: id, Vector: v})
		live[id] = v
	}
	blk := rot.tails[head+tail]
	if blk == nil || blk.axes == nil || blk.rotRows < 4800 {
		t.Fatalf("the rotated index's block has no axes computed at its last doubling (rotRows %v)", blk)
	}
	if plain.tails[head+tail].axes != nil {
		t.Fatal("minRotRows 0 computed axes")
	}
	eq := func(a, b []Hit) bool {
		return slices.EqualFunc(a, b, func(x, y Hit) bool {
			return x.ID == y.ID && math.Float64bits(x.Score) == math.Float64bits(y.Score)
		})
	}
	compared := 0
	for q := range 90 {
		qv := vec()
		if q%6 == 5 {
			for id := range live {
				qv = live[id] // a stored vector: a tie at the top
				break
			}
		}
		floor := []float64{math.Inf(-1), 0, 0.05, 0.3, 0.6}[q%5]
		keep := []func(string) bool{nil, func(id string) bool { return id[len(id)-1] != '3' }, func(id string) bool { return id[len(id)-1] == '7' }}[q%3]
		for _, k := range []int{1, 10, 50} {
			got := rot.Semantic(qv, k, floor, keep)
			before := plain.Semantic(qv, k, floor, keep)
			tailBounds, tailWide = false, false // every row whole, through dotRow
			whole := rot.Semantic(qv, k, floor, keep)
			tailBounds, tailWide = true, true
			if !eq(got, before) || !eq(got, whole) {
				t.Fatalf("query %d k %d floor %v:\n rotated %v\n plain   %v\n whole   %v", q, k, floor, got, before, whole)
			}
			for _, h := range got {
				if want := float64(qv.Dot(live[h.ID])); math.Abs(h.Score-want) > 1e-5 {
					t.Fatalf("query %d k %d: hit %v, brute force %v", q, k, h, want)
				}
			}
			compared += len(got)
		}
	}
	if compared < 1000 {
		t.Fatalf("%d hits compared", compared)
	}
}

// TestTailRotationBound checks the first checkpoint's bound row by row:
// for every row of a rotated block and random queries, the query's
// coordinates on the axes times the row's, plus the product of the norms
// of what they leave out, is at least the row's tail dot product as the
// scan computes it (dotRow, float32); the axes are orthonormal; and on
// correlated tails the bound is tighter than the same bound on the first
// coordinates as they are (what the rotation is for).
func TestTailRotationBound(t *testing.T) {
	const head, tail = 1 << 12, 64
	savedMin := minRotRows
	defer func() { minRotRows = savedMin }()
	minRotRows = 1000
	r := rand.New(rand.NewPCG(5, 6))
	vec := rotVecs(r, head, tail)
	ix := NewIndex()
	ix.SetDenseTail(head+tail, tail)
	var docs []Doc
	for i := range 3000 {
		docs = append(docs, Doc{ID: fmt.Sprint(i), Vector: vec()})
	}
	ix.Build(docs)
	blk := ix.tails[head+tail]
	if blk.axes == nil {
		t.Fatal("no axes")
	}
	c1, _ := tailCuts(tail)
	for i := range c1 {
		for j := range c1 {
			d := 0.0
			for x := range tail {
				d += blk.axes[i*tail+x] * blk.axes[j*tail+x]
			}
			if want := float64(b2i(i == j)); math.Abs(d-want) > 1e-12 {
				t.Fatalf("axes %d·%d = %v", i, j, d)
			}
		}
	}
	tighter, rows := 0, 0
	for range 50 {
		qv := vec()
		qtail := make([]float32, tail)
		copy(qtail, qv.Values[len(qv.Values)-tail:])
		ql := make([]float32, c1)
		qn := blk.tailLead(qtail, ql)
		q1 := norm(qtail[c1:])
		for slot := range blk.ords {
			row := blk.vals[slot*tail : (slot+1)*tail]
			exact := dotRow(qtail, row)
			bound := dotRow(ql, blk.lead[slot*c1:(slot+1)*c1]) + qn*blk.rest[2*slot]
			if bound+1e-6 < exact {
				t.Fatalf("slot %d: bound %v below the tail's dot product %v", slot, bound, exact)
			}
			plain := dotRow(qtail[:c1], row[:c1]) + q1*norm(row[c1:])
			if bound < plain {
				tighter++
			}
			rows++
		}
	}
	if tighter < rows*3/4 {
		t.Fatalf("the rotated bound is tighter on %d of %d rows", tighter, rows)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
