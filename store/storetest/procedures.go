package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// taskResult is an episode of kind task_result in session.
func taskResult(ns, id, session string, occurred time.Time, outcome string) *memory.Episode {
	ep := newEpisode(ns, id, session, occurred)
	ep.Kind = memory.EpisodeTaskResult
	ep.Metadata = map[string]string{"task_type": "deploy", "outcome": outcome}
	return ep
}

func useKey(u *memory.ProcedureUse) string { return u.MemoryID + "/" + u.SessionID }

func (s suite) procedures(t *testing.T) {
	t.Run("TaskResults", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				eps := []*memory.Episode{
					taskResult(ns, "tr-1", "s1", at(1), "success"),
					newEpisode(ns, "msg-1", "s1", at(2)), // not a task result
					taskResult(ns, "tr-2", "s2", at(3), "failure"),
					taskResult(ns, "tr-3", "s1", at(3), "success"),
				}
				must(t, ex.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: eps}))
				got, err := ex.ListTaskResults(ctx, memory.ListTaskResultsParams{Namespace: ns})
				must(t, err)
				// Newest first; a tie in time is broken by id, descending.
				wantIDs(t, "task results", ids(got, episodeID), []string{"tr-3", "tr-2", "tr-1"})
				if len(got) > 0 {
					same(t, "task result round trip", eps[3], got[0])
				}
				got, err = ex.ListTaskResults(ctx, memory.ListTaskResultsParams{Namespace: ns, SessionID: "s1"})
				must(t, err)
				wantIDs(t, "task results of s1", ids(got, episodeID), []string{"tr-3", "tr-1"})
				got, err = ex.ListTaskResults(ctx, memory.ListTaskResultsParams{Namespace: ns, Limit: 1})
				must(t, err)
				wantIDs(t, "task results, limit 1", ids(got, episodeID), []string{"tr-3"})
				return nil
			}))
		})
	})

	t.Run("TracesAfter", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				for _, tr := range []*memory.Trace{newTrace(ns, "ret-3", at(3)), newTrace(ns, "ret-1", at(1)), newTrace(ns, "ret-2", at(3))} {
					must(t, ex.CreateTrace(ctx, tr))
				}
				got, err := ex.ListTracesAfter(ctx, memory.ListTracesAfterParams{Namespace: ns})
				must(t, err)
				wantIDs(t, "every trace, oldest first", ids(got, traceID), []string{"ret-1", "ret-2", "ret-3"})
				got, err = ex.ListTracesAfter(ctx, memory.ListTracesAfterParams{Namespace: ns, Since: at(3), Limit: 1})
				must(t, err)
				// Since is inclusive.
				wantIDs(t, "traces since at(3), limit 1", ids(got, traceID), []string{"ret-2"})
				if len(got) == 1 {
					same(t, "trace round trip", newTrace(ns, "ret-2", at(3)), got[0])
				}
				return nil
			}))
		})
	})

	t.Run("Uses", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				record := func(uses ...*memory.ProcedureUse) {
					t.Helper()
					must(t, ex.RecordProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: uses}))
				}
				record(
					&memory.ProcedureUse{MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-1", PackedAt: at(5)},
					&memory.ProcedureUse{MemoryID: "mem-2", SessionID: "", VersionID: "ver-9", PackedAt: at(1)},
				)
				// A later packing moves the use forward; an older one
				// (a trace read twice, out of order) does not move it back.
				record(&memory.ProcedureUse{MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-2", PackedAt: at(7)})
				record(&memory.ProcedureUse{MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-0", PackedAt: at(2)})
				got, err := ex.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns})
				must(t, err)
				wantIDs(t, "uses by packed_at", ids(got, useKey), []string{"mem-2/", "mem-1/s1"})
				if len(got) == 2 {
					same(t, "use after three packings", &memory.ProcedureUse{
						Namespace: ns, MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-2", PackedAt: at(7),
					}, got[1])
				}

				must(t, ex.SettleProcedureUse(ctx, memory.SettleProcedureUseParams{
					Namespace: ns, MemoryID: "mem-1", SessionID: "s1", Outcome: memory.OutcomeFailure, At: at(8),
				}))
				// An outcome is acted on once.
				err = ex.SettleProcedureUse(ctx, memory.SettleProcedureUseParams{
					Namespace: ns, MemoryID: "mem-1", SessionID: "s1", Outcome: memory.OutcomeSuccess, At: at(9),
				})
				wantErr(t, "settling twice", err, memory.ErrConflict)
				err = ex.SettleProcedureUse(ctx, memory.SettleProcedureUseParams{
					Namespace: ns, MemoryID: "mem-7", SessionID: "s1", Outcome: memory.OutcomeSuccess, At: at(9),
				})
				wantErr(t, "settling an unknown use", err, memory.ErrNotFound)
				// Packing again after it settled keeps the outcome.
				record(&memory.ProcedureUse{MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-3", PackedAt: at(10)})

				got, err = ex.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns, MemoryIDs: []string{"mem-1"}})
				must(t, err)
				if len(got) != 1 {
					t.Fatalf("uses of mem-1: %d, want 1", len(got))
				}
				same(t, "settled use", &memory.ProcedureUse{
					Namespace: ns, MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-3", PackedAt: at(10),
					Outcome: memory.OutcomeFailure, SettledAt: ptr(at(8)),
				}, got[0])
				got, err = ex.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns, Pending: true})
				must(t, err)
				wantIDs(t, "pending uses", ids(got, useKey), []string{"mem-2/"})
				return nil
			}))
		})
	})

	t.Run("RestoreUses", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			pending := &memory.ProcedureUse{Namespace: ns, MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-1", PackedAt: at(5)}
			settled := &memory.ProcedureUse{Namespace: ns, MemoryID: "mem-1", SessionID: "s2", VersionID: "ver-2", PackedAt: at(3),
				Outcome: memory.OutcomeFailure, SettledAt: ptr(at(4))}
			outside := &memory.ProcedureUse{MemoryID: "mem-2", SessionID: "", VersionID: "ver-9", PackedAt: at(1),
				Outcome: memory.OutcomeNone, SettledAt: ptr(at(9))} // no namespace: takes the params'
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				return ex.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{pending, settled, outside}})
			}))
			// The same keys in another namespace are other rows.
			must(t, st.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: "other", Uses: []*memory.ProcedureUse{
				{MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-x", PackedAt: at(7), Outcome: memory.OutcomeSuccess, SettledAt: ptr(at(8))},
			}}))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := ex.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns})
				must(t, err)
				wantIDs(t, "restored uses", ids(got, useKey), []string{"mem-2/", "mem-1/s2", "mem-1/s1"})
				if len(got) == 3 {
					want := *outside
					want.Namespace = ns
					same(t, "restored use outside a session", &want, got[0])
					same(t, "restored settled use", settled, got[1])
					same(t, "restored pending use", pending, got[2])
				}
				got, err = ex.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns, Pending: true})
				must(t, err)
				wantIDs(t, "pending after restore", ids(got, useKey), []string{"mem-1/s1"})
				// A restored use is one like any other: settled once, packed
				// forward, its outcome kept.
				err = ex.SettleProcedureUse(ctx, memory.SettleProcedureUseParams{Namespace: ns, MemoryID: "mem-1", SessionID: "s2", Outcome: memory.OutcomeSuccess, At: at(9)})
				wantErr(t, "settling a restored settled use", err, memory.ErrConflict)
				must(t, ex.RecordProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{
					{MemoryID: "mem-1", SessionID: "s2", VersionID: "ver-3", PackedAt: at(6)},
				}}))
				got, err = ex.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns, MemoryIDs: []string{"mem-1"}})
				must(t, err)
				if len(got) == 2 {
					same(t, "restored use packed again", &memory.ProcedureUse{Namespace: ns, MemoryID: "mem-1", SessionID: "s2",
						VersionID: "ver-3", PackedAt: at(6), Outcome: memory.OutcomeFailure, SettledAt: ptr(at(4))}, got[1])
				} else {
					t.Errorf("uses of mem-1: %d, want 2", len(got))
				}
				theirs, err := ex.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: "other"})
				must(t, err)
				wantIDs(t, "other namespace's uses", ids(theirs, useKey), []string{"mem-1/s1"})
				return nil
			}))
			// A use the namespace holds is a conflict, and the batch that
			// carries it writes nothing.
			err := m.do(ctx, st, func(ex memory.Executor) error {
				return ex.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{
					{MemoryID: "mem-3", SessionID: "s1", VersionID: "ver-4", PackedAt: at(2)},
					{MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-1", PackedAt: at(5)},
				}})
			})
			wantErr(t, "restoring a use held already", err, memory.ErrConflict)
			got, err := st.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns, MemoryIDs: []string{"mem-3"}})
			must(t, err)
			wantIDs(t, "uses after a conflicting restore", ids(got, useKey), nil)
		})
	})

	t.Run("Cursor", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				c, err := ex.ProcedureCursor(ctx, memory.ScanParams{Namespace: ns})
				must(t, err)
				if !c.IsZero() {
					t.Errorf("cursor of a new namespace = %v, want zero", c)
				}
				must(t, ex.SetProcedureCursor(ctx, memory.SetProcedureCursorParams{Namespace: ns, At: at(3)}))
				must(t, ex.SetProcedureCursor(ctx, memory.SetProcedureCursorParams{Namespace: ns, At: at(4)}))
				c, err = ex.ProcedureCursor(ctx, memory.ScanParams{Namespace: ns})
				must(t, err)
				if !c.Equal(at(4)) || c.Location() != time.UTC {
					t.Errorf("cursor = %v, want %v UTC", c, at(4))
				}
				return nil
			}))
		})
	})

	t.Run("NamespaceIsolation", func(t *testing.T) {
		ctx, st := s.fresh(t)
		must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "alpha", Episodes: []*memory.Episode{taskResult("alpha", "tr-1", "s1", at(1), "success")}}))
		must(t, st.CreateTrace(ctx, newTrace("alpha", "ret-1", at(1))))
		must(t, st.RecordProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: "alpha", Uses: []*memory.ProcedureUse{
			{MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-1", PackedAt: at(1)},
		}}))
		must(t, st.SetProcedureCursor(ctx, memory.SetProcedureCursorParams{Namespace: "alpha", At: at(1)}))

		eps, err := st.ListTaskResults(ctx, memory.ListTaskResultsParams{Namespace: "beta"})
		must(t, err)
		wantIDs(t, "beta's task results", ids(eps, episodeID), nil)
		trs, err := st.ListTracesAfter(ctx, memory.ListTracesAfterParams{Namespace: "beta"})
		must(t, err)
		wantIDs(t, "beta's traces", ids(trs, traceID), nil)
		uses, err := st.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: "beta"})
		must(t, err)
		wantIDs(t, "beta's uses", ids(uses, useKey), nil)
		err = st.SettleProcedureUse(ctx, memory.SettleProcedureUseParams{Namespace: "beta", MemoryID: "mem-1", SessionID: "s1", Outcome: memory.OutcomeFailure, At: at(2)})
		wantErr(t, "settling alpha's use from beta", err, memory.ErrNotFound)
		c, err := st.ProcedureCursor(ctx, memory.ScanParams{Namespace: "beta"})
		must(t, err)
		if !c.IsZero() {
			t.Errorf("beta's cursor = %v, want zero", c)
		}
		// A use handed in for another namespace is refused.
		err = st.RecordProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: "beta", Uses: []*memory.ProcedureUse{
			{Namespace: "alpha", MemoryID: "mem-2", SessionID: "s1", VersionID: "ver-1", PackedAt: at(1)},
		}})
		wantErr(t, "a use of another namespace", err, memory.ErrInvalid)
		err = st.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: "beta", Uses: []*memory.ProcedureUse{
			{Namespace: "alpha", MemoryID: "mem-2", SessionID: "s1", VersionID: "ver-1", PackedAt: at(1)},
		}})
		wantErr(t, "a restored use of another namespace", err, memory.ErrInvalid)
		// A use restored in beta stays beta's.
		must(t, st.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: "beta", Uses: []*memory.ProcedureUse{
			{MemoryID: "mem-9", SessionID: "s1", VersionID: "ver-9", PackedAt: at(1)},
		}}))
		uses, err = st.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: "alpha"})
		must(t, err)
		wantIDs(t, "alpha's uses after beta's restore", ids(uses, useKey), []string{"mem-1/s1"})
	})

	t.Run("InvalidInput", func(t *testing.T) {
		ctx, st := s.fresh(t)
		for name, err := range map[string]error{
			"task results, bad namespace": func() error {
				_, err := st.ListTaskResults(ctx, memory.ListTaskResultsParams{Namespace: "bad namespace"})
				return err
			}(),
			"uses, nil use": st.RecordProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{nil}}),
			"uses, no memory id": st.RecordProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{
				{VersionID: "ver-1", PackedAt: at(1)},
			}}),
			"settle, unknown outcome": st.SettleProcedureUse(ctx, memory.SettleProcedureUseParams{Namespace: ns, MemoryID: "mem-1", Outcome: "maybe", At: at(1)}),
			"cursor, bad namespace":   st.SetProcedureCursor(ctx, memory.SetProcedureCursorParams{Namespace: "", At: at(1)}),
			"restore, bad namespace":  st.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: "bad ns"}),
			"restore, nil use":        st.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{nil}}),
			"restore, no memory id": st.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{
				{VersionID: "ver-1", PackedAt: at(1)},
			}}),
			"restore, no version id": st.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{
				{MemoryID: "mem-1", PackedAt: at(1)},
			}}),
			"restore, unknown outcome": st.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{
				{MemoryID: "mem-1", VersionID: "ver-1", PackedAt: at(1), Outcome: "maybe", SettledAt: ptr(at(2))},
			}}),
			"restore, settled without a time": st.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{
				{MemoryID: "mem-1", VersionID: "ver-1", PackedAt: at(1), Outcome: memory.OutcomeSuccess},
			}}),
			"restore, pending with a settled time": st.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: []*memory.ProcedureUse{
				{MemoryID: "mem-1", VersionID: "ver-1", PackedAt: at(1), SettledAt: ptr(at(2))},
			}}),
		} {
			wantErr(t, name, err, memory.ErrInvalid)
		}
	})

	t.Run("AllOrNothing", func(t *testing.T) {
		ctx, st := s.fresh(t)
		// The second use is invalid: the first must not be written,
		// neither on the store nor inside a transaction that goes on.
		bad := []*memory.ProcedureUse{
			{MemoryID: "mem-1", SessionID: "s1", VersionID: "ver-1", PackedAt: at(1)},
			{MemoryID: "mem-2", SessionID: "s1", VersionID: "ver-2", PackedAt: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)},
		}
		err := st.RecordProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: bad})
		wantErr(t, "a use dated beyond the storable years", err, memory.ErrInvalid)
		boom := errors.New("boom")
		err = st.InTx(ctx, func(tx memory.Executor) error {
			if err := tx.RecordProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: bad}); err == nil {
				t.Error("invalid use accepted inside InTx")
			}
			if err := tx.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: bad}); err == nil {
				t.Error("invalid restored use accepted inside InTx")
			}
			must(t, tx.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: bad[:1]}))
			must(t, tx.SetProcedureCursor(ctx, memory.SetProcedureCursorParams{Namespace: ns, At: at(5)}))
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx error = %v, want boom", err)
		}
		uses, err := st.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "uses after failed writes", ids(uses, useKey), nil)
		c, err := st.ProcedureCursor(ctx, memory.ScanParams{Namespace: ns})
		must(t, err)
		if !c.IsZero() {
			t.Errorf("cursor after a rolled back transaction = %v, want zero", c)
		}
	})
}
