package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/mnemon-dev/mnemon/engine"
)

// KindReembed re-embeds, in every namespace, the memories whose vectors
// come from another embedder than the engine's (engine.ReembedAll). Start
// inserts it when there are any, so a database written by an older mnemon
// gets the current embedder's vectors in the background while the server
// answers. Each batch commits on its own: a run stopped by a kill or a
// restart leaves its work done, and the next one (the next start's job, a
// retry, or a maintenance run) carries on from there.
const KindReembed = "mnemon_reembed"

type reembedArgs struct {
	PublicID string `json:"public_id"` // see NewID
}

func (reembedArgs) Kind() string { return KindReembed }

type reembedWorker struct {
	river.WorkerDefaults[reembedArgs]
	eng *engine.Engine
	log *slog.Logger
}

func (w *reembedWorker) Timeout(*river.Job[reembedArgs]) time.Duration { return maintainTimeout }

// reembedLogEvery spaces the progress lines of a long run.
const reembedLogEvery = 5 * time.Second

func (w *reembedWorker) Work(ctx context.Context, job *river.Job[reembedArgs]) error {
	last := time.Now()
	reps, err := w.eng.ReembedAll(ctx, func(ns string, done, total int) {
		if time.Since(last) >= reembedLogEvery || done == total {
			last = time.Now()
			w.log.Info("re-embedding", "job_id", idOf(job.JobRow), "namespace", ns, "done", done, "total", total)
		}
	})
	for _, r := range reps {
		if r.Stale > 0 {
			w.log.Info("re-embedded", "job_id", idOf(job.JobRow), "namespace", r.Namespace, "embedder", r.Embedder,
				"reembedded", r.Reembedded, "stale", r.Stale)
		}
	}
	if err == nil {
		return nil
	}
	w.log.Error("re-embedding failed", "job_id", idOf(job.JobRow), "attempt", job.Attempt, "error", err)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return errors.New("re-embedding was interrupted; it carries on where it stopped")
	}
	return errors.New("re-embedding failed with an internal error; the server log has the details")
}

// addReembed registers the re-embedding worker on the maintenance queue.
// The job is inserted by Start, and only when some memory needs it; the
// maintenance runs re-embed a bounded share too (engine.Maintain).
func addReembed(workers *river.Workers, eng *engine.Engine, log *slog.Logger) error {
	return river.AddWorkerSafely(workers, &reembedWorker{eng: eng, log: log})
}

// enqueueReembed inserts a re-embedding job when any namespace holds
// vectors of another embedder (it loads every namespace's index to know,
// as a server's start does anyway). A job already waiting in the last hour
// is not inserted again, so workers starting together insert one.
func (q *Queue) enqueueReembed(ctx context.Context) error {
	n, err := q.cfg.Engine.StaleEmbeddingsAll(ctx)
	if err != nil || n == 0 {
		return err
	}
	_, err = q.client.Insert(ctx, reembedArgs{PublicID: NewID()}, &river.InsertOpts{
		Queue: queueMaintain, UniqueOpts: river.UniqueOpts{ByPeriod: time.Hour},
	})
	return err
}
