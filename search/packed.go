package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// Version 3 ("packed") is a lossless storage form of a version 2 sparse
// encoding (EncodeCompact), for a store to keep on disk: PackVector makes
// it and UnpackVector gives back the very bytes it was made from, so what a
// store returns is what it was given and every cosine stays bit-identical.
// It saves what version 2 spends on the word-vector embedder's layout:
//
//   - the dense tail (entries at Dim-t .. Dim-1, one index gap of 1 each)
//     is a count instead of t gaps;
//   - the sparse head's values, which take few distinct half-precision
//     values (the hashed features' fixed weights), are a palette and one
//     code of bits.Len(k-1) bits each when that is smaller;
//   - the tail's values, of a unit vector's share spread over 64
//     dimensions, have exponents within a few steps of the largest: each
//     is its sign and 10 mantissa bits and the exponent's distance below
//     the largest in a Rice code (k = 1), about 14 bits instead of 16.
//
// Layout:
//
//	byte    version (3)
//	byte    kind: 1 (only sparse vectors are packed)
//	uvarint Dim
//	uvarint h, the head's count
//	uvarint t, the tail's count (its indices are Dim-t .. Dim-1)
//	h       uvarint index gaps (the first index, then each gap ≥ 1)
//	byte    k: palette size; 0 means the head's values follow as h halves
//	k       halves (the palette), then h codes of bits.Len(k-1) bits,
//	        least significant bit first, padded to a byte
//	byte    tail mode: 0, t halves follow; 1, a byte holding the largest
//	        exponent field E, then per value its sign bit, 10 mantissa
//	        bits and d = E - its exponent field as d>>1 one bits, a zero
//	        bit and d&1, least significant bit first, padded to a byte
const encVersionPacked = 3

// PackVector returns the packed form of b, a version 2 sparse encoding,
// when it is smaller and unpacks to exactly b; otherwise b itself. It never
// fails: anything it does not recognise is returned unchanged.
func PackVector(b []byte) []byte {
	if len(b) < 3 || b[0] != encVersionHalf || b[1] != kindSparse {
		return b
	}
	p := b[2:]
	dim, n := binary.Uvarint(p)
	if n <= 0 || dim == 0 || dim > maxVecDim {
		return b
	}
	p = p[n:]
	cnt, n := binary.Uvarint(p)
	if n <= 0 || cnt == 0 || cnt > dim || cnt > uint64(len(p))/(1+halfLength) {
		return b
	}
	p = p[n:]
	var idxBuf [192]uint64 // a word-vector embedding has ~100 entries
	idx := idxBuf[:0]
	if cnt > uint64(len(idxBuf)) {
		idx = make([]uint64, 0, cnt)
	}
	idx = idx[:cnt]
	var cur uint64
	for i := range idx {
		d, n := binary.Uvarint(p)
		if n <= 0 || (i > 0 && d == 0) {
			return b
		}
		p = p[n:]
		cur += d
		if cur >= dim {
			return b
		}
		idx[i] = cur
	}
	if uint64(len(p)) != cnt*halfLength {
		return b
	}
	vals := p
	c := int(cnt)
	t := 0
	for t < c && idx[c-1-t] == dim-1-uint64(t) {
		t++
	}
	h := c - t
	out := make([]byte, 0, len(b))
	out = append(out, encVersionPacked, kindSparse)
	out = binary.AppendUvarint(out, dim)
	out = binary.AppendUvarint(out, uint64(h))
	out = binary.AppendUvarint(out, uint64(t))
	var prev uint64
	for i := 0; i < h; i++ {
		if i == 0 {
			out = binary.AppendUvarint(out, idx[0])
		} else {
			out = binary.AppendUvarint(out, idx[i]-prev)
		}
		prev = idx[i]
	}
	head := vals[:h*halfLength]
	// The palette, in order of first use, and each head value's code;
	// searched linearly: a head has a few dozen values of a dozen kinds.
	var palBuf [256]uint16
	palette := palBuf[:0]
	var codeBuf [192]uint8
	codes := codeBuf[:0]
	if h > len(codeBuf) {
		codes = make([]uint8, 0, h)
	}
	for i := 0; i < h; i++ {
		x := binary.LittleEndian.Uint16(head[i*halfLength:])
		c := slices.Index(palette, x)
		if c < 0 {
			if len(palette) == len(palBuf) {
				break // more than 256 values: no palette
			}
			c = len(palette)
			palette = append(palette, x)
		}
		codes = append(codes, uint8(c))
	}
	k := len(palette)
	width := codeWidth(k)
	if k > 0 && k <= 255 && len(codes) == h && halfLength*k+(h*width+7)/8 < halfLength*h {
		out = append(out, byte(k))
		for _, x := range palette {
			out = binary.LittleEndian.AppendUint16(out, x)
		}
		var acc uint64
		var nacc int
		for _, c := range codes {
			acc |= uint64(c) << nacc
			nacc += width
			for nacc >= 8 {
				out = append(out, byte(acc))
				acc >>= 8
				nacc -= 8
			}
		}
		if nacc > 0 {
			out = append(out, byte(acc))
		}
	} else {
		out = append(out, 0)
		out = append(out, head...)
	}
	out = appendTail(out, vals[h*halfLength:])
	if len(out) >= len(b) {
		return b
	}
	// Only a form that reads back as exactly b is kept (a version 2
	// encoding with a needlessly long varint would not).
	if back, err := UnpackVector(out); err != nil || !bytes.Equal(back, b) {
		return b
	}
	return out
}

// codeWidth is the bits a palette of k entries needs per code.
func codeWidth(k int) int {
	if k <= 1 {
		return 0
	}
	return bits.Len(uint(k - 1))
}

// IsPacked reports whether b is a version 3 (packed) encoding.
func IsPacked(b []byte) bool { return len(b) > 0 && b[0] == encVersionPacked }

// UnpackVector returns the version 2 encoding a packed one was made from;
// any other encoding is returned as it is. Like DecodeVector it never panics
// and checks every length before allocating.
func UnpackVector(b []byte) ([]byte, error) {
	if !IsPacked(b) {
		return b, nil
	}
	bad := func(why string) ([]byte, error) {
		return nil, fmt.Errorf("%w: packed: %s", ErrBadVector, why)
	}
	dim, h, t, p, why := packedHeader(b)
	if why != "" {
		return bad(why)
	}
	out := make([]byte, 0, 2+3*binary.MaxVarintLen64+int(h)*3+int(t)*(1+halfLength)+int(h)*halfLength)
	out = append(out, encVersionHalf, kindSparse)
	out = binary.AppendUvarint(out, dim)
	out = binary.AppendUvarint(out, h+t)
	var cur uint64
	for i := uint64(0); i < h; i++ {
		d, n := binary.Uvarint(p)
		if n <= 0 {
			return bad("bad index")
		}
		if i > 0 && d == 0 {
			return bad("indices not strictly increasing")
		}
		p = p[n:]
		cur += d
		if cur >= dim-t {
			return bad("index out of range")
		}
		out = binary.AppendUvarint(out, d)
	}
	if t > 0 {
		first := dim - t
		if h > 0 {
			first -= cur
		}
		out = binary.AppendUvarint(out, first)
		for i := uint64(1); i < t; i++ {
			out = append(out, 1)
		}
	}
	if len(p) < 1 {
		return bad("no palette size")
	}
	k := int(p[0])
	p = p[1:]
	if k == 0 {
		if uint64(len(p)) < h*halfLength {
			return bad("head values too short")
		}
		out = append(out, p[:h*halfLength]...)
		p = p[h*halfLength:]
	} else {
		width := codeWidth(k)
		codeBytes := (h*uint64(width) + 7) / 8
		if uint64(len(p)) < uint64(k)*halfLength+codeBytes {
			return bad("palette too short")
		}
		pal, codes := p[:k*halfLength], p[k*halfLength:uint64(k)*halfLength+codeBytes]
		p = p[uint64(k)*halfLength+codeBytes:]
		var acc uint64
		var nacc int
		for i := uint64(0); i < h; i++ {
			for nacc < width {
				acc |= uint64(codes[0]) << nacc
				codes = codes[1:]
				nacc += 8
			}
			c := int(acc & (1<<width - 1))
			acc >>= width
			nacc -= width
			if c >= k {
				return bad("code outside the palette")
			}
			out = append(out, pal[c*halfLength], pal[c*halfLength+1])
		}
	}
	if len(p) < 1 && t > 0 {
		return bad("no tail mode")
	}
	if t == 0 {
		if len(p) != 0 {
			return bad("trailing bytes")
		}
		return out, nil
	}
	mode := p[0]
	p = p[1:]
	switch mode {
	case tailRaw:
		if uint64(len(p)) != t*halfLength {
			return bad("tail length does not match count")
		}
		return append(out, p...), nil
	case tailRice:
		out, err := readRiceTail(out, p, int(t))
		if err != nil {
			return bad(err.Error())
		}
		return out, nil
	default:
		return bad("unknown tail mode")
	}
}

// Tail modes.
const (
	tailRaw  = 0
	tailRice = 1
)

// appendTail appends the tail's halves (little-endian pairs) in the
// smaller of the two tail modes; nothing for an empty tail.
func appendTail(out, tail []byte) []byte {
	t := len(tail) / halfLength
	if t == 0 {
		return out
	}
	maxE := 0
	for i := 0; i < t; i++ {
		maxE = max(maxE, int(binary.LittleEndian.Uint16(tail[i*halfLength:])>>10&0x1f))
	}
	var w bitWriter
	w.buf = make([]byte, 0, 2*t)
	for i := 0; i < t; i++ {
		x := binary.LittleEndian.Uint16(tail[i*halfLength:])
		w.write(uint64(x>>15)|uint64(x&0x3ff)<<1, 11)
		d := maxE - int(x>>10&0x1f)
		q := d >> 1
		w.write(uint64(1)<<q-1|uint64(d&1)<<(q+1), q+2) // q ones, a zero, d's low bit
	}
	rice := w.flush()
	if 1+len(rice) < len(tail) {
		out = append(out, tailRice, byte(maxE))
		return append(out, rice...)
	}
	out = append(out, tailRaw)
	return append(out, tail...)
}

// readRiceTail decodes t values of tail mode 1 from p (which must hold
// exactly them) and appends them to out as halves.
func readRiceTail(out, p []byte, t int) ([]byte, error) {
	if len(p) < 1 {
		return nil, errors.New("no largest exponent")
	}
	maxE := int(p[0])
	if maxE > 0x1f {
		return nil, errors.New("largest exponent out of range")
	}
	r := bitReader{buf: p[1:]}
	for i := 0; i < t; i++ {
		r.fill()
		v := r.acc
		// q ones after the sign and mantissa; the zero and the low bit
		// must follow within what is loaded (fill keeps at least 57 bits
		// while there are bytes, and q is at most 15).
		q := bits.TrailingZeros64(^(v >> 11))
		if q > 15 {
			return nil, errors.New("exponent run too long")
		}
		n := 11 + q + 2
		if n > r.nacc {
			return nil, errors.New("tail too short")
		}
		d := q<<1 | int(v>>(11+q+1)&1)
		if d > maxE {
			return nil, errors.New("exponent below zero")
		}
		x := uint16(v&1)<<15 | uint16(maxE-d)<<10 | uint16(v>>1&0x3ff)
		out = binary.LittleEndian.AppendUint16(out, x)
		r.acc >>= n
		r.nacc -= n
	}
	// Only the padding of the last byte may be left, and it is zero.
	if len(r.buf) != 0 || r.nacc >= 8 || r.acc != 0 {
		return nil, errors.New("trailing bits")
	}
	return out, nil
}

// bitWriter packs values least significant bit first.
type bitWriter struct {
	buf  []byte
	acc  uint64
	nacc int
}

func (w *bitWriter) write(v uint64, n int) {
	w.acc |= v << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

func (w *bitWriter) flush() []byte {
	if w.nacc > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc, w.nacc = 0, 0
	}
	return w.buf
}

// bitReader reads what bitWriter wrote.
type bitReader struct {
	buf  []byte
	acc  uint64
	nacc int
}

// fill loads whole bytes while at least 8 bits of room are left.
func (r *bitReader) fill() {
	for r.nacc <= 56 && len(r.buf) > 0 {
		r.acc |= uint64(r.buf[0]) << r.nacc
		r.buf = r.buf[1:]
		r.nacc += 8
	}
}

// packedHeader reads a packed encoding's dimension and head and tail
// counts, checked against the bytes left (every head entry takes at least
// one gap byte, every tail entry at least 13 bits); p is what follows
// them, why says what is wrong, "" when nothing is.
func packedHeader(b []byte) (dim, h, t uint64, p []byte, why string) {
	if len(b) < 2 || b[1] != kindSparse {
		return 0, 0, 0, nil, "not sparse"
	}
	p = b[2:]
	dim, n := binary.Uvarint(p)
	if n <= 0 || dim == 0 || dim > maxVecDim {
		return 0, 0, 0, nil, "bad dimension"
	}
	p = p[n:]
	h, n = binary.Uvarint(p)
	if n <= 0 {
		return 0, 0, 0, nil, "bad head count"
	}
	p = p[n:]
	t, n = binary.Uvarint(p)
	if n <= 0 {
		return 0, 0, 0, nil, "bad tail count"
	}
	p = p[n:]
	if h > uint64(len(p)) || t > uint64(len(p))*8/13 || h+t > dim || h+t == 0 {
		return 0, 0, 0, nil, "count too large"
	}
	return dim, h, t, p, ""
}

// decodePacked is DecodeVector of a packed encoding: the vector
// DecodeVector(UnpackVector(b)) gives, and an error exactly when that
// fails, read straight from b without the version 2 bytes in between (an
// index load decodes 100,000 of them).
func decodePacked(b []byte) (Vector, error) {
	bad := func(why string) (Vector, error) {
		return Vector{}, fmt.Errorf("%w: packed: %s", ErrBadVector, why)
	}
	dim, h, t, p, why := packedHeader(b)
	if why != "" {
		return bad(why)
	}
	idx := make([]uint32, h+t)
	vals := make([]float32, h+t)
	var cur uint64
	for i := uint64(0); i < h; i++ {
		d, n := binary.Uvarint(p)
		if n <= 0 {
			return bad("bad index")
		}
		if i > 0 && d == 0 {
			return bad("indices not strictly increasing")
		}
		p = p[n:]
		cur += d
		if cur >= dim-t {
			return bad("index out of range")
		}
		idx[i] = uint32(cur)
	}
	for i := uint64(0); i < t; i++ {
		idx[h+i] = uint32(dim - t + i)
	}
	half := func(i uint64, x uint16) bool {
		f, ok := fromHalf(x)
		vals[i] = f
		return ok
	}
	if len(p) < 1 {
		return bad("no palette size")
	}
	k := int(p[0])
	p = p[1:]
	if k == 0 {
		if uint64(len(p)) < h*halfLength {
			return bad("head values too short")
		}
		for i := uint64(0); i < h; i++ {
			if !half(i, binary.LittleEndian.Uint16(p[i*halfLength:])) {
				return bad("non-finite value")
			}
		}
		p = p[h*halfLength:]
	} else {
		width := codeWidth(k)
		codeBytes := (h*uint64(width) + 7) / 8
		if uint64(len(p)) < uint64(k)*halfLength+codeBytes {
			return bad("palette too short")
		}
		pal, codes := p[:k*halfLength], p[k*halfLength:uint64(k)*halfLength+codeBytes]
		p = p[uint64(k)*halfLength+codeBytes:]
		var acc uint64
		var nacc int
		for i := uint64(0); i < h; i++ {
			for nacc < width {
				acc |= uint64(codes[0]) << nacc
				codes = codes[1:]
				nacc += 8
			}
			c := int(acc & (1<<width - 1))
			acc >>= width
			nacc -= width
			if c >= k {
				return bad("code outside the palette")
			}
			if !half(i, binary.LittleEndian.Uint16(pal[c*halfLength:])) {
				return bad("non-finite value")
			}
		}
	}
	if t == 0 {
		if len(p) != 0 {
			return bad("trailing bytes")
		}
		return Vector{Dim: int(dim), Indices: idx, Values: vals}, nil
	}
	if len(p) < 1 {
		return bad("no tail mode")
	}
	mode := p[0]
	p = p[1:]
	switch mode {
	case tailRaw:
		if uint64(len(p)) != t*halfLength {
			return bad("tail length does not match count")
		}
		for i := uint64(0); i < t; i++ {
			if !half(h+i, binary.LittleEndian.Uint16(p[i*halfLength:])) {
				return bad("non-finite value")
			}
		}
	case tailRice:
		if len(p) < 1 {
			return bad("no largest exponent")
		}
		maxE := int(p[0])
		if maxE > 0x1f {
			return bad("largest exponent out of range")
		}
		r := bitReader{buf: p[1:]}
		for i := uint64(0); i < t; i++ {
			r.fill()
			v := r.acc
			q := bits.TrailingZeros64(^(v >> 11))
			if q > 15 {
				return bad("exponent run too long")
			}
			n := 11 + q + 2
			if n > r.nacc {
				return bad("tail too short")
			}
			d := q<<1 | int(v>>(11+q+1)&1)
			if d > maxE {
				return bad("exponent below zero")
			}
			if !half(h+i, uint16(v&1)<<15|uint16(maxE-d)<<10|uint16(v>>1&0x3ff)) {
				return bad("non-finite value")
			}
			r.acc >>= n
			r.nacc -= n
		}
		if len(r.buf) != 0 || r.nacc >= 8 || r.acc != 0 {
			return bad("trailing bits")
		}
	default:
		return bad("unknown tail mode")
	}
	return Vector{Dim: int(dim), Indices: idx, Values: vals}, nil
}
