package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/memory"
)

// The extraction backlog (see memory.Executor). Captures made while a
// namespace's job waits add their episodes unclaimed (job_id ''); the job
// claims them when it starts and deletes each once extracted.

const (
	qWaitingJob    = `SELECT job_id FROM extraction_waiting WHERE namespace = $1`
	qSetWaitingJob = `INSERT INTO extraction_waiting (namespace, job_id) VALUES ($1, $2)
	ON CONFLICT (namespace) DO UPDATE SET job_id = excluded.job_id`
	// Rows take their seq in the order the episodes are listed; an episode
	// already unclaimed keeps its place.
	qQueueEpisodes = `INSERT INTO extraction_backlog (namespace, episode_id, job_id)
	SELECT $1, id, '' FROM unnest($2::text[]) WITH ORDINALITY AS u(id, n) ORDER BY n
	ON CONFLICT DO NOTHING`
	qStopWaiting    = `DELETE FROM extraction_waiting WHERE namespace = $1 AND job_id = $2`
	qClaimUnclaimed = `UPDATE extraction_backlog SET job_id = $1 WHERE namespace = $2 AND job_id = ''`
	qClaimed        = `SELECT episode_id FROM extraction_backlog WHERE namespace = $1 AND job_id = $2 ORDER BY seq`
	qFinishEpisodes = `DELETE FROM extraction_backlog WHERE namespace = $1 AND job_id = $2 AND episode_id = ANY($3)`
	qBacklogs       = `SELECT namespace, count(*) FROM extraction_backlog GROUP BY namespace`
)

func checkBacklog(p memory.ExtractionParams, needJob bool) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	if needJob && p.JobID == "" {
		return memory.Invalidf("no job id")
	}
	for _, id := range p.EpisodeIDs {
		if err := checkID("episode", id); err != nil {
			return err
		}
	}
	return nil
}

func (e *executor) WaitingExtractionJob(ctx context.Context, p memory.ExtractionParams) (string, error) {
	if err := checkBacklog(p, false); err != nil {
		return "", fmt.Errorf("postgres: waiting extraction job: %w", err)
	}
	ids, err := e.strs(ctx, qWaitingJob, p.Namespace)
	if err != nil {
		return "", fmt.Errorf("postgres: waiting extraction job: %w", err)
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[0], nil
}

func (e *executor) QueueExtraction(ctx context.Context, p memory.ExtractionParams) error {
	if err := checkBacklog(p, false); err != nil {
		return fmt.Errorf("postgres: queue extraction: %w", err)
	}
	return e.write(ctx, p.Namespace, "queue extraction", func(e *executor) error {
		if len(p.EpisodeIDs) > 0 {
			if _, err := e.exec(ctx, qQueueEpisodes, p.Namespace, p.EpisodeIDs); err != nil {
				return err
			}
		}
		if p.JobID != "" {
			if _, err := e.exec(ctx, qSetWaitingJob, p.Namespace, p.JobID); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *executor) ClaimExtraction(ctx context.Context, p memory.ExtractionParams) ([]string, error) {
	if err := checkBacklog(p, true); err != nil {
		return nil, fmt.Errorf("postgres: claim extraction: %w", err)
	}
	var ids []string
	err := e.write(ctx, p.Namespace, "claim extraction", func(e *executor) error {
		tag, err := e.exec(ctx, qStopWaiting, p.Namespace, p.JobID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() > 0 { // else not the waiting job (a retry): it keeps what it holds
			if _, err := e.exec(ctx, qClaimUnclaimed, p.JobID, p.Namespace); err != nil {
				return err
			}
		}
		ids, err = e.strs(ctx, qClaimed, p.Namespace, p.JobID)
		return err
	})
	return ids, err
}

func (e *executor) FinishExtraction(ctx context.Context, p memory.ExtractionParams) error {
	if err := checkBacklog(p, true); err != nil {
		return fmt.Errorf("postgres: finish extraction: %w", err)
	}
	if len(p.EpisodeIDs) == 0 {
		return nil
	}
	return e.write(ctx, p.Namespace, "finish extraction", func(e *executor) error {
		_, err := e.exec(ctx, qFinishEpisodes, p.Namespace, p.JobID, p.EpisodeIDs)
		return err
	})
}

// ExtractionBacklogs counts each namespace's backlog (operators' metrics).
func (s *Store) ExtractionBacklogs(ctx context.Context) (map[string]int, error) {
	type count struct {
		ns string
		n  int
	}
	rows, err := collect(ctx, s.executor, func(r pgx.Rows) (count, error) {
		var c count
		return c, r.Scan(&c.ns, &c.n)
	}, qBacklogs)
	if err != nil {
		return nil, fmt.Errorf("postgres: extraction backlogs: %w", err)
	}
	out := make(map[string]int, len(rows))
	for _, c := range rows {
		out[c.ns] = c.n
	}
	return out, nil
}
