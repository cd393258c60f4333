package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

func changeIDs(cs []memory.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.VersionID
	}
	return out
}

func (s suite) changes(t *testing.T) {
	t.Run("LogOfVersionWrites", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			m1 := newMemory(ns, "m-1", "user", "k", memory.Scope{})
			other := newMemory("other", "m-1", "user", "k", memory.Scope{})
			v1, v2 := newVersion(ns, "v-1", m1, 1, at(1)), newVersion(ns, "v-2", m1, 2, at(2))
			must(t, st.InTx(ctx, func(tx memory.Executor) error {
				for _, mm := range []*memory.Memory{m1, other} {
					if err := tx.CreateMemory(ctx, mm); err != nil {
						return err
					}
				}
				for _, v := range []*memory.Version{v1, newVersion("other", "v-9", other, 1, at(1)), v2} {
					if err := tx.CreateVersion(ctx, v); err != nil {
						return err
					}
				}
				return nil
			}))
			v1.Status, v1.UpdatedAt = memory.StatusSuperseded, at(5)
			must(t, st.UpdateVersionState(ctx, v1))

			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				all, err := ex.ListChanges(ctx, memory.ListChangesParams{Namespace: ns})
				must(t, err)
				wantIDs(t, "changes", changeIDs(all), []string{"v-1", "v-2", "v-1"})
				for i := 1; i < len(all); i++ {
					if all[i].Seq <= all[i-1].Seq {
						t.Errorf("changes out of order: %+v", all)
					}
				}
				// Each change carries the version's updated_at after the write.
				if len(all) == 3 && (!all[1].UpdatedAt.Equal(v2.UpdatedAt) || !all[2].UpdatedAt.Equal(at(5)) || all[2].UpdatedAt.Location() != time.UTC) {
					t.Errorf("updated_at of the changes: %+v", all)
				}
				last, err := ex.LastChange(ctx, memory.ScanParams{Namespace: ns})
				must(t, err)
				if len(all) == 3 && last != all[2].Seq {
					t.Errorf("last change %d, want %d", last, all[2].Seq)
				}
				if len(all) == 3 {
					after, err := ex.ListChanges(ctx, memory.ListChangesParams{Namespace: ns, After: all[0].Seq, Limit: 1})
					must(t, err)
					wantIDs(t, "one change after the first", changeIDs(after), []string{"v-2"})
				}
				none, err := ex.LastChange(ctx, memory.ScanParams{Namespace: "empty"})
				must(t, err)
				if none != 0 {
					t.Errorf("last change of an empty namespace: %d", none)
				}
				return nil
			}))
		})
	})

	t.Run("Prune", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			m1 := newMemory(ns, "m-1", "user", "k", memory.Scope{})
			other := newMemory("other", "m-1", "user", "k", memory.Scope{})
			write := func(vs ...*memory.Version) {
				t.Helper()
				must(t, st.InTx(ctx, func(tx memory.Executor) error {
					for _, v := range vs {
						if err := tx.CreateVersion(ctx, v); err != nil {
							return err
						}
					}
					return nil
				}))
			}
			must(t, st.InTx(ctx, func(tx memory.Executor) error {
				must(t, tx.CreateMemory(ctx, m1))
				return tx.CreateMemory(ctx, other)
			}))
			write(newVersion(ns, "v-1", m1, 1, at(1)), newVersion("other", "v-9", other, 1, at(1)),
				newVersion(ns, "v-2", m1, 2, at(2)), newVersion(ns, "v-3", m1, 3, at(10)))
			all, err := st.ListChanges(ctx, memory.ListChangesParams{Namespace: ns})
			must(t, err)
			wantIDs(t, "changes before the prune", changeIDs(all), []string{"v-1", "v-2", "v-3"})
			prune := func(before time.Time) int {
				t.Helper()
				var n int
				must(t, m.do(ctx, st, func(ex memory.Executor) (err error) {
					n, err = ex.PruneChanges(ctx, memory.PruneChangesParams{Namespace: ns, Before: before})
					return err
				}))
				return n
			}
			if n := prune(at(5)); n != 2 {
				t.Errorf("pruned %d changes before day 5, want 2", n)
			}
			// A follower that stood before the horizon is told so; one at it
			// goes on.
			_, err = st.ListChanges(ctx, memory.ListChangesParams{Namespace: ns})
			wantErr(t, "list from before the horizon", err, memory.ErrChangesPruned)
			_, err = st.ListChanges(ctx, memory.ListChangesParams{Namespace: ns, After: all[0].Seq})
			wantErr(t, "list from inside the pruned part", err, memory.ErrChangesPruned)
			rest, err := st.ListChanges(ctx, memory.ListChangesParams{Namespace: ns, After: all[1].Seq})
			must(t, err)
			wantIDs(t, "changes after the horizon", changeIDs(rest), []string{"v-3"})
			// Again: nothing; the namespace's newest entry is never pruned,
			// however old, so sequence numbers keep growing.
			if n := prune(at(5)); n != 0 {
				t.Errorf("second prune deleted %d", n)
			}
			if n := prune(at(100)); n != 0 {
				t.Errorf("prune deleted the newest entry (%d)", n)
			}
			if last, err := st.LastChange(ctx, memory.ScanParams{Namespace: ns}); err != nil || last != all[2].Seq {
				t.Errorf("last change after prunes: %d %v, want %d", last, err, all[2].Seq)
			}
			write(newVersion(ns, "v-4", m1, 4, at(11)))
			if n := prune(at(100)); n != 1 {
				t.Errorf("pruned %d once a newer entry came, want 1", n)
			}
			rest, err = st.ListChanges(ctx, memory.ListChangesParams{Namespace: ns, After: all[2].Seq})
			must(t, err)
			if wantIDs(t, "changes after the second horizon", changeIDs(rest), []string{"v-4"}); len(rest) == 1 && rest[0].Seq <= all[2].Seq {
				t.Errorf("sequence went back: %d after %d", rest[0].Seq, all[2].Seq)
			}
			// The other namespace keeps its log and has no horizon.
			kept, err := st.ListChanges(ctx, memory.ListChangesParams{Namespace: "other"})
			must(t, err)
			wantIDs(t, "the other namespace's changes", changeIDs(kept), []string{"v-9"})
		})
	})

	t.Run("PruneRolledBack", func(t *testing.T) {
		ctx, st := s.fresh(t)
		m1 := newMemory(ns, "m-1", "user", "k", memory.Scope{})
		must(t, st.InTx(ctx, func(tx memory.Executor) error {
			must(t, tx.CreateMemory(ctx, m1))
			must(t, tx.CreateVersion(ctx, newVersion(ns, "v-1", m1, 1, at(1))))
			return tx.CreateVersion(ctx, newVersion(ns, "v-2", m1, 2, at(2)))
		}))
		boom := errors.New("boom")
		err := st.InTx(ctx, func(tx memory.Executor) error {
			if n, err := tx.PruneChanges(ctx, memory.PruneChangesParams{Namespace: ns, Before: at(5)}); err != nil || n != 1 {
				t.Errorf("prune in the transaction: %d %v", n, err)
			}
			return boom
		})
		wantErr(t, "InTx", err, boom)
		got, err := st.ListChanges(ctx, memory.ListChangesParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "changes after a rolled-back prune", changeIDs(got), []string{"v-1", "v-2"})
	})

	t.Run("RolledBack", func(t *testing.T) {
		ctx, st := s.fresh(t)
		m1 := newMemory(ns, "m-1", "user", "k", memory.Scope{})
		boom := errors.New("boom")
		err := st.InTx(ctx, func(tx memory.Executor) error {
			must(t, tx.CreateMemory(ctx, m1))
			must(t, tx.CreateVersion(ctx, newVersion(ns, "v-1", m1, 1, at(1))))
			return boom
		})
		wantErr(t, "InTx", err, boom)
		got, err := st.ListChanges(ctx, memory.ListChangesParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "changes after a rollback", changeIDs(got), nil)
	})

	t.Run("InvalidInput", func(t *testing.T) {
		ctx, st := s.fresh(t)
		_, err := st.ListChanges(ctx, memory.ListChangesParams{Namespace: "Bad Namespace!"})
		wantErr(t, "bad namespace", err, memory.ErrInvalid)
		_, err = st.ListChanges(ctx, memory.ListChangesParams{Namespace: ns, After: -1})
		wantErr(t, "negative after", err, memory.ErrInvalid)
		_, err = st.LastChange(ctx, memory.ScanParams{Namespace: ""})
		wantErr(t, "empty namespace", err, memory.ErrInvalid)
		_, err = st.PruneChanges(ctx, memory.PruneChangesParams{Namespace: ns})
		wantErr(t, "prune without a cutoff", err, memory.ErrInvalid)
		_, err = st.PruneChanges(ctx, memory.PruneChangesParams{Namespace: "Bad Namespace!", Before: at(1)})
		wantErr(t, "prune of a bad namespace", err, memory.ErrInvalid)
	})
}
