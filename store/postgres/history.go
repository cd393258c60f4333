package postgres

import (
	"context"
	"fmt"

	"github.com/mnemon-dev/mnemon/memory"
)

// Bounding histories (engine.Compact).

const (
	qHistoryOver = `SELECT memory_id FROM versions
	WHERE namespace = $1 AND status = 'superseded'
	GROUP BY memory_id HAVING count(*) > $2
	ORDER BY memory_id LIMIT $3`
	// The superseded versions beyond the newest $3 (latest observed, then
	// latest written).
	qHistoryDelete = `DELETE FROM versions
	WHERE namespace = $1 AND memory_id = $2 AND status = 'superseded'
	  AND id NOT IN (SELECT id FROM versions
	                 WHERE namespace = $1 AND memory_id = $2 AND status = 'superseded'
	                 ORDER BY observed_at DESC, seq DESC LIMIT $3)
	RETURNING id`
	qHistoryAdmissions = `DELETE FROM admissions WHERE namespace = $1 AND memory_id = $2 AND version_id = ANY($3)`

	qReinforcedOver = `SELECT memory_id FROM admissions
	WHERE namespace = $1 AND operation = 'REINFORCE'
	GROUP BY memory_id HAVING count(*) > $2
	ORDER BY memory_id LIMIT $3`
	qReinforcementsDelete = `DELETE FROM admissions
	WHERE namespace = $1 AND memory_id = $2 AND operation = 'REINFORCE'
	  AND id NOT IN (SELECT id FROM admissions
	                 WHERE namespace = $1 AND memory_id = $2 AND operation = 'REINFORCE'
	                 ORDER BY created_at DESC, id DESC LIMIT $3)`
)

func checkBound(p memory.PruneHistoryParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	if p.Keep < 1 || p.Limit < 1 {
		return memory.Invalidf("keep %d, limit %d: both must be at least 1", p.Keep, p.Limit)
	}
	return nil
}

func (e *executor) PruneHistory(ctx context.Context, p memory.PruneHistoryParams) ([]string, error) {
	if err := checkBound(p); err != nil {
		return nil, fmt.Errorf("postgres: prune history: %w", err)
	}
	var c enc
	now := c.time("now", p.Now)
	if c.err != nil {
		return nil, fmt.Errorf("postgres: prune history: %w", c.err)
	}
	var deleted []string
	err := e.write(ctx, p.Namespace, "prune history", func(e *executor) error {
		deleted = nil
		memIDs, err := e.strs(ctx, qHistoryOver, p.Namespace, p.Keep, p.Limit)
		if err != nil {
			return err
		}
		for _, memID := range memIDs {
			ids, err := e.strs(ctx, qHistoryDelete, p.Namespace, memID, p.Keep)
			if err != nil {
				return err
			}
			if _, err := e.exec(ctx, qHistoryAdmissions, p.Namespace, memID, ids); err != nil {
				return err
			}
			deleted = append(deleted, ids...)
		}
		return e.logChanges(ctx, p.Namespace, deleted, now)
	})
	if err != nil {
		return nil, err
	}
	return deleted, nil
}

func (e *executor) PruneReinforcements(ctx context.Context, p memory.PruneHistoryParams) (int, error) {
	if err := checkBound(p); err != nil {
		return 0, fmt.Errorf("postgres: prune reinforcements: %w", err)
	}
	var deleted int
	err := e.write(ctx, p.Namespace, "prune reinforcements", func(e *executor) error {
		deleted = 0
		memIDs, err := e.strs(ctx, qReinforcedOver, p.Namespace, p.Keep, p.Limit)
		if err != nil {
			return err
		}
		for _, memID := range memIDs {
			tag, err := e.exec(ctx, qReinforcementsDelete, p.Namespace, memID, p.Keep)
			if err != nil {
				return err
			}
			deleted += int(tag.RowsAffected())
		}
		return nil
	})
	return deleted, err
}
