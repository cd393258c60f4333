package postgres_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/pgtest"
	"github.com/mnemon-dev/mnemon/memory"
)

// PrefetchSlots answers FindMemory for the slots it read, found or not,
// and for the ones the transaction then creates; QueueSlot's writes reach
// the database with the next statement or the commit.
func TestPrefetchAndQueueSlots(t *testing.T) {
	st := open(t, reusedSchema(t))
	ctx := t.Context()
	old := newMemory("ns-a", "m-old")
	must(t, st.CreateMemory(ctx, old))
	fresh := newMemory("ns-a", "m-new")
	find := func(m *memory.Memory) memory.FindMemoryParams {
		return memory.FindMemoryParams{Namespace: m.Namespace, Scope: m.Scope, Subject: m.Subject, Key: m.Key}
	}
	must(t, st.InTx(ctx, func(tx memory.Executor) error {
		must(t, tx.(memory.SlotPrefetcher).PrefetchSlots(ctx, "ns-a", []memory.FindMemoryParams{find(old), find(fresh)}))
		if m, err := tx.FindMemory(ctx, find(old)); err != nil || m.ID != "m-old" {
			t.Fatalf("prefetched, found: %v %v", m, err)
		}
		if _, err := tx.FindMemory(ctx, find(fresh)); !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("prefetched, missing: %v", err)
		}
		must(t, tx.(memory.SlotQueuer).QueueSlot(ctx, fresh, newVersion(fresh, "v-new")))
		if m, err := tx.FindMemory(ctx, find(fresh)); err != nil || m.ID != "m-new" {
			t.Fatalf("queued, then found: %v %v", m, err)
		}
		// A statement after the queue sees its writes.
		v, err := tx.GetVersion(ctx, memory.GetParams{Namespace: "ns-a", ID: "v-new"})
		if err != nil || v.MemoryID != "m-new" {
			t.Fatalf("the queued version, read in the transaction: %v %v", v, err)
		}
		// Queued last, sent by the commit.
		last := newMemory("ns-a", "m-last")
		return tx.(memory.SlotQueuer).QueueSlot(ctx, last, newVersion(last, "v-last"))
	}))
	for _, id := range []string{"v-new", "v-last"} {
		if _, err := st.GetVersion(ctx, memory.GetParams{Namespace: "ns-a", ID: id}); err != nil {
			t.Errorf("%s after commit: %v", id, err)
		}
	}
	var last int64
	if got := follow(t, st, "ns-a", &last); len(got) != 2 {
		t.Errorf("change log: %v, want v-new and v-last", got)
	}

	// A queued write that conflicts fails the commit; nothing of the
	// transaction stays.
	before := rowCounts(t, st)
	err := st.InTx(ctx, func(tx memory.Executor) error {
		m := newMemory("ns-a", "m-other")
		must(t, tx.CreateMemory(ctx, m))
		dup := newMemory("ns-a", "m-old") // the id is taken
		dup.Key = "another-key"
		return tx.(memory.SlotQueuer).QueueSlot(ctx, dup, newVersion(dup, "v-dup"))
	})
	if !errors.Is(err, memory.ErrConflict) {
		t.Fatalf("commit of a conflicting queued slot: %v, want ErrConflict", err)
	}
	if after := rowCounts(t, st); after != before {
		t.Fatalf("rows %v after a failed transaction, %v before", after, before)
	}
}

// Memories deleted in the transaction after a prefetch are not answered
// from it: FindMemory asks the database again.
func TestPrefetchForgetsDeletedSlots(t *testing.T) {
	st := open(t, reusedSchema(t))
	ctx := t.Context()
	m := newMemory("ns-a", "m-1")
	must(t, st.CreateMemory(ctx, m))
	p := memory.FindMemoryParams{Namespace: m.Namespace, Scope: m.Scope, Subject: m.Subject, Key: m.Key}
	must(t, st.InTx(ctx, func(tx memory.Executor) error {
		must(t, tx.(memory.SlotPrefetcher).PrefetchSlots(ctx, "ns-a", []memory.FindMemoryParams{p}))
		if _, err := tx.FindMemory(ctx, p); err != nil {
			t.Fatalf("prefetched: %v", err)
		}
		if _, err := tx.DeleteMemories(ctx, memory.DeleteMemoriesParams{Namespace: "ns-a", MemoryIDs: []string{"m-1"}, Now: m.CreatedAt}); err != nil {
			return err
		}
		if got, err := tx.FindMemory(ctx, p); !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("after the deletion: %v %v, want ErrNotFound", got, err)
		}
		return nil
	}))
}

// A large queued batch in a new schema gives memories and versions planner
// statistics in the same transaction, so the versions' foreign-key check
// (namespace = $1 AND id = $2 on memories) is planned on the primary key,
// not on memories_slot with the id as a filter, which read every memory of
// the namespace per version and made a bulk load quadratic.
func TestLargeBatchAnalyzesNewTables(t *testing.T) {
	pgtest.Require(t)
	st := open(t, pgtest.Schema(t))
	ctx := t.Context()
	neverAnalyzed := func() bool {
		var never bool
		must(t, st.Pool().QueryRow(ctx, `SELECT bool_or(reltuples < 0) FROM pg_class
		  WHERE oid IN ('memories'::regclass, 'versions'::regclass)`).Scan(&never))
		return never
	}
	if !neverAnalyzed() {
		t.Fatal("a new schema's tables already have statistics")
	}
	must(t, st.InTx(ctx, func(tx memory.Executor) error {
		for i := range 300 {
			m := newMemory("ns-a", fmt.Sprintf("m-%03d", i))
			if err := tx.(memory.SlotQueuer).QueueSlot(ctx, m, newVersion(m, fmt.Sprintf("v-%03d", i))); err != nil {
				return err
			}
		}
		return nil
	}))
	if neverAnalyzed() {
		t.Fatal("after 300 queued slots, memories or versions still has no statistics")
	}
	var plan string
	rows, err := st.Pool().Query(ctx, `EXPLAIN SELECT 1 FROM ONLY memories x WHERE namespace = 'ns-a' AND id = 'm-001' FOR KEY SHARE OF x`)
	must(t, err)
	for rows.Next() {
		var line string
		must(t, rows.Scan(&line))
		plan += line + "\n"
	}
	must(t, rows.Err())
	if !strings.Contains(plan, "memories_pkey") {
		t.Errorf("the foreign key's lookup is not planned on the primary key:\n%s", plan)
	}
}

// MatchEpisodes answers, in one query, the episodes of a namespace that
// match any (content hash, occurred at) pair: each match once, whatever
// the keys repeat, never one of another instant or another namespace.
func TestMatchEpisodes(t *testing.T) {
	st := open(t, reusedSchema(t))
	ctx := t.Context()
	at := time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	ep := func(ns, id, hash string, when time.Time) *memory.Episode {
		return &memory.Episode{ID: id, Namespace: ns, Kind: memory.EpisodeUserMessage, Content: "text of " + id,
			ContentHash: hash, OccurredAt: when, RecordedAt: when}
	}
	must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "ns-a", Episodes: []*memory.Episode{
		ep("ns-a", "e1", "h1", at), ep("ns-a", "e2", "h1", at.Add(time.Second)), ep("ns-a", "e3", "h2", at)}}))
	must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "ns-b", Episodes: []*memory.Episode{
		ep("ns-b", "e4", "h2", at)}}))
	got, err := st.MatchEpisodes(ctx, "ns-a", []memory.EpisodeKey{
		{ContentHash: "h1", OccurredAt: at}, {ContentHash: "h1", OccurredAt: at}, // e1, asked twice
		{ContentHash: "h2", OccurredAt: at},                   // e3, not ns-b's e4
		{ContentHash: "h3", OccurredAt: at},                   // nothing
		{ContentHash: "h2", OccurredAt: at.Add(time.Minute)}}) // nothing at that instant
	must(t, err)
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"e1", "e3"}) {
		t.Fatalf("matched %v, want [e1 e3]", ids)
	}
}

// A scan walks its cursor across chunks: every row comes once, in order; a
// callback that stops early gets its own error back, and the store's
// connections stay usable. Inside InTx the callback may use the
// transaction between rows.
func TestScanAcrossChunks(t *testing.T) {
	st := open(t, reusedSchema(t))
	ctx := t.Context()
	at := time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	const n = 1300 // three chunks of 512, the last short
	eps := make([]*memory.Episode, n)
	for i := range eps {
		id := fmt.Sprintf("e-%05d", i)
		eps[i] = &memory.Episode{ID: id, Namespace: "ns-a", Kind: memory.EpisodeUserMessage, Content: "text of " + id,
			ContentHash: "h" + id, OccurredAt: at, RecordedAt: at}
	}
	must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "ns-a", Episodes: eps}))
	var ids []string
	must(t, st.ScanEpisodes(ctx, memory.ScanParams{Namespace: "ns-a"}, func(e *memory.Episode) error {
		ids = append(ids, e.ID)
		return nil
	}))
	if len(ids) != n || !slices.IsSorted(ids) || ids[0] != "e-00000" || ids[n-1] != fmt.Sprintf("e-%05d", n-1) {
		t.Fatalf("scanned %d episodes (sorted %v), want %d in id order", len(ids), slices.IsSorted(ids), n)
	}
	stop := errors.New("enough")
	for _, after := range []int{1, 600, 1100} {
		seen := 0
		err := st.ScanEpisodes(ctx, memory.ScanParams{Namespace: "ns-a"}, func(*memory.Episode) error {
			seen++
			if seen == after {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || seen != after {
			t.Fatalf("stopped after %d: %v after %d rows, want the callback's error", after, err, seen)
		}
	}
	for range 8 { // more than the pool's connections: none was lost
		if _, err := st.GetEpisode(ctx, memory.GetParams{Namespace: "ns-a", ID: "e-00007"}); err != nil {
			t.Fatalf("after early stops: %v", err)
		}
	}
	must(t, st.InTx(ctx, func(tx memory.Executor) error {
		count := 0
		return tx.ScanEpisodes(ctx, memory.ScanParams{Namespace: "ns-a"}, func(e *memory.Episode) error {
			if count++; count%500 == 0 {
				_, err := tx.GetEpisode(ctx, memory.GetParams{Namespace: "ns-a", ID: e.ID})
				return err
			}
			return nil
		})
	}))
}
