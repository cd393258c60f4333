package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

func (s suite) history(t *testing.T) {
	// slot writes a memory with n versions, the last active and the rest
	// superseded, each with one admission.
	slot := func(t *testing.T, ctx context.Context, st memory.Store, ns, id string, n int) []string {
		t.Helper()
		m := newMemory(ns, id, "user", "k-"+id, memory.Scope{})
		var vids []string
		must(t, st.InTx(ctx, func(tx memory.Executor) error {
			must(t, tx.CreateMemory(ctx, m))
			var adms []*memory.Admission
			for i := 1; i <= n; i++ {
				v := newVersion(ns, fmt.Sprintf("%s-v%d", id, i), m, i, at(i))
				if i < n {
					v.Status = memory.StatusSuperseded
				}
				must(t, tx.CreateVersion(ctx, v))
				a := newAdmission(ns, fmt.Sprintf("%s-a%d", id, i), "e-1", m.ID, at(i))
				a.VersionID = v.ID
				adms = append(adms, a)
				vids = append(vids, v.ID)
			}
			return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: adms})
		}))
		return vids
	}
	t.Run("Prune", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			long := slot(t, ctx, st, ns, "m-1", 6)  // 5 superseded, 1 active
			short := slot(t, ctx, st, ns, "m-2", 3) // 2 superseded: within the bound
			twin := slot(t, ctx, st, "other", "m-1", 6)
			before, err := st.LastChange(ctx, memory.ScanParams{Namespace: ns})
			must(t, err)
			var got []string
			must(t, m.do(ctx, st, func(ex memory.Executor) (err error) {
				got, err = ex.PruneHistory(ctx, memory.PruneHistoryParams{Namespace: ns, Keep: 2, Limit: 10, Now: at(20)})
				return err
			}))
			wantSet(t, "pruned versions", got, long[:3])
			vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: "m-1"})
			must(t, err)
			wantSet(t, "versions left of m-1", ids(vs, versionID), long[3:])
			vs, err = st.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: "m-2"})
			must(t, err)
			wantSet(t, "versions of m-2", ids(vs, versionID), short)
			vs, err = st.ListVersions(ctx, memory.ListVersionsParams{Namespace: "other", MemoryID: "m-1"})
			must(t, err)
			wantSet(t, "the other namespace's versions", ids(vs, versionID), twin)
			// The pruned versions' admissions go with them.
			adms, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, MemoryID: "m-1"})
			must(t, err)
			wantSet(t, "admissions left of m-1", ids(adms, admissionID), []string{"m-1-a4", "m-1-a5", "m-1-a6"})
			// Each deletion is in the change log, after what was there.
			cs, err := st.ListChanges(ctx, memory.ListChangesParams{Namespace: ns, After: before})
			must(t, err)
			wantSet(t, "changes logged by the prune", changeIDs(cs), long[:3])
			for _, c := range cs {
				if !c.UpdatedAt.Equal(at(20)) {
					t.Errorf("change %+v: want updated_at %v", c, at(20))
				}
			}
			// Again: nothing.
			again, err := st.PruneHistory(ctx, memory.PruneHistoryParams{Namespace: ns, Keep: 2, Limit: 10, Now: at(21)})
			must(t, err)
			wantIDs(t, "second prune", again, nil)
		})
	})

	t.Run("KeepsNewestObserved", func(t *testing.T) {
		ctx, st := s.fresh(t)
		m := newMemory(ns, "m-1", "user", "lives_in", memory.Scope{})
		// seq 3 arrived late about the distant past: the oldest history
		// although the last written.
		observed := []int{2, 3, 1, 4}
		must(t, st.InTx(ctx, func(tx memory.Executor) error {
			must(t, tx.CreateMemory(ctx, m))
			for i, day := range observed {
				v := newVersion(ns, fmt.Sprintf("v-%d", i+1), m, i+1, at(10+i))
				v.ObservedAt = at(day)
				if i < len(observed)-1 {
					v.Status = memory.StatusSuperseded
				}
				must(t, tx.CreateVersion(ctx, v))
			}
			return nil
		}))
		got, err := st.PruneHistory(ctx, memory.PruneHistoryParams{Namespace: ns, Keep: 1, Limit: 10, Now: at(20)})
		must(t, err)
		wantSet(t, "pruned: all but the latest observed superseded version", got, []string{"v-1", "v-3"})
	})

	t.Run("Limit", func(t *testing.T) {
		ctx, st := s.fresh(t)
		slot(t, ctx, st, ns, "m-1", 4)
		slot(t, ctx, st, ns, "m-2", 4)
		first, err := st.PruneHistory(ctx, memory.PruneHistoryParams{Namespace: ns, Keep: 1, Limit: 1, Now: at(20)})
		must(t, err)
		wantSet(t, "first batch (one memory)", first, []string{"m-1-v1", "m-1-v2"})
		second, err := st.PruneHistory(ctx, memory.PruneHistoryParams{Namespace: ns, Keep: 1, Limit: 1, Now: at(20)})
		must(t, err)
		wantSet(t, "second batch", second, []string{"m-2-v1", "m-2-v2"})
	})

	t.Run("PruneTraces", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			for i, id := range []string{"t-1", "t-2", "t-3", "t-4"} {
				must(t, st.CreateTrace(ctx, newTrace(ns, id, at(i+1))))
			}
			must(t, st.CreateTrace(ctx, newTrace("other", "t-1", at(1))))
			prune := func(before, limit int) int {
				t.Helper()
				var n int
				must(t, m.do(ctx, st, func(ex memory.Executor) (err error) {
					n, err = ex.PruneTraces(ctx, memory.PruneTracesParams{Namespace: ns, Before: at(before), Limit: limit})
					return err
				}))
				return n
			}
			if n := prune(4, 1); n != 1 { // the oldest first, one at a time
				t.Errorf("pruned %d with limit 1", n)
			}
			left, err := st.ListTraces(ctx, memory.ListTracesParams{Namespace: ns})
			must(t, err)
			wantSet(t, "traces after one", ids(left, func(tr *memory.Trace) string { return tr.ID }), []string{"t-2", "t-3", "t-4"})
			if n := prune(4, 10); n != 2 {
				t.Errorf("pruned %d before day 4, want 2", n)
			}
			if n := prune(4, 10); n != 0 {
				t.Errorf("second prune deleted %d", n)
			}
			left, err = st.ListTraces(ctx, memory.ListTracesParams{Namespace: ns})
			must(t, err)
			wantSet(t, "traces left", ids(left, func(tr *memory.Trace) string { return tr.ID }), []string{"t-4"})
			if _, err := st.GetTrace(ctx, memory.GetParams{Namespace: "other", ID: "t-1"}); err != nil {
				t.Errorf("the other namespace's trace: %v", err)
			}
		})
	})

	// Reinforcements: the newest p.Keep per memory stay; every other
	// admission, and other memories and namespaces, are untouched.
	t.Run("Reinforcements", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			var adms []*memory.Admission
			add := func(ns, memID, id string, op memory.Operation, i int) {
				a := newAdmission(ns, id, "e-1", memID, at(i))
				a.Operation = op
				adms = append(adms, a)
			}
			add(ns, "m-1", "add", memory.OpAdd, 0)
			for i := 1; i <= 12; i++ {
				add(ns, "m-1", fmt.Sprintf("r%02d", i), memory.OpReinforce, i)
			}
			for i := 1; i <= 3; i++ {
				add(ns, "m-2", fmt.Sprintf("m2-r%d", i), memory.OpReinforce, i)
			}
			must(t, st.InTx(ctx, func(tx memory.Executor) error {
				for _, a := range adms {
					must(t, tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: a.Namespace, Admissions: []*memory.Admission{a}}))
				}
				other := newAdmission("other", "r01", "e-1", "m-1", at(1))
				other.Operation = memory.OpReinforce
				return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "other", Admissions: []*memory.Admission{other}})
			}))
			prune := func() int {
				t.Helper()
				var n int
				must(t, m.do(ctx, st, func(ex memory.Executor) error {
					var err error
					n, err = ex.PruneReinforcements(ctx, memory.PruneHistoryParams{Namespace: ns, Keep: 8, Limit: 10, Now: at(20)})
					return err
				}))
				return n
			}
			if n := prune(); n != 4 {
				t.Errorf("pruned %d reinforcements, want 4", n)
			}
			left, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, MemoryID: "m-1"})
			must(t, err)
			wantSet(t, "m-1's admissions", ids(left, admissionID), []string{"add", "r05", "r06", "r07", "r08", "r09", "r10", "r11", "r12"})
			left, err = st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, MemoryID: "m-2"})
			must(t, err)
			wantSet(t, "m-2's admissions (under the bound)", ids(left, admissionID), []string{"m2-r1", "m2-r2", "m2-r3"})
			if n := prune(); n != 0 {
				t.Errorf("a second prune deleted %d", n)
			}
			if other, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "other"}); err != nil || len(other) != 1 {
				t.Errorf("the prune reached another namespace: %d %v", len(other), err)
			}
		})
	})

	t.Run("InvalidInput", func(t *testing.T) {
		ctx, st := s.fresh(t)
		for _, p := range []memory.PruneTracesParams{
			{Namespace: "Bad Namespace!", Before: at(1), Limit: 1},
			{Namespace: ns, Limit: 1},
			{Namespace: ns, Before: at(1)},
		} {
			_, err := st.PruneTraces(ctx, p)
			wantErr(t, fmt.Sprintf("prune traces %+v", p), err, memory.ErrInvalid)
		}
		for _, p := range []memory.PruneHistoryParams{
			{Namespace: "Bad Namespace!", Keep: 1, Limit: 1, Now: at(1)},
			{Namespace: ns, Keep: 0, Limit: 1, Now: at(1)},
			{Namespace: ns, Keep: 1, Limit: 0, Now: at(1)},
		} {
			_, err := st.PruneHistory(ctx, p)
			wantErr(t, fmt.Sprintf("prune history %+v", p), err, memory.ErrInvalid)
			_, err = st.PruneReinforcements(ctx, p)
			wantErr(t, fmt.Sprintf("prune reinforcements %+v", p), err, memory.ErrInvalid)
		}
	})
}

// wantSet compares ids in any order.
func wantSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := append([]string(nil), got...), append([]string(nil), want...)
	slices.Sort(g)
	slices.Sort(w)
	wantIDs(t, what, g, w)
}
