package engine

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

func TestLiftRepeatingFacts(t *testing.T) {
	t.Parallel()
	cand := func(id string, kind memory.Kind, content string, final float64) *scored {
		return &scored{en: &entry{V: &memory.Version{ID: id, Kind: kind, Content: content}}, final: final}
	}
	turn := cand("turn", memory.KindEpisodic, "The offsite budget moved to March.", 0.9)
	other := cand("other", memory.KindEpisodic, "something else", 0.8)
	note := cand("note", memory.KindSemantic, "the offsite  budget moved to march.", 0.4)
	ignored := cand("ignored", memory.KindSemantic, "something else", 0.3)
	ignored.action = memory.ActionIgnore
	cands := []*scored{turn, other, note, ignored}
	if !liftRepeatingFacts(cands, 10) {
		t.Fatal("nothing lifted")
	}
	sortRanked(cands)
	if cands[0] != note || note.final != 0.9 || cands[1] != turn {
		t.Fatalf("order %s %s %s, note final %v", cands[0].en.V.ID, cands[1].en.V.ID, cands[2].en.V.ID, note.final)
	}
	if got := note.terms; len(got) != 1 || got[0].Name != "same_text" || got[0].Value < 0.49 || got[0].Value > 0.51 {
		t.Fatalf("terms %+v", got)
	}
	if ignored.final != 0.3 {
		t.Fatal("a fact that would not be packed was lifted")
	}
	if liftRepeatingFacts([]*scored{note, turn}, 10) {
		t.Fatal("a fact already above its turn was lifted")
	}
}
