package engine

import (
	"context"
	"log/slog"
	"slices"
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
	pending map[string]*memory.Trace     // not yet committed
	reuse   map[*memory.Trace]*traceBufs // of pending traces: their memory, reused once written
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
		reuse:   make(map[*memory.Trace]*traceBufs),
		queued:  make(chan struct{}, 1),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	go w.run()
	return w
}

// Add queues a trace for writing.
func (w *traceWriter) Add(t *memory.Trace) { w.AddReusing(t, nil) }

// AddReusing queues a trace for writing; once it is written, bufs (may be
// nil), which holds its items and what they point into, goes back to
// traceBufPool. Nothing may keep t after the call: Get hands out copies.
func (w *traceWriter) AddReusing(t *memory.Trace, bufs *traceBufs) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		w.write([]*memory.Trace{t})
		bufs.release()
		return
	}
	w.pending[t.ID] = t
	if bufs != nil {
		w.reuse[t] = bufs
	}
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

// Get returns a copy of a trace still waiting to be written: its items,
// their channel hits and terms are its own (the trace's are reused once
// written).
func (w *traceWriter) Get(ns, id string) (*memory.Trace, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.pending[id]
	if !ok || t.Namespace != ns {
		return nil, false
	}
	c := *t
	if t.Items != nil {
		c.Items = slices.Clone(t.Items)
		for i := range c.Items {
			c.Items[i].Channels = slices.Clone(c.Items[i].Channels)
			c.Items[i].Terms = slices.Clone(c.Items[i].Terms)
		}
	}
	return &c, true
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
		if b, ok := w.reuse[t]; ok {
			delete(w.reuse, t)
			b.release()
		}
	}
	w.mu.Unlock()
}

// traceBufs is the memory of a retrieval's trace that the trace writer
// can reuse once the trace is written: the items, and the arrays of
// channel hits and terms that fuse gives the candidates and the items
// keep (some 40 KB of a peers-workload retrieval's 80 KB). Nothing else
// keeps them: a result's items copy what they show (Item.Channels and
// Item.Terms are maps), and Get copies a pending trace.
type traceBufs struct {
	items []memory.TraceItem
	hits  []memory.NamedChannelHit
	terms []memory.Term
}

var traceBufPool = sync.Pool{New: func() any { return new(traceBufs) }}

// hitsAndTerms returns arrays of nh channel hits and nt terms, from b when
// not nil. Their old values need no clearing: fuse hands them out as
// empty slices to append to, each within its own share.
func (b *traceBufs) hitsAndTerms(nh, nt int) ([]memory.NamedChannelHit, []memory.Term) {
	if b == nil {
		return make([]memory.NamedChannelHit, nh), make([]memory.Term, nt)
	}
	if b.hits == nil || cap(b.hits) < nh { // never nil, as make's
		b.hits = make([]memory.NamedChannelHit, nh+nh/4)
	}
	if b.terms == nil || cap(b.terms) < nt {
		b.terms = make([]memory.Term, nt+nt/4)
	}
	return b.hits[:nh], b.terms[:nt]
}

// traceItems returns n trace items, from b when not nil; the retrieval
// sets each whole.
func (b *traceBufs) traceItems(n int) []memory.TraceItem {
	if b == nil {
		return make([]memory.TraceItem, n)
	}
	if b.items == nil || cap(b.items) < n { // never nil: a trace of no candidates has items []
		b.items = make([]memory.TraceItem, n+n/4)
	}
	return b.items[:n:n]
}

// release puts b back into traceBufPool (nil: nothing).
func (b *traceBufs) release() {
	if b == nil {
		return
	}
	traceBufPool.Put(b)
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
