package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// The change log (see memory.Executor and migration 0006): createVersion
// and updateVersionState append to it.

const (
	qInsertChange = `INSERT INTO changes (namespace, version_id, updated_at) VALUES (?, ?, ?)`
	qListChanges  = `SELECT seq, version_id, updated_at FROM changes
	WHERE namespace = ? AND seq > ? ORDER BY seq LIMIT ?`
	qLastChange = `SELECT COALESCE(MAX(seq), 0) FROM changes WHERE namespace = ?`
)

var changeQueries = []string{qInsertChange, qListChanges, qLastChange}

// logChange appends a version write to the change log.
func (e *executor) logChange(ctx context.Context, ns, versionID string, updatedAt int64) error {
	_, err := e.exec(ctx, qInsertChange, ns, versionID, updatedAt)
	return mapErr(err)
}

func (e *executor) ListChanges(ctx context.Context, p memory.ListChangesParams) ([]memory.Change, error) {
	out, err := e.listChanges(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list changes: %w", err)
	}
	return out, nil
}

func (e *executor) listChanges(ctx context.Context, p memory.ListChangesParams) ([]memory.Change, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, err
	}
	if p.After < 0 || p.Limit < 0 {
		return nil, memory.Invalidf("after %d, limit %d: must not be negative", p.After, p.Limit)
	}
	limit := int64(p.Limit)
	if limit == 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := e.query(ctx, qListChanges, p.Namespace, p.After, limit)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []memory.Change
	for rows.Next() {
		var (
			c       memory.Change
			updated int64
		)
		if err := rows.Scan(&c.Seq, &c.VersionID, &updated); err != nil {
			return nil, err
		}
		if updated != zeroTimeNanos {
			c.UpdatedAt = time.Unix(0, updated).UTC()
		}
		out = append(out, c)
	}
	return out, mapErr(rows.Err())
}

func (e *executor) LastChange(ctx context.Context, p memory.ScanParams) (int64, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return 0, fmt.Errorf("sqlite: last change: %w", err)
	}
	rows, err := e.query(ctx, qLastChange, p.Namespace)
	if err != nil {
		return 0, fmt.Errorf("sqlite: last change: %w", mapErr(err))
	}
	defer rows.Close()
	var seq int64
	if rows.Next() {
		if err := rows.Scan(&seq); err != nil {
			return 0, fmt.Errorf("sqlite: last change: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sqlite: last change: %w", mapErr(err))
	}
	return seq, nil
}

func (s *Store) ListChanges(ctx context.Context, p memory.ListChangesParams) ([]memory.Change, error) {
	return s.read.ListChanges(ctx, p)
}

func (s *Store) LastChange(ctx context.Context, p memory.ScanParams) (int64, error) {
	return s.read.LastChange(ctx, p)
}
