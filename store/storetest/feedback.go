package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

func newFeedback(ns, id, retrieval, memID, verID string, outcome memory.FeedbackOutcome, n int) *memory.Feedback {
	overlap := 0.625
	return &memory.Feedback{
		ID: id, Namespace: ns, RetrievalID: retrieval, MemoryID: memID, VersionID: verID,
		Outcome: outcome, Severity: 0.75, Source: memory.SourceEvaluator,
		Used: true, Overlap: &overlap, TaskSucceeded: true, Reinforced: outcome == memory.OutcomeHelpful,
		UsefulnessBefore: 0.5, UsefulnessAfter: 0.6, TrustBefore: 0.7, TrustAfter: 0.72,
		StatusAfter: memory.StatusActive, CreatedAt: at(n),
	}
}

func feedbackID(f *memory.Feedback) string { return f.ID }

func (s suite) feedback(t *testing.T) {
	t.Run("RoundTripAndFilters", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			f1 := newFeedback(ns, "fb-1", "ret-1", "m-1", "v-1", memory.OutcomeHelpful, 1)
			f2 := newFeedback(ns, "fb-2", "ret-2", "m-1", "v-2", memory.OutcomeHarmful, 3)
			f2.Overlap, f2.Used, f2.Reinforced = nil, false, false // no output given: overlap stays nil
			f3 := newFeedback(ns, "fb-3", "ret-1", "m-2", "v-3", memory.OutcomeUnused, 2)
			other := newFeedback("other", "fb-1", "ret-1", "m-1", "v-1", memory.OutcomeHelpful, 1)
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				if err := ex.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: ns, Feedback: []*memory.Feedback{f1, f2, f3}}); err != nil {
					return err
				}
				return ex.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: "other", Feedback: []*memory.Feedback{other}})
			}))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				all, err := ex.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns})
				must(t, err)
				wantIDs(t, "all, oldest first", ids(all, feedbackID), []string{"fb-1", "fb-3", "fb-2"})
				if len(all) == 3 {
					same(t, "fb-1", f1, all[0])
					same(t, "fb-2", f2, all[2])
				}
				byRet, err := ex.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns, RetrievalID: "ret-1"})
				must(t, err)
				wantIDs(t, "by retrieval", ids(byRet, feedbackID), []string{"fb-1", "fb-3"})
				byMem, err := ex.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns, MemoryID: "m-1", Limit: 1})
				must(t, err)
				wantIDs(t, "by memory, limit 1", ids(byMem, feedbackID), []string{"fb-1"})
				byVer, err := ex.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns, VersionID: "v-2"})
				must(t, err)
				wantIDs(t, "by version", ids(byVer, feedbackID), []string{"fb-2"})
				// The other namespace's row with the same ids stays its own.
				theirs, err := ex.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: "other"})
				must(t, err)
				wantIDs(t, "other namespace", ids(theirs, feedbackID), []string{"fb-1"})
				none, err := ex.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: "empty"})
				must(t, err)
				wantIDs(t, "empty namespace", ids(none, feedbackID), nil)
				return nil
			}))
		})
	})

	t.Run("OncePerRetrievalVersionSourceOutcome", func(t *testing.T) {
		ctx, st := s.fresh(t)
		must(t, st.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: ns, Feedback: []*memory.Feedback{
			newFeedback(ns, "fb-1", "ret-1", "m-1", "v-1", memory.OutcomeHelpful, 1)}}))
		err := st.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: ns, Feedback: []*memory.Feedback{
			newFeedback(ns, "fb-2", "ret-1", "m-1", "v-1", memory.OutcomeHelpful, 2)}})
		wantErr(t, "same retrieval, version, source and outcome", err, memory.ErrConflict)
		// Another outcome, or the same judgement in another namespace, is new.
		must(t, st.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: ns, Feedback: []*memory.Feedback{
			newFeedback(ns, "fb-3", "ret-1", "m-1", "v-1", memory.OutcomeHarmful, 3)}}))
		must(t, st.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: "other", Feedback: []*memory.Feedback{
			newFeedback("other", "fb-2", "ret-1", "m-1", "v-1", memory.OutcomeHelpful, 2)}}))
	})

	t.Run("AllOrNothing", func(t *testing.T) {
		ctx, st := s.fresh(t)
		// The second row collides with the first: neither is written,
		// even inside a transaction that goes on.
		boom := errors.New("boom")
		err := st.InTx(ctx, func(tx memory.Executor) error {
			err := tx.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: ns, Feedback: []*memory.Feedback{
				newFeedback(ns, "fb-1", "ret-1", "m-1", "v-1", memory.OutcomeHelpful, 1),
				newFeedback(ns, "fb-1", "ret-2", "m-1", "v-1", memory.OutcomeHelpful, 1),
			}})
			wantErr(t, "duplicate id in one batch", err, memory.ErrConflict)
			got, err := tx.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns})
			must(t, err)
			wantIDs(t, "after a failed batch", ids(got, feedbackID), nil)
			must(t, tx.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: ns, Feedback: []*memory.Feedback{
				newFeedback(ns, "fb-9", "ret-9", "m-1", "v-1", memory.OutcomeHelpful, 1)}}))
			return boom
		})
		wantErr(t, "InTx", err, boom)
		got, err := st.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "after a rollback", ids(got, feedbackID), nil)
	})

	t.Run("InvalidInput", func(t *testing.T) {
		ctx, st := s.fresh(t)
		good := func() *memory.Feedback {
			return newFeedback(ns, "fb-1", "ret-1", "m-1", "v-1", memory.OutcomeHelpful, 1)
		}
		cases := []struct {
			name   string
			ns     string
			mutate func(f *memory.Feedback)
		}{
			{"bad namespace", "Bad Namespace!", func(*memory.Feedback) {}},
			{"empty id", ns, func(f *memory.Feedback) { f.ID = "" }},
			{"another namespace", ns, func(f *memory.Feedback) { f.Namespace = "other" }},
			{"no retrieval", ns, func(f *memory.Feedback) { f.RetrievalID = "" }},
			{"no version", ns, func(f *memory.Feedback) { f.VersionID = "" }},
			{"bad outcome", ns, func(f *memory.Feedback) { f.Outcome = "great" }},
			{"bad source", ns, func(f *memory.Feedback) { f.Source = "oracle" }},
			{"severity above 1", ns, func(f *memory.Feedback) { f.Severity = 1.5 }},
			{"negative severity", ns, func(f *memory.Feedback) { f.Severity = -0.1 }},
		}
		for _, c := range cases {
			f := good()
			c.mutate(f)
			err := st.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: c.ns, Feedback: []*memory.Feedback{f}})
			wantErr(t, c.name, err, memory.ErrInvalid)
		}
		err := st.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: ns, Feedback: []*memory.Feedback{nil}})
		wantErr(t, "nil row", err, memory.ErrInvalid)
		_, err = st.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ""})
		wantErr(t, "list with an empty namespace", err, memory.ErrInvalid)
		got, err := st.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "nothing written", ids(got, feedbackID), nil)
	})
}
