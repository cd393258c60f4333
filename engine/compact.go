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

// CompactReport says what one compaction of a namespace removed.
type CompactReport struct {
	// ChangesPruned is the number of change log entries deleted: writes
	// older than the keep window that every follower has long applied.
	ChangesPruned int `json:"changes_pruned"`
}

// Compact removes what the namespace no longer needs to keep: change log
// entries older than the keep window (Config.ChangeLogKeep). The log is
// the one record that grows with every write whatever the memory holds;
// without this it outgrew the rest of a consolidated store. Running it
// twice changes nothing the second time.
func (e *Engine) Compact(ctx context.Context, ns string) (*CompactReport, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	n, err := e.store.PruneChanges(ctx, memory.PruneChangesParams{Namespace: ns, Before: e.clock.Now().Add(-e.changeLogKeep)})
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", ns, err)
	}
	return &CompactReport{ChangesPruned: n}, nil
}
