package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/mnemon-dev/mnemon/search"
)

// graphHitsByID is the graph channel as it was before an entity's claim
// list held the claims: each claim read from graph.claims by its id, and
// both its ends looked up in hop. GraphHitsLocked must return what it does.
func graphHitsByID(st *Namespace, qterms []string, keep func(*Entry) bool, hop2 float64, limit int) []search.Hit {
	g := st.graph
	qset := make(map[string]bool, len(qterms))
	for _, t := range qterms {
		qset[t] = true
	}
	seeds := g.named(newTermSet(qterms), qterms)
	if len(seeds) == 0 {
		return nil
	}
	hop := make(map[string]int)
	for _, s := range seeds {
		hop[s] = 0
	}
	best := make(map[string]float64)
	frontier := seeds
	scanned := 0
	for h := 1; h <= 2 && len(frontier) > 0 && scanned < graphScan; h++ {
		weight := 1.0
		if h == 2 {
			weight = hop2
		}
		type reached struct {
			key   string
			score float64
		}
		var next []reached
		at := make(map[string]int)
		for _, key := range frontier {
			en := g.entities[key]
			n := 0
			for i := len(en.claims) - 1; i >= 0 && n < graphFanout && scanned < graphScan; i-- {
				id := en.claims[i].id
				n++
				scanned++
				e, ok := st.entries.load(id)
				if !ok || !keep(e) {
					continue
				}
				c := g.claims[id]
				far := c.other(key)
				match := 0.0
				h1, ok1 := hop[c.subject]
				h2, ok2 := hop[c.object]
				switch {
				case ok1 && h1 == 0 && ok2 && h2 == 0:
					match = 1
				case len(e.KeyTerms) > 0:
					m := 0
					for _, t := range e.KeyTerms {
						if qset[t] {
							m++
						}
					}
					for _, t := range e.AliasTerms {
						if qset[t] {
							m++
						}
					}
					match = math.Min(1, float64(m)/float64(len(e.KeyTerms)))
				}
				score := weight * (0.25 + 0.75*match)
				if score > best[id] {
					best[id] = score
				}
				if _, seen := hop[far]; !seen {
					hop[far] = h
					at[far] = len(next)
					next = append(next, reached{far, score})
				} else if i, ok := at[far]; ok && next[i].score < score {
					next[i].score = score
				}
			}
		}
		sort.SliceStable(next, func(i, j int) bool { return next[i].score > next[j].score })
		frontier = nil
		for _, n := range next {
			frontier = append(frontier, n.key)
		}
	}
	hits := make([]search.Hit, 0, len(best))
	for id, s := range best {
		hits = append(hits, search.Hit{ID: id, Score: s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID > hits[j].ID
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// TestGraphClaimListsHoldTheClaims: after a build and after claims are
// removed, every entity's list holds exactly the claims graph.claims has
// for it, and the graph channel returns the same hits as the lookup by id,
// for queries naming one entity, two joined ones (both ends named) and a
// relation, at the first and second hop.
func TestGraphClaimListsHoldTheClaims(t *testing.T) {
	an := search.NewAnalyzer()
	st := graphCorpus(6000, an)
	st.buildGraph(an)
	keep := func(en *Entry) bool { return en.Ownerless && en.Status.Live() }
	r := rand.New(rand.NewPCG(3, 4))
	check := func(stage string) {
		t.Helper()
		listed := 0
		for key, en := range st.graph.entities {
			for _, ref := range en.claims {
				c, ok := st.graph.claims[ref.id]
				if !ok || c != ref.claim || (c.subject != key && c.object != key) {
					t.Fatalf("%s: entity %q lists %s as %+v; graph.claims has %+v (%v)", stage, key, ref.id, ref.claim, c, ok)
				}
				listed++
			}
		}
		want := 0
		for _, c := range st.graph.claims {
			want++
			if c.object != c.subject {
				want++
			}
		}
		if listed != want {
			t.Fatalf("%s: %d claims listed, want %d", stage, listed, want)
		}
		queries := []string{"where does the user work?", "what does user use for ci"}
		// Both ends named: a subject and a value some claim joins.
		for i := 0; i < 40; i++ {
			v := st.entries.must(fmt.Sprintf("ver_%08d", r.IntN(6000))).V
			queries = append(queries, fmt.Sprintf("is %s still on %s?", v.Subject, v.Value))
		}
		for range 60 {
			p, th := r.IntN(2000), r.IntN(5000)
			queries = append(queries,
				fmt.Sprintf("what does person%d like", p),
				fmt.Sprintf("who uses thing%d", th),
				fmt.Sprintf("does person%d live in thing%d?", p, th),
				fmt.Sprintf("where does the one who prefers thing%d work", th),
				// More words than a termSet scans: its map.
				fmt.Sprintf("person%d thing%d office garden kitchen laptop coffee bicycle holiday work", p, th))
		}
		nonEmpty := 0
		for _, q := range queries {
			qterms := an.QueryTerms(q)
			got := st.GraphHitsLocked(qterms, keep, 0.5, 50)
			want := graphHitsByID(st, qterms, keep, 0.5, 50)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %q: got %v, want %v", stage, q, got, want)
			}
			if len(got) > 0 {
				nonEmpty++
			}
		}
		if nonEmpty < len(queries)/2 {
			t.Fatalf("%s: only %d of %d queries reach a claim", stage, nonEmpty, len(queries))
		}
	}
	check("built")
	// Take a third of the claims out (forgotten or quarantined versions).
	var ids []string
	for id := range st.graph.claims {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for i, id := range ids {
		if i%3 == 0 {
			st.graph.remove(id)
		}
	}
	check("after removals")
}

func TestTermSet(t *testing.T) {
	for _, n := range []int{0, 1, 2, termSetScan, termSetScan + 1, 30} {
		var terms []string
		for i := range n {
			terms = append(terms, fmt.Sprintf("word%d", i))
		}
		s := newTermSet(terms)
		for i := range n + 3 {
			w := fmt.Sprintf("word%d", i)
			if got, want := s.has(w), i < n; got != want {
				t.Fatalf("%d terms: has(%q) = %v, want %v", n, w, got, want)
			}
		}
		if s.has("") {
			t.Fatalf("%d terms: has the empty string", n)
		}
	}
}
