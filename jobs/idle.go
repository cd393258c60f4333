package jobs

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// Idle workers. SQLite has no notifications, so River polls for available
// jobs every PollInterval (50 ms, which bounds how soon a capture's
// extraction starts). Each poll parses and runs a query: about 7 % of a core
// for a server with nothing to do. The fetch gate keeps the short poll while
// there is work, and lets a poll reach the database only when a job may be
// there:
//
//   - this process enqueued one (Enqueue, in the capture's transaction, or
//     a non-transactional insert, retry or schedule through River), or a
//     fetch lately found some: every poll fetches for hotFor after that;
//   - otherwise once every idleFetchEvery, for the jobs nothing here knows
//     about: those another process enqueued (a 'mnemon serve --workers 0'
//     beside a 'mnemon worker', 'mnemon jobs retry') or River's own
//     schedules. Those wait up to idleFetchEvery to start.
//
// On SQLite the hot spell ends sooner: River fetches on the store's writer
// connection, the one the transactions that enqueue hold until they end,
// so a fetch that began after the last wake and found nothing saw every job
// this process enqueued, and the gate goes idle at once. Staying hot for
// hotFor cost about 40 fetches after every capture (under -race, a third
// of the httpapi tests' CPU). PostgreSQL fetches on a pool, beside
// transactions not yet committed, and keeps the whole spell.
//
// A poll the gate turns away waits in the gate, as if the database were
// slow to answer, until one of those happens or the queue stops: River
// fetches on a goroutine of its own and keeps serving finished and
// cancelled jobs meanwhile, and it polls again only after the fetch
// returns. So an idle queue wakes about once a second, not twenty times.
const (
	hotFor         = 2 * time.Second
	idleFetchEvery = time.Second
)

// fetchGate decides whether a poll for available jobs reaches the
// database. Times are Unix nanoseconds.
type fetchGate struct {
	hotUntil  atomic.Int64
	lastFetch atomic.Int64
	woken     chan struct{} // a waiting poll may fetch
	stop      chan struct{} // closed when the queue stops
	stopOnce  sync.Once
	// serial: fetches wait for the transactions that enqueue (they share
	// SQLite's one writer connection), so an empty fetch ends the hot
	// spell.
	serial bool
	mu     sync.Mutex // orders wakes and the end of a hot spell
	wakes  uint64     // under mu
}

func newFetchGate(serial bool) *fetchGate {
	return &fetchGate{woken: make(chan struct{}, 1), stop: make(chan struct{}), serial: serial}
}

// wake says a job may be available now (or once the transaction that
// enqueued it commits).
func (g *fetchGate) wake() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.wakes++
	g.hotUntil.Store(time.Now().Add(hotFor).UnixNano())
	select {
	case g.woken <- struct{}{}:
	default:
	}
}

// close releases a waiting poll for good, so that River can stop.
func (g *fetchGate) close() { g.stopOnce.Do(func() { close(g.stop) }) }

// wait returns true when a poll should fetch, at once or after waiting
// until a job may be there; false when the queue stops (or ctx ends)
// first.
func (g *fetchGate) wait(ctx context.Context) bool {
	now := time.Now().UnixNano()
	if now < g.hotUntil.Load() {
		return true
	}
	idle := time.Duration(g.lastFetch.Load() + int64(idleFetchEvery) - now)
	if idle <= 0 {
		return true
	}
	t := time.NewTimer(idle)
	defer t.Stop()
	select {
	case <-g.woken:
		return true
	case <-t.C:
		return true
	case <-g.stop:
	case <-ctx.Done():
	}
	return false
}

// begin returns what fetched needs to know of the wakes before a fetch.
func (g *fetchGate) begin() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.wakes
}

// fetched records a fetch, begun when begin returned since, and whether it
// found jobs (then more may follow: a batch larger than the workers,
// retries). On a serial gate, a fetch that succeeded and found none with no
// wake since it began ends the hot spell.
func (g *fetchGate) fetched(found bool, err error, since uint64) {
	g.lastFetch.Store(time.Now().UnixNano())
	if found {
		g.wake()
		return
	}
	if g.serial && err == nil {
		g.mu.Lock()
		if g.wakes == since {
			g.hotUntil.Store(0)
			// A wake this fetch began after is no reason to fetch again.
			select {
			case <-g.woken:
			default:
			}
		}
		g.mu.Unlock()
	}
}

// gatedDriver is River's driver with its executor behind the gate. River
// gets the executor its producer polls with from GetExecutor.
type gatedDriver[TTx any] struct {
	riverdriver.Driver[TTx]
	gate *fetchGate
}

func (d gatedDriver[TTx]) GetExecutor() riverdriver.Executor {
	return gatedExecutor{d.Driver.GetExecutor(), d.gate}
}

type gatedExecutor struct {
	riverdriver.Executor
	gate *fetchGate
}

func (e gatedExecutor) JobGetAvailable(ctx context.Context, p *riverdriver.JobGetAvailableParams) (*riverdriver.JobGetAvailableResult, error) {
	if !e.gate.wait(ctx) {
		return &riverdriver.JobGetAvailableResult{}, nil
	}
	since := e.gate.begin()
	res, err := e.Executor.JobGetAvailable(ctx, p)
	e.gate.fetched(err == nil && res != nil && len(res.Jobs) > 0, err, since)
	return res, err
}

// The writes that make jobs available outside a transaction of ours open
// the gate after they commit.

func (e gatedExecutor) JobInsertFastMany(ctx context.Context, p *riverdriver.JobInsertFastManyParams) ([]*riverdriver.JobInsertFastResult, error) {
	res, err := e.Executor.JobInsertFastMany(ctx, p)
	e.gate.wake()
	return res, err
}

func (e gatedExecutor) JobInsertFastManyNoReturning(ctx context.Context, p *riverdriver.JobInsertFastManyParams) (int, error) {
	n, err := e.Executor.JobInsertFastManyNoReturning(ctx, p)
	e.gate.wake()
	return n, err
}

func (e gatedExecutor) JobRetry(ctx context.Context, p *riverdriver.JobRetryParams) (*rivertype.JobRow, error) {
	row, err := e.Executor.JobRetry(ctx, p)
	e.gate.wake()
	return row, err
}

func (e gatedExecutor) JobSchedule(ctx context.Context, p *riverdriver.JobScheduleParams) ([]*riverdriver.JobScheduleResult, error) {
	res, err := e.Executor.JobSchedule(ctx, p)
	if len(res) > 0 {
		e.gate.wake()
	}
	return res, err
}
