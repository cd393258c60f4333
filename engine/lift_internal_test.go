package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/memory"
)

// liftEntry is v's entry with what the index keeps of it for ranking:
// whether it is an episode, and its content's count without spacing.
func liftEntry(v *memory.Version) *entry {
	return &entry{V: v, Episodic: v.Kind == memory.KindEpisodic, Solid: int32(index.SolidLen(v.Content))}
}

func TestLiftRepeatingFacts(t *testing.T) {
	t.Parallel()
	cand := func(id string, kind memory.Kind, content string, final float64) *scored {
		return &scored{en: liftEntry(&memory.Version{ID: id, Kind: kind, Content: content}), final: final}
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

// liftRepeatingFactsMaps is liftRepeatingFacts as it was written with maps,
// kept as the reference the allocation-free one must equal.
func liftRepeatingFactsMaps(cands []*scored, window int) bool {
	var byLen map[int][]int
	for i := 0; i < len(cands) && i < window; i++ {
		if c := cands[i]; c.en.V.Kind == memory.KindEpisodic {
			if byLen == nil {
				byLen = make(map[int][]int)
			}
			n := solidLen(c.en.V.Content)
			byLen[n] = append(byLen[n], i)
		}
	}
	if byLen == nil {
		return false
	}
	taken := make(map[int]bool)
	lifted := false
	for i, c := range cands {
		if c.en.V.Kind == memory.KindEpisodic || c.action == memory.ActionIgnore {
			continue
		}
		turns := byLen[solidLen(c.en.V.Content)]
		if len(turns) == 0 || turns[0] > i {
			continue
		}
		key := sameText(c.en.V.Content)
		for _, j := range turns {
			if j > i {
				break
			}
			if sameText(cands[j].en.V.Content) != key {
				continue
			}
			if !taken[j] {
				taken[j] = true
				if gain := cands[j].final - c.final; gain > 0 {
					c.terms = append(c.terms, memory.Term{Name: "same_text", Value: gain})
					c.final = cands[j].final
					lifted = true
				}
			}
			break
		}
	}
	return lifted
}

// The lift gives the same scores and terms as the map-based version it
// replaced, on random candidate lists with repeated texts, texts of equal
// length that differ, ignored facts, and windows of more than 32 turns.
func TestLiftRepeatingFactsSameAsMaps(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	lifts, long := 0, 0
	texts := []string{"the budget moved", "The  budget moved", "the budgex moved", "a b", "ab", "x y z", "XYZ", "the budget moved."}
	for round := 0; round < 2000; round++ {
		n := 1 + r.IntN(90)
		var a, b []*scored
		for i := 0; i < n; i++ {
			kind := memory.KindSemantic
			if r.IntN(2) == 0 {
				kind = memory.KindEpisodic
			}
			c := scored{en: liftEntry(&memory.Version{ID: fmt.Sprint(i), Kind: kind, Content: texts[r.IntN(len(texts))]}), final: float64(n-i) / float64(n)}
			if r.IntN(8) == 0 {
				c.action = memory.ActionIgnore
			}
			c2 := c
			a, b = append(a, &c), append(b, &c2)
		}
		window := 1 + r.IntN(100)
		la, lb := liftRepeatingFacts(a, window), liftRepeatingFactsMaps(b, window)
		if la != lb {
			t.Fatalf("round %d: lifted %v, want %v", round, la, lb)
		}
		if la {
			lifts++
		}
		turns := 0
		for i := 0; i < len(a) && i < window; i++ {
			if a[i].en.V.Kind == memory.KindEpisodic {
				turns++
			}
		}
		if la && turns > 32 {
			long++
		}
		for i := range a {
			if a[i].final != b[i].final || fmt.Sprint(a[i].terms) != fmt.Sprint(b[i].terms) {
				t.Fatalf("round %d, candidate %d: %v %v, want %v %v", round, i, a[i].final, a[i].terms, b[i].final, b[i].terms)
			}
		}
	}
	if lifts < 100 || long < 10 {
		t.Fatalf("%d rounds lifted, %d with more than 32 turns: the comparison covers too little", lifts, long)
	}
}
