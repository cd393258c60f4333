package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// stmtCache holds the statements prepared on one pool, keyed by their SQL
// text. Only the frequent queries (preparable) are ever prepared, and each
// only once it is first used: a store that answers a few calls (a CLI
// command, most tests) prepares a few statements, not every one it might
// need, which under -race cost a fifth of the engine tests' CPU.
//
// Reads are a lock-free load of an immutable map; the rare prepare copies
// it. No lock is held while preparing, which waits for a connection: a
// caller holding the last free connection could otherwise deadlock against
// a lock holder waiting for it.
type stmtCache struct {
	db *sql.DB
	m  atomic.Pointer[map[string]*sql.Stmt]
	mu sync.Mutex // serialises writers of m and pending
	// pending are the preparable queries run unprepared inside a write
	// transaction, to prepare before the next one (preparePending).
	pending map[string]bool
	closed  bool
}

func newStmtCache(db *sql.DB) *stmtCache {
	c := &stmtCache{db: db, pending: map[string]bool{}}
	c.m.Store(&map[string]*sql.Stmt{})
	return c
}

// get returns the statement prepared for q, or nil.
func (c *stmtCache) get(q string) *sql.Stmt {
	if c == nil {
		return nil
	}
	return (*c.m.Load())[q]
}

// prepare prepares q on the pool now and returns it, or nil when q is not
// one of the frequent queries or cannot be prepared (the caller runs it
// unprepared, and reports any error in the SQL then). Never call it while
// holding the writer's only connection: it waits for a free one.
func (c *stmtCache) prepare(ctx context.Context, q string) *sql.Stmt {
	if c == nil || !isPreparable(q) {
		return nil
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.m.Load()
	if have, ok := old[q]; ok || c.closed {
		_ = st.Close() // another caller won the race, or the store closed
		return have
	}
	m := maps.Clone(old)
	m[q] = st
	c.m.Store(&m)
	return st
}

// later notes that q ran unprepared inside a transaction, so that the next
// transaction prepares it first.
func (c *stmtCache) later(q string) {
	if c == nil || !isPreparable(q) {
		return
	}
	c.mu.Lock()
	c.pending[q] = true
	c.mu.Unlock()
}

// preparePending prepares the queries deferred by earlier transactions. On
// the writer it runs before BEGIN, where the caller waits for the one
// connection anyway: preparing inside a transaction that holds it would wait
// forever.
func (c *stmtCache) preparePending(ctx context.Context) {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	qs := make([]string, 0, len(c.pending))
	for q := range c.pending {
		qs = append(qs, q)
	}
	clear(c.pending)
	c.mu.Unlock()
	for _, q := range qs {
		if c.get(q) == nil {
			c.prepare(ctx, q)
		}
	}
}

// close closes every statement; later prepares close what they make.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for _, st := range *c.m.Load() {
		errs = append(errs, st.Close())
	}
	c.m.Store(&map[string]*sql.Stmt{})
	return errors.Join(errs...)
}

// listShapes holds the SQL of every filtered list run so far (list in
// executor.go): its text depends only on which filters are set, so there
// are few enough shapes to keep each prepared.
var listShapes sync.Map

func isPreparable(q string) bool {
	if preparable()[q] {
		return true
	}
	_, ok := listShapes.Load(q)
	return ok
}

// preparable is the set of queries worth preparing besides the list
// shapes: the static statements and the common shapes of the filtered lists
// (listed so TestEveryPreparableStatementPrepares checks them). Any other
// SQL runs unprepared.
var preparable = sync.OnceValue(func() map[string]bool {
	queries := []string{
		qInsertEpisode, qGetEpisode, qScanEpisodes,
		qInsertMemory, qGetMemory, qFindMemory, qSlot, qSlotLive, qScanMemories,
		qInsertVersion, qUpdateVersionState, qOwnEpisodeText, qGetVersion, qScanVersions,
		qInsertAdmission, qInsertAdmissionValues, qScanAdmissions, qInsertTrace, qGetTrace, qScanTraces,
		qStats, qNamespaces,
	}
	queries = append(queries, keyQueries...)
	queries = append(queries, backlogQueries...)
	queries = append(queries, changeQueries...)
	queries = append(queries, archiveQueries...)
	shape := func(q string, _ []any, _ error) { queries = append(queries, q) }
	shape(listEpisodesQuery(memory.ListEpisodesParams{}))
	shape(listEpisodesQuery(memory.ListEpisodesParams{SessionID: "s"}))
	shape(listEpisodesQuery(memory.ListEpisodesParams{IDs: []string{"x"}}))
	shape(listEpisodesQuery(memory.ListEpisodesParams{ContentHash: "h", OccurredAt: time.Unix(1, 0)})) // duplicate check of every capture
	shape(listVersionsQuery(memory.ListVersionsParams{}))
	shape(listVersionsQuery(memory.ListVersionsParams{MemoryID: "m"}))
	shape(listVersionsQuery(memory.ListVersionsParams{MemoryID: "m", WithoutEmbeddings: true})) // a slot's history, on every write to it
	shape(listVersionsQuery(memory.ListVersionsParams{IDs: []string{"x"}}))
	shape(listVersionsQuery(memory.ListVersionsParams{Statuses: []memory.Status{"s"}}))
	shape(listVersionsQuery(memory.ListVersionsParams{Subject: "s", Key: "k"}))
	shape(listAdmissionsQuery(memory.ListAdmissionsParams{}))
	shape(listAdmissionsQuery(memory.ListAdmissionsParams{MemoryID: "m"}))
	shape(listAdmissionsQuery(memory.ListAdmissionsParams{EpisodeID: "e"}))
	shape(listTracesQuery(memory.ListTracesParams{}))
	set := make(map[string]bool, len(queries))
	for _, q := range queries {
		set[q] = true
	}
	return set
})
