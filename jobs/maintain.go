package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/mnemon-dev/mnemon/engine"
)

// KindMaintain is the periodic maintenance job: engine.Maintain over every
// namespace (lifecycle, then dedupe).
const KindMaintain = "mnemon_maintain"

// DefaultMaintainEvery is how often maintenance runs when the caller does
// not say.
const DefaultMaintainEvery = time.Hour

// queueMaintain is the maintenance job's own queue, with one worker: a
// long run never takes an extraction worker's place.
const queueMaintain = "maintenance"

// maintainTimeout bounds one maintenance run: longer than an extraction,
// since it walks every namespace, but bounded so a stuck run is retried.
const maintainTimeout = 30 * time.Minute

// maintainArgs is the stored payload of a maintenance job. An empty
// namespace means every namespace.
type maintainArgs struct {
	Namespace string `json:"namespace,omitempty"`
	PublicID  string `json:"public_id"` // see NewID
}

func (maintainArgs) Kind() string { return KindMaintain }

type maintainWorker struct {
	river.WorkerDefaults[maintainArgs]
	eng *engine.Engine
	log *slog.Logger
}

func (w *maintainWorker) Timeout(*river.Job[maintainArgs]) time.Duration { return maintainTimeout }

func (w *maintainWorker) Work(ctx context.Context, job *river.Job[maintainArgs]) error {
	var (
		reps []*engine.MaintainReport
		err  error
	)
	if ns := job.Args.Namespace; ns != "" {
		var rep *engine.MaintainReport
		if rep, err = w.eng.Maintain(ctx, ns); rep != nil {
			reps = append(reps, rep)
		}
	} else {
		reps, err = w.eng.MaintainAll(ctx)
	}
	for _, r := range reps {
		args := []any{"job_id", idOf(job.JobRow), "namespace", r.Namespace}
		if lc := r.Lifecycle; lc != nil {
			args = append(args, "expired", lc.Expired, "floored", lc.Floored, "decayed", lc.Decayed,
				"contests_resolved", lc.ContestsResolved, "lifecycle_more", lc.More)
		}
		if d := r.Dedupe; d != nil {
			args = append(args, "deduped", d.Superseded, "dedupe_more", d.More)
		}
		if c := r.Consolidation; c != nil {
			folded := 0
			for _, f := range c.Folded {
				folded += len(f.Sessions)
			}
			args = append(args, "sessions_consolidated", len(c.Sessions), "episodes_forgotten", len(c.Forgotten),
				"episodes_purged", len(c.Purged), "sessions_folded", folded, "consolidation_more", c.More)
		}
		if c := r.Compaction; c != nil {
			args = append(args, "versions_pruned", len(c.VersionsPruned), "reinforcements_pruned", c.ReinforcementsPruned,
				"traces_pruned", c.TracesPruned, "changes_pruned", c.ChangesPruned)
		}
		w.log.Info("maintenance ran", args...)
	}
	if err == nil {
		return nil
	}
	w.log.Error("maintenance job failed", "job_id", idOf(job.JobRow), "attempt", job.Attempt, "error", err)
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return errors.New("maintenance was interrupted; it runs again (every step is idempotent)")
	}
	return errors.New("maintenance failed with an internal error; the server log has the details")
}

// addMaintenance registers the maintenance worker and, when every > 0,
// schedules it every interval, the first time one interval after start
// (a restart has recovery work to do first). River runs periodic
// jobs on its elected leader only, so many workers on one database run
// it once per interval, not once each; a unique period keeps a slow run
// from piling up copies.
func addMaintenance(workers *river.Workers, rc *river.Config, eng *engine.Engine, log *slog.Logger, every time.Duration) error {
	if err := river.AddWorkerSafely(workers, &maintainWorker{eng: eng, log: log}); err != nil {
		return err
	}
	rc.Queues[queueMaintain] = river.QueueConfig{MaxWorkers: 1}
	if every <= 0 {
		return nil
	}
	// River refuses unique periods under a second.
	unique := river.UniqueOpts{ByPeriod: max(every, time.Second)}
	rc.PeriodicJobs = append(rc.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(every),
		func() (river.JobArgs, *river.InsertOpts) {
			return maintainArgs{PublicID: NewID()}, &river.InsertOpts{Queue: queueMaintain, UniqueOpts: unique}
		}, &river.PeriodicJobOpts{ID: KindMaintain}))
	return nil
}
