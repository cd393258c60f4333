package engine_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchPluralKinds are questions naming a kind in the plural, so the
// lexical channel also scores the kind's members (Ranking.SetMembers).
var benchPluralKinds = []string{
	"which cities has %s lived in?",
	"what pets does %s keep?",
	"what does %s do on weekends?",
	"which books did %s finish?",
}

// BenchmarkRetrievePlural10k is BenchmarkRetrieve10k with questions that
// name a kind in the plural: what matching its members costs.
func BenchmarkRetrievePlural10k(b *testing.B) {
	benchRetrieveWith(b, 10_000, benchStatement, func(r *rand.Rand) string {
		return fmt.Sprintf(benchPluralKinds[r.IntN(len(benchPluralKinds))], benchPeople[r.IntN(len(benchPeople))])
	})
}
