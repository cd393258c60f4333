package engine

import (
	"context"
	"time"
)

// Following the store's change log. A namespace's index is built from the
// store once and then kept current by this process's own writes; versions
// another process writes (a 'mnemon worker' beside 'mnemon serve', another
// server on the same database) reach it through the change log, which the
// store appends to on every version write (see index.Set.Sync).

// SyncChanges applies to the index of every loaded namespace what other
// processes wrote since it was loaded or last synced.
func (e *Engine) SyncChanges(ctx context.Context) error {
	return e.index.Sync(ctx)
}

// Follow calls SyncChanges every interval until ctx ends or the engine is
// closed (Close waits for it to return). A failed sync is logged and tried
// again at the next tick; nothing is skipped.
func (e *Engine) Follow(ctx context.Context, every time.Duration) {
	if !e.track() {
		return
	}
	defer e.background.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(e.done, cancel)()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := e.SyncChanges(ctx); err != nil && ctx.Err() == nil {
				e.log.Warn("following other processes' writes failed; retrying", "error", err)
			}
		}
	}
}
