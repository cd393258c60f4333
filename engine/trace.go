package engine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// traceWriter persists retrieval traces off the read path, in batches: one
// transaction (and one fsync) for many traces instead of one per query.
// A trace is readable through Get the moment its retrieval returns; it is
// on disk within flushEvery. Traces are diagnostics, not acknowledged
// memory writes: a crash may lose the last few milliseconds of them.
type traceWriter struct {
	store memory.Transactor // traces are written in batches, one transaction each
	log   *slog.Logger

	flushMu sync.Mutex // one flush at a time, from taking the queue to commit
	mu      sync.Mutex
	pending map[string]*memory.Trace // not yet committed
	queue   []*memory.Trace
	queued  chan struct{} // the queue stopped being empty
	wake    chan struct{} // flush now: the queue is full, or the writer closes
	closed  bool
	done    chan struct{}
}

const (
	flushEvery    = 20 * time.Millisecond
	maxTraceBatch = 512
)

func newTraceWriter(store memory.Transactor, log *slog.Logger) *traceWriter {
	w := &traceWriter{
		store:   store,
		log:     log,
		pending: make(map[string]*memory.Trace),
		queued:  make(chan struct{}, 1),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	go w.run()
	return w
}

// Add queues a trace for writing.
func (w *traceWriter) Add(t *memory.Trace) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		w.write([]*memory.Trace{t})
		return
	}
	w.pending[t.ID] = t
	w.queue = append(w.queue, t)
	first, full := len(w.queue) == 1, len(w.queue) >= maxTraceBatch
	w.mu.Unlock()
	if first {
		select {
		case w.queued <- struct{}{}:
		default:
		}
	}
	if full {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// Get returns a trace still waiting to be written.
func (w *traceWriter) Get(ns, id string) (*memory.Trace, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.pending[id]
	if !ok || t.Namespace != ns {
		return nil, false
	}
	return t, true
}

// Flush writes every queued trace now, and waits for a write already under
// way, so every trace added before the call is in the store after it.
func (w *traceWriter) Flush() {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	batch := w.queue
	w.queue = nil
	w.mu.Unlock()
	if len(batch) > 0 {
		w.write(batch)
	}
}

// run flushes flushEvery after a trace arrives in an empty queue, so the
// traces of that time share a commit. With nothing queued it sleeps: an
// idle server wakes for nothing.
func (w *traceWriter) run() {
	defer close(w.done)
	for {
		select {
		case <-w.queued:
			t := time.NewTimer(flushEvery)
			select {
			case <-t.C:
			case <-w.wake:
				t.Stop()
			}
		case <-w.wake:
		}
		w.Flush()
		w.mu.Lock()
		closed := w.closed
		w.mu.Unlock()
		if closed {
			w.Flush()
			return
		}
	}
}

// write commits a batch, grouped by namespace, and forgets it as pending.
func (w *traceWriter) write(batch []*memory.Trace) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := w.store.InTx(ctx, func(tx memory.Executor) error {
		if bc, ok := tx.(memory.TraceBatchCreator); ok {
			return bc.CreateTraces(ctx, batch)
		}
		for _, t := range batch {
			if err := tx.CreateTrace(ctx, t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		w.log.Error("write retrieval traces", "count", len(batch), "err", err)
	}
	w.mu.Lock()
	for _, t := range batch {
		delete(w.pending, t.ID)
	}
	w.mu.Unlock()
}

// Close writes what is queued and stops the writer.
func (w *traceWriter) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	<-w.done
	return nil
}
