package index

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// A fact's evidence links follow its evidence: a trim that drops purged
// statements (trimEvidence) unlinks them, and the rest stay.
func TestUpdateStateUnlinksTrimmedEvidence(t *testing.T) {
	an := search.NewAnalyzer()
	st := newNSState("ns")
	v := &memory.Version{
		ID: "ver_1", MemoryID: "mem_1", Kind: memory.KindSemantic, Type: memory.TypePreference,
		Subject: "user", Key: "prefers:drink", Value: "tea", Content: "The user prefers tea.",
		Status: memory.StatusActive, ValidFrom: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		EvidenceEpisodeIDs: []string{"ep_1", "ep_2", "ep_3"},
	}
	st.putEntry(newEntry(v, keyTermsOf(v, an), subjectTermOf(v, an)), nil)
	trimmed := *v
	trimmed.EvidenceEpisodeIDs = []string{"ep_1", "ep_3"}
	st.UpdateState(&trimmed)
	if _, ok := st.derived["ep_2"]; ok {
		t.Errorf("ep_2 still links to the fact after the trim: %v", st.derived["ep_2"])
	}
	for _, ep := range []string{"ep_1", "ep_3"} {
		if !slices.Contains(st.derived[ep], "ver_1") {
			t.Errorf("%s lost its link to the fact: %v", ep, st.derived[ep])
		}
	}
}
