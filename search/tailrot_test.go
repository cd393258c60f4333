package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
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
// 72, an index whose block got its axes as rows were added one by one, one
// whose block got them at the end of a bulk build, and one whose block
// never does (minRotRows 0, the scan as it was) return the same hits with
// the same score bits, and all equal a scan that scores every row whole;
// with rows added after the axes, replaced and removed, duplicate vectors
// (tied scores), filters, floors and several k. Not parallel with other
// tests: it changes minRotRows and tailBounds.
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
	// Rows the indexes get one by one after the build.
	var later []Doc
	for i := range 2600 {
		v := vec()
		if i%5 == 2 {
			v = docs[r.IntN(len(docs))].Vector
		}
		later = append(later, Doc{ID: fmt.Sprintf("e%05d", i), Vector: v})
	}
	// bulk documents by Build, the others by Upsert (600: the block
	// crosses minRotRows, 1,000, row by row).
	build := func(minRows, bulk int) *Index {
		minRotRows = minRows
		ix := NewIndex()
		ix.SetDenseTail(head+tail, tail)
		ix.Build(docs[:bulk])
		ix.rotating.Wait()
		if blk := ix.tails[head+tail]; (blk.axes != nil) != (minRows > 0 && bulk >= minRows) {
			t.Fatalf("after a bulk build of %d rows (minRotRows %d): axes %v", bulk, minRows, blk.axes != nil)
		}
		for _, d := range later {
			ix.Upsert(d)
		}
		for _, d := range docs[bulk:] {
			ix.Upsert(d)
		}
		return ix
	}
	rot, bulkRot, plain := build(1000, 600), build(1000, len(docs)), build(0, 600)
	for _, d := range append(slices.Clone(docs), later...) {
		live[d.ID] = d.Vector
	}
	// Replacements and removals, the same in both.
	for i := range 500 {
		id := docs[r.IntN(len(docs))].ID
		if i%3 == 0 {
			rot.Remove(id)
			bulkRot.Remove(id)
			plain.Remove(id)
			delete(live, id)
			continue
		}
		v := vec()
		rot.Upsert(Doc{ID: id, Vector: v})
		bulkRot.Upsert(Doc{ID: id, Vector: v})
		plain.Upsert(Doc{ID: id, Vector: v})
		live[id] = v
	}
	if rot.tails[head+tail].axes == nil || bulkRot.tails[head+tail].axes == nil {
		t.Fatal("a block past minRotRows has no axes")
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
			bulk := bulkRot.Semantic(qv, k, floor, keep)
			before := plain.Semantic(qv, k, floor, keep)
			tailBounds, tailWide = false, false // every row whole, through dotRow
			whole := rot.Semantic(qv, k, floor, keep)
			tailBounds, tailWide = true, true
			if !eq(got, before) || !eq(got, whole) || !eq(bulk, before) {
				t.Fatalf("query %d k %d floor %v:\n rotated %v\n bulk    %v\n plain   %v\n whole   %v", q, k, floor, got, bulk, before, whole)
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
	ix.rotating.Wait()
	blk := ix.tails[head+tail]
	if blk.axes == nil || !blk.tailDeep() {
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
	tighter, tighter3, rows := 0, 0, 0
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
			// The second bound, on the next axes (lead2), and
			// tighter than the first (up to rounding).
			ql2 := make([]float32, 2*c1)
			qn2, qn3 := blk.tailLead2(qtail, ql2)
			l2 := blk.lead2[slot*2*c1 : (slot+1)*2*c1]
			bound2 := dotRow(ql, blk.lead[slot*c1:(slot+1)*c1]) + dotRow(ql2[:c1], l2[:c1]) + qn2*blk.rest2[2*slot]
			if bound2+1e-6 < exact || bound2 > bound+1e-5 {
				t.Fatalf("slot %d: second bound %v, first %v, the tail's dot product %v", slot, bound2, bound, exact)
			}
			// The third, on the eight axes after (the second half of
			// lead2), and tighter than the second.
			bound3 := dotRow(ql, blk.lead[slot*c1:(slot+1)*c1]) + dotRow(ql2, l2) + qn3*blk.rest2[2*slot+1]
			if bound3+1e-6 < exact || bound3 > bound2+1e-5 {
				t.Fatalf("slot %d: third bound %v, second %v, the tail's dot product %v", slot, bound3, bound2, exact)
			}
			if bound3 < bound2 {
				tighter3++
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
	if !blk.tailDeeper() || tighter3 < rows/2 {
		t.Fatalf("three groups of axes %v; the third bound is tighter on %d of %d rows", blk.tailDeeper(), tighter3, rows)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTailRotationLaterSameHits checks the axes a bulk load leaves to
// rotateLater: queries answered before they are installed (the plain
// bound), while they are computed, and after, with rows added, replaced and
// removed in between (the block's gen moves, so rotateLater starts over,
// and the third time installs under the write lock), return the hits and
// score bits of an index that never rotates, and the block ends with axes
// and no moment. Run with -race it also checks the locking.
func TestTailRotationLaterSameHits(t *testing.T) {
	const head, tail = 1 << 12, 64
	savedMin, savedSample := minRotRows, momentSample
	defer func() { minRotRows, rotateLaterHook, momentSample = savedMin, nil, savedSample }()
	momentSample = 700 // the moment over every fifth row
	r := rand.New(rand.NewPCG(11, 12))
	vec := rotVecs(r, head, tail)
	var docs []Doc
	for i := range 3000 {
		docs = append(docs, Doc{ID: fmt.Sprintf("d%05d", i), Vector: vec()})
	}
	var queries []Vector
	for range 30 {
		queries = append(queries, vec())
	}
	eq := func(a, b []Hit) bool {
		return slices.EqualFunc(a, b, func(x, y Hit) bool {
			return x.ID == y.ID && math.Float64bits(x.Score) == math.Float64bits(y.Score)
		})
	}
	for _, changes := range []int{0, 1, 3} { // writes between the locks: none, once, every time
		minRotRows = 0
		plain := NewIndex()
		plain.SetDenseTail(head+tail, tail)
		plain.Build(docs)
		minRotRows = 1000
		ix := NewIndex()
		ix.SetDenseTail(head+tail, tail)
		// Hold rotateLater between its locks until the test lets it go,
		// writing rows there for the first changes attempts.
		proceed, at := make(chan struct{}), make(chan int)
		rotateLaterHook = func(try int) {
			at <- try
			<-proceed
		}
		ix.Build(docs)
		blk := ix.tails[head+tail]
		check := func(when string) {
			for qi, q := range queries {
				keep := []func(string) bool{nil, func(id string) bool { return id[len(id)-1] != '3' }}[qi%2]
				for _, k := range []int{1, 10, 50} {
					got, want := ix.Semantic(q, k, math.Inf(-1), keep), plain.Semantic(q, k, math.Inf(-1), keep)
					if !eq(got, want) {
						t.Fatalf("changes %d, %s, query %d k %d:\n got  %v\n want %v", changes, when, qi, k, got, want)
					}
				}
			}
		}
		write := func(i int) {
			d := Doc{ID: fmt.Sprintf("e%d-%d", changes, i), Vector: vec()}
			ix.Upsert(d)
			plain.Upsert(d)
			id := docs[r.IntN(len(docs))].ID
			ix.Remove(id)
			plain.Remove(id)
		}
		done := make(chan struct{})
		go func() { ix.rotating.Wait(); close(done) }()
		for i := 0; ; i++ {
			var try int
			select {
			case try = <-at:
			case <-done:
				t.Fatalf("changes %d: rotateLater returned after %d attempts", changes, i)
			}
			ix.mu.RLock()
			pending := blk.rotPending
			ix.mu.RUnlock()
			if !pending || blk.axes != nil {
				t.Fatalf("attempt %d: axes installed before the write lock", try)
			}
			check(fmt.Sprintf("attempt %d, before", try))
			if try < changes {
				write(i)
			}
			proceed <- struct{}{}
			if try >= min(changes, 2) {
				break
			}
		}
		<-done
		if blk.rotPending || blk.axes == nil || blk.moment != nil {
			t.Fatalf("changes %d: pending %v, axes %v, moment %v", changes, blk.rotPending, blk.axes != nil, blk.moment != nil)
		}
		check("after")
		for i := range 50 { // rows past the axes: projected on them
			write(1000 + i)
		}
		check("after more writes")
	}
}

// TestSettleWaitsForAxes checks that Settle returns only once a bulk
// load's axes are installed (the engine's Close relies on it to leave no
// goroutine behind).
func TestSettleWaitsForAxes(t *testing.T) {
	const head, tail = 1 << 12, 64
	defer func() { rotateLaterHook = nil }()
	r := rand.New(rand.NewPCG(13, 14))
	vec := rotVecs(r, head, tail)
	var docs []Doc
	for i := range 2000 {
		docs = append(docs, Doc{ID: fmt.Sprint(i), Vector: vec()})
	}
	release := make(chan struct{})
	rotateLaterHook = func(int) { <-release }
	ix := NewIndex()
	ix.SetDenseTail(head+tail, tail)
	ix.Build(docs)
	settled := make(chan struct{})
	go func() { Settle(); close(settled) }()
	select {
	case <-settled:
		t.Fatal("Settle returned while the axes were being computed")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-settled
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if blk := ix.tails[head+tail]; blk.rotPending || blk.axes == nil {
		t.Fatalf("after Settle: pending %v, axes %v", blk.rotPending, blk.axes != nil)
	}
}

// TestProjectThreeSameBits checks that projectThree gives project's
// coordinates and norms bit for bit: on the first c1 axes, the first 2·c1
// and the first 3·c1 (the rows' leads and bounds are computed by either,
// tailRotate and rotateLater), and that with fewer axes the missing
// coordinates are zero and the norms past them are the last one.
func TestProjectThreeSameBits(t *testing.T) {
	const n, c1 = 64, 8
	r := rand.New(rand.NewPCG(15, 16))
	vec := rotVecs(r, 1<<12, n)
	var docs []Doc
	for i := range 1500 {
		docs = append(docs, Doc{ID: fmt.Sprint(i), Vector: vec()})
	}
	ix := NewIndex()
	ix.SetDenseTail(1<<12+n, n)
	ix.Build(docs)
	ix.rotating.Wait()
	axes := ix.tails[1<<12+n].axes
	if len(axes) != 3*c1*n {
		t.Fatalf("%d axes, want %d", len(axes)/n, 3*c1)
	}
	for range 500 {
		x := make([]float32, n)
		for j := range x {
			x[j] = float32(r.NormFloat64())
		}
		for _, groups := range []int{1, 2, 3} {
			ax := axes[:groups*c1*n]
			a1, a2 := make([]float32, c1), make([]float32, 2*c1)
			r1, r2, r3 := projectThree(ax, x, a1, a2)
			b := make([]float32, 3*c1)
			s1 := project(ax[:c1*n], x, b[:c1])
			s2, s3 := s1, s1
			if groups >= 2 {
				s2 = project(ax[:2*c1*n], x, b[:2*c1])
				s3 = s2
			}
			if groups == 3 {
				s3 = project(ax, x, b)
			}
			if r1 != s1 || r2 != s2 || r3 != s3 || !slices.Equal(a1, b[:c1]) || !slices.Equal(a2, b[c1:]) {
				t.Fatalf("%d groups: projectThree %v %v %v %v %v, project %v %v %v %v", groups, a1, a2, r1, r2, r3, b, s1, s2, s3)
			}
		}
	}
}
