package index

import (
	"fmt"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// The place kept on an entry is only a hint: after an older episode is
// inserted before it, or one before it is dropped, its neighbours are still
// the episodes beside it.
func TestEpisodeIndexAfterPlacesMove(t *testing.T) {
	an := search.NewAnalyzer()
	st := newNSState("ns")
	t0 := time.Date(2026, 2, 3, 10, 0, 0, 0, time.UTC)
	put := func(i int, minute int) *memory.Version {
		v := &memory.Version{
			ID: fmt.Sprintf("ver_%02d", i), MemoryID: fmt.Sprintf("mem_%02d", i), Kind: memory.KindEpisodic,
			Subject: "user", Content: fmt.Sprintf("turn %d", i), Status: memory.StatusActive,
			ObservedAt: t0.Add(time.Duration(minute) * time.Minute),
		}
		st.putEntry(newEntry(v, nil, "user"), an)
		return v
	}
	var vs []*memory.Version
	for i := 0; i < 8; i++ {
		vs = append(vs, put(i, 2*i))
	}
	keep := func(string) bool { return true }
	check := func(stage string, want map[string][2]string) {
		t.Helper()
		st.mu.RLock()
		defer st.mu.RUnlock()
		for _, v := range vs {
			w, ok := want[v.ID]
			if !ok {
				continue
			}
			before, after := st.NeighboursLocked(v, 1, 1, 30*time.Minute, keep, nil)
			got := [2]string{"", ""}
			if len(before) > 0 {
				got[0] = before[0].V.ID
			}
			if len(after) > 0 {
				got[1] = after[0].V.ID
			}
			if got != w {
				t.Errorf("%s: neighbours of %s are %v, want %v", stage, v.ID, got, w)
			}
		}
	}
	check("in order", map[string][2]string{"ver_00": {"", "ver_01"}, "ver_03": {"ver_02", "ver_04"}, "ver_07": {"ver_06", ""}})
	check("hints kept", map[string][2]string{"ver_03": {"ver_02", "ver_04"}, "ver_05": {"ver_04", "ver_06"}})
	vs = append(vs, put(8, 5)) // between ver_02 (minute 4) and ver_03 (minute 6): later places move
	check("after an insert", map[string][2]string{"ver_03": {"ver_08", "ver_04"}, "ver_05": {"ver_04", "ver_06"}, "ver_08": {"ver_02", "ver_03"}})
	st.Drop("ver_01")
	check("after a drop", map[string][2]string{"ver_00": {"", "ver_02"}, "ver_02": {"ver_00", "ver_08"}, "ver_05": {"ver_04", "ver_06"}})
	if i := func() int { st.mu.RLock(); defer st.mu.RUnlock(); return st.episodeIndexLocked(vs[1]) }(); i != -1 {
		t.Errorf("a dropped episode is at %d", i)
	}
}
