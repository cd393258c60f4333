package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
)

// served reports whether a retrieval for query returns an item containing
// text.
func served(t *testing.T, e *engine.Engine, query, text string) bool {
	t.Helper()
	for _, it := range retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: query}).Items {
		if strings.Contains(it.Content, text) {
			return true
		}
	}
	return false
}

// TestSyncChanges: two engines on one database file, as 'mnemon serve' and
// 'mnemon worker' in two processes. What one writes reaches the other's
// index when it syncs: new facts, supersessions, forgetting.
func TestSyncChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemon.db")
	clk := clock.NewManual(t0)
	open := func() *engine.Engine { return openEngine(t, path, engine.Config{Clock: clk}) }
	writer, follower := open(), open()

	remember(t, writer, "ns", "I work at Acme.", t0)
	if !served(t, follower, "where does the user work", "Acme") {
		t.Fatal("the follower's first load missed a committed fact")
	}
	remember(t, writer, "ns", "I live in Lisbon.", t0.Add(time.Minute))
	if served(t, follower, "where does the user live", "Lisbon") {
		t.Fatal("the follower saw a write before syncing (the test proves nothing)")
	}
	if err := follower.SyncChanges(ctx); err != nil {
		t.Fatal(err)
	}
	if !served(t, follower, "where does the user live", "Lisbon") {
		t.Fatal("a new fact did not reach the follower")
	}

	// A supersession: the old value leaves the current view. (Time moves
	// between writes, as a real clock does: a follower knows a version it
	// indexed by its updated_at.)
	clk.Advance(time.Second)
	remember(t, writer, "ns", "I moved to Porto.", t0.Add(2*time.Minute))
	if err := follower.SyncChanges(ctx); err != nil {
		t.Fatal(err)
	}
	lives := factByKey(t, writer, "ns", "lives_in", false)
	if len(lives) != 1 || lives[0].Value != "Porto" {
		t.Fatalf("writer's lives_in = %+v", lives)
	}
	for _, it := range retrieve(t, follower, engine.RetrieveParams{Namespace: "ns", Query: "where does the user live"}).Items {
		if it.Kind == memory.KindSemantic && strings.Contains(it.Content, "Lisbon") {
			t.Fatalf("the follower still serves the superseded fact: %+v", it)
		}
	}

	// Forgetting reaches the follower too.
	clk.Advance(time.Second)
	if _, err := writer.Forget(ctx, "ns", lives[0].MemoryID); err != nil {
		t.Fatal(err)
	}
	if err := follower.SyncChanges(ctx); err != nil {
		t.Fatal(err)
	}
	for _, it := range retrieve(t, follower, engine.RetrieveParams{Namespace: "ns", Query: "where does the user live"}).Items {
		if it.MemoryID == lives[0].MemoryID {
			t.Fatalf("the follower still serves a forgotten memory: %+v", it)
		}
	}

	// The follower's own writes and a second sync change nothing.
	clk.Advance(time.Second)
	remember(t, follower, "ns", "I use vim every day.", t0.Add(3*time.Minute))
	before := follower.IndexSizes()["ns"]
	for range 2 {
		if err := follower.SyncChanges(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if after := follower.IndexSizes()["ns"]; after != before {
		t.Fatalf("index size %d after syncing its own writes, was %d", after, before)
	}
	if err := writer.SyncChanges(ctx); err != nil {
		t.Fatal(err)
	}
	if !served(t, writer, "which editor does the user use", "vim") || writer.IndexSizes()["ns"] != before {
		t.Fatalf("the writer, synced: %d versions, want %d", writer.IndexSizes()["ns"], before)
	}
}

// TestSyncAfterCompaction: a follower that stood still while the writer's
// compaction pruned the changes it had not read reloads the namespace and
// misses nothing.
func TestSyncAfterCompaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemon.db")
	clk := clock.NewManual(t0)
	open := func() *engine.Engine { return openEngine(t, path, engine.Config{Clock: clk}) }
	writer, follower := open(), open()
	remember(t, writer, "ns", "I work at Acme.", t0)
	if !served(t, follower, "where does the user work", "Acme") {
		t.Fatal("the follower's first load missed a committed fact")
	}
	clk.Advance(time.Second)
	remember(t, writer, "ns", "I live in Lisbon.", t0.Add(time.Minute))
	clk.Advance(time.Second)
	remember(t, writer, "ns", "My favourite editor is Helix.", t0.Add(2*time.Minute))
	clk.Advance(2 * engine.DefaultChangeLogKeep)
	remember(t, writer, "ns", "I have a dog called Rex.", clk.Now().Add(-time.Minute))

	rep, err := writer.Compact(ctx, "ns")
	if err != nil || rep.ChangesPruned == 0 {
		t.Fatalf("compaction: %+v %v", rep, err)
	}
	if again, err := writer.Compact(ctx, "ns"); err != nil || again.ChangesPruned != 0 {
		t.Fatalf("second compaction: %+v %v", again, err)
	}
	if err := follower.SyncChanges(ctx); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"where does the user live": "Lisbon", "which editor does the user like": "Helix", "what is the dog called": "Rex"} {
		if !served(t, follower, q, want) {
			t.Errorf("after the reload the follower does not serve %q", want)
		}
	}
	if got, want := follower.IndexSizes()["ns"], writer.IndexSizes()["ns"]; got != want {
		t.Errorf("follower indexes %d versions, the writer %d", got, want)
	}
	// The periodic maintenance compacts too.
	m, err := writer.Maintain(ctx, "ns")
	if err != nil || m.Compaction == nil {
		t.Fatalf("maintain: %+v %v", m, err)
	}
	if _, err := writer.Compact(ctx, "Bad Namespace!"); err == nil {
		t.Error("compaction of a bad namespace name succeeded")
	}
}
