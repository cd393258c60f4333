package engine_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
)

// First-person retrieval: a question about the user ("what do I use for
// X now?", "where do I work?") runs more than the channels and the
// ranking: replies after turns about other people are followed, turns a
// later change names are looked up, and replaced values are demoted. The
// third-person benchmarks above never take that path, so these do, over a
// store where half the statements are the user's own remarks, a share of
// them saying something changed.
//
//	go test ./engine -run '^$' -bench 'RetrieveFirstPerson' -benchtime 2000x

// benchMine writes the corpus: a keyed third-person statement
// (benchStatement) every other time, else a remark of the user's about
// themselves, captured as a turn: what the extractor makes no fact of stays
// a turn, and turns are what the first-person path ranks.
func benchMine(r *rand.Rand, i int) engine.RememberParams {
	if i%2 == 0 {
		return benchStatement(r, i)
	}
	return engine.RememberParams{Text: benchRemark(r, i)}
}

func benchRemark(r *rand.Rand, i int) string {
	thing := benchThings[r.IntN(len(benchThings))]
	tool := benchTools[r.IntN(len(benchTools))]
	place := benchPlaces[r.IntN(len(benchPlaces))]
	person := benchPeople[r.IntN(len(benchPeople))]
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("I run %s on %s now (note %d).", thing, tool, i)
	case 1:
		return fmt.Sprintf("we switched %s over to %s %s (note %d).", thing, tool, benchReasons[r.IntN(len(benchReasons))], i)
	case 2:
		return fmt.Sprintf("I'm based in %s and pair with %s on %s (note %d).", place, person, thing, i)
	case 3:
		return fmt.Sprintf("honestly %s for me, whatever %s picks (note %d).", tool, person, i)
	case 4:
		return fmt.Sprintf("moved my team from %s to %s last sprint (note %d).", place, benchPlaces[r.IntN(len(benchPlaces))], i)
	}
	return fmt.Sprintf("my job is mostly %s with %s these days (note %d).", thing, tool, i)
}

// benchMyQuery asks about the user, in the first person; some ask what
// holds now.
func benchMyQuery(r *rand.Rand) string {
	thing := benchThings[r.IntN(len(benchThings))]
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("what do I use for %s now?", thing)
	case 1:
		return "where do I work?"
	case 2:
		return fmt.Sprintf("which tool did we move %s to?", thing)
	case 3:
		return fmt.Sprintf("who do I pair with on %s?", thing)
	case 4:
		return fmt.Sprintf("what's my go-to for %s with %s", thing, benchTools[r.IntN(len(benchTools))])
	}
	return fmt.Sprintf("which city am I in at the moment, %s or %s?", benchPlaces[r.IntN(len(benchPlaces))], benchPlaces[r.IntN(len(benchPlaces))])
}

func BenchmarkRetrieveFirstPerson10k(b *testing.B) {
	benchRetrieveWith(b, 10_000, benchMine, benchMyQuery)
}

func BenchmarkRetrieveFirstPerson100k(b *testing.B) {
	benchRetrieveWith(b, 100_000, benchMine, benchMyQuery)
}
