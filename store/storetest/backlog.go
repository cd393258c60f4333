package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// backlogParams is shorthand for the backlog methods' params.
func backlogParams(ns, job string, episodes ...string) memory.ExtractionParams {
	return memory.ExtractionParams{Namespace: ns, JobID: job, EpisodeIDs: episodes}
}

func (s suite) backlog(t *testing.T) {
	t.Run("WaitingJobAndClaim", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				waiting, err := ex.WaitingExtractionJob(ctx, backlogParams(ns, ""))
				must(t, err)
				if waiting != "" {
					t.Errorf("waiting job of an empty backlog: %q", waiting)
				}
				// A job that is not waiting claims nothing.
				got, err := ex.ClaimExtraction(ctx, backlogParams(ns, "job_9"))
				must(t, err)
				wantIDs(t, "claim by a job that never waited", got, nil)

				// The first capture queues a job; later ones join it. An
				// episode queued twice keeps its first place.
				must(t, ex.QueueExtraction(ctx, backlogParams(ns, "job_1", "ep-3", "ep-1")))
				must(t, ex.QueueExtraction(ctx, backlogParams(ns, "", "ep-2", "ep-3")))
				waiting, err = ex.WaitingExtractionJob(ctx, backlogParams(ns, ""))
				must(t, err)
				if waiting != "job_1" {
					t.Errorf("waiting job = %q, want job_1", waiting)
				}

				got, err = ex.ClaimExtraction(ctx, backlogParams(ns, "job_1"))
				must(t, err)
				wantIDs(t, "claim of the waiting job", got, []string{"ep-3", "ep-1", "ep-2"})
				waiting, err = ex.WaitingExtractionJob(ctx, backlogParams(ns, ""))
				must(t, err)
				if waiting != "" {
					t.Errorf("waiting job after its claim = %q", waiting)
				}

				// Captures after the claim belong to the next job; the
				// first job, retried, finds its own share and no more.
				must(t, ex.QueueExtraction(ctx, backlogParams(ns, "job_2", "ep-4", "ep-1")))
				got, err = ex.ClaimExtraction(ctx, backlogParams(ns, "job_1"))
				must(t, err)
				wantIDs(t, "claim of a retried job", got, []string{"ep-3", "ep-1", "ep-2"})

				must(t, ex.FinishExtraction(ctx, backlogParams(ns, "job_1", "ep-3", "ep-2", "ep-unknown")))
				got, err = ex.ClaimExtraction(ctx, backlogParams(ns, "job_1"))
				must(t, err)
				wantIDs(t, "claim after finishing part", got, []string{"ep-1"})

				got, err = ex.ClaimExtraction(ctx, backlogParams(ns, "job_2"))
				must(t, err)
				wantIDs(t, "claim of the second job", got, []string{"ep-4", "ep-1"})
				must(t, ex.FinishExtraction(ctx, backlogParams(ns, "job_2", "ep-4", "ep-1")))
				must(t, ex.FinishExtraction(ctx, backlogParams(ns, "job_1", "ep-1")))
				for _, job := range []string{"job_1", "job_2"} {
					got, err = ex.ClaimExtraction(ctx, backlogParams(ns, job))
					must(t, err)
					wantIDs(t, "claim of a finished job", got, nil)
				}
				return nil
			}))
		})
	})

	t.Run("NamespaceIsolation", func(t *testing.T) {
		ctx, st := s.fresh(t)
		must(t, st.QueueExtraction(ctx, backlogParams("alpha", "job_1", "ep-1")))
		must(t, st.QueueExtraction(ctx, backlogParams("beta", "job_2", "ep-1")))
		waiting, err := st.WaitingExtractionJob(ctx, backlogParams("beta", ""))
		must(t, err)
		if waiting != "job_2" {
			t.Errorf("beta's waiting job = %q", waiting)
		}
		// A job of alpha claimed in beta's name takes nothing.
		got, err := st.ClaimExtraction(ctx, backlogParams("beta", "job_1"))
		must(t, err)
		wantIDs(t, "claim of another namespace's job", got, nil)
		got, err = st.ClaimExtraction(ctx, backlogParams("alpha", "job_1"))
		must(t, err)
		wantIDs(t, "alpha's claim", got, []string{"ep-1"})
		must(t, st.FinishExtraction(ctx, backlogParams("beta", "job_1", "ep-1")))
		got, err = st.ClaimExtraction(ctx, backlogParams("alpha", "job_1"))
		must(t, err)
		wantIDs(t, "alpha's share after beta finished", got, []string{"ep-1"})
		got, err = st.ClaimExtraction(ctx, backlogParams("beta", "job_2"))
		must(t, err)
		wantIDs(t, "beta's claim", got, []string{"ep-1"})

		// The operator's count spans namespaces; a namespace whose
		// backlog is done is left out.
		must(t, st.QueueExtraction(ctx, backlogParams("alpha", "", "ep-2")))
		sizes, err := st.ExtractionBacklogs(ctx)
		must(t, err)
		if len(sizes) != 2 || sizes["alpha"] != 2 || sizes["beta"] != 1 {
			t.Errorf("backlogs = %v, want alpha 2, beta 1", sizes)
		}
		must(t, st.FinishExtraction(ctx, backlogParams("beta", "job_2", "ep-1")))
		sizes, err = st.ExtractionBacklogs(ctx)
		must(t, err)
		if len(sizes) != 1 || sizes["alpha"] != 2 {
			t.Errorf("backlogs after beta finished = %v, want alpha 2", sizes)
		}
	})

	t.Run("RolledBack", func(t *testing.T) {
		ctx, st := s.fresh(t)
		boom := errors.New("boom")
		err := st.InTx(ctx, func(tx memory.Executor) error {
			must(t, tx.QueueExtraction(ctx, backlogParams(ns, "job_1", "ep-1")))
			return boom
		})
		wantErr(t, "InTx", err, boom)
		waiting, err := st.WaitingExtractionJob(ctx, backlogParams(ns, ""))
		must(t, err)
		got, err := st.ClaimExtraction(ctx, backlogParams(ns, "job_1"))
		must(t, err)
		if waiting != "" || len(got) != 0 {
			t.Errorf("after a rollback: waiting %q, claimed %v", waiting, got)
		}
	})

	t.Run("InvalidInput", func(t *testing.T) {
		ctx, st := s.fresh(t)
		for _, c := range []struct {
			name string
			call func() error
		}{
			{"waiting in a bad namespace", func() error {
				_, err := st.WaitingExtractionJob(ctx, backlogParams("Bad Namespace!", ""))
				return err
			}},
			{"queue in a bad namespace", func() error { return st.QueueExtraction(ctx, backlogParams("", "job_1", "ep-1")) }},
			{"queue an empty episode id", func() error { return st.QueueExtraction(ctx, backlogParams(ns, "job_1", "")) }},
			{"claim without a job", func() error {
				_, err := st.ClaimExtraction(ctx, backlogParams(ns, ""))
				return err
			}},
			{"finish without a job", func() error { return st.FinishExtraction(ctx, backlogParams(ns, "", "ep-1")) }},
		} {
			wantErr(t, c.name, c.call(), memory.ErrInvalid)
		}
		// Nothing was queued by the refused calls.
		waiting, err := st.WaitingExtractionJob(ctx, backlogParams(ns, ""))
		must(t, err)
		if waiting != "" {
			t.Errorf("a refused call queued job %q", waiting)
		}
	})
}
