package search

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Every finite half-precision value converts to float32 and back to the same
// bits, and a float32 becomes the nearest half (ties to even).
func TestHalfConversion(t *testing.T) {
	t.Parallel()
	for h := 0; h < 1<<16; h++ {
		x, ok := fromHalf(uint16(h))
		if exp := h >> 10 & 0x1f; exp == 0x1f {
			if ok {
				t.Fatalf("%#04x: infinity or NaN decoded", h)
			}
			continue
		}
		if !ok {
			t.Fatalf("%#04x: not decoded", h)
		}
		if back := toHalf(x); back != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, x, back)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 200000; i++ {
		x := float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(40)-30)))
		got, _ := fromHalf(toHalf(x))
		// the nearest half: no half between x and got is closer
		h := toHalf(x)
		for _, d := range []int{-1, 1} {
			n := int(h&0x7fff) + d
			if n < 0 || n >= 0x7c00 {
				continue
			}
			other, _ := fromHalf(uint16(n) | h&0x8000)
			if math.Abs(float64(other)-float64(x)) < math.Abs(float64(got)-float64(x)) {
				t.Fatalf("%v: rounded to %v, %v is nearer", x, got, other)
			}
		}
	}
}

// EncodeCompact decodes to Quantize(v) exactly, is about half the size for
// the default embedder's vectors, keeps cosines within 1e-3, and falls back
// to the exact encoding for values half precision cannot hold.
func TestEncodeCompact(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	sparse := randSparse(r, 1<<18, 120)
	dense := Vector{Dim: 64, Values: make([]float32, 64)}
	for i := range dense.Values {
		dense.Values[i] = float32(r.NormFloat64())
	}
	Normalize(&dense)
	for _, v := range []Vector{{}, sparse, dense, {Dim: 3, Values: []float32{1e-9, -0.5, 0}}} {
		b := v.EncodeCompact()
		got, err := DecodeVector(b)
		if err != nil {
			t.Fatal(err)
		}
		q := Quantize(v)
		if got.Dim != v.Dim || !slices.Equal(got.Values, q.Values) || !slices.Equal(got.Indices, v.Indices) || (got.Indices == nil) != (v.Indices == nil) {
			t.Fatalf("compact round trip: got %+v, want %+v", got, q)
		}
		if v.Dim > 3 {
			if c := float64(got.Dot(v)) / math.Sqrt(float64(got.Dot(got))*float64(v.Dot(v))); c < 1-1e-3 {
				t.Fatalf("cosine with the original %v", c)
			}
			if full, compact := len(v.Encode()), len(b); compact*10 > full*7 {
				t.Fatalf("compact %d bytes, full %d", compact, full)
			}
		}
	}
	big := Vector{Dim: 2, Values: []float32{70000, 1}}
	if got, err := DecodeVector(big.EncodeCompact()); err != nil || !slices.Equal(got.Values, big.Values) {
		t.Fatalf("out of half range: %+v %v", got, err)
	}
	for _, b := range [][]byte{
		{2, 0, 1, 0x00, 0x7c}, // +Inf
		{2, 0, 1, 0x00},       // short
		{2, 1, 10, 1, 3, 0x00},
	} {
		if _, err := DecodeVector(b); !errors.Is(err, ErrBadVector) {
			t.Errorf("%v: err = %v", b, err)
		}
	}
}
