package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The byte bound's integer dot product, four products to a multiplication,
// is the plain sum of the integers' products, and the bound it gives is
// never below the float64 dot product of the float32 values, for rows and
// queries of several lengths (padded and not), extreme values (every
// integer at ±63: the lanes' largest sums), zeros, and tiny and huge
// scales.
func TestTailQuantBound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	kinds := []string{"normal", "extreme", "zero", "tiny", "huge", "sparse"}
	for _, n := range []int{64, 1, 7, 8, 16, 72, 200} {
		for _, kind := range kinds {
			t.Run(fmt.Sprintf("n %d %s", n, kind), func(t *testing.T) {
				gen := func() []float32 {
					v := make([]float32, n)
					for j := range v {
						x := r.NormFloat64()
						switch kind {
						case "extreme":
							x = float64(1 - 2*r.IntN(2))
						case "zero":
							x = 0
						case "tiny":
							x *= 1e-30
						case "huge":
							x *= 1e30
						case "sparse":
							if r.IntN(4) != 0 {
								x = 0
							}
						}
						v[j] = float32(x)
					}
					return v
				}
				for range 200 {
					row, q := gen(), gen()
					b := make([]byte, quantStride(n))
					rq := quantRow(row, b)
					var qq quantQuery
					qq.quantize(q)
					// The integers back from the bytes and the words.
					var want int64
					var exact float64
					for j := range n {
						ri := int64(b[j]) - 64
						qi := int64(qq.words[2*(j/8)+j%2]>>(16*(3-(j%8)/2))&0xffff) - 64
						if ri < -quantLevels || ri > quantLevels || qi < -quantLevels || qi > quantLevels {
							t.Fatalf("value %d out of range: %d %d", j, ri, qi)
						}
						want += ri * qi
						exact += float64(row[j]) * float64(q[j])
					}
					if got := qq.dot(b, rq.off); got != want {
						t.Fatalf("dot %d, want %d", got, want)
					}
					bound := float64(qq.scale)*float64(rq.scale)*float64(want) + float64(qq.err)*float64(rq.norm) + float64(qq.hat)*float64(rq.err)
					if tol := 1e-6 * math.Abs(exact); bound+tol < exact {
						t.Fatalf("bound %g below the dot product %g", bound, exact)
					}
				}
			})
		}
	}
}
