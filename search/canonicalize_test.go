package search

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// Canonicalize must give exactly canonical's vector, in place.
func TestCanonicalizeMatchesCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	check := func(name string, v Vector) {
		t.Helper()
		orig := Vector{Dim: v.Dim, Indices: slices.Clone(v.Indices), Values: slices.Clone(v.Values)}
		want, wantOK := canonical(orig)
		want = Vector{Dim: want.Dim, Indices: slices.Clone(want.Indices), Values: slices.Clone(want.Values)}
		got := v
		ok := Canonicalize(&got)
		if ok != wantOK {
			t.Fatalf("%s: ok %v, canonical %v", name, ok, wantOK)
		}
		if !ok {
			if !reflect.DeepEqual(got, Vector{}) {
				t.Fatalf("%s: refused but left %+v", name, got)
			}
			return
		}
		if got.Dim != want.Dim || !slices.Equal(got.Indices, want.Indices) || len(got.Values) != len(want.Values) {
			t.Fatalf("%s: got %+v, want %+v", name, got, want)
		}
		for i := range got.Values {
			if math.Float32bits(got.Values[i]) != math.Float32bits(want.Values[i]) {
				t.Fatalf("%s: value %d is %v, canonical's %v", name, i, got.Values[i], want.Values[i])
			}
		}
		if (got.Indices == nil) != (want.Indices == nil) {
			t.Fatalf("%s: sparse/dense differs", name)
		}
	}
	for n := range 300 {
		dim := 1 + r.IntN(64)
		// Dense.
		vals := make([]float32, dim)
		for i := range vals {
			if r.IntN(4) > 0 {
				vals[i] = float32(r.NormFloat64())
			}
		}
		check("dense", Vector{Dim: dim, Values: vals})
		// Sparse, sorted, some zeros; sometimes unsorted, repeated or out of range.
		var idx []uint32
		var sv []float32
		for j := 0; j < dim; j++ {
			if r.IntN(3) == 0 {
				idx = append(idx, uint32(j))
				x := float32(r.NormFloat64())
				if r.IntN(5) == 0 {
					x = 0
				}
				sv = append(sv, x)
			}
		}
		if idx == nil {
			idx, sv = []uint32{}, []float32{}
		}
		check("sparse", Vector{Dim: dim, Indices: idx, Values: sv})
		switch n % 5 {
		case 0:
			if len(idx) > 1 {
				idx[0], idx[1] = idx[1], idx[0]
			}
		case 1:
			if len(idx) > 1 {
				idx[1] = idx[0]
			}
		case 2:
			idx = append(idx, uint32(dim+3))
			sv = append(sv, 1)
		case 3:
			sv = append(sv, 1) // lengths differ
		case 4:
			if len(sv) > 0 {
				sv[0] = float32(math.NaN())
			}
		}
		check("awkward", Vector{Dim: dim, Indices: idx, Values: sv})
	}
	check("zero", Vector{Dim: 3, Values: []float32{0, 0, 0}})
	check("no dim", Vector{})
	check("dense length", Vector{Dim: 3, Values: []float32{1}})
	check("unit", Vector{Dim: 2, Indices: []uint32{0}, Values: []float32{1}})
	// In place: the caller's arrays hold the result.
	v := Vector{Dim: 4, Indices: []uint32{0, 2}, Values: []float32{3, 4}}
	vals := v.Values
	if !Canonicalize(&v) || &v.Values[0] != &vals[0] || vals[0] != 0.6 {
		t.Errorf("not rescaled in place: %+v", v)
	}
}
