package sqlite

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// Migration 0023 on a store as 0022 left it (versions_by_status on every
// version): the index is replaced by versions_not_active, which holds the
// versions that are not active and nothing else; Stats counts each status
// as before, per namespace; listing by status and history pruning find the
// same versions; and a new active version writes no entry.
func TestMigrationVersionsNotActive(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	// Namespace n: m-a has 4 versions (3 superseded), m-b one contested
	// and one expired, m-c one active. Namespace o: one superseded, one
	// active.
	statuses := map[string][]memory.Status{
		"n/m-a": {memory.StatusSuperseded, memory.StatusSuperseded, memory.StatusSuperseded, memory.StatusActive},
		"n/m-b": {memory.StatusContested, memory.StatusExpired},
		"n/m-c": {memory.StatusActive},
		"o/m-a": {memory.StatusSuperseded, memory.StatusActive},
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		for _, slot := range slices.Sorted(func(yield func(string) bool) {
			for k := range statuses {
				if !yield(k) {
					return
				}
			}
		}) {
			ns, mem, _ := strings.Cut(slot, "/")
			if err := tx.CreateMemory(ctx, &memory.Memory{ID: mem, Namespace: ns, Kind: memory.KindSemantic, Subject: "user",
				Key: "k:" + mem, CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
			for i, st := range statuses[slot] {
				at := now.Add(time.Duration(i) * time.Minute)
				if err := tx.CreateVersion(ctx, &memory.Version{ID: fmt.Sprintf("v-%s-%d", mem, i), MemoryID: mem, Namespace: ns,
					Seq: i + 1, Kind: memory.KindSemantic, Type: memory.TypeFact, Subject: "user", Key: "k:" + mem,
					Value: fmt.Sprint("value ", i), Content: fmt.Sprint("the value is ", i), Criticality: memory.CriticalityNormal,
					Status: st, Operation: memory.OpAdd, RecordedAt: at, ObservedAt: at, ValidFrom: at, UpdatedAt: at}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]*memory.Stats{}
	for _, ns := range []string{"n", "o"} {
		if before[ns], err = s.Stats(ctx, memory.StatsParams{Namespace: ns}); err != nil {
			t.Fatal(err)
		}
	}
	// Back to schema 22: the index 0023 replaced, and its version. 0024
	// runs again too; on rows and a table it already converted it changes
	// nothing they hold (it remakes memories and versions_unsettled alike).
	undoSaidOnce(t, s.writer)
	execAll(t, s.writer, `DROP INDEX versions_not_active`, `CREATE INDEX versions_by_status ON versions (namespace, status)`,
		`DELETE FROM schema_migrations WHERE version >= 23`, `PRAGMA user_version = 22`)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	var indexes string
	if err := s.reader.QueryRowContext(ctx, `SELECT group_concat(name, ' ') FROM sqlite_schema WHERE type = 'index' AND name LIKE 'versions_%' ORDER BY name`).Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(indexes, "versions_by_status") || !strings.Contains(indexes, "versions_not_active") {
		t.Fatalf("indexes after migrating: %s", indexes)
	}
	entries := func() int {
		var n int
		if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM versions INDEXED BY versions_not_active WHERE namespace IN ('n', 'o') AND status <> 'active'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := entries(); n != 6 {
		t.Errorf("versions_not_active holds %d entries, want the 6 versions that are not active", n)
	}
	for _, ns := range []string{"n", "o"} {
		got, err := s.Stats(ctx, memory.StatsParams{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Versions) != fmt.Sprint(before[ns].Versions) {
			t.Errorf("%s: versions by status %v after migrating, %v before", ns, got.Versions, before[ns].Versions)
		}
	}
	if st, err := s.Stats(ctx, memory.StatsParams{Namespace: "empty"}); err != nil || len(st.Versions) != 0 {
		t.Errorf("an empty namespace's versions by status: %v, %v", st.Versions, err)
	}
	for _, c := range []struct {
		statuses []memory.Status
		want     string
	}{
		{[]memory.Status{memory.StatusActive}, "v-m-c-0 v-m-a-3"},
		{[]memory.Status{memory.StatusActive, memory.StatusContested}, "v-m-b-0 v-m-c-0 v-m-a-3"},
		{[]memory.Status{memory.StatusContested, memory.StatusExpired}, "v-m-b-0 v-m-b-1"},
		{[]memory.Status{memory.StatusSuperseded}, "v-m-a-0 v-m-a-1 v-m-a-2"},
	} {
		vs, err := s.ListVersions(ctx, memory.ListVersionsParams{Namespace: "n", Statuses: c.statuses})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, v := range vs {
			ids = append(ids, v.ID)
		}
		if got := strings.Join(ids, " "); got != c.want {
			t.Errorf("n, statuses %v: %s, want %s", c.statuses, got, c.want)
		}
	}
	// A new active version writes nothing to the index.
	err = s.InTx(ctx, func(tx memory.Executor) error {
		return tx.CreateVersion(ctx, &memory.Version{ID: "v-m-c-1", MemoryID: "m-c", Namespace: "n", Seq: 2, Kind: memory.KindSemantic,
			Type: memory.TypeFact, Subject: "user", Key: "k:m-c", Value: "new", Content: "the value is new",
			Criticality: memory.CriticalityNormal, Status: memory.StatusActive, Operation: memory.OpAdd,
			RecordedAt: now.Add(time.Hour), ObservedAt: now.Add(time.Hour), ValidFrom: now.Add(time.Hour), UpdatedAt: now.Add(time.Hour)})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := entries(); n != 6 {
		t.Errorf("after an active version's insert, versions_not_active holds %d entries, want 6", n)
	}
	// History pruning finds the superseded versions through the index:
	// keeping one, m-a of n loses two; o keeps its only one.
	for _, ns := range []string{"n", "o"} {
		pruned, err := s.PruneHistory(ctx, memory.PruneHistoryParams{Namespace: ns, Keep: 1, Limit: 10, Now: now.Add(2 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(pruned)
		want := map[string]string{"n": "v-m-a-0 v-m-a-1", "o": ""}[ns]
		if got := strings.Join(pruned, " "); got != want {
			t.Errorf("%s: pruned %q, want %q", ns, got, want)
		}
	}
}
