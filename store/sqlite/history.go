package sqlite

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemon-dev/mnemon/memory"
)

// Bounding a memory's history (see memory.Pruning.PruneHistory).

const (
	// The memories with more superseded versions than are kept; the
	// grouping walks versions_not_active in memory order (status <> 'active'
	// lets the planner use that partial index).
	qHistoryOver = `SELECT memory_id FROM versions
	WHERE namespace = /*ns*/? AND status = 'superseded' AND status <> 'active'
	GROUP BY memory_id HAVING COUNT(*) > ?
	ORDER BY memory_id LIMIT ?`
	// The newest are the latest observed (then the latest written): a late
	// statement about the distant past gets the highest seq but is the
	// oldest history, and the value just before the current one stays.
	// "+status" keeps the planner on the memory's own versions
	// (namespace, memory_id).
	qHistoryDelete = `DELETE FROM versions
	WHERE namespace = /*ns*/? AND memory_id = ? AND +status = 'superseded'
	  AND id NOT IN (SELECT id FROM versions
	                 WHERE namespace = /*ns*/? AND memory_id = ? AND +status = 'superseded'
	                 ORDER BY observed_at DESC, seq DESC LIMIT ?)
	RETURNING id`
	qHistoryAdmissions = `DELETE FROM admissions WHERE namespace = /*ns*/?1 AND substr(memory_id, -8) = substr(?2, -8) AND memory_id = ?2
	  AND memory_id <> '' AND version_id = ?3`
)

func (e *executor) PruneHistory(ctx context.Context, p memory.PruneHistoryParams) ([]string, error) {
	out, err := e.pruneHistory(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sqlite: prune history: %w", err)
	}
	return out, nil
}

func (e *executor) pruneHistory(ctx context.Context, p memory.PruneHistoryParams) ([]string, error) {
	var c encoder
	now := c.time("now", p.Now)
	if c.err != nil {
		return nil, c.err
	}
	var deleted []string
	err := e.eachOverBound(ctx, p, qHistoryOver, func(memID string) error {
		mid := idArg(memID)
		ids, err := e.strings(ctx, qHistoryDelete, p.Namespace, mid, p.Namespace, mid, p.Keep)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := e.exec(ctx, qHistoryAdmissions, p.Namespace, mid, idArg(id)); err != nil {
				return mapErr(err)
			}
			// Logged like any version write: a follower finds the
			// version gone and drops it from its index.
			if err := e.logChange(ctx, p.Namespace, id, now); err != nil {
				return err
			}
		}
		deleted = append(deleted, ids...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return deleted, nil
}

// eachOverBound runs step, all in one savepoint, for each of at most
// p.Limit memories of the namespace that the query over (namespace, keep,
// limit) finds holding more than p.Keep of something.
func (e *executor) eachOverBound(ctx context.Context, p memory.PruneHistoryParams, over string, step func(memID string) error) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	if p.Keep < 1 || p.Limit < 1 {
		return memory.Invalidf("keep %d, limit %d: both must be at least 1", p.Keep, p.Limit)
	}
	return e.atomically(ctx, 2, func() error {
		memIDs, err := e.strings(ctx, over, p.Namespace, p.Keep, p.Limit)
		if err != nil {
			return err
		}
		for _, memID := range memIDs {
			if err := step(memID); err != nil {
				return err
			}
		}
		return nil
	})
}

// reinforceLiteral names REINFORCE as admissions store it (migration 0027:
// symNames' code), in the queries and in admissions_reinforcements' condition.
var reinforceLiteral = symLiteral(string(memory.OpReinforce))

var (
	// Both walk admissions_reinforcements (a partial index of the
	// REINFORCE rows only).
	qReinforcedOver = `SELECT memory_id FROM admissions
	WHERE namespace = /*ns*/? AND operation = ` + reinforceLiteral + `
	GROUP BY memory_id HAVING COUNT(*) > ?
	ORDER BY memory_id LIMIT ?`
	qReinforcementsDelete = `DELETE FROM admissions
	WHERE namespace = /*ns*/? AND memory_id = ? AND operation = ` + reinforceLiteral + `
	  AND id NOT IN (SELECT id FROM admissions
	                 WHERE namespace = /*ns*/? AND memory_id = ? AND operation = ` + reinforceLiteral + `
	                 ORDER BY created_at DESC, id DESC LIMIT ?)`
)

func (e *executor) PruneReinforcements(ctx context.Context, p memory.PruneHistoryParams) (int, error) {
	n, err := e.pruneReinforcements(ctx, p)
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune reinforcements: %w", err)
	}
	return n, nil
}

func (e *executor) pruneReinforcements(ctx context.Context, p memory.PruneHistoryParams) (int, error) {
	var deleted int64
	err := e.eachOverBound(ctx, p, qReinforcedOver, func(memID string) error {
		mid := idArg(memID)
		res, err := e.exec(ctx, qReinforcementsDelete, p.Namespace, mid, p.Namespace, mid, p.Keep)
		if err != nil {
			return mapErr(err)
		}
		n, err := res.RowsAffected()
		deleted += n
		return err
	})
	if err != nil {
		return 0, err
	}
	return int(deleted), nil
}

func (s *Store) PruneReinforcements(ctx context.Context, p memory.PruneHistoryParams) (int, error) {
	var n int
	err := s.write(ctx, func(e *executor) (err error) {
		n, err = e.PruneReinforcements(ctx, p)
		return err
	})
	return n, err
}

// strings runs a query of one text column: ids of the tables that store
// them compactly (ids.go) come back as their text.
func (e *executor) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := e.query(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(idScan{&s}); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, s)
	}
	return out, mapErr(errors.Join(rows.Err(), rows.Close()))
}

func (s *Store) PruneHistory(ctx context.Context, p memory.PruneHistoryParams) ([]string, error) {
	var out []string
	err := s.write(ctx, func(e *executor) (err error) {
		out, err = e.PruneHistory(ctx, p)
		return err
	})
	return out, err
}

// The oldest traces first, by traces_by_time; bounded per call.
const qPruneTraces = `DELETE FROM traces WHERE namespace = /*ns*/? AND id IN (
	SELECT id FROM traces WHERE namespace = /*ns*/? AND created_at < ?
	ORDER BY created_at, id LIMIT ?)`

func (e *executor) PruneTraces(ctx context.Context, p memory.PruneTracesParams) (int, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return 0, fmt.Errorf("sqlite: prune traces: %w", err)
	}
	if p.Before.IsZero() || p.Limit < 1 {
		return 0, fmt.Errorf("sqlite: prune traces: %w", memory.Invalidf("a cutoff and a limit of at least 1 are required"))
	}
	var c encoder
	before := c.time("before", p.Before)
	if c.err != nil {
		return 0, fmt.Errorf("sqlite: prune traces: %w", c.err)
	}
	res, err := e.exec(ctx, qPruneTraces, p.Namespace, p.Namespace, before, p.Limit)
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune traces: %w", mapErr(err))
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (s *Store) PruneTraces(ctx context.Context, p memory.PruneTracesParams) (int, error) {
	var n int
	err := s.write(ctx, func(e *executor) (err error) {
		n, err = e.PruneTraces(ctx, p)
		return err
	})
	return n, err
}
