package search

import (
	"encoding/binary"
	"math"
)

// A tail block also keeps each row as small integers with a scale of its
// own (q8, qs): a byte a value, a quarter of the float32 row (at 64 values
// one cache line against four). It serves one more bound and nothing else.
// After a row passes the checkpoints on the block's axes (tailrot.go), the
// scan reads its byte copy and bounds the row's score by the integer dot
// product with the query's copy plus what the two roundings can hide:
//
//	q·r = sq·sr·(qi·ri) + (q − q̂)·r + q̂·(r − r̂)
//	    ≤ sq·sr·(qi·ri) + |q − q̂|·|r| + |q̂|·|r − r̂|
//
// where q̂ = sq·qi and r̂ = sr·ri. Only a row this bound cannot rule out is
// read from its float32 values and scored exactly as before, so the hits and
// their scores are the same bits; the byte copy only decides which rows are
// not worth reading.
//
// The integers are in [−63, 63] (ri = round(r/sr), sr = max|r|/63), stored
// plus 64, so each is a 7-bit unsigned value u. Go has no vector
// instructions for the loop, and a byte-by-byte dot product costs more
// instructions than the float32 one it would save (measured: the scan got
// slower). So it is done four products to a multiplication: eight bytes
// read as one word w give two words whose 16-bit lanes hold the even and
// the odd values (w & 0x00ff00ff00ff00ff and w>>8 & the same); multiplied
// by a word whose lanes hold the query's matching values in reverse order,
// the product's top lane (bits 48–63) is the sum of the four products. No
// lane below it carries: a lane holds at most three products of 7-bit
// values (3·127² < 2¹⁶), and the top one four (4·127² < 2¹⁶). The
// offsets come out after the sum: Σ(r+64)(q+64) = Σrq + 64Σr + 64Σq +
// 4096·n. A row's values are padded to a multiple of eight with zeros (a
// stored 64).

// tailQuant turns the byte bound on; a variable so benchmarks and tests can
// compare the scan with and without it.
var tailQuant = true

// quantLevels is the largest |ri| and |qi|: 7-bit unsigned values once 64 is
// added.
const quantLevels = 63

// laneMask picks the even bytes of a word into 16-bit lanes.
const laneMask = 0x00ff00ff00ff00ff

// quantStride is how many bytes a row of n values takes in q8: n padded to
// a multiple of eight.
func quantStride(n int) int { return (n + 7) &^ 7 }

// rowQuant is a row's scale, its norm and the norm of its rounding error
// (the last two rounded up), and 64 times the sum of its integers: the
// bound's side of the row.
type rowQuant struct {
	scale, norm, err float32
	off              int32
}

// quantRow writes row's bytes into q (quantStride(len(row)) of them) and
// returns its rowQuant.
func quantRow(row []float32, q []byte) rowQuant {
	for j := range q {
		q[j] = 64
	}
	var m float32
	for _, x := range row {
		m = max(m, abs32(x))
	}
	if m == 0 {
		return rowQuant{}
	}
	sr := m / quantLevels
	var ss, es float64
	var sum int32
	for j, x := range row {
		v := max(-quantLevels, min(quantLevels, math.Round(float64(x)/float64(sr))))
		q[j] = byte(int(v) + 64)
		sum += int32(v)
		e := float64(x) - float64(sr)*v
		ss += float64(x) * float64(x)
		es += e * e
	}
	return rowQuant{scale: sr, norm: roundUp32(math.Sqrt(ss)), err: roundUp32(math.Sqrt(es)), off: 64 * sum}
}

// quantQuery is the query's side of the byte bound: its words (two for
// each eight values: the even and the odd values' 16-bit lanes, reversed),
// its scale, the norm of its rounding error and of q̂ (rounded up), and
// what the offsets add to every row's sum but the row's own (64Σqi +
// 4096·stride).
type quantQuery struct {
	words    []uint64
	scale    float32
	err, hat float32
	off      int64
	// rows and quants are the scanned block's q8 and qs (tailScan).
	rows   []byte
	quants []rowQuant
}

// quantize fills qq from q, reusing qq.words.
func (qq *quantQuery) quantize(q []float32) {
	stride := quantStride(len(q))
	qq.words = append(qq.words[:0], make([]uint64, stride/4)...)
	var m float32
	for _, x := range q {
		m = max(m, abs32(x))
	}
	qq.scale, qq.err, qq.hat, qq.off = 0, 0, 0, 0
	var sq float32
	if m > 0 {
		sq = m / quantLevels
	}
	var es, hs float64
	var sum int64
	for j := range stride {
		v := 0.0
		if j < len(q) && sq > 0 {
			v = max(-quantLevels, min(quantLevels, math.Round(float64(q[j])/float64(sq))))
			h := float64(sq) * v
			e := float64(q[j]) - h
			es += e * e
			hs += h * h
		}
		sum += int64(v)
		// Value j of group g sits in word 2g (even j) or 2g+1 (odd), in
		// lane 3 − (j%8)/2: reversed, so the top lane of the product
		// pairs it with the row's value j.
		g, k := j/8, j%8
		qq.words[2*g+k%2] |= uint64(int(v)+64) << (16 * (3 - k/2))
	}
	if sq > 0 {
		qq.scale, qq.err, qq.hat = sq, roundUp32(math.Sqrt(es)), roundUp32(math.Sqrt(hs))
	}
	qq.off = 64*sum + 4096*int64(stride)
}

// dot returns Σ qi·ri for a row's bytes (quantStride of them) and its
// rowQuant's off, exact.
func (qq *quantQuery) dot(row []byte, off int32) int64 {
	words := qq.words[:len(row)/4]
	var s uint64
	for g := 0; 8*g+8 <= len(row); g++ {
		w := binary.LittleEndian.Uint64(row[8*g:])
		s += (w & laneMask) * words[2*g] >> 48
		s += (w >> 8 & laneMask) * words[2*g+1] >> 48
	}
	return int64(s) - qq.off - int64(off)
}

// bound returns the most the tail of the row in slot can add to a score
// (the byte bound), from the block's q8 and qs (qq.rows, qq.quants).
func (qq *quantQuery) bound(slot int) float32 {
	rq := qq.quants[slot]
	var dq int64
	if len(qq.words) == 16 {
		// 64 values, written out: no loop, no bounds checks.
		row := qq.rows[slot*64 : slot*64+64 : slot*64+64]
		w := (*[16]uint64)(qq.words)
		var s uint64
		for g := 0; g < 8; g++ {
			x := binary.LittleEndian.Uint64(row[8*g : 8*g+8])
			s += (x&laneMask)*w[2*g]>>48 + (x>>8&laneMask)*w[2*g+1]>>48
		}
		dq = int64(s) - qq.off - int64(rq.off)
	} else {
		n := 4 * len(qq.words)
		dq = qq.dot(qq.rows[slot*n:(slot+1)*n], rq.off)
	}
	return (qq.scale*rq.scale)*float32(dq) + qq.err*rq.norm + qq.hat*rq.err
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// appendQuant appends row's byte copy and its rowQuant to the block.
func (blk *denseBlock) appendQuant(row []float32) {
	at := len(blk.q8)
	blk.q8 = append(blk.q8, make([]byte, quantStride(len(row)))...)
	blk.qs = append(blk.qs, quantRow(row, blk.q8[at:]))
}
