package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/memory"
)

const feedbackCols = `namespace, id, retrieval_id, memory_id, version_id, outcome, severity, source,
	used, overlap, task_succeeded, reinforced, usefulness_before, usefulness_after,
	trust_before, trust_after, status_after, created_at`

const (
	qInsertFeedback = `INSERT INTO feedback (` + feedbackCols + `)
	SELECT $1, u.* FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[],
	  $8::text[], $9::bool[], $10::float8[], $11::bool[], $12::bool[], $13::float8[], $14::float8[],
	  $15::float8[], $16::float8[], $17::text[], $18::bigint[]) AS u
	ON CONFLICT DO NOTHING RETURNING id`
	qDeleteFeedback = `DELETE FROM feedback WHERE namespace = $1 AND id = ANY($2)`
)

func decodeFeedback(r pgx.Rows) (*memory.Feedback, error) {
	var (
		f       memory.Feedback
		created int64
	)
	err := r.Scan(&f.Namespace, &f.ID, &f.RetrievalID, &f.MemoryID, &f.VersionID, &f.Outcome, &f.Severity, &f.Source,
		&f.Used, &f.Overlap, &f.TaskSucceeded, &f.Reinforced, &f.UsefulnessBefore, &f.UsefulnessAfter,
		&f.TrustBefore, &f.TrustAfter, &f.StatusAfter, &created)
	if err != nil {
		return nil, err
	}
	f.CreatedAt = fromNanos(created)
	return &f, nil
}

func checkFeedback(p memory.CreateFeedbackParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	for _, f := range p.Feedback {
		if f == nil {
			return memory.Invalidf("nil feedback")
		}
		if err := checkID("feedback", f.ID); err != nil {
			return err
		}
		if err := sameNamespace("feedback", f.ID, f.Namespace, p.Namespace); err != nil {
			return err
		}
		if err := checkID("retrieval", f.RetrievalID); err != nil {
			return err
		}
		if err := checkID("version", f.VersionID); err != nil {
			return err
		}
		if !f.Outcome.Valid() {
			return memory.Invalidf("feedback %s: outcome %q: use helpful, unused or harmful", f.ID, f.Outcome)
		}
		if !f.Source.Valid() {
			return memory.Invalidf("feedback %s: source %q: use user, agent, tool or evaluator", f.ID, f.Source)
		}
		if f.Severity < 0 || f.Severity > 1 {
			return memory.Invalidf("feedback %s: severity %g: use 0 to 1", f.ID, f.Severity)
		}
	}
	return nil
}

func (e *executor) CreateFeedback(ctx context.Context, p memory.CreateFeedbackParams) error {
	if err := checkFeedback(p); err != nil {
		return fmt.Errorf("postgres: create feedback: %w", err)
	}
	n := len(p.Feedback)
	if n == 0 {
		return nil
	}
	var (
		c                                                  enc
		ids, retrievals, mems, vers, outcomes, srcs, after = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		severity, uBefore, uAfter, tBefore, tAfter         = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		overlap                                            = make([]*float64, n)
		used, succeeded, reinforced                        = make([]bool, n), make([]bool, n), make([]bool, n)
		created                                            = make([]int64, n)
	)
	for i, f := range p.Feedback {
		ids[i], retrievals[i], mems[i], vers[i] = f.ID, f.RetrievalID, f.MemoryID, f.VersionID
		outcomes[i], srcs[i], after[i] = string(f.Outcome), string(f.Source), string(f.StatusAfter)
		severity[i], uBefore[i], uAfter[i], tBefore[i], tAfter[i] = f.Severity, f.UsefulnessBefore, f.UsefulnessAfter, f.TrustBefore, f.TrustAfter
		overlap[i] = f.Overlap
		used[i], succeeded[i], reinforced[i] = f.Used, f.TaskSucceeded, f.Reinforced
		created[i] = c.time("created_at", f.CreatedAt)
		if c.err != nil {
			return fmt.Errorf("postgres: create feedback: %w", memory.Within(c.err, "feedback %s", f.ID))
		}
	}
	return e.write(ctx, p.Namespace, "create feedback", func(e *executor) error {
		return e.insertAll(ctx, n, qInsertFeedback,
			[]any{p.Namespace, ids, retrievals, mems, vers, outcomes, severity, srcs, used, overlap,
				succeeded, reinforced, uBefore, uAfter, tBefore, tAfter, after, created},
			func(written []string) error {
				_, err := e.exec(ctx, qDeleteFeedback, p.Namespace, written)
				return err
			})
	})
}

func (e *executor) ListFeedback(ctx context.Context, p memory.ListFeedbackParams) ([]*memory.Feedback, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list feedback: %w", err)
	}
	w := newWhere(p.Namespace)
	if p.RetrievalID != "" {
		w.add("retrieval_id = ?", p.RetrievalID)
	}
	if p.MemoryID != "" {
		w.add("memory_id = ?", p.MemoryID)
	}
	if p.VersionID != "" {
		w.add("version_id = ?", p.VersionID)
	}
	q := `SELECT ` + feedbackCols + ` FROM feedback WHERE namespace = $1` + w.sb.String() +
		` ORDER BY created_at, id LIMIT ` + w.next(limit(p.Limit))
	out, err := collect(ctx, e, decodeFeedback, q, w.args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list feedback: %w", err)
	}
	return out, nil
}
