package search

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestFilterMarkedIsKeepOfTheMarks checks that a query filtering on the
// marks (Filter.Marked) returns what one whose keep accepts exactly the
// marked IDs returns, lexical and semantic (with a dense tail), after a
// bulk build, upserts that mark and unmark, SetMarked, removals and
// ordinals reused by new documents (a reused ordinal starts unmarked).
func TestFilterMarkedIsKeepOfTheMarks(t *testing.T) {
	const head, tail = 1 << 10, 64
	const dim = head + tail
	r := rand.New(rand.NewPCG(5, 9))
	words := []string{"alpha", "bravo", "cargo", "delta", "ember", "fjord", "gamma", "harbor"}
	doc := func(i int) Doc {
		d := Doc{ID: fmt.Sprintf("d%05d", i), Marked: r.IntN(3) > 0}
		for range 2 + r.IntN(4) {
			d.Terms = append(d.Terms, words[r.IntN(len(words))])
		}
		v := Vector{Dim: dim}
		for j := range uint32(head) {
			if r.IntN(100) == 0 {
				v.Indices = append(v.Indices, j)
				v.Values = append(v.Values, float32(r.Float64()))
			}
		}
		for j := range uint32(tail) {
			v.Indices = append(v.Indices, head+j)
			v.Values = append(v.Values, float32(r.NormFloat64()))
		}
		d.Vector = v
		return d
	}
	ix := NewIndex()
	ix.SetDenseTail(dim, tail)
	marked := map[string]bool{}
	var docs []Doc
	for i := range 2000 {
		d := doc(i)
		docs = append(docs, d)
		marked[d.ID] = d.Marked
	}
	ix.Build(docs)
	check := func(stage string) {
		t.Helper()
		keep := func(id string) bool { return marked[id] }
		for q := range 20 {
			terms := []string{words[q%len(words)], words[(q*3+1)%len(words)]}
			for _, all := range []bool{false, true} {
				got := ix.LexicalFiltered(terms, 10, Filter{Marked: true}, all)
				want := ix.lexical(terms, 10, Filter{Keep: keep}, all)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: lexical %v all %v:\n marked %v\n keep   %v", stage, terms, all, got, want)
				}
			}
			qv := doc(100000 + q).Vector
			for _, k := range []int{1, 10, 50} {
				got := ix.SemanticFiltered(qv, k, -1, Filter{Marked: true})
				want := ix.Semantic(qv, k, -1, keep)
				if len(want) != k || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: semantic k %d:\n marked %v\n keep   %v", stage, k, got, want)
				}
			}
		}
	}
	check("built")
	for i := range 600 {
		switch id := docs[r.IntN(len(docs))].ID; r.IntN(4) {
		case 0: // replaced, marked as the new document says
			d := doc(r.IntN(1 << 20))
			d.ID = id
			ix.Upsert(d)
			marked[id] = d.Marked
		case 1:
			on := r.IntN(2) == 0
			ix.SetMarked(id, on)
			if _, ok := marked[id]; ok {
				marked[id] = on
			}
		case 2:
			ix.Remove(id)
			delete(marked, id)
		case 3: // a new document, often on a freed ordinal
			d := doc(2000 + i)
			ix.Upsert(d)
			marked[d.ID] = d.Marked
		}
	}
	check("changed")
}

// TestIDOrderedTies checks that breaking ties on ordinals (idOrdered)
// returns what breaking them on IDs does: on documents that tie by the
// hundred (the same words, the same length, the same vector), loaded in ID
// order, then grown by appends in ID order, then by an append out of order
// and by removals whose ordinals are reused (each of which turns it off).
func TestIDOrderedTies(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	doc := func(i int) Doc {
		words := [][]string{{"disk", "full"}, {"disk", "slow"}, {"cert", "expired"}}[i%3]
		return Doc{ID: fmt.Sprintf("d%06d", i), Terms: words, Vector: Vector{Dim: 8, Indices: []uint32{uint32(i % 3)}, Values: []float32{1}}}
	}
	var docs []Doc
	for i := range 900 {
		docs = append(docs, doc(10*i))
	}
	ix := NewIndex()
	ix.Build(docs)
	check := func(stage string, ordered bool) {
		t.Helper()
		if ix.idOrdered != ordered {
			t.Fatalf("%s: idOrdered %v, want %v", stage, ix.idOrdered, ordered)
		}
		for _, q := range [][]string{{"disk"}, {"full"}, {"cert", "disk"}, {"expired"}} {
			for _, k := range []int{1, 10, 50} {
				got := ix.Lexical(q, k, nil)
				sem := ix.Semantic(Vector{Dim: 8, Indices: []uint32{0}, Values: []float32{1}}, k, 0, nil)
				ix.idOrdered = false
				want := ix.Lexical(q, k, nil)
				wantSem := ix.Semantic(Vector{Dim: 8, Indices: []uint32{0}, Values: []float32{1}}, k, 0, nil)
				ix.idOrdered = ordered
				if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(sem, wantSem) {
					t.Fatalf("%s: %v k %d:\n ordinals %v %v\n ids      %v %v", stage, q, k, got, sem, want, wantSem)
				}
			}
		}
	}
	check("loaded in ID order", true)
	for i := range 300 {
		ix.Upsert(doc(9000 + 10*i))
	}
	check("appended in ID order", true)
	ix.Upsert(doc(5)) // between the first two
	check("appended out of order", false)

	ix = NewIndex()
	ix.Build(docs)
	for range 50 {
		ix.Remove(docs[r.IntN(len(docs))].ID)
	}
	check("removed", true)
	ix.Upsert(doc(99999))
	check("a removed ordinal reused", false)

	ix = NewIndex()
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	ix.Build(docs)
	check("loaded out of order", false)
}
