package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
)

// TestCompactBoundsHistory: a slot that changes again and again keeps its
// newest superseded versions and loses the older ones, in the store and
// the index; writes after the prune go on (positions have gaps); a second
// run changes nothing; HistoryKeep < 0 keeps everything.
func TestCompactBoundsHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	open := func(keep int) (*engine.Engine, *clock.Manual) {
		clk := clock.NewManual(t0)
		return openEngine(t, filepath.Join(t.TempDir(), "mnemon.db"), engine.Config{Clock: clk, HistoryKeep: keep}), clk
	}
	cities := []string{"Lisbon", "Porto", "Madrid", "Paris", "Berlin", "Vienna"}
	move := func(e *engine.Engine, clk *clock.Manual, city string) {
		clk.Advance(time.Hour)
		remember(t, e, "ns", "I live in "+city+" now.", clk.Now())
	}
	e, clk := open(2)
	for _, c := range cities {
		move(e, clk, c)
	}
	all := factByKey(t, e, "ns", "lives_in", true)
	if len(all) != 6 {
		t.Fatalf("lives_in has %d versions before compaction, want 6", len(all))
	}
	rep, err := e.Compact(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.VersionsPruned) != 3 {
		t.Fatalf("pruned %v, want the 3 oldest", rep.VersionsPruned)
	}
	values := func() map[string]memory.Status {
		out := map[string]memory.Status{}
		for _, v := range factByKey(t, e, "ns", "lives_in", true) {
			out[v.Value] = v.Status
		}
		return out
	}
	got := values()
	for _, c := range cities[:3] {
		if _, ok := got[c]; ok {
			t.Errorf("%s is still in the history after compaction: %v", c, got)
		}
	}
	if len(got) != 3 || got["Vienna"] != memory.StatusActive || got["Berlin"] != memory.StatusSuperseded || got["Paris"] != memory.StatusSuperseded {
		t.Errorf("history after compaction: %v", got)
	}
	pruned := map[string]bool{}
	for _, id := range rep.VersionsPruned {
		pruned[id] = true
	}
	for _, it := range retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "where did the user live", IncludeHistory: true}).Items {
		if pruned[it.VersionID] {
			t.Errorf("retrieval with history served a pruned version: %+v", it)
		}
	}
	if again, err := e.Compact(ctx, "ns"); err != nil || len(again.VersionsPruned) != 0 {
		t.Fatalf("second compaction: %+v %v", again, err)
	}
	// The live index ranks as one reloaded from the store would: the
	// pruned facts no longer speak for the episodes they came from.
	scores := func() map[string]string {
		out := map[string]string{}
		for _, it := range retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "Lisbon Porto Madrid", Limit: 20}).Items {
			out[it.VersionID] = it.Explanation
		}
		return out
	}
	live := scores()
	if err := e.Rebuild(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	for id, want := range scores() {
		if live[id] != want {
			t.Errorf("%s ranks differently before a reload:\n live   %s\n reload %s", id, live[id], want)
		}
	}
	// The slot goes on from its highest position.
	move(e, clk, "Prague")
	if got := values(); got["Prague"] != memory.StatusActive || got["Vienna"] != memory.StatusSuperseded {
		t.Fatalf("after a move past the prune: %v", got)
	}
	if rep, err := e.Compact(ctx, "ns"); err != nil || len(rep.VersionsPruned) != 1 {
		t.Fatalf("compaction after one more move: %+v %v", rep, err)
	}

	keepAll, clk2 := open(-1)
	for _, c := range cities {
		move(keepAll, clk2, c)
	}
	if rep, err := keepAll.Compact(ctx, "ns"); err != nil || len(rep.VersionsPruned) != 0 {
		t.Fatalf("HistoryKeep -1 pruned: %+v %v", rep, err)
	}
	if n := len(factByKey(t, keepAll, "ns", "lives_in", true)); n != 6 {
		t.Errorf("HistoryKeep -1: %d versions, want 6", n)
	}
}

// TestCompactPrunesOldTraces: traces older than the keep window (by
// default the consolidation's access horizon, a year) go; a newer one
// stays; a second run deletes nothing.
func TestCompactPrunesOldTraces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, clk, _ := newEngine(t)
	remember(t, e, "ns", "I live in Lisbon.", clk.Now())
	old := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "where does the user live"})
	clk.Advance(400 * 24 * time.Hour)
	recent := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "where does the user live"})
	rep, err := e.Compact(ctx, "ns")
	if err != nil || rep.TracesPruned != 1 {
		t.Fatalf("compaction: %+v %v", rep, err)
	}
	if _, err := e.Trace(ctx, "ns", old.RetrievalID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("the year-old trace: %v, want not found", err)
	}
	if _, err := e.Trace(ctx, "ns", recent.RetrievalID); err != nil {
		t.Errorf("the recent trace: %v", err)
	}
	if again, err := e.Compact(ctx, "ns"); err != nil || again.TracesPruned != 0 {
		t.Fatalf("second compaction: %+v %v", again, err)
	}
}

// TestFeedbackAfterPrune: feedback on a retrieval that served versions
// compaction has since deleted applies to the rest and names the ones gone.
func TestFeedbackAfterPrune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewManual(t0)
	e := openEngine(t, filepath.Join(t.TempDir(), "mnemon.db"), engine.Config{Clock: clk, HistoryKeep: 1})
	for _, city := range []string{"Lisbon", "Porto", "Madrid", "Paris"} {
		clk.Advance(time.Hour)
		remember(t, e, "ns", "I live in "+city+" now.", clk.Now())
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "where did the user live Lisbon Porto Madrid Paris", IncludeHistory: true, Limit: 20, Context: engine.NoContext})
	if rep, err := e.Compact(ctx, "ns"); err != nil || len(rep.VersionsPruned) != 2 {
		t.Fatalf("compaction: %+v %v", rep, err)
	}
	fb, err := e.Feedback(ctx, engine.FeedbackParams{Namespace: "ns", RetrievalID: res.RetrievalID, Outcome: memory.OutcomeHelpful})
	if err != nil {
		t.Fatalf("feedback after the prune: %v", err)
	}
	if len(fb.Gone) == 0 || len(fb.Applied) == 0 {
		t.Fatalf("feedback: applied %d, gone %v", len(fb.Applied), fb.Gone)
	}
}

// TestCompactBoundsReinforcements: a fact restated day after day keeps its
// newest reinforcements in the admission log, and its count on the
// version; a second run deletes nothing.
func TestCompactBoundsReinforcements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, clk, st := newEngine(t)
	const restated = engine.DefaultReinforcementsKeep + 5
	for range restated + 1 {
		clk.Advance(24 * time.Hour)
		remember(t, e, "ns", "I live in Lisbon now.", clk.Now())
	}
	fact := factByKey(t, e, "ns", "lives_in", false)[0]
	reinforcements := func() int {
		adms, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "ns", MemoryID: fact.MemoryID})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, a := range adms {
			if a.Operation == memory.OpReinforce {
				n++
			}
		}
		return n
	}
	if n := reinforcements(); n != restated {
		t.Fatalf("%d reinforcements logged before compaction, want %d", n, restated)
	}
	rep, err := e.Compact(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if rep.ReinforcementsPruned != restated-engine.DefaultReinforcementsKeep || reinforcements() != engine.DefaultReinforcementsKeep {
		t.Errorf("pruned %d, %d left; want %d left", rep.ReinforcementsPruned, reinforcements(), engine.DefaultReinforcementsKeep)
	}
	if v := factByKey(t, e, "ns", "lives_in", false)[0]; v.ReinforcementCount != fact.ReinforcementCount || v.ReinforcementCount < restated {
		t.Errorf("reinforcement count %d after compaction (before %d, restated %d)", v.ReinforcementCount, fact.ReinforcementCount, restated)
	}
	if rep, err := e.Compact(ctx, "ns"); err != nil || rep.ReinforcementsPruned != 0 {
		t.Errorf("second compaction: %+v %v", rep, err)
	}
}
