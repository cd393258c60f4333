package search

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func toDense(v Vector) []float32 {
	if v.Indices == nil {
		return v.Values
	}
	d := make([]float32, v.Dim)
	for i, j := range v.Indices {
		d[j] = v.Values[i]
	}
	return d
}

func randSparse(r *rand.Rand, dim, nnz int) Vector {
	set := map[uint32]bool{}
	for len(set) < nnz {
		set[uint32(r.IntN(dim))] = true
	}
	v := Vector{Dim: dim}
	for j := range set {
		v.Indices = append(v.Indices, j)
	}
	slices.Sort(v.Indices)
	for range v.Indices {
		v.Values = append(v.Values, float32(r.NormFloat64()))
	}
	Normalize(&v)
	return v
}

func TestDotMixes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		a, b := randSparse(r, 64, 1+r.IntN(30)), randSparse(r, 64, 1+r.IntN(30))
		da, db := Vector{Dim: 64, Values: toDense(a)}, Vector{Dim: 64, Values: toDense(b)}
		want := float64(dotDense(da.Values, db.Values))
		for _, pair := range [][2]Vector{{a, b}, {da, b}, {a, db}, {da, db}} {
			if got := float64(pair[0].Dot(pair[1])); math.Abs(got-want) > 1e-5 {
				t.Fatalf("Dot = %v, want %v", got, want)
			}
		}
	}
	if got := (Vector{Dim: 3, Values: []float32{1, 0, 0}}).Dot(Vector{Dim: 4, Values: []float32{1, 0, 0, 0}}); got != 0 {
		t.Fatalf("different Dim: %v", got)
	}
	if got := (Vector{}).Dot(Vector{}); got != 0 {
		t.Fatalf("zero vectors: %v", got)
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	v := Vector{Dim: 2, Values: []float32{3, 4}}
	Normalize(&v)
	if math.Abs(float64(v.Values[0])-0.6) > 1e-6 || math.Abs(float64(v.Values[1])-0.8) > 1e-6 {
		t.Fatalf("Normalize = %v", v.Values)
	}
	z := Vector{Dim: 2, Values: []float32{0, 0}}
	Normalize(&z)
	if z.Values[0] != 0 || z.Values[1] != 0 {
		t.Fatalf("zero vector changed: %v", z.Values)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	sparse := randSparse(r, 1<<18, 120)
	tests := []Vector{
		{},
		{Dim: 3, Values: []float32{0.6, 0, -0.8}},
		sparse,
		{Dim: 10, Indices: []uint32{}, Values: []float32{}},
		{Dim: 1 << 18, Indices: []uint32{0, 1<<18 - 1}, Values: []float32{0.5, -0.5}},
	}
	for _, v := range tests {
		b := v.Encode()
		got, err := DecodeVector(b)
		if err != nil {
			t.Fatalf("DecodeVector(%v): %v", v, err)
		}
		if got.Dim != v.Dim || !slices.Equal(got.Values, v.Values) || !slices.Equal(got.Indices, v.Indices) || (got.Indices == nil) != (v.Indices == nil) {
			t.Fatalf("round trip: got %+v, want %+v", got, v)
		}
	}
	if n := len(sparse.Encode()); n > 120*7 {
		t.Fatalf("sparse encoding of 120 nonzeros takes %d bytes", n)
	}
}

func TestDecodeVectorRejects(t *testing.T) {
	t.Parallel()
	nan := Vector{Dim: 1, Values: []float32{float32(math.NaN())}}.Encode()
	tests := map[string][]byte{
		"empty":          nil,
		"version":        {3, 0, 0},
		"kind":           {1, 7, 0},
		"short dense":    {1, 0, 2, 0, 0, 0, 0},
		"trailing":       append(Vector{Dim: 1, Values: []float32{1}}.Encode(), 0),
		"nan":            nan,
		"unsorted":       {1, 1, 10, 2, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		"out of range":   {1, 1, 10, 1, 10, 0, 0, 0, 0},
		"huge count":     {1, 1, 10, 0xff, 0xff, 0x03},
		"huge dim":       {1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"truncated uvar": {1, 0, 0x80},
	}
	for name, b := range tests {
		if _, err := DecodeVector(b); !errors.Is(err, ErrBadVector) {
			t.Errorf("%s: err = %v, want ErrBadVector", name, err)
		}
	}
}

func TestCanonical(t *testing.T) {
	t.Parallel()
	c, ok := canonical(Vector{Dim: 8, Indices: []uint32{5, 1, 5, 9}, Values: []float32{1, 2, 1, 7}})
	if !ok || !slices.Equal(c.Indices, []uint32{1, 5}) {
		t.Fatalf("canonical = %+v, %v", c, ok)
	}
	if math.Abs(float64(c.Dot(c))-1) > 1e-6 {
		t.Fatalf("not normalised: %v", c.Dot(c))
	}
	for _, bad := range []Vector{{}, {Dim: 2, Values: []float32{1}}, {Dim: 1, Values: []float32{float32(math.Inf(1))}}, {Dim: 2, Values: []float32{0, 0}}} {
		if _, ok := canonical(bad); ok {
			t.Errorf("canonical(%+v) accepted", bad)
		}
	}
}

func FuzzDecodeVector(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	f.Add([]byte{})
	f.Add(Vector{}.Encode())
	f.Add(Vector{Dim: 3, Values: []float32{0.6, 0, -0.8}}.Encode())
	f.Add(randSparse(r, 1000, 20).Encode())
	f.Add([]byte{1, 1, 10, 0xff, 0xff, 0x03})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeVector(b)
		if err != nil {
			return
		}
		again, err := DecodeVector(v.Encode())
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if again.Dim != v.Dim || !slices.Equal(again.Indices, v.Indices) || !slices.Equal(again.Values, v.Values) {
			t.Fatalf("unstable: %+v vs %+v", again, v)
		}
		_ = v.Dot(v)
	})
}
