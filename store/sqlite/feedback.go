package sqlite

import (
	"context"
	"fmt"

	"github.com/mnemon-dev/mnemon/memory"
)

// Feedback events (see memory.FeedbackLog and migration 0007).

const feedbackCols = `namespace, id, retrieval_id, memory_id, version_id, outcome, severity, source,
	used, overlap, task_succeeded, reinforced, usefulness_before, usefulness_after,
	trust_before, trust_after, status_after, created_at`

const qInsertFeedback = `INSERT INTO feedback (` + feedbackCols + `)
	VALUES (/*ns*/?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func decodeFeedback(d *decoder) *memory.Feedback {
	f := &memory.Feedback{
		Namespace:   d.ns(),
		ID:          d.str(),
		RetrievalID: d.str(),
		MemoryID:    d.str(),
		VersionID:   d.str(),
		Outcome:     memory.FeedbackOutcome(d.sym()),
		Severity:    d.float(),
		Source:      memory.FeedbackSource(d.sym()),
		Used:        d.bool(),
	}
	if d.i < d.n && d.src.kind(d.i) == kindNull {
		d.i++
	} else {
		o := d.float()
		f.Overlap = &o
	}
	f.TaskSucceeded = d.bool()
	f.Reinforced = d.bool()
	f.UsefulnessBefore = d.float()
	f.UsefulnessAfter = d.float()
	f.TrustBefore = d.float()
	f.TrustAfter = d.float()
	f.StatusAfter = memory.Status(d.sym())
	f.CreatedAt = d.time()
	return f
}

func (e *executor) CreateFeedback(ctx context.Context, p memory.CreateFeedbackParams) error {
	if err := e.createFeedback(ctx, p); err != nil {
		return fmt.Errorf("sqlite: create feedback: %w", err)
	}
	return nil
}

func (e *executor) createFeedback(ctx context.Context, p memory.CreateFeedbackParams) error {
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
	return e.atomically(ctx, len(p.Feedback), func() error {
		for _, f := range p.Feedback {
			var c encoder
			var overlap any
			if f.Overlap != nil {
				overlap = *f.Overlap
			}
			args := []any{
				p.Namespace, f.ID, f.RetrievalID, f.MemoryID, f.VersionID, string(f.Outcome), f.Severity,
				string(f.Source), boolInt(f.Used), overlap, boolInt(f.TaskSucceeded), boolInt(f.Reinforced),
				f.UsefulnessBefore, f.UsefulnessAfter, f.TrustBefore, f.TrustAfter, string(f.StatusAfter),
				c.time("created_at", f.CreatedAt),
			}
			if c.err != nil {
				return memory.Within(c.err, "feedback %s", f.ID)
			}
			if _, err := e.exec(ctx, qInsertFeedback, args...); err != nil {
				return memory.Within(mapErr(err), "feedback %s", f.ID)
			}
		}
		return nil
	})
}

func listFeedbackQuery(p memory.ListFeedbackParams) (string, []any, error) {
	w := where{args: []any{p.Namespace}}
	if p.RetrievalID != "" {
		w.eq("retrieval_id", p.RetrievalID)
	}
	if p.MemoryID != "" {
		w.eq("memory_id", p.MemoryID)
	}
	if p.VersionID != "" {
		w.eq("version_id", p.VersionID)
	}
	w.args = append(w.args, limitArg(p.Limit))
	return `SELECT ` + feedbackCols + ` FROM feedback WHERE namespace = /*ns*/?` + w.sb.String() +
		` ORDER BY created_at, id LIMIT ?`, w.args, w.err
}

func (e *executor) ListFeedback(ctx context.Context, p memory.ListFeedbackParams) ([]*memory.Feedback, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) { return listFeedbackQuery(p) }, decodeFeedback)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list feedback: %w", err)
	}
	return out, nil
}

func (s *Store) CreateFeedback(ctx context.Context, p memory.CreateFeedbackParams) error {
	return s.write(ctx, func(e *executor) error { return e.CreateFeedback(ctx, p) })
}

func (s *Store) ListFeedback(ctx context.Context, p memory.ListFeedbackParams) ([]*memory.Feedback, error) {
	return s.read.ListFeedback(ctx, p)
}
