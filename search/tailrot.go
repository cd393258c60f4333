package search

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// A tail block's first checkpoint (tailScan) reads a few values of every
// row and bounds the rest by Cauchy–Schwarz: the partial dot product plus
// |q_rest|·|row_rest|. The tighter the bound, the fewer rows are read
// further. Word vectors spread their energy over all dimensions, so the
// first eight of 64 carry a small share of a row and the bound is loose.
//
// Rotated onto the principal axes of the block's rows (the eigenvectors of
// their second moment Σ r·rᵀ, strongest first), the first eight
// coordinates carry most of it (on the peers workload three quarters) and
// the bound is much tighter, for the same eight multiply-adds: the dot
// product is the same in any orthonormal basis. So the block keeps, for
// the first checkpoint only, each row's first coordinates on those axes
// (lead) and the norm of the others (rest[2*slot]); a row that passes is
// then scored from its own values (vals) exactly as before, so the scores
// are the same bits whatever the rotation, and a row is skipped only when
// the bound proves it cannot enter the result. Any orthonormal basis gives
// a valid bound: the rotation is only a matter of how tight. Until a block
// holds minRotRows rows the basis is the identity (lead is the row's own
// first values).
//
// The axes are computed once in a block's life in this process: after a
// bulk load (Build into an empty index: a namespace loading at start), in
// the background from a sample of its rows (rotateLater; the scan uses the
// plain bound until they are installed), or, for a block that grows row by row, when it reaches
// minRotRows rows, from those (every row's lead and rest norm projected
// then, under the write lock: about 1,024 · 1,000 multiply-adds and the
// 64×64 eigenvectors, milliseconds). Rows added later are projected on the
// same axes. Recomputing them as the block grew was measured and dropped:
// on the peers workload, axes from the first 1,024 notes leave as many rows
// past the checkpoint (1,627 a query) as axes recomputed at every doubling
// (1,621), and at 16,000 rows a recomputation held the write lock 15 to 45
// ms on a busy machine. Until then the block keeps the second moment of its
// rows (2,080 multiply-adds a row, dropped with the axes computed).

// minRotRows is the tail block size from which the first checkpoint reads
// rotated coordinates. A variable so tests can reach rotation on small
// blocks, or turn it off (0).
var minRotRows = 1024

// tailMoment adds sign · row·rowᵀ to the block's second moment (upper
// triangle, row-major), while the block has no axes.
func (blk *denseBlock) tailMoment(row []float32, sign float64) {
	if blk.axes != nil || blk.rotPending {
		return
	}
	n := blk.dim
	if blk.moment == nil {
		blk.moment = make([]float64, n*n)
	}
	for i, x := range row {
		if x == 0 {
			continue
		}
		sx := sign * float64(x)
		m := blk.moment[i*n : (i+1)*n]
		for j := i; j < n; j++ {
			m[j] += sx * float64(row[j])
		}
	}
}

// tailLead writes row's first c1 coordinates on the block's axes into lead
// and returns the norm of the others, rounded up so the bound stays a bound.
// Without axes they are the row's own values and the norm of the rest.
func (blk *denseBlock) tailLead(row, lead []float32) float32 {
	c1 := len(lead)
	if blk.axes == nil {
		copy(lead, row[:c1])
		return norm(row[c1:])
	}
	return project(blk.axes, row, lead)
}

// tailDeep reports whether the block has axes for lead2 as well (twice
// lead's, or three times: blocks whose rows are longer than that).
func (blk *denseBlock) tailDeep() bool {
	c1, _ := tailCuts(blk.dim)
	return blk.axes != nil && len(blk.axes) >= 2*c1*blk.dim
}

// tailDeeper reports whether lead2's second half holds coordinates too
// (three times lead's axes), for a third bound on the axes.
func (blk *denseBlock) tailDeeper() bool {
	c1, _ := tailCuts(blk.dim)
	return blk.axes != nil && len(blk.axes) == 3*c1*blk.dim
}

// tailLead2 writes row's next coordinates on the block's axes (after
// lead's: 2·c1 values, the second c1 zero without a third group of axes)
// into lead2, and returns the norm of the coordinates past the first 2·c1
// axes and past the first 3·c1 (the same without the third group), rounded
// up; zeros without those axes (tailDeep).
func (blk *denseBlock) tailLead2(row, lead2 []float32) (r2, r3 float32) {
	if !blk.tailDeep() {
		clear(lead2)
		return 0, 0
	}
	c1 := len(lead2) / 2
	var z [32]float32
	var z1 []float32
	if c1 <= len(z) {
		z1 = z[:c1]
	} else {
		z1 = make([]float32, c1)
	}
	_, r2, r3 = projectThree(blk.axes, row, z1, lead2)
	return r2, r3
}

// tailAxes is how many axes a block of rows of n values computes: three
// times the first checkpoint's when the rows are longer than that (lead2
// then holds two groups of coordinates: a second and a third bound), else
// twice when they are longer than that, else as many.
func tailAxes(n int) int {
	c1, _ := tailCuts(n)
	switch {
	case 3*c1 < n:
		return 3 * c1
	case 2*c1 < n:
		return 2 * c1
	}
	return c1
}

// residualOf returns x in float64, the residual a projection starts from,
// in buf when x fits (the usual case: no allocation per row).
func residualOf(buf *[128]float64, x []float32) []float64 {
	var r []float64
	if len(x) <= len(buf) {
		r = buf[:len(x)]
	} else {
		r = make([]float64, len(x))
	}
	for j, v := range x {
		r[j] = float64(v)
	}
	return r
}

// project writes x's coordinates on the first len(z) of axes (orthonormal,
// len(x) values each, row after row) into z and returns the norm of what
// they leave out, |x − Σ z_k a_k|, rounded up to a float32. Computed as
// that residual rather than as √(|x|² − |z|²), which would cancel.
func project(axes []float64, x, z []float32) float32 {
	n := len(x)
	var buf [128]float64
	r := residualOf(&buf, x)
	for k := range z {
		a := axes[k*n : (k+1)*n]
		var s float64
		for j, v := range x {
			s += a[j] * float64(v)
		}
		z[k] = float32(s)
		for j := range r {
			r[j] -= s * a[j]
		}
	}
	var ss float64
	for _, v := range r {
		ss += v * v
	}
	return roundUp32(math.Sqrt(ss))
}

// projectThree is project onto the first len(z1) axes and then on as many
// of the next len(z2) as there are (len(axes)/len(x) in all), in one pass:
// z1 and the norm past them (r1) are project(axes, x, z1)'s, bit for bit
// (the same operations in the same order); z2 gets the next coordinates
// (zeros past the axes), r2 the norm past the first 2·len(z1) axes, and
// r3 the norm past all the axes read (r2 when there are no more).
func projectThree(axes []float64, x, z1, z2 []float32) (r1, r2, r3 float32) {
	n := len(x)
	var buf [128]float64
	r := residualOf(&buf, x)
	c1 := len(z1)
	k2 := min(c1+len(z2), len(axes)/n)
	clear(z2)
	resid := func() float32 {
		var ss float64
		for _, v := range r {
			ss += v * v
		}
		return roundUp32(math.Sqrt(ss))
	}
	for k := range k2 {
		switch k {
		case c1:
			r1 = resid()
		case 2 * c1:
			r2 = resid()
		}
		a := axes[k*n : (k+1)*n]
		var s float64
		for j, v := range x {
			s += a[j] * float64(v)
		}
		if k < c1 {
			z1[k] = float32(s)
		} else {
			z2[k-c1] = float32(s)
		}
		for j := range r {
			r[j] -= s * a[j]
		}
	}
	r3 = resid()
	switch {
	case k2 <= c1:
		r1, r2 = r3, r3
	case k2 <= 2*c1:
		r2 = r3
	}
	return r1, r2, r3
}

// roundUp32 is the smallest float32 ≥ x (x ≥ 0, finite).
func roundUp32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, inf32)
	}
	return f
}

// tailRotate computes the block's axes from its second moment, and every
// row's lead and first rest norm with them, when it has minRotRows rows and
// no axes yet (force: a bulk load's end, with none yet either: the block
// is new).
func (blk *denseBlock) tailRotate(force bool) {
	rows := len(blk.ords)
	if minRotRows <= 0 || rows < minRotRows || blk.moment == nil || (!force && blk.axes != nil) || blk.rotPending {
		return
	}
	n := blk.dim
	c1, _ := tailCuts(n)
	if c1 >= n {
		return
	}
	axes := principalAxes(blk.moment, n, tailAxes(n))
	if axes == nil {
		return
	}
	blk.axes, blk.moment = axes, nil
	for slot := range rows {
		row := blk.vals[slot*n : (slot+1)*n]
		blk.rest[2*slot] = blk.tailLead(row, blk.lead[slot*c1:(slot+1)*c1])
		blk.rest2[2*slot], blk.rest2[2*slot+1] = blk.tailLead2(row, blk.lead2[slot*2*c1:(slot+1)*2*c1])
	}
}

// rotateInBackground says a bulk load's blocks get their axes from
// rotateLater, after Build returns; a variable so tests can have them
// computed before (false: the axes are there when Build returns).
var rotateInBackground = true

// rotateLaterHook, when set (tests), runs in rotateLater between the read
// lock and the write lock, with the attempt's number.
var rotateLaterHook func(try int)

// rotateAfterBuild gives a block a bulk load filled (rotPending, no moment
// kept while it was filled) its axes: at once when the block is small (a
// moment of fewer than minRotRows rows, kept for the rows that follow as
// before) or when rotateInBackground is off, else in a goroutine of its
// own. Opening a 100k store spent about a sixth of its time on the moment
// and the projections (2,080 and ~1,000 multiply-adds a row): they only
// tighten a bound, so a namespace serves without them, with the plain
// bound, for the few dozen milliseconds they take. The caller holds the
// write lock.
func (ix *Index) rotateAfterBuild(blk *denseBlock) {
	if minRotRows <= 0 || len(blk.ords) < minRotRows || !rotateInBackground {
		blk.rotPending = false
		blk.moment = blk.momentOf(len(blk.ords), 1)
		blk.tailRotate(true)
		return
	}
	ix.rotating.Add(1)
	rotations.Add(1)
	go ix.rotateLater(blk)
}

// rotations counts the rotateLater goroutines of every index in the
// process, for Settle.
var rotations sync.WaitGroup

// Settle returns once every block's axes a bulk load left to compute in
// the background, in any index of the process, are installed: an owner
// that promises to leave no goroutine behind (the engine's Close) calls it.
// They take milliseconds (about a hundred for a block of 100,000 rows).
func Settle() { rotations.Wait() }

// rotateLater computes a block's axes and every row's lead and first rest
// norm on them under the read lock, then installs them under the write
// lock if no row changed in between (the block's gen); else it tries
// again, and the third time does it all under the write lock.
func (ix *Index) rotateLater(blk *denseBlock) {
	defer rotations.Done()
	defer ix.rotating.Done()
	n := blk.dim
	c1, _ := tailCuts(n)
	for try := 0; ; try++ {
		ix.mu.RLock()
		if !blk.rotPending {
			ix.mu.RUnlock()
			return
		}
		gen, rows := blk.gen, len(blk.ords)
		moment := blk.momentOf(rows, max(1, (rows+momentSample-1)/momentSample))
		axes := principalAxes(moment, n, tailAxes(n))
		deep := axes != nil && len(axes) >= 2*c1*n
		var lead, rest0, lead2, rest2 []float32
		if axes != nil {
			lead, rest0 = make([]float32, rows*c1), make([]float32, rows)
			lead2, rest2 = make([]float32, rows*2*c1), make([]float32, 2*rows)
			for slot := range rows {
				row := blk.vals[slot*n : (slot+1)*n]
				if deep {
					rest0[slot], rest2[2*slot], rest2[2*slot+1] = projectThree(axes, row, lead[slot*c1:(slot+1)*c1], lead2[slot*2*c1:(slot+1)*2*c1])
				} else {
					rest0[slot] = project(axes, row, lead[slot*c1:(slot+1)*c1])
				}
			}
		}
		ix.mu.RUnlock()
		if rotateLaterHook != nil {
			rotateLaterHook(try)
		}

		ix.mu.Lock()
		switch {
		case !blk.rotPending:
		case blk.gen == gen:
			blk.rotPending = false
			if axes == nil { // not converged: keep the moment, as tailRotate does
				blk.moment = moment
				break
			}
			blk.axes = axes
			copy(blk.lead, lead)
			copy(blk.lead2, lead2)
			copy(blk.rest2, rest2)
			for slot, r := range rest0 {
				blk.rest[2*slot] = r
			}
		case try >= 2:
			blk.rotPending = false
			blk.moment = blk.momentOf(len(blk.ords), 1)
			blk.tailRotate(true)
		default:
			ix.mu.Unlock()
			continue
		}
		ix.mu.Unlock()
		return
	}
}

// momentSample is how many rows rotateLater sums the second moment over
// (every stride-th of a larger block): axes from the first 1,024 of the
// peers workload's notes left as many rows past the first checkpoint as
// axes from all 10,000, and the moment of 100,000 rows was 208 million
// multiply-adds. Any axes give a valid bound, so the sample changes only
// how tight it is. A variable so tests can reach the sampled sum.
var momentSample = 8192

// momentOf returns the upper triangle of Σ r·rᵀ over every stride-th of
// the block's first rows rows, summed in slot order as tailMoment would
// have (stride 1: all of them).
func (blk *denseBlock) momentOf(rows, stride int) []float64 {
	n := blk.dim
	m := make([]float64, n*n)
	for slot := 0; slot < rows; slot += stride {
		row := blk.vals[slot*n : (slot+1)*n]
		for i, x := range row {
			if x == 0 {
				continue
			}
			sx := float64(x)
			mi := m[i*n : (i+1)*n]
			for j := i; j < n; j++ {
				mi[j] += sx * float64(row[j])
			}
		}
	}
	return m
}

// principalAxes returns the k strongest eigenvectors of the symmetric n×n
// matrix whose upper triangle is m (row-major), strongest first, row after
// row, by cyclic Jacobi rotations; nil if the sweeps do not converge (the
// caller keeps its basis).
func principalAxes(m []float64, n, k int) []float64 {
	a := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			a[i*n+j], a[j*n+i] = m[i*n+j], m[i*n+j]
		}
	}
	v := make([]float64, n*n) // columns are the eigenvectors
	for i := range n {
		v[i*n+i] = 1
	}
	scale := 0.0
	for _, x := range a {
		scale += x * x
	}
	if scale == 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return nil
	}
	converged := false
	for sweep := 0; sweep < 60; sweep++ {
		off := 0.0
		for p := range n {
			for q := p + 1; q < n; q++ {
				off += a[p*n+q] * a[p*n+q]
			}
		}
		if off <= 1e-18*scale {
			converged = true
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if apq == 0 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for i := range n {
					aip, aiq := a[i*n+p], a[i*n+q]
					a[i*n+p], a[i*n+q] = c*aip-s*aiq, s*aip+c*aiq
				}
				for i := range n {
					api, aqi := a[p*n+i], a[q*n+i]
					a[p*n+i], a[q*n+i] = c*api-s*aqi, s*api+c*aqi
				}
				for i := range n {
					vip, viq := v[i*n+p], v[i*n+q]
					v[i*n+p], v[i*n+q] = c*vip-s*viq, s*vip+c*viq
				}
			}
		}
	}
	if !converged {
		return nil
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(a[y*n+y], a[x*n+x]) })
	axes := make([]float64, k*n)
	for r, col := range order[:k] {
		for i := range n {
			axes[r*n+i] = v[i*n+col]
		}
	}
	return axes
}
