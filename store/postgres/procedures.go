package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/memory"
)

// Procedural memory (memory.ProcedureStore).

const (
	qTaskResults = `SELECT ` + episodeCols + ` FROM episodes
	WHERE namespace = $1 AND kind = 'task_result' ORDER BY occurred_at DESC, id DESC LIMIT $2`
	qSessionTaskResults = `SELECT ` + episodeCols + ` FROM episodes
	WHERE namespace = $1 AND session_id = $3 AND kind = 'task_result' ORDER BY occurred_at DESC, id DESC LIMIT $2`
	qTracesAfter = `SELECT ` + traceCols + ` FROM traces
	WHERE namespace = $1 AND created_at >= $2 ORDER BY created_at, id LIMIT $3`

	procedureUseCols = `namespace, memory_id, session_id, version_id, packed_at, outcome, settled_at`
	// The later packing wins; the outcome stays as settled.
	qRecordUses = `INSERT INTO procedure_uses (` + procedureUseCols + `)
	SELECT $1, u.memory_id, u.session_id, u.version_id, u.packed_at, '', NULL
	FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) AS u(memory_id, session_id, version_id, packed_at)
	ON CONFLICT (namespace, memory_id, session_id) DO UPDATE SET
		version_id = CASE WHEN excluded.packed_at > procedure_uses.packed_at THEN excluded.version_id ELSE procedure_uses.version_id END,
		packed_at = GREATEST(procedure_uses.packed_at, excluded.packed_at)`
	qRestoreUses = `INSERT INTO procedure_uses (` + procedureUseCols + `)
	SELECT $1, u.* FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::bigint[]) AS u
	ON CONFLICT DO NOTHING RETURNING memory_id || chr(31) || session_id`
	qDeleteUses = `DELETE FROM procedure_uses WHERE namespace = $1 AND memory_id || chr(31) || session_id = ANY($2)`
	qSettleUse  = `UPDATE procedure_uses SET outcome = $1, settled_at = $2
	WHERE namespace = $3 AND memory_id = $4 AND session_id = $5 AND outcome = ''`
	qUseExists = `SELECT count(*) FROM procedure_uses WHERE namespace = $1 AND memory_id = $2 AND session_id = $3`
	qCursor    = `SELECT traces_at FROM procedure_cursor WHERE namespace = $1`
	qSetCursor = `INSERT INTO procedure_cursor (namespace, traces_at) VALUES ($1, $2)
	ON CONFLICT (namespace) DO UPDATE SET traces_at = excluded.traces_at`
)

func (e *executor) ListTaskResults(ctx context.Context, p memory.ListTaskResultsParams) ([]*memory.Episode, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list task results: %w", err)
	}
	var (
		out []*memory.Episode
		err error
	)
	if p.SessionID != "" {
		out, err = collect(ctx, e, decodeEpisode, qSessionTaskResults, p.Namespace, limit(p.Limit), p.SessionID)
	} else {
		out, err = collect(ctx, e, decodeEpisode, qTaskResults, p.Namespace, limit(p.Limit))
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: list task results: %w", err)
	}
	return out, nil
}

func (e *executor) ListTracesAfter(ctx context.Context, p memory.ListTracesAfterParams) ([]*memory.Trace, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list traces after: %w", err)
	}
	var c enc
	since := c.time("since", p.Since)
	if c.err != nil {
		return nil, fmt.Errorf("postgres: list traces after: %w", c.err)
	}
	out, err := collect(ctx, e, decodeTrace, qTracesAfter, p.Namespace, since, limit(p.Limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: list traces after: %w", err)
	}
	return out, nil
}

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

func (e *executor) RecordProcedureUses(ctx context.Context, p memory.RecordProcedureUsesParams) error {
	if err := checkProcedureUses(p); err != nil {
		return fmt.Errorf("postgres: record procedure uses: %w", err)
	}
	// One statement cannot upsert a row twice: uses of the same
	// (memory, session) are merged first, the later packing winning (the
	// first of equals, as one upsert after another would keep it).
	type key struct{ mem, session string }
	var (
		c                   enc
		order               []key
		merged              = map[key]*memory.ProcedureUse{}
		mems, sessions, ver []string
		packed              []int64
	)
	for _, u := range p.Uses {
		c.time("packed_at", u.PackedAt)
		if c.err != nil {
			return fmt.Errorf("postgres: record procedure uses: %w", c.err)
		}
		k := key{u.MemoryID, u.SessionID}
		if have, ok := merged[k]; !ok {
			merged[k] = u
			order = append(order, k)
		} else if u.PackedAt.After(have.PackedAt) {
			merged[k] = u
		}
	}
	if len(order) == 0 {
		return nil
	}
	for _, k := range order {
		u := merged[k]
		mems, sessions, ver = append(mems, u.MemoryID), append(sessions, u.SessionID), append(ver, u.VersionID)
		packed = append(packed, c.time("packed_at", u.PackedAt))
	}
	return e.write(ctx, p.Namespace, "record procedure uses", func(e *executor) error {
		_, err := e.exec(ctx, qRecordUses, p.Namespace, mems, sessions, ver, packed)
		return err
	})
}

func (e *executor) RestoreProcedureUses(ctx context.Context, p memory.RecordProcedureUsesParams) error {
	if err := checkProcedureUses(p); err != nil {
		return fmt.Errorf("postgres: restore procedure uses: %w", err)
	}
	var (
		c                              enc
		mems, sessions, vers, outcomes []string
		packed                         []int64
		settled                        []*int64
	)
	for _, u := range p.Uses {
		switch u.Outcome {
		case memory.OutcomePending:
			if u.SettledAt != nil {
				return fmt.Errorf("postgres: restore procedure uses: %w", memory.Invalidf("procedure use of %s in session %q: pending, yet settled_at is set", u.MemoryID, u.SessionID))
			}
		case memory.OutcomeSuccess, memory.OutcomeFailure, memory.OutcomeNone:
			if u.SettledAt == nil {
				return fmt.Errorf("postgres: restore procedure uses: %w", memory.Invalidf("procedure use of %s in session %q: outcome %s without settled_at", u.MemoryID, u.SessionID, u.Outcome))
			}
		default:
			return fmt.Errorf("postgres: restore procedure uses: %w", memory.Invalidf("procedure use of %s in session %q: outcome %q: use \"\" (pending), success, failure or none", u.MemoryID, u.SessionID, u.Outcome))
		}
		mems, sessions, vers, outcomes = append(mems, u.MemoryID), append(sessions, u.SessionID), append(vers, u.VersionID), append(outcomes, u.Outcome)
		packed = append(packed, c.time("packed_at", u.PackedAt))
		settled = append(settled, c.timePtr("settled_at", u.SettledAt))
		if c.err != nil {
			return fmt.Errorf("postgres: restore procedure uses: %w", c.err)
		}
	}
	if len(mems) == 0 {
		return nil
	}
	return e.write(ctx, p.Namespace, "restore procedure uses", func(e *executor) error {
		return e.insertAll(ctx, len(mems), qRestoreUses,
			[]any{p.Namespace, mems, sessions, vers, packed, outcomes, settled},
			func(written []string) error {
				_, err := e.exec(ctx, qDeleteUses, p.Namespace, written)
				return err
			})
	})
}

func decodeProcedureUse(r pgx.Rows) (*memory.ProcedureUse, error) {
	var (
		u       memory.ProcedureUse
		packed  int64
		settled *int64
	)
	if err := r.Scan(&u.Namespace, &u.MemoryID, &u.SessionID, &u.VersionID, &packed, &u.Outcome, &settled); err != nil {
		return nil, err
	}
	u.PackedAt, u.SettledAt = fromNanos(packed), fromNanosPtr(settled)
	return &u, nil
}

func (e *executor) ListProcedureUses(ctx context.Context, p memory.ListProcedureUsesParams) ([]*memory.ProcedureUse, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list procedure uses: %w", err)
	}
	w := newWhere(p.Namespace)
	if len(p.MemoryIDs) > 0 {
		w.add("memory_id = ANY(?)", p.MemoryIDs)
	}
	if p.Pending {
		w.sb.WriteString(" AND outcome = ''")
	}
	q := `SELECT ` + procedureUseCols + ` FROM procedure_uses WHERE namespace = $1` + w.sb.String() +
		` ORDER BY packed_at, memory_id, session_id LIMIT ` + w.next(limit(p.Limit))
	out, err := collect(ctx, e, decodeProcedureUse, q, w.args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list procedure uses: %w", err)
	}
	return out, nil
}

func (e *executor) SettleProcedureUse(ctx context.Context, p memory.SettleProcedureUseParams) error {
	op := "settle procedure use " + p.MemoryID + "/" + p.SessionID
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	if err := checkID("memory", p.MemoryID); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	switch p.Outcome {
	case memory.OutcomeSuccess, memory.OutcomeFailure, memory.OutcomeNone:
	default:
		return fmt.Errorf("postgres: %s: %w", op, memory.Invalidf("outcome %q: use success, failure or none", p.Outcome))
	}
	var c enc
	at := c.time("at", p.At)
	if c.err != nil {
		return fmt.Errorf("postgres: %s: %w", op, c.err)
	}
	return e.write(ctx, p.Namespace, op, func(e *executor) error {
		tag, err := e.exec(ctx, qSettleUse, p.Outcome, at, p.Namespace, p.MemoryID, p.SessionID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		var n int
		if err := e.q.QueryRow(ctx, qUseExists, p.Namespace, p.MemoryID, p.SessionID).Scan(&n); err != nil {
			return mapErr(err)
		}
		if n > 0 {
			return memory.Conflictf(nil, "already settled")
		}
		return memory.ErrNotFound
	})
}

func (e *executor) ProcedureCursor(ctx context.Context, p memory.ScanParams) (time.Time, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return time.Time{}, fmt.Errorf("postgres: procedure cursor: %w", err)
	}
	var n int64
	err := e.q.QueryRow(ctx, qCursor, p.Namespace).Scan(&n)
	switch {
	case errNoRows(err):
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, fmt.Errorf("postgres: procedure cursor: %w", mapErr(err))
	}
	return fromNanos(n), nil
}

func (e *executor) SetProcedureCursor(ctx context.Context, p memory.SetProcedureCursorParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("postgres: set procedure cursor: %w", err)
	}
	var c enc
	at := c.time("at", p.At)
	if c.err != nil {
		return fmt.Errorf("postgres: set procedure cursor: %w", c.err)
	}
	return e.write(ctx, p.Namespace, "set procedure cursor", func(e *executor) error {
		_, err := e.exec(ctx, qSetCursor, p.Namespace, at)
		return err
	})
}
