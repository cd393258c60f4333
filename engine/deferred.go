package engine

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// ExtractJob is a queued extraction. A job of CaptureDeferred names only
// its namespace: it extracts the share of the namespace's extraction
// backlog it claims when it starts (see memory.ExtractionBacklog). A job naming
// EpisodeIDs extracts those (the form queued by earlier releases).
type ExtractJob struct {
	Namespace  string   `json:"namespace"`
	EpisodeIDs []string `json:"episode_ids,omitempty"`
	// JobID is the queue's id of the job, set by the worker that runs it
	// (not part of the stored job): the backlog knows a job by it.
	JobID string `json:"-"`
}

// Enqueue schedules job inside tx, the transaction that stores its
// episodes, and returns the job's id: the episodes and the promise to
// extract them commit together or not at all.
type Enqueue func(ctx context.Context, tx memory.Executor, job ExtractJob) (string, error)

// DeferredCapture is the acknowledgement of a capture whose extraction runs
// later: the episodes are stored, in event order, and the job is queued.
type DeferredCapture struct {
	EpisodeIDs []string `json:"episode_ids"`
	JobID      string   `json:"job_id"`
}

// CaptureDeferred stores events as episodes and enqueues their extraction
// in the same transaction, so a service can acknowledge a capture as soon
// as it is durable. A retried capture (same kind, speaker, scope, time and
// content) stores nothing new and answers with the stored episode ids; its
// job finds the work done and changes nothing.
//
// Concurrent captures of one namespace share a transaction (group commit):
// while one transaction commits, the captures that arrive queue up and
// commit together in the next, so one commit acknowledges many of them. If
// the shared transaction fails, every capture in it fails and none is
// stored.
//
// The episodes join the namespace's extraction backlog. A job is enqueued
// only when none is waiting to start: the captures made while one waits
// join its share, so under load one job extracts many captures, and a
// capture costs a small insert rather than a queue insert (and later a
// fetch and a completion) of its own. Each capture's answer names the job
// that will extract it. The job is enqueued with the first capture's
// enqueue: every capture of one Engine must pass the same queue.
func (e *Engine) CaptureDeferred(ctx context.Context, p CaptureParams, enqueue Enqueue) (*DeferredCapture, error) {
	if enqueue == nil {
		return nil, fmt.Errorf("capture: no job queue configured")
	}
	ns, evs, err := e.captureEvents(p)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	e.capturing.enter()
	defer e.capturing.leave()
	call := &captureCall{evs: evs, enqueue: enqueue, done: make(chan struct{})}
	g, _ := e.captures.LoadOrStore(ns, &captureGroup{})
	group := g.(*captureGroup)
	group.mu.Lock()
	group.pending = append(group.pending, call)
	lead := !group.leading
	group.leading = group.leading || lead
	group.mu.Unlock()
	if lead {
		// The leader runs on its own goroutine, so no caller waits for
		// batches queued after its own. After Close, this caller leads.
		if e.track() {
			go func() {
				defer e.background.Done()
				e.leadCaptures(ns, group)
			}()
		} else {
			e.leadCaptures(ns, group)
		}
	}
	select {
	case <-call.done:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		// The capture may still commit (or have committed: a select
		// with both ready picks at random): the caller learns it was
		// not acknowledged, and a retry is recognised as a duplicate.
		return nil, fmt.Errorf("capture: %w", err)
	}
	if call.err != nil {
		return nil, fmt.Errorf("capture: %w", call.err)
	}
	return call.res, nil
}

// captureCall is one deferred capture waiting for its group's commit.
type captureCall struct {
	evs     []*pendingEvent
	enqueue Enqueue
	res     *DeferredCapture
	err     error
	done    chan struct{}
}

// captureGroup queues a namespace's deferred captures; one caller at a time
// leads, committing everything queued, until the queue is empty.
type captureGroup struct {
	mu      sync.Mutex
	pending []*captureCall
	leading bool
}

// maxGroupEvents bounds one group transaction.
const maxGroupEvents = MaxEvents

func (e *Engine) leadCaptures(ns string, g *captureGroup) {
	for {
		g.mu.Lock()
		n, events := 0, 0
		for n < len(g.pending) && (n == 0 || events+len(g.pending[n].evs) <= maxGroupEvents) {
			events += len(g.pending[n].evs)
			n++
		}
		batch := g.pending[:n:n]
		g.pending = g.pending[n:]
		if len(batch) == 0 {
			g.leading = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		// The batch belongs to several requests: one caller giving up
		// must not fail the others, so it runs on its own deadline.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := e.commitCaptures(ctx, ns, batch)
		cancel()
		for _, c := range batch {
			if err != nil {
				c.err, c.res = err, nil
			}
			close(c.done)
		}
	}
}

// commitCaptures writes a batch of captures' episodes and their jobs in one
// transaction.
func (e *Engine) commitCaptures(ctx context.Context, ns string, batch []*captureCall) error {
	// No namespace lock: a capture touches no index state, and SQLite runs
	// write transactions one at a time (BEGIN IMMEDIATE), so the duplicate
	// check below sees every committed episode. Taking the lock would queue
	// captures behind extraction jobs' reconciliation. A store with
	// concurrent writers must serialise a namespace's captures itself.
	var all []*pendingEvent
	for _, c := range batch {
		all = append(all, c.evs...)
	}
	return e.store.InTx(ctx, func(tx memory.Executor) error {
		if err := e.storeEpisodes(ctx, tx, ns, all); err != nil {
			return err
		}
		// A retried capture's episodes join the backlog again: the job
		// named in its answer must not finish before they are extracted,
		// and a job finds an episode already extracted and skips it.
		var queued []string
		seen := make(map[string]bool, len(all))
		for _, c := range batch {
			c.res = &DeferredCapture{EpisodeIDs: make([]string, 0, len(c.evs))}
			for _, pe := range c.evs {
				id := pe.ep.ID
				if pe.dupOf != "" {
					id = pe.dupOf
				}
				c.res.EpisodeIDs = append(c.res.EpisodeIDs, id)
				if !seen[id] {
					seen[id] = true
					queued = append(queued, id)
				}
			}
		}
		jobID, err := tx.WaitingExtractionJob(ctx, memory.ExtractionParams{Namespace: ns})
		if err != nil {
			return err
		}
		newJob := ""
		if jobID == "" {
			if jobID, err = batch[0].enqueue(ctx, tx, ExtractJob{Namespace: ns}); err != nil {
				return err
			}
			newJob = jobID
		}
		if err := tx.QueueExtraction(ctx, memory.ExtractionParams{Namespace: ns, JobID: newJob, EpisodeIDs: queued}); err != nil {
			return err
		}
		for _, c := range batch {
			c.res.JobID = jobID
		}
		return nil
	})
}

// Extraction yields to captures: it commits at most extractChunk episodes
// per transaction, before each waits up to captureYield for captures in
// flight, and after each, while captures are in flight, pauses as long as
// the chunk took. Under a sustained capture load extraction lags behind
// (the backlog holds the work) while acknowledgements stay fast.
const (
	extractChunk = 2
	captureYield = 20 * time.Millisecond
)

// captureGate counts captures in flight, so background writers can let
// them go first.
type captureGate struct {
	mu     sync.Mutex
	active int
	idle   chan struct{} // closed when active drops to zero
}

func (g *captureGate) enter() {
	g.mu.Lock()
	if g.active == 0 {
		g.idle = make(chan struct{})
	}
	g.active++
	g.mu.Unlock()
}

func (g *captureGate) leave() {
	g.mu.Lock()
	g.active--
	if g.active == 0 {
		close(g.idle)
	}
	g.mu.Unlock()
}

// wait returns once no capture is in flight, after max, or when ctx ends.
func (g *captureGate) wait(ctx context.Context, max time.Duration) {
	g.mu.Lock()
	if g.active == 0 {
		g.mu.Unlock()
		return
	}
	idle := g.idle
	g.mu.Unlock()
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
	}
}

// pause waits for d if a capture is in flight (or until ctx ends), so
// that extraction, under a capture load, takes at most about half of the
// time it runs in and leaves the rest of the CPU to the captures.
func (g *captureGate) pause(ctx context.Context, d time.Duration) {
	g.mu.Lock()
	busy := g.active > 0
	g.mu.Unlock()
	if !busy || d <= 0 {
		return
	}
	t := time.NewTimer(min(d, 50*time.Millisecond))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// ExtractResult says what one extraction job did.
type ExtractResult struct {
	// Extracted counts episodes processed by this run; Skipped those an
	// earlier run already processed.
	Extracted int       `json:"extracted"`
	Skipped   int       `json:"skipped"`
	Outcomes  []Outcome `json:"outcomes"`
}

// Extract runs the write path on episodes CaptureDeferred stored: gate,
// extraction, admission, reconciliation, and the episodes' own searchable
// memories, in one transaction. It is idempotent: an episode whose
// extraction already committed is skipped, so a job retried after a crash
// or a lost completion changes nothing the second time.
func (e *Engine) Extract(ctx context.Context, job ExtractJob) (*ExtractResult, error) {
	ns, err := checkNamespace(job.Namespace)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	ids, backlog := job.EpisodeIDs, len(job.EpisodeIDs) == 0
	if backlog {
		if job.JobID == "" {
			return nil, fmt.Errorf("extract: %w", memory.Invalidf("a backlog job needs its job id"))
		}
		if ids, err = e.store.ClaimExtraction(ctx, memory.ExtractionParams{Namespace: ns, JobID: job.JobID}); err != nil {
			return nil, fmt.Errorf("extract: %w", err)
		}
		if len(ids) == 0 {
			return &ExtractResult{}, nil
		}
	} else if len(ids) > MaxEvents {
		return nil, fmt.Errorf("extract: %w", memory.Invalidf("%d episodes in one job; the limit is %d", len(ids), MaxEvents))
	}
	res := &ExtractResult{}
	// A backlog share has no size limit (a long outage queues a lot), so
	// it is read and extracted a window at a time.
	for start := 0; start < len(ids); start += extractWindow {
		window := ids[start:min(start+extractWindow, len(ids))]
		if err := e.extractEpisodes(ctx, ns, window, backlog, job.JobID, res); err != nil {
			return nil, fmt.Errorf("extract: %w", err)
		}
	}
	return res, nil
}

// extractWindow bounds the episodes one Extract reads at once.
const extractWindow = 256

// extractEpisodes extracts the episodes ids (in that order) and, for a
// backlog job, removes them from its share in the transactions that
// extract them.
func (e *Engine) extractEpisodes(ctx context.Context, ns string, ids []string, backlog bool, jobID string, res *ExtractResult) error {
	eps, err := e.store.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, IDs: ids})
	if err != nil {
		return err
	}
	byID := make(map[string]*memory.Episode, len(eps))
	for _, ep := range eps {
		byID[ep.ID] = ep
	}
	// Keep the capture's order: reconciliation depends on it.
	evs := make([]*pendingEvent, 0, len(eps))
	var gone []string
	for _, id := range ids {
		ep, ok := byID[id]
		if !ok {
			// Forgotten (or never stored) since the job was queued:
			// nothing is left to extract.
			gone = append(gone, id)
			continue
		}
		delete(byID, id)
		pe := pendingOf(ep)
		pe.stored = true
		evs = append(evs, pe)
	}
	finish := func(chunk []*pendingEvent, extra []string) func(context.Context, memory.Executor) error {
		if !backlog {
			return nil
		}
		done := append([]string(nil), extra...)
		for _, pe := range chunk {
			done = append(done, pe.ep.ID)
		}
		return func(ctx context.Context, tx memory.Executor) error {
			return tx.FinishExtraction(ctx, memory.ExtractionParams{Namespace: ns, JobID: jobID, EpisodeIDs: done})
		}
	}
	if len(evs) == 0 {
		if f := finish(nil, gone); f != nil {
			return e.store.InTx(ctx, func(tx memory.Executor) error { return f(ctx, tx) })
		}
		return nil
	}
	// Small steps, each after the captures waiting for the writer, and
	// under a capture load each followed by a pause as long as the step
	// (see captureGate.pause): a client waits for its capture's
	// acknowledgement, nobody waits for its extraction. Each chunk commits
	// whole, and a retried job skips the chunks already done.
	for start := 0; start < len(evs); start += extractChunk {
		chunk := evs[start:min(start+extractChunk, len(evs))]
		var extra []string
		if start == 0 {
			extra = gone
		}
		e.capturing.wait(ctx, captureYield)
		began := time.Now()
		for i, pe := range chunk {
			e.pronounContext(ctx, pe, evs[:start+i])
			if err := e.extractWith(ctx, pe, "capture", true); err != nil {
				return err
			}
			if err := e.correctAcross(ctx, pe, evs[:start+i], "capture"); err != nil {
				return err
			}
			// The scheduler knows no priorities: let request goroutines
			// queued behind this one run between episodes.
			runtime.Gosched()
		}
		outs, err := e.ingestThen(ctx, ns, chunk, finish(chunk, extra))
		if err != nil {
			return err
		}
		res.Outcomes = append(res.Outcomes, outs...)
		e.capturing.pause(ctx, time.Since(began))
	}
	for _, pe := range evs {
		if pe.done {
			res.Skipped++
		} else {
			res.Extracted++
		}
	}
	return nil
}

// ExtractionBacklogs counts, per namespace, the captured episodes whose
// extraction has not run yet (for operators: metrics).
func (e *Engine) ExtractionBacklogs(ctx context.Context) (map[string]int, error) {
	return e.store.ExtractionBacklogs(ctx)
}
