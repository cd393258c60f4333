package engine

import (
	"context"
	"sync"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// Following the store's change log. A namespace's index is built from the
// store once and then kept current by this process's own writes; versions
// another process writes (a 'mnemon worker' beside 'mnemon serve', another
// server on the same database) reach it through the change log, which the
// store appends to on every version write (see index.Set.Sync).
//
// Polling is the floor: every interval each held namespace reads the log
// past its position. A store that can say when a change commits
// (memory.ChangeWatcher: PostgreSQL's LISTEN/NOTIFY) wakes the follower at
// once for the namespace written, so another replica's write is visible
// here in milliseconds rather than up to an interval later.

// SyncChanges applies to the index of every loaded namespace what other
// processes wrote since it was loaded or last synced.
func (e *Engine) SyncChanges(ctx context.Context) error {
	return e.index.Sync(ctx)
}

// watchRetry is how long a failed change watch waits before listening
// again (polling goes on meanwhile).
const watchRetry = time.Second

// Follow calls SyncChanges every interval until ctx ends or the engine is
// closed (Close waits for it to return), and, when the store is a
// memory.ChangeWatcher, syncs a namespace as soon as the store reports a
// commit to it. A failed sync is logged and tried again at the next tick;
// nothing is skipped.
func (e *Engine) Follow(ctx context.Context, every time.Duration) {
	if !e.track() {
		return
	}
	defer e.background.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(e.done, cancel)()
	w := newWakes()
	var watching sync.WaitGroup
	if cw, ok := e.store.(memory.ChangeWatcher); ok {
		watching.Add(1)
		go func() {
			defer watching.Done()
			e.watch(ctx, cw, w)
		}()
	}
	defer watching.Wait()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.take() // a full sync covers what was reported
			if err := e.SyncChanges(ctx); err != nil && ctx.Err() == nil {
				e.log.Warn("following other processes' writes failed; retrying", "error", err)
			}
		case <-w.ch:
			nss, all := w.take()
			var err error
			if all {
				err = e.SyncChanges(ctx)
			}
			for _, ns := range nss {
				if err != nil {
					break
				}
				err = e.index.SyncNamespace(ctx, ns)
			}
			if err != nil && ctx.Err() == nil {
				e.log.Warn("following other processes' writes failed; retrying at the next poll", "error", err)
			}
		}
	}
}

// watch listens for commits until ctx ends, listening again after a
// failure; each time it starts listening it asks for a full sync, since
// commits made while it was not listening were not reported.
func (e *Engine) watch(ctx context.Context, cw memory.ChangeWatcher, w *wakes) {
	for {
		err := cw.WatchChanges(ctx, func() { w.add("", true) }, func(ns string) { w.add(ns, false) })
		if ctx.Err() != nil {
			return
		}
		e.log.Warn("listening for other processes' writes failed; polling until it listens again", "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(watchRetry):
		}
	}
}

// wakes gathers the namespaces reported since the follower last looked:
// reports arriving while it syncs are coalesced into one wake-up.
type wakes struct {
	ch  chan struct{}
	mu  sync.Mutex
	nss map[string]struct{}
	all bool
}

func newWakes() *wakes {
	return &wakes{ch: make(chan struct{}, 1), nss: make(map[string]struct{})}
}

func (w *wakes) add(ns string, all bool) {
	w.mu.Lock()
	if all {
		w.all = true
	} else {
		w.nss[ns] = struct{}{}
	}
	w.mu.Unlock()
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

func (w *wakes) take() ([]string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	nss := make([]string, 0, len(w.nss))
	for ns := range w.nss {
		nss = append(nss, ns)
	}
	clear(w.nss)
	all := w.all
	w.all = false
	return nss, all
}

// IndexLag reports the held namespace whose index has missed committed
// changes the longest, when that is longer than bound, and how long (see
// index.Set.Lag); "" when every index is within bound.
func (e *Engine) IndexLag(ctx context.Context, bound time.Duration) (string, time.Duration, error) {
	return e.index.Lag(ctx, bound)
}

// IndexMemory returns the estimated bytes of the held indexes and how
// many namespaces the memory cap has evicted since start.
func (e *Engine) IndexMemory() (bytes, evictions int64) {
	return e.index.MemoryBytes(), e.index.Evictions()
}
