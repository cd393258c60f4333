package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// Procedural promotion's reads and bookkeeping (see memory.Procedures
// and migration 0009).

const (
	// kind = 'task_result' is written out, not bound: SQLite uses a
	// partial index only when the query's WHERE implies the index's.
	// Purged task results (in the episode archive) are not listed: the
	// purge replaced the metadata that said how the task ended.
	qTaskResults = `SELECT ` + episodeCols + ` FROM episodes
	WHERE namespace = /*ns*/? AND kind = 'task_result' ORDER BY occurred_at DESC, id DESC LIMIT ?`
	qSessionTaskResults = `SELECT ` + episodeCols + ` FROM episodes
	WHERE namespace = /*ns*/? AND session_id = ? AND kind = 'task_result' ORDER BY occurred_at DESC, id DESC LIMIT ?`
	qTracesAfter = `SELECT ` + traceCols + ` FROM traces
	WHERE namespace = /*ns*/? AND created_at >= ? ORDER BY created_at, id LIMIT ?`

	procedureUseCols = `namespace, memory_id, session_id, version_id, packed_at, outcome, settled_at`
	qRecordUse       = `INSERT INTO procedure_uses (` + procedureUseCols + `) VALUES (/*ns*/?, ?, ?, ?, ?, '', NULL)
	ON CONFLICT (namespace, memory_id, session_id) DO UPDATE SET
		version_id = CASE WHEN excluded.packed_at > packed_at THEN excluded.version_id ELSE version_id END,
		packed_at = max(packed_at, excluded.packed_at)`
	qRestoreUse = `INSERT INTO procedure_uses (` + procedureUseCols + `) VALUES (/*ns*/?, ?, ?, ?, ?, ?, ?)`
	qSettleUse  = `UPDATE procedure_uses SET outcome = ?, settled_at = ?
	WHERE namespace = /*ns*/? AND memory_id = ? AND session_id = ? AND outcome = ''`
	qUseExists = `SELECT 1 FROM procedure_uses WHERE namespace = /*ns*/? AND memory_id = ? AND session_id = ?`
	qCursor    = `SELECT traces_at FROM procedure_cursor WHERE namespace = /*ns*/?`
	qSetCursor = `INSERT INTO procedure_cursor (namespace, traces_at) VALUES (/*ns*/?, ?)
	ON CONFLICT (namespace) DO UPDATE SET traces_at = excluded.traces_at`
)

func (e *executor) ListTaskResults(ctx context.Context, p memory.ListTaskResultsParams) ([]*memory.Episode, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("sqlite: list task results: %w", err)
	}
	var (
		out []*memory.Episode
		err error
	)
	if p.SessionID != "" {
		out, err = collect(ctx, e, decodeEpisode, qSessionTaskResults, p.Namespace, p.SessionID, limitArg(p.Limit))
	} else {
		out, err = collect(ctx, e, decodeEpisode, qTaskResults, p.Namespace, limitArg(p.Limit))
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: list task results: %w", err)
	}
	return out, nil
}

func (e *executor) ListTracesAfter(ctx context.Context, p memory.ListTracesAfterParams) ([]*memory.Trace, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("sqlite: list traces after: %w", err)
	}
	var c encoder
	since := c.time("since", p.Since)
	if c.err != nil {
		return nil, fmt.Errorf("sqlite: list traces after: %w", c.err)
	}
	out, err := collect(ctx, e, decodeTrace, qTracesAfter, p.Namespace, since, limitArg(p.Limit))
	if err != nil {
		return nil, fmt.Errorf("sqlite: list traces after: %w", err)
	}
	return out, nil
}

func (e *executor) RecordProcedureUses(ctx context.Context, p memory.RecordProcedureUsesParams) error {
	if err := e.recordProcedureUses(ctx, p); err != nil {
		return fmt.Errorf("sqlite: record procedure uses: %w", err)
	}
	return nil
}

// checkProcedureUses checks what recording and restoring uses share: the
// namespace, and each use's ids and namespace.
func checkProcedureUses(p memory.RecordProcedureUsesParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	for _, u := range p.Uses {
		if u == nil {
			return memory.Invalidf("nil procedure use")
		}
		if err := checkID("memory", u.MemoryID); err != nil {
			return err
		}
		if err := checkID("version", u.VersionID); err != nil {
			return err
		}
		if err := sameNamespace("procedure use of", u.MemoryID, u.Namespace, p.Namespace); err != nil {
			return err
		}
	}
	return nil
}

func (e *executor) recordProcedureUses(ctx context.Context, p memory.RecordProcedureUsesParams) error {
	if err := checkProcedureUses(p); err != nil {
		return err
	}
	return e.atomically(ctx, len(p.Uses), func() error {
		for _, u := range p.Uses {
			var c encoder
			packed := c.time("packed_at", u.PackedAt)
			if c.err != nil {
				return c.err
			}
			if _, err := e.exec(ctx, qRecordUse, p.Namespace, u.MemoryID, u.SessionID, u.VersionID, packed); err != nil {
				return mapErr(err)
			}
		}
		return nil
	})
}

func (e *executor) RestoreProcedureUses(ctx context.Context, p memory.RecordProcedureUsesParams) error {
	if err := e.restoreProcedureUses(ctx, p); err != nil {
		return fmt.Errorf("sqlite: restore procedure uses: %w", err)
	}
	return nil
}

func (e *executor) restoreProcedureUses(ctx context.Context, p memory.RecordProcedureUsesParams) error {
	if err := checkProcedureUses(p); err != nil {
		return err
	}
	for _, u := range p.Uses {
		switch u.Outcome {
		case memory.OutcomePending:
			if u.SettledAt != nil {
				return memory.Invalidf("procedure use of %s in session %q: pending, yet settled_at is set", u.MemoryID, u.SessionID)
			}
		case memory.OutcomeSuccess, memory.OutcomeFailure, memory.OutcomeNone:
			if u.SettledAt == nil {
				return memory.Invalidf("procedure use of %s in session %q: outcome %s without settled_at", u.MemoryID, u.SessionID, u.Outcome)
			}
		default:
			return memory.Invalidf("procedure use of %s in session %q: outcome %q: use \"\" (pending), success, failure or none", u.MemoryID, u.SessionID, u.Outcome)
		}
	}
	return e.atomically(ctx, len(p.Uses), func() error {
		for _, u := range p.Uses {
			var c encoder
			args := []any{p.Namespace, u.MemoryID, u.SessionID, u.VersionID, c.time("packed_at", u.PackedAt),
				u.Outcome, c.timePtr("settled_at", u.SettledAt)}
			if c.err != nil {
				return c.err
			}
			if _, err := e.exec(ctx, qRestoreUse, args...); err != nil {
				return memory.Within(mapErr(err), "procedure use of %s in session %q", u.MemoryID, u.SessionID)
			}
		}
		return nil
	})
}

func decodeProcedureUse(d *decoder) *memory.ProcedureUse {
	return &memory.ProcedureUse{
		Namespace: d.ns(),
		MemoryID:  d.sym(),
		SessionID: d.sym(),
		VersionID: d.sym(),
		PackedAt:  d.time(),
		Outcome:   d.sym(),
		SettledAt: d.timePtr(),
	}
}

func listProcedureUsesQuery(p memory.ListProcedureUsesParams) (string, []any, error) {
	w := where{args: []any{p.Namespace}}
	if len(p.MemoryIDs) > 0 {
		w.in("memory_id", p.MemoryIDs)
	}
	if p.Pending {
		w.sb.WriteString(" AND outcome = ''")
	}
	w.args = append(w.args, limitArg(p.Limit))
	return `SELECT ` + procedureUseCols + ` FROM procedure_uses WHERE namespace = /*ns*/?` + w.sb.String() +
		` ORDER BY packed_at, memory_id, session_id LIMIT ?`, w.args, w.err
}

func (e *executor) ListProcedureUses(ctx context.Context, p memory.ListProcedureUsesParams) ([]*memory.ProcedureUse, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) { return listProcedureUsesQuery(p) }, decodeProcedureUse)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list procedure uses: %w", err)
	}
	return out, nil
}

func (e *executor) SettleProcedureUse(ctx context.Context, p memory.SettleProcedureUseParams) error {
	if err := e.settleProcedureUse(ctx, p); err != nil {
		return fmt.Errorf("sqlite: settle procedure use %s/%s: %w", p.MemoryID, p.SessionID, err)
	}
	return nil
}

func (e *executor) settleProcedureUse(ctx context.Context, p memory.SettleProcedureUseParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	if err := checkID("memory", p.MemoryID); err != nil {
		return err
	}
	switch p.Outcome {
	case memory.OutcomeSuccess, memory.OutcomeFailure, memory.OutcomeNone:
	default:
		return memory.Invalidf("outcome %q: use success, failure or none", p.Outcome)
	}
	var c encoder
	at := c.time("at", p.At)
	if c.err != nil {
		return c.err
	}
	res, err := e.exec(ctx, qSettleUse, p.Outcome, at, p.Namespace, p.MemoryID, p.SessionID)
	if err != nil {
		return mapErr(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 1 {
		return nil
	}
	rows, err := e.query(ctx, qUseExists, p.Namespace, p.MemoryID, p.SessionID)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	if rows.Next() {
		return memory.Conflictf(nil, "already settled")
	}
	if err := rows.Err(); err != nil {
		return mapErr(err)
	}
	return memory.ErrNotFound
}

func (e *executor) ProcedureCursor(ctx context.Context, p memory.ScanParams) (time.Time, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return time.Time{}, fmt.Errorf("sqlite: procedure cursor: %w", err)
	}
	rows, err := e.query(ctx, qCursor, p.Namespace)
	if err != nil {
		return time.Time{}, fmt.Errorf("sqlite: procedure cursor: %w", mapErr(err))
	}
	defer rows.Close()
	var at time.Time
	if rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return time.Time{}, fmt.Errorf("sqlite: procedure cursor: %w", err)
		}
		if n != zeroTimeNanos {
			at = time.Unix(0, n).UTC()
		}
	}
	if err := rows.Err(); err != nil {
		return time.Time{}, fmt.Errorf("sqlite: procedure cursor: %w", mapErr(err))
	}
	return at, nil
}

func (e *executor) SetProcedureCursor(ctx context.Context, p memory.SetProcedureCursorParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("sqlite: set procedure cursor: %w", err)
	}
	var c encoder
	at := c.time("at", p.At)
	if c.err != nil {
		return fmt.Errorf("sqlite: set procedure cursor: %w", c.err)
	}
	if _, err := e.exec(ctx, qSetCursor, p.Namespace, at); err != nil {
		return fmt.Errorf("sqlite: set procedure cursor: %w", mapErr(err))
	}
	return nil
}

func (s *Store) ListTaskResults(ctx context.Context, p memory.ListTaskResultsParams) ([]*memory.Episode, error) {
	return s.read.ListTaskResults(ctx, p)
}

func (s *Store) ListTracesAfter(ctx context.Context, p memory.ListTracesAfterParams) ([]*memory.Trace, error) {
	return s.read.ListTracesAfter(ctx, p)
}

func (s *Store) RecordProcedureUses(ctx context.Context, p memory.RecordProcedureUsesParams) error {
	return s.write(ctx, func(e *executor) error { return e.RecordProcedureUses(ctx, p) })
}

func (s *Store) RestoreProcedureUses(ctx context.Context, p memory.RecordProcedureUsesParams) error {
	return s.write(ctx, func(e *executor) error { return e.RestoreProcedureUses(ctx, p) })
}

func (s *Store) ListProcedureUses(ctx context.Context, p memory.ListProcedureUsesParams) ([]*memory.ProcedureUse, error) {
	return s.read.ListProcedureUses(ctx, p)
}

func (s *Store) SettleProcedureUse(ctx context.Context, p memory.SettleProcedureUseParams) error {
	return s.write(ctx, func(e *executor) error { return e.SettleProcedureUse(ctx, p) })
}

func (s *Store) ProcedureCursor(ctx context.Context, p memory.ScanParams) (time.Time, error) {
	return s.read.ProcedureCursor(ctx, p)
}

func (s *Store) SetProcedureCursor(ctx context.Context, p memory.SetProcedureCursorParams) error {
	return s.write(ctx, func(e *executor) error { return e.SetProcedureCursor(ctx, p) })
}
