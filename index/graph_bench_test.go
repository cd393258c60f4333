package index

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// graphCorpus is a namespace of n facts, seeded: a fifth about "user" (a
// hub), the rest about 2,000 people, with values among 5,000 things, keyed
// by 20 relations.
func graphCorpus(n int, an *search.Analyzer) *Namespace {
	r := rand.New(rand.NewPCG(1, 2))
	st := newNSState("bench")
	keys := []string{"works_at", "lives_in", "uses:package_manager", "prefers:editor", "likes:music", "from", "speaks:language", "role",
		"uses:database", "decision:backend", "prefers:drink", "likes:sport", "uses:cache", "goal:learn", "diet", "prefers:food", "likes:book", "uses:ci", "prefers:os", "birthday"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		subject := "user"
		if r.IntN(5) != 0 {
			subject = fmt.Sprintf("person%d", r.IntN(2000))
		}
		v := &memory.Version{
			ID: fmt.Sprintf("ver_%08d", i), MemoryID: fmt.Sprintf("mem_%08d", i), Kind: memory.KindSemantic, Type: memory.TypeFact,
			Subject: subject, Key: keys[r.IntN(len(keys))], Value: fmt.Sprintf("thing%d", r.IntN(5000)),
			Status: memory.StatusActive, ValidFrom: t0,
		}
		st.putEntry(newEntry(v, keyTermsOf(v, an), subjectTermOf(v, an)), nil)
	}
	return st
}

// BenchmarkGraphBuild100k is the graph's share of opening a namespace of
// 100k facts.
func BenchmarkGraphBuild100k(b *testing.B) {
	an := search.NewAnalyzer()
	st := graphCorpus(100_000, an)
	b.ResetTimer()
	for range b.N {
		st.buildGraph(an)
	}
}

// BenchmarkGraphChannel100k is the graph channel over 100k facts: a query
// naming the hub (20k claims: the scan bound holds), and one naming a
// value two hops from a few thousand claims.
func BenchmarkGraphChannel100k(b *testing.B) {
	an := search.NewAnalyzer()
	st := graphCorpus(100_000, an)
	st.buildGraph(an)
	// The engine's filter of a plain retrieval: live and ownerless.
	keep := func(en *Entry) bool { return en.Ownerless && en.Status.Live() }
	for _, q := range []string{"where does the user work?", "where does the person who uses thing42 work?"} {
		qterms := an.QueryTerms(q)
		b.Run(q, func(b *testing.B) {
			for range b.N {
				st.RLock()
				hits := st.GraphHitsLocked(qterms, keep, 0.5, 50)
				st.RUnlock()
				if len(hits) == 0 {
					b.Fatal("no hits")
				}
			}
		})
	}
}
