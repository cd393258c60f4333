package search

import (
	"math"
	"testing"
)

// LexicalRelated: a document holding a related term scores weight times
// that term's BM25 weight, once however many related terms it holds (the
// best one); one holding a query term scores as Lexical gives it, plus its
// best related term; the filter and the empty cases behave as Lexical's.
func TestLexicalRelated(t *testing.T) {
	t.Parallel()
	ix := NewIndex()
	docs := []Doc{
		{ID: "asked", Terms: []string{"we", "toured", "three", "towns"}},
		{ID: "one", Terms: []string{"flew", "into", "osaka", "last", "spring"}},
		{ID: "two", Terms: []string{"osaka", "then", "lisbon", "same", "year"}},
		{ID: "both", Terms: []string{"towns", "near", "lisbon", "are", "hilly"}},
		{ID: "none", Terms: []string{"the", "kettle", "broke", "again", "today"}},
	}
	for _, d := range docs {
		ix.Upsert(d)
	}
	q, related := []string{"towns"}, []string{"osaka", "lisbon", "towns"}
	plain := map[string]float64{}
	for _, h := range ix.Lexical(q, 10, nil) {
		plain[h.ID] = h.Score
	}
	best := func(id string) float64 { // the best related term's BM25 weight alone
		b := 0.0
		for _, term := range []string{"osaka", "lisbon"} {
			for _, h := range ix.Lexical([]string{term}, 10, nil) {
				if h.ID == id {
					b = math.Max(b, h.Score)
				}
			}
		}
		return b
	}
	got := map[string]float64{}
	for _, h := range ix.LexicalRelated(q, related, 0.5, 10, Filter{}) {
		got[h.ID] = h.Score
	}
	for _, c := range []struct {
		id   string
		want float64
	}{
		{"asked", plain["asked"]},
		{"one", 0.5 * best("one")},
		{"two", 0.5 * best("two")},
		{"both", plain["both"] + 0.5*best("both")},
	} {
		if math.Abs(got[c.id]-c.want) > 1e-5 || got[c.id] == 0 {
			t.Errorf("%s scores %v, want %v", c.id, got[c.id], c.want)
		}
	}
	if _, ok := got["none"]; ok {
		t.Errorf("a document with no query or related term was found: %v", got)
	}
	for _, c := range []struct {
		name    string
		q, rel  []string
		weight  float32
		keep    func(string) bool
		wantIDs int
	}{
		{"no related terms is Lexical", q, nil, 0.5, nil, 2},
		{"weight 0 is Lexical", q, related, 0, nil, 2},
		{"a filter holds for related hits", q, related, 0.5, func(id string) bool { return id != "two" }, 3},
		{"no query terms, nothing", nil, related, 0.5, nil, 0},
		{"unknown related terms are skipped", q, []string{"nowhere"}, 0.5, nil, 2},
	} {
		hits := ix.LexicalRelated(c.q, c.rel, c.weight, 10, Filter{Keep: c.keep})
		if len(hits) != c.wantIDs {
			t.Errorf("%s: %d hits %v, want %d", c.name, len(hits), hits, c.wantIDs)
		}
	}
}
