package embed

import (
	"context"
	"testing"

	"github.com/mnemon-dev/mnemon/search/searchtest"
)

// BenchmarkEmbed embeds realistic short sentences one batch of 1,000 per
// iteration and reports sentences per second and nonzeros per vector.
func BenchmarkEmbed(b *testing.B) {
	e := NewBuiltin()
	texts := searchtest.NewGenerator(42).Sentences(1000)
	ctx := context.Background()
	var nnz int
	b.ReportAllocs()
	for b.Loop() {
		vs, err := e.Embed(ctx, texts)
		if err != nil {
			b.Fatal(err)
		}
		nnz = 0
		for _, v := range vs {
			nnz += len(v.Indices)
		}
	}
	b.ReportMetric(float64(len(texts))*float64(b.N)/b.Elapsed().Seconds(), "texts/s")
	b.ReportMetric(float64(nnz)/float64(len(texts)), "nnz/text")
}
