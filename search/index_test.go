package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// naive is a reference implementation: the same BM25 and cosine computed
// from scratch over a map of documents, to check the index against.
type naive struct{ docs map[string]Doc }

func (n naive) lexical(terms []string, k int, keep func(string) bool) []Hit {
	N := float64(len(n.docs))
	var total float64
	df := map[string]int{}
	for _, d := range n.docs {
		total += float64(len(d.Terms))
		for _, t := range uniq(d.Terms) {
			df[t]++
		}
	}
	avgdl := total / N
	if avgdl == 0 {
		avgdl = 1
	}
	var hits []Hit
	for id, d := range n.docs {
		var s float64
		for _, q := range uniq(terms) {
			tf := 0
			for _, t := range d.Terms {
				if t == q {
					tf++
				}
			}
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (N-float64(df[q])+0.5)/(float64(df[q])+0.5))
			s += idf * float64(tf) * (bm25K1 + 1) / (float64(tf) + bm25K1*(1-bm25B+bm25B*float64(len(d.Terms))/avgdl))
		}
		if s > 0 && (keep == nil || keep(id)) {
			hits = append(hits, Hit{id, s})
		}
	}
	return topHits(hits, k)
}

func (n naive) semantic(q Vector, k int, floor float64, keep func(string) bool) []Hit {
	cq, _ := canonical(q)
	var hits []Hit
	for id, d := range n.docs {
		cd, ok := canonical(d.Vector)
		if !ok || cd.Dim != cq.Dim {
			continue
		}
		s := float64(cq.Dot(cd))
		if s != 0 && s >= floor && (keep == nil || keep(id)) {
			hits = append(hits, Hit{id, s})
		}
	}
	return topHits(hits, k)
}

func topHits(h []Hit, k int) []Hit {
	sort.Slice(h, func(i, j int) bool {
		if h[i].Score != h[j].Score {
			return h[i].Score > h[j].Score
		}
		return h[i].ID < h[j].ID
	})
	if len(h) > k {
		h = h[:k]
	}
	return h
}

// sameHits compares ranked lists allowing float32 rounding: IDs must match
// except where neighbouring scores are within tolerance.
func sameHits(t *testing.T, what string, got, want []Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d hits %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if math.Abs(got[i].Score-want[i].Score) > 1e-4*max(1, math.Abs(want[i].Score)) {
			t.Fatalf("%s: hit %d score %v, want %v (%v vs %v)", what, i, got[i].Score, want[i].Score, got, want)
		}
		if got[i].ID != want[i].ID && math.Abs(got[i].Score-want[i].Score) > 1e-4 {
			t.Fatalf("%s: hit %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

func randomDoc(r *rand.Rand, id string, vocab []string) Doc {
	n := 1 + r.IntN(12)
	d := Doc{ID: id}
	for range n {
		d.Terms = append(d.Terms, vocab[int(math.Sqrt(float64(r.IntN(len(vocab)*len(vocab)))))])
	}
	switch r.IntN(4) {
	case 0: // no vector
	case 1:
		dv := make([]float32, 16)
		for i := range dv {
			dv[i] = float32(r.NormFloat64())
		}
		d.Vector = Vector{Dim: 16, Values: dv}
	default:
		d.Vector = randSparse(r, 16, 1+r.IntN(6))
	}
	return d
}

// TestIndexMatchesNaive applies random upserts and removals and checks
// every query against the reference after each batch.
func TestIndexMatchesNaive(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("t%02d", i)
	}
	ix := NewIndex()
	ref := naive{docs: map[string]Doc{}}
	for round := range 30 {
		for range 20 {
			id := fmt.Sprintf("d%03d", r.IntN(150))
			if r.IntN(4) == 0 {
				ix.Remove(id)
				delete(ref.docs, id)
				continue
			}
			d := randomDoc(r, id, vocab)
			ix.Upsert(d)
			ref.docs[id] = d
		}
		if ix.Len() != len(ref.docs) {
			t.Fatalf("round %d: Len = %d, want %d", round, ix.Len(), len(ref.docs))
		}
		keep := func(id string) bool { return id[len(id)-1] != '7' }
		for range 10 {
			q := []string{vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))], "absent"}
			k := 1 + r.IntN(8)
			sameHits(t, "lexical", ix.Lexical(q, k, nil), ref.lexical(q, k, nil))
			sameHits(t, "lexical keep", ix.Lexical(q, k, keep), ref.lexical(q, k, keep))
			qv := randSparse(r, 16, 1+r.IntN(8))
			floor := r.Float64()*0.6 - 0.3
			sameHits(t, "semantic", ix.Semantic(qv, k, floor, nil), ref.semantic(qv, k, floor, nil))
			sameHits(t, "semantic keep", ix.Semantic(qv, k, floor, keep), ref.semantic(qv, k, floor, keep))
			dq := Vector{Dim: 16, Values: toDense(qv)}
			sameHits(t, "semantic dense query", ix.Semantic(dq, k, floor, nil), ref.semantic(dq, k, floor, nil))
		}
	}
	// Remove everything: the index must be empty and answer nothing.
	for id := range ref.docs {
		ix.Remove(id)
	}
	if ix.Len() != 0 || len(ix.termOf) != 0 || ix.totalLen != 0 || len(ix.dense) != 0 {
		t.Fatalf("not empty after removing all: len %d terms %d totalLen %d", ix.Len(), len(ix.termOf), ix.totalLen)
	}
	if h := ix.Lexical([]string{vocab[0]}, 5, nil); h != nil {
		t.Fatalf("hits on empty index: %v", h)
	}
}

func TestLexicalTiesAndKeepLaziness(t *testing.T) {
	t.Parallel()
	ix := NewIndex()
	for _, id := range []string{"c", "a", "b", "d"} {
		ix.Upsert(Doc{ID: id, Terms: []string{"x", "y"}})
	}
	ix.Upsert(Doc{ID: "z", Terms: []string{"x", "x", "x"}})
	got := ix.Lexical([]string{"y"}, 3, nil)
	if ids := hitIDs(got); !slices.Equal(ids, []string{"a", "b", "c"}) {
		t.Fatalf("ties not by ID: %v", got)
	}
	// The same documents added in any order give the same top k: ties
	// are broken by ID, not by which tied document came first.
	for _, order := range [][]string{{"d", "c", "b", "a"}, {"b", "d", "a", "c"}, {"a", "b", "c", "d"}} {
		ix2 := NewIndex()
		for _, id := range order {
			ix2.Upsert(Doc{ID: id, Terms: []string{"x", "y"}})
		}
		for _, k := range []int{1, 2, 3} {
			if ids := hitIDs(ix2.Lexical([]string{"y"}, k, nil)); !slices.Equal(ids, []string{"a", "b", "c"}[:k]) {
				t.Fatalf("added in order %v, k %d: %v, want the first %d by ID", order, k, ids, k)
			}
		}
	}
	// keep must be called only for documents that could enter the top k:
	// with k = 1 and the best document first in ID order, at most the tied
	// ones are asked about.
	var asked []string
	ix.Lexical([]string{"x"}, 1, func(id string) bool { asked = append(asked, id); return true })
	if len(asked) > 5 || !slices.Contains(asked, "z") {
		t.Fatalf("keep asked about %v", asked)
	}
	if got := ix.Lexical([]string{"x"}, 10, func(id string) bool { return id != "z" }); slices.Contains(hitIDs(got), "z") {
		t.Fatalf("keep ignored: %v", got)
	}
}

func TestUpsertReplaces(t *testing.T) {
	t.Parallel()
	ix := NewIndex()
	ix.Upsert(Doc{ID: "m1", Terms: []string{"coffee"}, Vector: Vector{Dim: 4, Indices: []uint32{1}, Values: []float32{1}}})
	ix.Upsert(Doc{ID: "m1", Terms: []string{"tea"}, Vector: Vector{Dim: 4, Indices: []uint32{2}, Values: []float32{1}}})
	if ix.Len() != 1 {
		t.Fatalf("Len = %d", ix.Len())
	}
	if h := ix.Lexical([]string{"coffee"}, 5, nil); len(h) != 0 {
		t.Fatalf("old terms still match: %v", h)
	}
	if h := ix.Lexical([]string{"tea"}, 5, nil); len(h) != 1 {
		t.Fatalf("new terms do not match: %v", h)
	}
	if h := ix.Semantic(Vector{Dim: 4, Indices: []uint32{1}, Values: []float32{1}}, 5, 0.1, nil); len(h) != 0 {
		t.Fatalf("old vector still matches: %v", h)
	}
	h := ix.Semantic(Vector{Dim: 4, Indices: []uint32{2}, Values: []float32{3}}, 5, 0.1, nil)
	if len(h) != 1 || math.Abs(h[0].Score-1) > 1e-6 {
		t.Fatalf("new vector: %v (query must be normalised)", h)
	}
	// A vector of another Dim never matches.
	if h := ix.Semantic(Vector{Dim: 8, Indices: []uint32{2}, Values: []float32{1}}, 5, 0, nil); len(h) != 0 {
		t.Fatalf("other Dim matched: %v", h)
	}
}

func TestExplainLexical(t *testing.T) {
	t.Parallel()
	ix := NewIndex()
	ix.Upsert(Doc{ID: "a", Terms: []string{"paint", "sunris", "lake"}})
	ix.Upsert(Doc{ID: "b", Terms: []string{"paint", "portrait"}})
	ix.Upsert(Doc{ID: "c", Terms: []string{"paint", "lake"}})
	q := []string{"paint", "sunris", "absent", "lake"}
	ex := ix.ExplainLexical("a", q)
	if len(ex) != 3 || ex[0].Term != "sunris" || ex[2].Term != "paint" {
		t.Fatalf("ExplainLexical = %v", ex)
	}
	var sum float64
	for _, e := range ex {
		sum += e.Score
	}
	h := ix.Lexical(q, 1, nil)
	if h[0].ID != "a" || math.Abs(h[0].Score-sum) > 1e-5 {
		t.Fatalf("explanation sums to %v, score %v", sum, h)
	}
	if ix.ExplainLexical("nope", q) != nil {
		t.Fatal("explained an absent document")
	}
}

func TestIndexConcurrent(t *testing.T) {
	t.Parallel()
	ix := NewIndex()
	a := NewAnalyzer()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 300 {
			ix.Upsert(Doc{ID: fmt.Sprint(i % 50), Terms: a.Terms(fmt.Sprintf("doc %d about coffee and tea %d", i, i%7)),
				Vector: Vector{Dim: 8, Indices: []uint32{uint32(i % 8)}, Values: []float32{1}}})
			if i%5 == 0 {
				ix.Remove(fmt.Sprint((i + 3) % 50))
			}
		}
	})
	for range 3 {
		wg.Go(func() {
			for range 300 {
				ix.Lexical([]string{"coffe", "tea"}, 5, nil)
				ix.Semantic(Vector{Dim: 8, Indices: []uint32{3}, Values: []float32{1}}, 5, 0, nil)
				ix.ExplainLexical("3", []string{"coffe"})
			}
		})
	}
	wg.Wait()
}

func TestBuildEqualsUpserts(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	vocab := strings.Fields("a b c d e f g h i j k l m n o p")
	var docs []Doc
	for i := range 200 {
		docs = append(docs, randomDoc(r, fmt.Sprint(i%150), vocab))
	}
	one, bulk := NewIndex(), NewIndex()
	for _, d := range docs {
		one.Upsert(d)
	}
	bulk.Build(docs)
	if one.Len() != bulk.Len() {
		t.Fatalf("Len %d vs %d", one.Len(), bulk.Len())
	}
	for _, q := range vocab {
		sameHits(t, q, bulk.Lexical([]string{q}, 20, nil), one.Lexical([]string{q}, 20, nil))
	}
}

func hitIDs(h []Hit) []string {
	var ids []string
	for _, x := range h {
		ids = append(ids, x.ID)
	}
	return ids
}

// TestBulkLoadThenChurn builds through the arena path, then upserts and
// removes on top of it (lists outgrow their carved capacity, shrink and
// grow again) and checks every query against the reference.
func TestBulkLoadThenChurn(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	vocab := make([]string, 30)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%02d", i)
	}
	var docs []Doc
	ref := naive{docs: map[string]Doc{}}
	for i := range 200 {
		d := randomDoc(r, fmt.Sprintf("d%03d", i), vocab)
		docs = append(docs, d)
		ref.docs[d.ID] = d
	}
	ix := NewIndex()
	ix.Build(docs)
	check := func(when string) {
		t.Helper()
		if ix.Len() != len(ref.docs) {
			t.Fatalf("%s: Len = %d, want %d", when, ix.Len(), len(ref.docs))
		}
		for range 20 {
			q := []string{vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))]}
			sameHits(t, when+" lexical", ix.Lexical(q, 7, nil), ref.lexical(q, 7, nil))
			qv := randSparse(r, 16, 1+r.IntN(8))
			floor := r.Float64()*0.4 - 0.1
			sameHits(t, when+" semantic", ix.Semantic(qv, 7, floor, nil), ref.semantic(qv, 7, floor, nil))
			dq := Vector{Dim: 16, Values: toDense(randSparse(r, 16, 16))}
			sameHits(t, when+" dense", ix.Semantic(dq, 7, floor, nil), ref.semantic(dq, 7, floor, nil))
		}
	}
	check("after build")
	for round := range 10 {
		for range 40 {
			id := fmt.Sprintf("d%03d", r.IntN(260))
			if r.IntN(3) == 0 {
				ix.Remove(id)
				delete(ref.docs, id)
				continue
			}
			d := randomDoc(r, id, vocab)
			ix.Upsert(d)
			ref.docs[id] = d
		}
		check(fmt.Sprintf("round %d", round))
	}
}

// TestLexicalAllTerms: for a keyword query a document holding every term
// outranks short documents holding the rarer term alone, which plain BM25
// (length-normalised and saturating) ranks first; a document's score is
// its BM25 score times the share of the query's known terms it holds, so
// one holding them all scores as in Lexical, and a one-term query (or a
// term no document has) changes nothing.
func TestLexicalAllTerms(t *testing.T) {
	t.Parallel()
	ix := NewIndex()
	for i := range 40 {
		ix.Upsert(Doc{ID: fmt.Sprintf("short-%02d", i), Terms: []string{"kestrel", "setup"}})
	}
	for i := range 200 {
		ix.Upsert(Doc{ID: fmt.Sprintf("mon-%03d", i), Terms: []string{"monday", "standup", "note", "about", "the", "release", "train"}})
	}
	both := Doc{ID: "both", Terms: []string{"the", "team", "in", "oslo", "reviews", "kestrel", "changes", "every", "monday", "morning"}}
	ix.Upsert(both)
	q := []string{"monday", "kestrel"}
	plain := ix.Lexical(q, 5, nil)
	if len(plain) == 0 || plain[0].ID == "both" {
		t.Fatalf("plain BM25 already ranks the document with both terms first (%v): the fixture no longer shows the defect", plain)
	}
	all := ix.LexicalAllTerms(q, 5, nil)
	if len(all) < 2 || all[0].ID != "both" {
		t.Fatalf("LexicalAllTerms %v: want the document with both terms first", all)
	}
	bm25Of := func(id string) float64 {
		for _, h := range ix.Lexical(q, 300, nil) {
			if h.ID == id {
				return h.Score
			}
		}
		t.Fatalf("%s not found", id)
		return 0
	}
	if got, want := all[0].Score, bm25Of("both"); got != want {
		t.Errorf("the document with every term scores %v, want its BM25 score %v", got, want)
	}
	if got, want := all[1].Score, bm25Of(all[1].ID)/2; math.Abs(got-want) > 1e-6 {
		t.Errorf("%s holds one of two terms: score %v, want half its BM25 score %v", all[1].ID, got, want)
	}
	for _, q := range [][]string{{"kestrel"}, {"kestrel", "nosuchterm"}, {"nosuchterm"}} {
		if a, b := ix.LexicalAllTerms(q, 10, nil), ix.Lexical(q, 10, nil); !slices.Equal(a, b) {
			t.Errorf("query %q: LexicalAllTerms %v, Lexical %v; want the same", q, a, b)
		}
	}
}
