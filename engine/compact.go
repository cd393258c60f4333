package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// DefaultChangeLogKeep is how long the change log keeps an entry. Other
// processes follow it every half second; one asleep for longer than this
// reloads the namespace instead (memory.ErrChangesPruned).
const DefaultChangeLogKeep = 24 * time.Hour

// DefaultHistoryKeep is how many superseded versions Compact keeps per
// memory: the value before the latest change, and many before it, while a
// slot that flips daily stops growing (and stops slowing its writes, which
// read the slot's history).
const DefaultHistoryKeep = 32

// DefaultReinforcementsKeep is how many reinforcements the admission log
// keeps per memory: the newest, as examples of what restated it; the
// version's reinforcement count keeps the total.
const DefaultReinforcementsKeep = 8

// historyBatch bounds the memories whose history (or reinforcements) one
// Compact prunes.
const historyBatch = 200

// traceBatch bounds the traces one Compact deletes.
const traceBatch = 5000

// CompactReport says what one compaction of a namespace removed.
type CompactReport struct {
	// ChangesPruned is the number of change log entries deleted: writes
	// older than the keep window that every follower has long applied.
	ChangesPruned int `json:"changes_pruned"`
	// VersionsPruned are the superseded versions deleted beyond the
	// newest Config.HistoryKeep of their memory.
	VersionsPruned []string `json:"versions_pruned"`
	// TracesPruned is the number of retrieval traces deleted: older than
	// Config.TraceKeep.
	TracesPruned int `json:"traces_pruned"`
	// ReinforcementsPruned is the number of reinforcement admissions
	// deleted beyond the newest DefaultReinforcementsKeep of their memory.
	ReinforcementsPruned int `json:"reinforcements_pruned"`
	// More: this run pruned history or traces, each bounded per run;
	// another run may find more.
	More bool `json:"more"`
}

// Compact removes what the namespace no longer needs to keep, so storage
// follows what the memory holds rather than how long it has run:
// superseded versions beyond the newest Config.HistoryKeep of each memory
// (a slot restated and changed every day otherwise grows without end),
// reinforcements in the admission log beyond the newest
// DefaultReinforcementsKeep of each memory (the count stays on the version),
// retrieval traces older than Config.TraceKeep (about 20 KiB each, one per
// retrieval: the largest record of an agent that recalls every turn), then
// change log entries older than Config.ChangeLogKeep (the one record that
// grows with every write). Running it twice changes nothing the second
// time.
func (e *Engine) Compact(ctx context.Context, ns string) (*CompactReport, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	rep := &CompactReport{VersionsPruned: []string{}}
	if e.historyKeep > 0 {
		if err := e.pruneHistory(ctx, ns, rep); err != nil {
			return nil, fmt.Errorf("compact %s: %w", ns, err)
		}
	}
	pruned, err := e.store.PruneReinforcements(ctx, memory.PruneHistoryParams{Namespace: ns, Keep: DefaultReinforcementsKeep, Limit: historyBatch, Now: e.clock.Now()})
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", ns, err)
	}
	rep.ReinforcementsPruned = pruned
	rep.More = rep.More || pruned > 0
	// Traces first flushed, so none still queued is older than the cutoff
	// and written after the prune.
	e.traces.Flush()
	traces, err := e.store.PruneTraces(ctx, memory.PruneTracesParams{Namespace: ns, Before: e.clock.Now().Add(-e.traceKeep), Limit: traceBatch})
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", ns, err)
	}
	rep.TracesPruned = traces
	rep.More = rep.More || traces == traceBatch
	n, err := e.store.PruneChanges(ctx, memory.PruneChangesParams{Namespace: ns, Before: e.clock.Now().Add(-e.changeLogKeep)})
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", ns, err)
	}
	rep.ChangesPruned = n
	return rep, nil
}

// pruneHistory deletes old superseded versions under the namespace's
// writer lock, so the index loses them in the same order the store does.
func (e *Engine) pruneHistory(ctx context.Context, ns string, rep *CompactReport) error {
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return err
	}
	defer unlock()
	ids, err := e.store.PruneHistory(ctx, memory.PruneHistoryParams{Namespace: ns, Keep: e.historyKeep, Limit: historyBatch, Now: e.clock.Now()})
	if err != nil {
		return err
	}
	for _, id := range ids {
		st.Drop(id)
	}
	rep.VersionsPruned = append(rep.VersionsPruned, ids...)
	rep.More = len(ids) > 0
	return nil
}
