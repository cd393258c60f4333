package engine

import (
	"context"
	"errors"
	"fmt"
)

// MaintainReport says what one maintenance run did in a namespace, one
// field per step.
type MaintainReport struct {
	Namespace string `json:"namespace"`
	// Reembed gives vectors of the engine's embedder to versions that
	// carry another's (after an upgrade changed the default embedder).
	Reembed   *ReembedReport   `json:"reembed,omitempty"`
	Lifecycle *LifecycleReport `json:"lifecycle,omitempty"`
	Dedupe    *DedupeReport    `json:"dedupe,omitempty"`
	// Consolidation summarises sessions older than the minimum age,
	// forgets their raw episodes once retention falls below the floor,
	// purges them, and folds the sessions left with nothing else into
	// their month's digest.
	Consolidation *ConsolidateReport `json:"consolidation,omitempty"`
	// Procedures promotes procedures, counts failures against them and
	// flags stale ones.
	Procedures *ProcedureReport `json:"procedures,omitempty"`
	// Compaction removes what no longer needs keeping: old history,
	// reinforcements and traces, and the change log's old entries.
	Compaction *CompactReport `json:"compaction,omitempty"`
}

// maintainStep is one step of a maintenance run.
type maintainStep struct {
	name string
	run  func(ctx context.Context, e *Engine, ns string, rep *MaintainReport) error
}

// maintainSteps returns the steps of a maintenance run, in order. Each is
// idempotent and bounded, so the run is too. A new step (consolidation,
// procedure promotion) is one more entry here and one field in
// MaintainReport.
func maintainSteps() []maintainStep {
	return []maintainStep{
		{"reembed", func(ctx context.Context, e *Engine, ns string, rep *MaintainReport) (err error) {
			rep.Reembed, err = e.Reembed(ctx, ReembedParams{Namespace: ns})
			return err
		}},
		{"lifecycle", func(ctx context.Context, e *Engine, ns string, rep *MaintainReport) (err error) {
			rep.Lifecycle, err = e.Lifecycle(ctx, LifecycleParams{Namespace: ns})
			return err
		}},
		{"dedupe", func(ctx context.Context, e *Engine, ns string, rep *MaintainReport) (err error) {
			rep.Dedupe, err = e.Dedupe(ctx, DedupeParams{Namespace: ns, Threshold: e.dedupeThreshold})
			return err
		}},
		{"consolidation", func(ctx context.Context, e *Engine, ns string, rep *MaintainReport) (err error) {
			rep.Consolidation, err = e.ConsolidateDue(ctx, ns)
			return err
		}},
		{"procedures", func(ctx context.Context, e *Engine, ns string, rep *MaintainReport) (err error) {
			rep.Procedures, err = e.PromoteProcedures(ctx, ns)
			return err
		}},
		{"compaction", func(ctx context.Context, e *Engine, ns string, rep *MaintainReport) (err error) {
			rep.Compaction, err = e.Compact(ctx, ns)
			return err
		}},
	}
}

// Maintain runs the periodic maintenance of a namespace: re-embedding of
// vectors from another embedder (a bounded share per run), lifecycle (expiry,
// decay, contests), dedupe, consolidation of old sessions, procedure
// promotion, then compaction. The periodic job calls it for every
// namespace; running it twice in a row changes nothing the second time.
func (e *Engine) Maintain(ctx context.Context, ns string) (*MaintainReport, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("maintain: %w", err)
	}
	rep := &MaintainReport{Namespace: ns}
	for _, s := range maintainSteps() {
		if err := s.run(ctx, e, ns, rep); err != nil {
			return rep, fmt.Errorf("maintain %s: %s: %w", ns, s.name, err)
		}
	}
	return rep, nil
}

// MaintainAll runs Maintain over every namespace of the store, in name
// order. A namespace that fails does not stop the others; the reports of
// those that ran are returned with the errors joined.
func (e *Engine) MaintainAll(ctx context.Context) ([]*MaintainReport, error) {
	nss, err := e.store.Namespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("maintain: %w", err)
	}
	var (
		reps []*MaintainReport
		errs []error
	)
	for _, ns := range nss {
		if err := ctx.Err(); err != nil {
			return reps, err
		}
		rep, err := e.Maintain(ctx, ns)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reps = append(reps, rep)
	}
	return reps, errors.Join(errs...)
}
