package engine

import "testing"

func TestRankingWithout(t *testing.T) {
	t.Parallel()
	def := DefaultRanking()
	for _, term := range RankingTerms() {
		r, err := def.Without(term)
		if err != nil {
			t.Fatalf("Without(%q): %v", term, err)
		}
		if r == def {
			t.Errorf("Without(%q) changed nothing", term)
		}
	}
	if _, err := def.Without("nonsense"); err == nil {
		t.Error("Without(nonsense): no error")
	}
}
