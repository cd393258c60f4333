package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// The change log (see memory.ChangeLog and migration 0006): createVersion
// and updateVersionState append to it.

const (
	// seq is the namespace's newest + 1 (migration 0021: the log is keyed
	// (namespace, seq), WITHOUT ROWID); the probe reads the leaf the insert
	// writes. Writers are serialised, so two cannot take the same number.
	qInsertChange = `INSERT INTO changes (namespace, seq, version_id, updated_at)
	VALUES (?1, coalesce((SELECT max(seq) FROM changes WHERE namespace = /*ns*/?1), 0) + 1, ?2, ?3)`
	// One statement reads the horizon with the entries, so a prune cannot
	// slip between the two: a row with seq -1 says entries after the
	// position asked for were pruned.
	qListChanges = `SELECT seq, version_id, updated_at FROM changes
	WHERE namespace = /*ns*/? AND seq > ?
	UNION ALL
	SELECT -1, '', 0 FROM change_horizons WHERE namespace = /*ns*/? AND pruned_through > ?
	ORDER BY 1 LIMIT ?`
	// The newest entry written before the cutoff, but never the namespace's
	// newest: sequence numbers are the namespace's max + 1, so keeping the
	// newest row keeps them from being handed out again.
	qPruneCut = `SELECT COALESCE(MAX(seq), 0) FROM changes
	WHERE namespace = /*ns*/? AND updated_at < ?
	  AND seq < (SELECT MAX(seq) FROM changes WHERE namespace = /*ns*/?)`
	qPruneChanges = `DELETE FROM changes WHERE namespace = /*ns*/? AND seq <= ?`
	qPutHorizon   = `INSERT INTO change_horizons (namespace, pruned_through) VALUES (/*ns*/?, ?)
	ON CONFLICT (namespace) DO UPDATE SET pruned_through = MAX(pruned_through, excluded.pruned_through)`
	qLastChange = `SELECT COALESCE(MAX(seq), 0) FROM changes WHERE namespace = /*ns*/?`
)

var changeQueries = []string{qInsertChange, qListChanges, qLastChange, qPruneCut, qPruneChanges, qPutHorizon}

// logChange appends a version write to the change log.
func (e *executor) logChange(ctx context.Context, ns, versionID string, updatedAt int64) error {
	_, err := e.exec(ctx, qInsertChange, ns, idArg(versionID), updatedAt)
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
	rows, err := e.query(ctx, qListChanges, p.Namespace, p.After, p.Namespace, p.After, limit)
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
		if err := rows.Scan(&c.Seq, idScan{&c.VersionID}, &updated); err != nil {
			return nil, err
		}
		if c.Seq < 0 {
			return nil, memory.ErrChangesPruned
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
	seq, err := e.int64Of(ctx, qLastChange, p.Namespace)
	if err != nil {
		return 0, fmt.Errorf("sqlite: last change: %w", err)
	}
	return seq, nil
}

// int64Of runs a query of one integer (0 when it returns no row).
func (e *executor) int64Of(ctx context.Context, q string, args ...any) (int64, error) {
	rows, err := e.query(ctx, q, args...)
	if err != nil {
		return 0, mapErr(err)
	}
	defer rows.Close()
	var v int64
	if rows.Next() {
		if err := rows.Scan(&v); err != nil {
			return 0, err
		}
	}
	return v, mapErr(rows.Err())
}

func (e *executor) PruneChanges(ctx context.Context, p memory.PruneChangesParams) (int, error) {
	n, err := e.pruneChanges(ctx, p)
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune changes: %w", err)
	}
	return n, nil
}

func (e *executor) pruneChanges(ctx context.Context, p memory.PruneChangesParams) (int, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return 0, err
	}
	if p.Before.IsZero() {
		return 0, memory.Invalidf("prune changes: no cutoff")
	}
	var c encoder
	before := c.time("before", p.Before)
	if c.err != nil {
		return 0, c.err
	}
	var n int64
	err := e.atomically(ctx, 3, func() error {
		cut, err := e.int64Of(ctx, qPruneCut, p.Namespace, before, p.Namespace)
		if err != nil {
			return err
		}
		if cut == 0 {
			return nil
		}
		res, err := e.exec(ctx, qPruneChanges, p.Namespace, cut)
		if err != nil {
			return mapErr(err)
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = e.exec(ctx, qPutHorizon, p.Namespace, cut)
		return mapErr(err)
	})
	return int(n), err
}

func (s *Store) PruneChanges(ctx context.Context, p memory.PruneChangesParams) (int, error) {
	var n int
	err := s.write(ctx, func(e *executor) (err error) {
		n, err = e.PruneChanges(ctx, p)
		return err
	})
	return n, err
}

func (s *Store) ListChanges(ctx context.Context, p memory.ListChangesParams) ([]memory.Change, error) {
	return s.read.ListChanges(ctx, p)
}

func (s *Store) LastChange(ctx context.Context, p memory.ScanParams) (int64, error) {
	return s.read.LastChange(ctx, p)
}
