package bench

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRecallAt(t *testing.T) {
	t.Parallel()
	ranked := [][]string{{"a"}, {"x", "b"}, {"y"}, {"c"}}
	tests := []struct {
		gold []string
		k    int
		want Recall
	}{
		{[]string{"a"}, 1, Recall{All: true, Any: true, Frac: 1}},
		{[]string{"a", "b"}, 1, Recall{All: false, Any: true, Frac: 0.5}},
		{[]string{"a", "b"}, 2, Recall{All: true, Any: true, Frac: 1}}, // b is cited by the second item
		{[]string{"c", "z"}, 4, Recall{All: false, Any: true, Frac: 0.5}},
		{[]string{"c"}, 3, Recall{}},
		{[]string{"c"}, 99, Recall{All: true, Any: true, Frac: 1}}, // k beyond the list
		{nil, 4, Recall{}}, // no gold: nothing to find
	}
	for _, tt := range tests {
		if got := RecallAt(tt.gold, ranked, tt.k); got != tt.want {
			t.Errorf("RecallAt(%v, k=%d) = %+v, want %+v", tt.gold, tt.k, got, tt.want)
		}
	}
}

func TestRecallAllWithin(t *testing.T) {
	t.Parallel()
	ranked := [][]string{{"a"}, {"x", "b"}, {"y"}, {"c"}}
	tokens := []int{100, 300, 50, 50}
	tests := []struct {
		gold   []string
		budget int
		want   bool
	}{
		{[]string{"a"}, 100, true},       // the first item fills the budget exactly
		{[]string{"a"}, 99, false},       // nothing fits
		{[]string{"a", "b"}, 399, false}, // the second item would overflow
		{[]string{"a", "b"}, 400, true},
		{[]string{"y"}, 160, true},       // the second item does not fit and is skipped; the third does
		{[]string{"a", "c"}, 150, false}, // a and y fill it; c no longer fits
		{[]string{"a", "c"}, 200, true},
		{[]string{"c"}, 1 << 20, true}, // a budget beyond the list: every item
		{nil, 500, false},              // no gold: nothing to find
	}
	for _, tt := range tests {
		if got := RecallAllWithin(tt.gold, ranked, tokens, tt.budget); got != tt.want {
			t.Errorf("RecallAllWithin(%v, budget %d) = %v, want %v", tt.gold, tt.budget, got, tt.want)
		}
	}
}

func TestTally(t *testing.T) {
	t.Parallel()
	session := func(id string) string { s, _, _ := strings.Cut(id, ":"); return s }
	tl := NewTally([]int{1, 2})
	// Both gold turns in session D1; the first item cites another turn of D1.
	tl.Add([]string{"D1:1", "D1:2"}, [][]string{{"D1:3"}, {"D1:1"}}, session)
	// One gold turn, found first.
	tl.Add([]string{"D2:1"}, [][]string{{"D2:1"}}, session)
	s := tl.Means()
	want := Scores{N: 2, Ks: []int{1, 2},
		RecallAll: []float64{0.5, 0.5}, RecallAny: []float64{0.5, 1}, Frac: []float64{0.5, 0.75}, Session: []float64{1, 1}}
	if s.N != want.N || !slices.Equal(s.Ks, want.Ks) || !slices.Equal(s.RecallAll, want.RecallAll) ||
		!slices.Equal(s.RecallAny, want.RecallAny) || !slices.Equal(s.Frac, want.Frac) || !slices.Equal(s.Session, want.Session) {
		t.Fatalf("Means() = %+v, want %+v", s, want)
	}
	if s.At(2) != 1 || s.At(3) != -1 {
		t.Errorf("At: %d %d", s.At(2), s.At(3))
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	xs := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	for _, tt := range []struct{ p, want float64 }{{0, 1}, {50, 5}, {95, 10}, {10, 1}, {100, 10}} {
		if got := Percentile(xs, tt.p); got != tt.want {
			t.Errorf("Percentile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if xs[0] != 5 {
		t.Error("Percentile sorted its input")
	}
	if Percentile(nil, 50) != 0 {
		t.Error("Percentile of nothing")
	}
	if got := Millis([]time.Duration{1500 * time.Microsecond}); math.Abs(got[0]-1.5) > 1e-9 {
		t.Errorf("Millis = %v", got)
	}
}

func TestBM25(t *testing.T) {
	t.Parallel()
	ix := NewBM25([]string{
		"Ada: I repaired the sailboat.",
		"Ben: The sailboat sailboat sailboat is blue and the lake is calm.",
		"Ben: I bake bread.",
		"Ada: What is it?", // stop words only, besides the speaker
	})
	if got := ix.Search("Who repaired the sailboat?", 10); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("Search = %v, want [0 1]: both name the sailboat, only 0 the repair", got)
	}
	if got := ix.Search("what is it", 10); len(got) != 0 {
		t.Errorf("a query of stop words found %v", got)
	}
	if got := ix.Search("bread lake", 1); !slices.Equal(got, []int{1}) && !slices.Equal(got, []int{2}) || len(got) != 1 {
		t.Errorf("k=1 returned %v", got)
	}
	if got := PlainTokens("Rosalind's café, 2023!"); !slices.Equal(got, []string{"rosalind", "s", "café", "2023"}) {
		t.Errorf("PlainTokens = %q", got)
	}
}
