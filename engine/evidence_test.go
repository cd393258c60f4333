package engine_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// A fact restated every day keeps a bounded evidence list: its first
// statement, the newest, and every statement whose text is still held
// (forgetting the fact must still reach those); the statements purged in
// between are dropped, and the reinforcement count keeps the tally.
func TestEvidenceStaysBounded(t *testing.T) {
	e, clk, st := newEngine(t)
	ctx := context.Background()
	const fact = "I prefer green tea in the morning."
	var first string
	for d := range 30 {
		ids := captureOn(t, e, clk, fmt.Sprintf("early-%d", d), jan5.Add(time.Duration(d)*day), fact)
		if d == 0 {
			first = ids[0]
		}
	}
	consolidateOn(t, e, clk, foldDays...) // the early statements purged
	var live []string
	for d := 241; d < 251; d++ {
		live = append(live, captureOn(t, e, clk, fmt.Sprintf("late-%d", d), jan5.Add(time.Duration(d)*day), fact)...)
	}
	vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: "ns1", Kinds: []memory.Kind{memory.KindSemantic}, Statuses: []memory.Status{memory.StatusActive}})
	if err != nil {
		t.Fatal(err)
	}
	var v *memory.Version
	for _, c := range vs {
		if c.Key == "prefers:drink" {
			v = c
		}
	}
	if v == nil {
		t.Fatalf("no prefers:drink fact among %d", len(vs))
	}
	if got := len(v.EvidenceEpisodeIDs); got != 16 || len(v.EvidenceSpans) != 16 {
		t.Errorf("evidence: %d ids and %d spans after 40 statements, want 16 (the first and the newest 15)", got, len(v.EvidenceSpans))
	}
	if v.EvidenceEpisodeIDs[0] != first {
		t.Errorf("evidence starts %s, want the first statement %s", v.EvidenceEpisodeIDs[0], first)
	}
	for _, id := range live {
		if !slices.Contains(v.EvidenceEpisodeIDs, id) {
			t.Errorf("a statement still held (%s) left the evidence", id)
		}
	}
	if v.ReinforcementCount != 39 {
		t.Errorf("reinforcement count %d, want 39", v.ReinforcementCount)
	}
	for i, sp := range v.EvidenceSpans {
		if sp.EpisodeID != v.EvidenceEpisodeIDs[i] {
			t.Fatalf("span %d cites %s, evidence %s", i, sp.EpisodeID, v.EvidenceEpisodeIDs[i])
		}
	}
	res, err := e.Forget(ctx, "ns1", v.MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Episodes) != len(live) {
		t.Errorf("forget took %d statements out of retrieval, want the %d still held", len(res.Episodes), len(live))
	}
}
