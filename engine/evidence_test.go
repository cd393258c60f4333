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
	t.Parallel()
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
	v := activeFact(t, st, "prefers:drink")
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

// Restated word for word while every statement is still held, a fact's
// evidence keeps one of each wording past the bound (a statement in other
// words stays), and forgetting it still takes every restatement out of
// retrieval: Forget finds the repeats by their content.
func TestEvidenceKeepsOneOfEachWording(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	const fact = "I prefer green tea in the morning."
	var all []string
	var paraphrase string
	for d := range 40 {
		text := fact
		if d == 5 {
			text = "I really prefer green tea in the morning."
		}
		ids := captureOn(t, e, clk, fmt.Sprintf("s-%d", d), jan5.Add(time.Duration(d)*day), text)
		if d == 5 {
			paraphrase = ids[0]
		}
		all = append(all, ids...)
	}
	v := activeFact(t, st, "prefers:drink")
	if !slices.Contains(v.EvidenceEpisodeIDs, paraphrase) {
		t.Fatalf("the statement in other words left the evidence: %v", v.EvidenceEpisodeIDs)
	}
	if got := len(v.EvidenceEpisodeIDs); got != 17 || v.EvidenceEpisodeIDs[0] != all[0] {
		t.Errorf("evidence: %d statements starting %s, want 17 (the first, the other wording, the newest 15) starting %s", got, v.EvidenceEpisodeIDs[0], all[0])
	}
	res, err := e.Forget(ctx, "ns1", v.MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Episodes) != len(all) {
		t.Errorf("forget took %d statements out of retrieval, want all %d", len(res.Episodes), len(all))
	}
}

// activeFact returns ns1's active fact with this key.
func activeFact(t *testing.T, st memory.Store, key string) *memory.Version {
	t.Helper()
	vs, err := st.ListVersions(context.Background(), memory.ListVersionsParams{Namespace: "ns1", Kinds: []memory.Kind{memory.KindSemantic}, Statuses: []memory.Status{memory.StatusActive}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Key == key {
			return v
		}
	}
	t.Fatalf("no %s fact among %d", key, len(vs))
	return nil
}
