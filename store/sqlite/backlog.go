package sqlite

import (
	"context"
	"fmt"

	"github.com/mnemon-dev/mnemon/memory"
)

// The extraction backlog (see memory.ExtractionBacklog and migration 0005).

const (
	qWaitingJob    = `SELECT job_id FROM extraction_waiting WHERE namespace = /*ns*/?`
	qSetWaitingJob = `INSERT INTO extraction_waiting (namespace, job_id) VALUES (/*ns*/?, ?)
	ON CONFLICT (namespace) DO UPDATE SET job_id = excluded.job_id`
	qQueueEpisode = `INSERT INTO extraction_backlog (namespace, episode_id, job_id) VALUES (/*ns*/?, ?, '')
	ON CONFLICT DO NOTHING`
	qStopWaiting    = `DELETE FROM extraction_waiting WHERE namespace = /*ns*/? AND job_id = ?`
	qClaimUnclaimed = `UPDATE extraction_backlog SET job_id = ? WHERE namespace = /*ns*/? AND job_id = ''`
	qClaimed        = `SELECT episode_id FROM extraction_backlog WHERE namespace = /*ns*/? AND job_id = ? ORDER BY seq`
	qFinishEpisode  = `DELETE FROM extraction_backlog WHERE namespace = /*ns*/? AND job_id = ? AND episode_id = ?`
	qBacklogs       = `SELECT namespace, COUNT(*) FROM extraction_backlog GROUP BY namespace`
)

var backlogQueries = []string{qWaitingJob, qSetWaitingJob, qQueueEpisode, qStopWaiting, qClaimUnclaimed, qClaimed, qFinishEpisode, qBacklogs}

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
		return "", fmt.Errorf("sqlite: waiting extraction job: %w", err)
	}
	rows, err := e.query(ctx, qWaitingJob, p.Namespace)
	if err != nil {
		return "", fmt.Errorf("sqlite: waiting extraction job: %w", mapErr(err))
	}
	defer rows.Close()
	var id string
	if rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return "", fmt.Errorf("sqlite: waiting extraction job: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("sqlite: waiting extraction job: %w", mapErr(err))
	}
	return id, nil
}

func (e *executor) QueueExtraction(ctx context.Context, p memory.ExtractionParams) error {
	if err := checkBacklog(p, false); err != nil {
		return fmt.Errorf("sqlite: queue extraction: %w", err)
	}
	err := e.atomically(ctx, len(p.EpisodeIDs)+1, func() error {
		for _, id := range p.EpisodeIDs {
			if _, err := e.exec(ctx, qQueueEpisode, p.Namespace, id); err != nil {
				return mapErr(err)
			}
		}
		if p.JobID != "" {
			if _, err := e.exec(ctx, qSetWaitingJob, p.Namespace, p.JobID); err != nil {
				return mapErr(err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: queue extraction: %w", err)
	}
	return nil
}

func (e *executor) ClaimExtraction(ctx context.Context, p memory.ExtractionParams) ([]string, error) {
	ids, err := e.claimExtraction(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sqlite: claim extraction: %w", err)
	}
	return ids, nil
}

func (e *executor) claimExtraction(ctx context.Context, p memory.ExtractionParams) ([]string, error) {
	if err := checkBacklog(p, true); err != nil {
		return nil, err
	}
	err := e.atomically(ctx, 2, func() error {
		res, err := e.exec(ctx, qStopWaiting, p.Namespace, p.JobID)
		if err != nil {
			return mapErr(err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // not the waiting job (a retry): it keeps what it holds
		}
		_, err = e.exec(ctx, qClaimUnclaimed, p.JobID, p.Namespace)
		return mapErr(err)
	})
	if err != nil {
		return nil, err
	}
	rows, err := e.query(ctx, qClaimed, p.Namespace, p.JobID)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, mapErr(rows.Err())
}

func (e *executor) FinishExtraction(ctx context.Context, p memory.ExtractionParams) error {
	if err := checkBacklog(p, true); err != nil {
		return fmt.Errorf("sqlite: finish extraction: %w", err)
	}
	err := e.atomically(ctx, len(p.EpisodeIDs), func() error {
		for _, id := range p.EpisodeIDs {
			if _, err := e.exec(ctx, qFinishEpisode, p.Namespace, p.JobID, id); err != nil {
				return mapErr(err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: finish extraction: %w", err)
	}
	return nil
}

// The Store's backlog methods: the read on the reader pool, writes each in
// a transaction of its own.

func (s *Store) WaitingExtractionJob(ctx context.Context, p memory.ExtractionParams) (string, error) {
	return s.read.WaitingExtractionJob(ctx, p)
}

func (s *Store) QueueExtraction(ctx context.Context, p memory.ExtractionParams) error {
	return s.write(ctx, func(e *executor) error { return e.QueueExtraction(ctx, p) })
}

func (s *Store) ClaimExtraction(ctx context.Context, p memory.ExtractionParams) ([]string, error) {
	var ids []string
	err := s.write(ctx, func(e *executor) error {
		var err error
		ids, err = e.ClaimExtraction(ctx, p)
		return err
	})
	return ids, err
}

func (s *Store) FinishExtraction(ctx context.Context, p memory.ExtractionParams) error {
	return s.write(ctx, func(e *executor) error { return e.FinishExtraction(ctx, p) })
}

// ExtractionBacklogs counts unextracted episodes per namespace.
func (s *Store) ExtractionBacklogs(ctx context.Context) (map[string]int, error) {
	rows, err := s.read.query(ctx, qBacklogs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: extraction backlogs: %w", mapErr(err))
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var (
			ns string
			n  int
		)
		if err := rows.Scan(&ns, &n); err != nil {
			return nil, fmt.Errorf("sqlite: extraction backlogs: %w", err)
		}
		out[nsName(ns)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: extraction backlogs: %w", mapErr(err))
	}
	return out, nil
}
