package search

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Vector is an L2-normalised embedding. It is dense when Indices is nil
// (len(Values) == Dim) and sparse otherwise (Indices strictly increasing and
// below Dim, one value per index). Normalising on write means a query is a
// plain dot product, whatever mix of dense and sparse vectors meets.
type Vector struct {
	Dim     int
	Indices []uint32
	Values  []float32
}

// IsZero reports whether v carries no embedding.
func (v Vector) IsZero() bool { return v.Dim == 0 }

// Sparse reports whether v is stored sparse.
func (v Vector) Sparse() bool { return v.Indices != nil }

// Dot returns the dot product of v and o: their cosine similarity when both
// are normalised. Vectors of different Dim come from different embedders and
// are not comparable, so their product is 0. Out-of-range indices are
// ignored rather than trusted.
func (v Vector) Dot(o Vector) float32 {
	if v.Dim != o.Dim || v.Dim == 0 {
		return 0
	}
	switch {
	case v.Indices == nil && o.Indices == nil:
		return dotDense(v.Values, o.Values)
	case v.Indices == nil:
		return dotSparseDense(o.Indices, o.Values, v.Values)
	case o.Indices == nil:
		return dotSparseDense(v.Indices, v.Values, o.Values)
	default:
		return dotSparse(v.Indices, v.Values, o.Indices, o.Values)
	}
}

// dotDense is unrolled by four with independent accumulators so the
// additions pipeline; without SIMD this roughly doubles throughput.
func dotDense(a, b []float32) float32 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotRow is dotDense for the short rows of a dense tail (SetDenseTail),
// scanned once per document per query: eight accumulators keep more
// multiplications in flight.
func dotRow(a, b []float32) float32 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s4 += x[4] * y[4]
		s5 += x[5] * y[5]
		s6 += x[6] * y[6]
		s7 += x[7] * y[7]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

func dotSparseDense(idx []uint32, val []float32, dense []float32) float32 {
	var s float32
	for i, j := range idx {
		if i < len(val) && int(j) < len(dense) {
			s += val[i] * dense[j]
		}
	}
	return s
}

// dotSparse merges two sorted index lists.
func dotSparse(ai []uint32, av []float32, bi []uint32, bv []float32) float32 {
	na, nb := min(len(ai), len(av)), min(len(bi), len(bv))
	var s float32
	i, j := 0, 0
	for i < na && j < nb {
		switch {
		case ai[i] < bi[j]:
			i++
		case ai[i] > bi[j]:
			j++
		default:
			s += av[i] * bv[j]
			i++
			j++
		}
	}
	return s
}

// Normalize scales v in place to unit L2 norm. A zero vector stays zero. The
// norm is summed in float64 so long dense vectors do not lose precision.
func Normalize(v *Vector) {
	var ss float64
	for _, x := range v.Values {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsInf(ss, 0) || math.IsNaN(ss) {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v.Values {
		v.Values[i] = float32(float64(x) * inv)
	}
}

// Encoding format, version 1 (all integers unsigned varints, floats IEEE-754
// little-endian):
//
//	byte    version (1)
//	byte    kind: 0 dense, 1 sparse
//	uvarint Dim
//	dense:  Dim float32 values
//	sparse: uvarint count; count index deltas (first index, then the gap to
//	        the previous one, each gap ≥ 1); count float32 values
//
// A vector with Dim 0 encodes as the three bytes {1, 0, 0}. Sparse vectors
// stay sparse, so a 100-nonzero built-in embedding takes ~550 bytes.
const (
	encVersion  = 1
	kindDense   = 0
	kindSparse  = 1
	maxVecDim   = 1 << 26 // 64M dimensions: far beyond any embedder, small enough to bound allocations
	floatLength = 4
)

// Version 2 is version 1 with each value as an IEEE-754 half-precision
// float (two bytes, 11 significant bits) instead of four: EncodeCompact
// writes it for vectors stored with a memory, where a cosine that moves by
// a few ten-thousandths changes nothing and ~200 bytes per short memory's
// vector are saved. DecodeVector reads both.
const (
	encVersionHalf = 2
	halfLength     = 2
)

// ErrBadVector is returned (wrapped) by DecodeVector for malformed input.
var ErrBadVector = errors.New("search: malformed vector encoding")

// Encode returns the compact versioned binary encoding of v.
func (v Vector) Encode() []byte {
	if v.Indices == nil {
		b := make([]byte, 0, 2+binary.MaxVarintLen64+floatLength*len(v.Values))
		b = append(b, encVersion, kindDense)
		b = binary.AppendUvarint(b, uint64(v.Dim))
		for _, x := range v.Values {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		return b
	}
	n := min(len(v.Indices), len(v.Values))
	b := make([]byte, 0, 2+2*binary.MaxVarintLen64+(3+floatLength)*n)
	b = append(b, encVersion, kindSparse)
	b = binary.AppendUvarint(b, uint64(v.Dim))
	b = binary.AppendUvarint(b, uint64(n))
	var prev uint32
	for i, j := range v.Indices[:n] {
		if i == 0 {
			b = binary.AppendUvarint(b, uint64(j))
		} else {
			b = binary.AppendUvarint(b, uint64(j-prev))
		}
		prev = j
	}
	for _, x := range v.Values[:n] {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// EncodeCompact returns the version 2 encoding of v: its values rounded to
// half precision (see Quantize). A value beyond half precision's range
// (|x| > 65504, never in a normalised vector) makes it fall back to Encode.
// Decoding it gives Quantize(v) exactly.
func (v Vector) EncodeCompact() []byte {
	n := len(v.Values)
	if v.Indices != nil {
		n = min(len(v.Indices), len(v.Values))
	}
	for _, x := range v.Values[:n] {
		if !(math.Abs(float64(x)) <= maxHalf) { // also NaN
			return v.Encode()
		}
	}
	if v.Indices == nil {
		b := make([]byte, 0, 2+binary.MaxVarintLen64+halfLength*n)
		b = append(b, encVersionHalf, kindDense)
		b = binary.AppendUvarint(b, uint64(v.Dim))
		for _, x := range v.Values {
			b = binary.LittleEndian.AppendUint16(b, toHalf(x))
		}
		return b
	}
	b := make([]byte, 0, 2+2*binary.MaxVarintLen64+(3+halfLength)*n)
	b = append(b, encVersionHalf, kindSparse)
	b = binary.AppendUvarint(b, uint64(v.Dim))
	b = binary.AppendUvarint(b, uint64(n))
	var prev uint32
	for i, j := range v.Indices[:n] {
		if i == 0 {
			b = binary.AppendUvarint(b, uint64(j))
		} else {
			b = binary.AppendUvarint(b, uint64(j-prev))
		}
		prev = j
	}
	for _, x := range v.Values[:n] {
		b = binary.LittleEndian.AppendUint16(b, toHalf(x))
	}
	return b
}

// maxHalf is the largest finite half-precision value.
const maxHalf = 65504

// toHalf rounds a float32 to the nearest half-precision value (ties to
// even), as bits. Callers keep |x| ≤ maxHalf; tiny values become
// subnormal halves or zero, keeping their sign.
func toHalf(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	if exp >= 0x1f { // only a value that rounds past maxHalf; callers exclude it
		return sign | 0x7bff
	}
	if exp <= 0 {
		// subnormal half: shift the mantissa, with its implicit 1, right
		if exp < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint32(14 - exp)
		h := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent: still the right value
	}
	if h >= 0x7c00 {
		h = 0x7bff
	}
	return sign | uint16(h)
}

// fromHalf returns a half-precision value as a float32, exactly; false for
// infinities and NaN, which EncodeCompact never writes.
func fromHalf(h uint16) (float32, bool) {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch exp {
	case 0x1f:
		return 0, false
	case 0:
		// subnormal (or zero): mant · 2^-24
		x := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			x = -x
		}
		return x, true
	}
	return math.Float32frombits(sign | (exp-15+127)<<23 | mant<<13), true
}

// Quantize returns v with every value rounded as EncodeCompact stores it,
// so what is decoded from storage and what was embedded compare equal.
func Quantize(v Vector) Vector {
	for _, x := range v.Values {
		if !(math.Abs(float64(x)) <= maxHalf) {
			return v
		}
	}
	out := Vector{Dim: v.Dim, Indices: v.Indices, Values: make([]float32, len(v.Values))}
	for i, x := range v.Values {
		out.Values[i], _ = fromHalf(toHalf(x))
	}
	return out
}

// DecodeVector parses an encoding made by Encode, EncodeCompact or PackVector. It never panics and never
// allocates more than the input can describe: lengths are checked against
// the remaining bytes before any allocation. Non-finite values, unsorted or
// out-of-range indices and trailing bytes are errors.
func DecodeVector(b []byte) (Vector, error) {
	bad := func(why string) (Vector, error) {
		return Vector{}, fmt.Errorf("%w: %s", ErrBadVector, why)
	}
	if IsPacked(b) {
		return decodePacked(b)
	}
	if len(b) < 2 {
		return bad("too short")
	}
	if b[0] != encVersion && b[0] != encVersionHalf {
		return bad(fmt.Sprintf("unknown version %d", b[0]))
	}
	width := uint64(floatLength)
	if b[0] == encVersionHalf {
		width = halfLength
	}
	kind := b[1]
	p := b[2:]
	dim, n := binary.Uvarint(p)
	if n <= 0 {
		return bad("bad dimension")
	}
	p = p[n:]
	if dim > maxVecDim {
		return bad("dimension too large")
	}
	switch kind {
	case kindDense:
		if uint64(len(p)) != dim*width {
			return bad("dense length does not match dimension")
		}
		if dim == 0 {
			return Vector{}, nil
		}
		vals := make([]float32, dim)
		if err := readValues(p, vals, width); err != nil {
			return bad(err.Error())
		}
		return Vector{Dim: int(dim), Values: vals}, nil
	case kindSparse:
		cnt, n := binary.Uvarint(p)
		if n <= 0 {
			return bad("bad count")
		}
		p = p[n:]
		// Each entry needs at least one index byte and four value bytes.
		if cnt > dim || cnt > uint64(len(p))/(1+width) {
			return bad("count too large")
		}
		if dim == 0 {
			if len(p) != 0 {
				return bad("trailing bytes")
			}
			return Vector{}, nil
		}
		idx := make([]uint32, cnt)
		var cur uint64
		for i := range idx {
			d, n := binary.Uvarint(p)
			if n <= 0 {
				return bad("bad index")
			}
			p = p[n:]
			if i > 0 && d == 0 {
				return bad("indices not strictly increasing")
			}
			cur += d
			if cur >= dim {
				return bad("index out of range")
			}
			idx[i] = uint32(cur)
		}
		if uint64(len(p)) != cnt*width {
			return bad("value length does not match count")
		}
		vals := make([]float32, cnt)
		if err := readValues(p, vals, width); err != nil {
			return bad(err.Error())
		}
		return Vector{Dim: int(dim), Indices: idx, Values: vals}, nil
	default:
		return bad(fmt.Sprintf("unknown kind %d", kind))
	}
}

// readValues reads float32 values (width 4) or half-precision ones (2).
func readValues(p []byte, dst []float32, width uint64) error {
	if width == floatLength {
		return readFloats(p, dst)
	}
	for i := range dst {
		x, ok := fromHalf(binary.LittleEndian.Uint16(p[i*halfLength:]))
		if !ok {
			return errors.New("non-finite value")
		}
		dst[i] = x
	}
	return nil
}

func readFloats(p []byte, dst []float32) error {
	for i := range dst {
		x := math.Float32frombits(binary.LittleEndian.Uint32(p[i*floatLength:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errors.New("non-finite value")
		}
		dst[i] = x
	}
	return nil
}

// canonical returns a normalised copy of v fit for indexing, and false when v
// carries nothing usable (no Dim, no finite nonzero value). Unsorted or
// duplicate sparse indices are sorted and summed, out-of-range ones dropped,
// so a caller's slip degrades one vector instead of corrupting the index.
//
// When v is already canonical (the common case: embedders normalise) it is
// returned as is, without copying; callers must not retain its slices.
func canonical(v Vector) (Vector, bool) {
	if v.Dim <= 0 || v.Dim > maxVecDim {
		return Vector{}, false
	}
	if isCanonical(v) {
		return v, true
	}
	for _, x := range v.Values {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return Vector{}, false
		}
	}
	var c Vector
	if v.Indices == nil {
		if len(v.Values) != v.Dim {
			return Vector{}, false
		}
		c = Vector{Dim: v.Dim, Values: slices.Clone(v.Values)}
	} else {
		n := min(len(v.Indices), len(v.Values))
		c = Vector{Dim: v.Dim, Indices: make([]uint32, 0, n), Values: make([]float32, 0, n)}
		sorted := true
		for i := 1; i < n; i++ {
			if v.Indices[i] <= v.Indices[i-1] {
				sorted = false
				break
			}
		}
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		if !sorted {
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(v.Indices[a], v.Indices[b]) })
		}
		for _, i := range order {
			j, x := v.Indices[i], v.Values[i]
			if int(j) >= v.Dim {
				continue
			}
			if k := len(c.Indices); k > 0 && c.Indices[k-1] == j {
				c.Values[k-1] += x
				continue
			}
			c.Indices = append(c.Indices, j)
			c.Values = append(c.Values, x)
		}
		// Drop exact zeros: they cost postings and contribute nothing.
		dropZeros(&c)
	}
	if !hasNorm(c.Values) {
		return Vector{}, false
	}
	Normalize(&c)
	return c, true
}

// Canonicalize puts v, whose slices the caller owns, into the form
// canonical gives it, rescaling and compacting in place instead of
// copying: the index then takes it as is. The values are exactly
// canonical's. It reports false, leaving v empty, when v carries nothing
// usable. A vector whose indices are out of order or repeat is rebuilt by
// canonical (a copy): embedders never write one.
func Canonicalize(v *Vector) bool {
	if v.Dim <= 0 || v.Dim > maxVecDim {
		*v = Vector{}
		return false
	}
	if isCanonical(*v) {
		return true
	}
	for _, x := range v.Values {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			*v = Vector{}
			return false
		}
	}
	if v.Indices == nil {
		if len(v.Values) != v.Dim {
			*v = Vector{}
			return false
		}
	} else {
		if len(v.Indices) != len(v.Values) {
			c, ok := canonical(*v)
			*v = c
			return ok
		}
		for i, j := range v.Indices {
			if int(j) >= v.Dim || (i > 0 && j <= v.Indices[i-1]) {
				c, ok := canonical(*v)
				*v = c
				return ok
			}
		}
		dropZeros(v) // as canonical does
	}
	if !hasNorm(v.Values) {
		*v = Vector{}
		return false
	}
	Normalize(v)
	return true
}

// dropZeros removes the zero entries of a sparse vector in place.
func dropZeros(v *Vector) {
	k := 0
	for i := range v.Indices {
		if v.Values[i] != 0 {
			v.Indices[k], v.Values[k] = v.Indices[i], v.Values[i]
			k++
		}
	}
	v.Indices, v.Values = v.Indices[:k], v.Values[:k]
}

// hasNorm reports whether values have a finite, nonzero norm.
func hasNorm(values []float32) bool {
	var ss float64
	for _, x := range values {
		ss += float64(x) * float64(x)
	}
	return ss != 0 && !math.IsInf(ss, 0)
}

// isCanonical reports whether v is valid, has no zero entries, and has unit
// norm to within float32 rounding, so it can be used without a copy.
func isCanonical(v Vector) bool {
	var ss float64
	if v.Indices == nil {
		if len(v.Values) != v.Dim {
			return false
		}
	} else {
		if len(v.Indices) != len(v.Values) || len(v.Indices) == 0 {
			return false
		}
		for i, j := range v.Indices {
			if int(j) >= v.Dim || (i > 0 && j <= v.Indices[i-1]) || v.Values[i] == 0 {
				return false
			}
		}
	}
	for _, x := range v.Values {
		ss += float64(x) * float64(x)
	}
	return math.Abs(ss-1) < 1e-5 // NaN and Inf fail this too
}
