package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemon-dev/mnemon/memory"
)

// querier is what both the pool and a transaction run statements on.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// executor implements memory.Executor on the pool (tx nil: each write opens
// a transaction of its own, each scan a read transaction) or inside one
// transaction (tx set).
type executor struct {
	q        querier
	pool     *pgxpool.Pool
	tx       pgx.Tx
	readOnly bool
	// storeReadOnly: the store was opened read-only (Options.ReadOnly);
	// every write transaction fails before it begins.
	storeReadOnly bool
	// vec keeps the pgvector copies of the vectors; nil without pgvector.
	vec *vectorCopy
	// queue and checks are the writes QueueSlot queued, sent before the
	// transaction's next statement; slots are the slots PrefetchSlots
	// read (pipeline.go).
	slotQueue map[string][][]any // per namespace, qCreateSlot's arguments
	vecQueue  []queuedStmt
	slots     map[slotKey]*memory.Memory
	// cursors numbers the scan cursors of one transaction, so a scan
	// started from another scan's callback gets a name of its own.
	cursors *atomic.Int64
	// locked holds the namespaces whose write lock a write transaction
	// holds (writeTx).
	locked map[string]bool
	// stats is the store's record of whether its tables have planner
	// statistics (pipeline.go, analyzeIfNever); shared by every executor
	// of one Store.
	stats *statsCheck
}

var (
	_ memory.Executor          = (*executor)(nil)
	_ memory.SlotHeadReader    = (*executor)(nil)
	_ memory.TraceBatchCreator = (*executor)(nil)
)

// inTx runs fn in a write transaction: e's own when it has one, else a new
// one on the pool, committed when fn returns nil.
func (e *executor) inTx(ctx context.Context, fn func(e *executor) error) error {
	if e.tx != nil {
		if e.readOnly {
			return errors.New("postgres: write in a read-only transaction")
		}
		return fn(e)
	}
	if e.storeReadOnly {
		return errReadOnly(nil)
	}
	tx, err := e.pool.BeginTx(ctx, pgx.TxOptions{BeginQuery: beginWrite()})
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", mapErr(err))
	}
	done := false
	defer func() {
		if !done {
			// fn panicked: undo its writes, then let the panic continue.
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	te := &executor{pool: e.pool, tx: tx, vec: e.vec, cursors: new(atomic.Int64), locked: map[string]bool{}, stats: e.stats}
	te.q = txQuerier{tx: tx, e: te}
	err = fn(te)
	if err == nil {
		err = te.flush(ctx) // the queued writes, before commit
	}
	if err != nil {
		done = true
		if rbErr := tx.Rollback(context.WithoutCancel(ctx)); rbErr != nil && !errors.Is(rbErr, pgx.ErrTxClosed) {
			return errors.Join(err, fmt.Errorf("postgres: rollback: %w", rbErr))
		}
		return err
	}
	done = true
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: commit: %w", mapErr(err))
	}
	return nil
}

// readTx runs fn in e's transaction, or in a new REPEATABLE READ READ ONLY
// one on the pool.
func (e *executor) readTx(ctx context.Context, fn func(e *executor) error) error {
	if e.tx != nil {
		return fn(e)
	}
	tx, err := e.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("postgres: begin read: %w", mapErr(err))
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // nothing to commit: it only read
	return fn(&executor{q: tx, pool: e.pool, tx: tx, readOnly: true, storeReadOnly: e.storeReadOnly, vec: e.vec, cursors: new(atomic.Int64)})
}

// exec runs a write; inside ReadTx it fails before reaching the database,
// so the read transaction stays usable.
func (e *executor) exec(ctx context.Context, q string, args ...any) (pgconn.CommandTag, error) {
	if e.readOnly {
		return pgconn.CommandTag{}, errors.New("write in a read-only transaction")
	}
	e.forgetSlots(q)
	tag, err := e.q.Exec(ctx, q, args...)
	return tag, mapErr(err)
}

// write runs fn as writeTx does and wraps its error with op.
func (e *executor) write(ctx context.Context, ns, op string, fn func(e *executor) error) error {
	if err := e.writeTx(ctx, ns, fn); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	return nil
}

// writeTx runs fn in a write transaction (see inTx) that holds namespace
// ns's write lock (none for "", the API keys, which belong to no
// namespace's data).
//
// A write transaction takes the lock before its first write in a namespace
// and holds it to its end, so the writers of one namespace queue behind
// each other as SQLite's single writer queues every writer, and the
// namespace's change log commits in sequence order (changes.go). Because
// the lock comes before any row the transaction writes in the namespace,
// two writers cannot deadlock on it and a row (one waiting on the other's
// row while holding the lock the other waits for). Reads take no lock:
// they block nobody.
func (e *executor) writeTx(ctx context.Context, ns string, fn func(e *executor) error) error {
	return e.inTx(ctx, func(e *executor) error {
		if ns != "" && !e.locked[ns] {
			if _, err := e.exec(ctx, qLockNamespace, lockNamespace, ns); err != nil {
				return err
			}
			e.locked[ns] = true
		}
		return fn(e)
	})
}

// ---- values -----------------------------------------------------------------

// zeroTime is how the zero time.Time is stored: the smallest bigint, which
// sorts first as the zero time does.
const zeroTime = -1 << 63

// Times are stored as Unix nanoseconds, which hold 1677-09-21 to
// 2262-04-11; these are the whole years inside, as on SQLite, so a store
// exported from one backend imports into the other.
const minYear, maxYear = 1678, 2261

// enc converts values for the database and keeps the first error.
type enc struct{ err error }

func (c *enc) fail(field string, err error) {
	if c.err == nil {
		c.err = fmt.Errorf("%s: %w", field, err)
	}
}

func (c *enc) time(field string, t time.Time) int64 {
	if t.IsZero() {
		return zeroTime
	}
	if y := t.UTC().Year(); y < minYear || y > maxYear {
		c.fail(field, memory.Invalidf("%s is outside the storable years %d-%d", t.Format(time.RFC3339Nano), minYear, maxYear))
		return 0
	}
	return t.UnixNano()
}

func (c *enc) timePtr(field string, t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	n := c.time(field, *t)
	return &n
}

// json encodes v as JSON text for a jsonb column: nil slices and maps are
// JSON null, empty ones [] and {}.
func (c *enc) json(field string, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		c.fail(field, memory.Invalidf("%v", err))
		return "null"
	}
	return string(b)
}

func fromNanos(n int64) time.Time {
	if n == zeroTime {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func fromNanosPtr(n *int64) *time.Time {
	if n == nil {
		return nil
	}
	t := fromNanos(*n)
	return &t
}

// unjson decodes a jsonb column into dst; JSON null leaves dst nil.
func unjson(field string, b []byte, dst any) error {
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("decode column %s: %w", field, err)
	}
	return nil
}

// limit turns "0 means no limit" into LIMIT NULL, which is no limit.
func limit(n int) *int64 {
	if n <= 0 {
		return nil
	}
	v := int64(n)
	return &v
}

func checkNamespace(ns string) error { return memory.ValidateNamespace(ns) }

func checkID(what, id string) error {
	if id == "" {
		return memory.Invalidf("%s id is empty", what)
	}
	return nil
}

// sameNamespace makes sure a row handed in a namespace's params belongs to
// that namespace; an empty row namespace takes the params'.
func sameNamespace(what, id, rowNS, ns string) error {
	if rowNS != "" && rowNS != ns {
		return memory.Invalidf("%s %s has namespace %q, expected %q", what, id, rowNS, ns)
	}
	return nil
}

// where builds the optional filters of a list query after "namespace = $1".
type where struct {
	sb   strings.Builder
	args []any
}

func newWhere(ns string) *where { return &where{args: []any{ns}} }

// add appends "AND cond", cond's '?' standing for v's placeholder.
func (w *where) add(cond string, v any) {
	w.args = append(w.args, v)
	w.sb.WriteString(" AND " + strings.Replace(cond, "?", "$"+strconv.Itoa(len(w.args)), 1))
}

// next is the placeholder of one more argument.
func (w *where) next(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

// ---- shared read paths ------------------------------------------------------

// collect runs q and decodes every row.
func collect[T any](ctx context.Context, e *executor, decode func(pgx.Rows) (T, error), q string, args ...any) ([]T, error) {
	rows, err := e.q.Query(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := decode(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, mapErr(rows.Err())
}

// one runs q and returns its first row, or memory.ErrNotFound.
func one[T any](ctx context.Context, e *executor, decode func(pgx.Rows) (T, error), q string, args ...any) (T, error) {
	out, err := collect(ctx, e, decode, q, args...)
	if err != nil || len(out) == 0 {
		var zero T
		if err == nil {
			err = memory.ErrNotFound
		}
		return zero, err
	}
	return out[0], nil
}

// getOne reads the row named by p.
func getOne[T any](ctx context.Context, e *executor, p memory.GetParams, decode func(pgx.Rows) (T, error), q string) (T, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		var zero T
		return zero, err
	}
	return one(ctx, e, decode, q, p.Namespace, p.ID)
}

// scanChunk is how many rows a scan fetches at a time.
const scanChunk = 512

// scan walks the rows of q (whose only argument is the namespace) through
// fn with a cursor, scanChunk rows at a time: never the whole namespace in
// memory, and no rows open while fn runs, so fn may use the executor.
// Outside a transaction it opens a read transaction, so the walk sees one
// snapshot. fn's error is returned as is.
func scan[T any](ctx context.Context, e *executor, op, ns, q string, decode func(pgx.Rows) (T, error), fn func(T) error) error {
	if err := checkNamespace(ns); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	var stopped error
	err := e.readTx(ctx, func(e *executor) error {
		name := "mnemon_scan_" + strconv.FormatInt(e.cursors.Add(1), 10)
		if _, err := e.q.Exec(ctx, "DECLARE "+name+" NO SCROLL CURSOR FOR "+q, ns); err != nil {
			return mapErr(err)
		}
		defer func() { _, _ = e.q.Exec(context.WithoutCancel(ctx), "CLOSE "+name) }()
		for {
			// Described on every call: the same FETCH text returns other
			// columns for another cursor, so pgx must not reuse a cached
			// description.
			chunk, err := collect(ctx, e, decode, "FETCH "+strconv.Itoa(scanChunk)+" FROM "+name, pgx.QueryExecModeDescribeExec)
			if err != nil {
				return err
			}
			for _, v := range chunk {
				if err := fn(v); err != nil {
					stopped = err
					return err
				}
			}
			if len(chunk) < scanChunk {
				return nil
			}
		}
	})
	if stopped != nil {
		return stopped
	}
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	return nil
}

// strs runs a query of one text column.
func (e *executor) strs(ctx context.Context, q string, args ...any) ([]string, error) {
	return collect(ctx, e, func(r pgx.Rows) (string, error) {
		var s string
		return s, r.Scan(&s)
	}, q, args...)
}

// ---- episodes ---------------------------------------------------------------

const episodeCols = `namespace, id, agent_id, user_id, project_id, session_id, kind, speaker,
	content, metadata, occurred_at, recorded_at, content_hash`

const (
	qInsertEpisodes = `INSERT INTO episodes (` + episodeCols + `)
	SELECT $1, u.id, u.agent_id, u.user_id, u.project_id, u.session_id, u.kind, u.speaker,
	  u.content, u.metadata::jsonb, u.occurred_at, u.recorded_at, u.content_hash
	FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
	  $8::text[], $9::text[], $10::text[], $11::bigint[], $12::bigint[], $13::text[])
	  AS u(id, agent_id, user_id, project_id, session_id, kind, speaker, content, metadata, occurred_at, recorded_at, content_hash)
	ON CONFLICT DO NOTHING RETURNING id`
	qDeleteEpisodes = `DELETE FROM episodes WHERE namespace = $1 AND id = ANY($2)`
	qGetEpisode     = `SELECT ` + episodeCols + ` FROM episodes WHERE namespace = $1 AND id = $2`
	qScanEpisodes   = `SELECT ` + episodeCols + ` FROM episodes WHERE namespace = $1 ORDER BY id`
)

func decodeEpisode(r pgx.Rows) (*memory.Episode, error) {
	var (
		ep       memory.Episode
		meta     []byte
		occ, rec int64
	)
	err := r.Scan(&ep.Namespace, &ep.ID, &ep.Scope.AgentID, &ep.Scope.UserID, &ep.Scope.ProjectID, &ep.Scope.SessionID,
		&ep.Kind, &ep.Speaker, &ep.Content, &meta, &occ, &rec, &ep.ContentHash)
	if err != nil {
		return nil, err
	}
	if err := unjson("metadata", meta, &ep.Metadata); err != nil {
		return nil, err
	}
	ep.OccurredAt, ep.RecordedAt = fromNanos(occ), fromNanos(rec)
	return &ep, nil
}

// insertAll runs a multi-row INSERT ... ON CONFLICT DO NOTHING RETURNING
// key and, when it wrote fewer than n rows (a duplicate, in the store or in
// the batch), deletes those it wrote: all rows or none, and the
// transaction stays usable after the conflict.
func (e *executor) insertAll(ctx context.Context, n int, insert string, args []any, undo func(written []string) error) error {
	if e.readOnly {
		return errors.New("write in a read-only transaction")
	}
	written, err := e.strs(ctx, insert, args...)
	if err != nil {
		return err
	}
	if len(written) == n {
		return nil
	}
	if len(written) > 0 {
		if err := undo(written); err != nil {
			return err
		}
	}
	return memory.Conflictf(nil, "a row is stored already (the same id, or the same record twice)")
}

func (e *executor) CreateEpisodes(ctx context.Context, p memory.CreateEpisodesParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("postgres: create episodes: %w", err)
	}
	n := len(p.Episodes)
	var (
		c                                                              enc
		ids, agents, users, projects, sessions, kinds, speakers, texts []string
		metas, hashes                                                  []string
		occurred, recorded                                             []int64
	)
	for _, ep := range p.Episodes {
		if ep == nil {
			return fmt.Errorf("postgres: create episodes: %w", memory.Invalidf("nil episode"))
		}
		if err := checkID("episode", ep.ID); err != nil {
			return fmt.Errorf("postgres: create episodes: %w", err)
		}
		if err := sameNamespace("episode", ep.ID, ep.Namespace, p.Namespace); err != nil {
			return fmt.Errorf("postgres: create episodes: %w", err)
		}
		ids = append(ids, ep.ID)
		agents = append(agents, ep.Scope.AgentID)
		users = append(users, ep.Scope.UserID)
		projects = append(projects, ep.Scope.ProjectID)
		sessions = append(sessions, ep.Scope.SessionID)
		kinds = append(kinds, string(ep.Kind))
		speakers = append(speakers, ep.Speaker)
		texts = append(texts, ep.Content)
		metas = append(metas, c.json("metadata", ep.Metadata))
		occurred = append(occurred, c.time("occurred_at", ep.OccurredAt))
		recorded = append(recorded, c.time("recorded_at", ep.RecordedAt))
		hashes = append(hashes, ep.ContentHash)
		if c.err != nil {
			return fmt.Errorf("postgres: create episodes: %w", memory.Within(c.err, "episode %s", ep.ID))
		}
	}
	if n == 0 {
		return nil
	}
	return e.write(ctx, p.Namespace, "create episodes", func(e *executor) error {
		return e.insertAll(ctx, n, qInsertEpisodes,
			[]any{p.Namespace, ids, agents, users, projects, sessions, kinds, speakers, texts, metas, occurred, recorded, hashes},
			func(written []string) error {
				_, err := e.exec(ctx, qDeleteEpisodes, p.Namespace, written)
				return err
			})
	})
}

func (e *executor) GetEpisode(ctx context.Context, p memory.GetParams) (*memory.Episode, error) {
	ep, err := getOne(ctx, e, p, decodeEpisode, qGetEpisode)
	if err != nil {
		return nil, fmt.Errorf("postgres: get episode %s: %w", p.ID, err)
	}
	return ep, nil
}

// listEpisodesQuery builds ListEpisodes' statement: its text depends only
// on which filters are set, so pgx prepares few shapes.
func listEpisodesQuery(p memory.ListEpisodesParams) (string, []any, error) {
	w := newWhere(p.Namespace)
	if p.SessionID != "" {
		w.add("session_id = ?", p.SessionID)
	}
	if len(p.IDs) > 0 {
		w.add("id = ANY(?)", p.IDs)
	}
	if p.ContentHash != "" {
		w.add("content_hash = ?", p.ContentHash)
	}
	if !p.OccurredAt.IsZero() {
		var c enc
		w.add("occurred_at = ?", c.time("occurred_at", p.OccurredAt))
		if c.err != nil {
			return "", nil, c.err
		}
	}
	if p.Held {
		w.sb.WriteString(" AND NOT purged")
	}
	return `SELECT ` + episodeCols + ` FROM episodes WHERE namespace = $1` + w.sb.String() +
		` ORDER BY occurred_at, id LIMIT ` + w.next(limit(p.Limit)), w.args, nil
}

func (e *executor) ListEpisodes(ctx context.Context, p memory.ListEpisodesParams) ([]*memory.Episode, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list episodes: %w", err)
	}
	q, args, err := listEpisodesQuery(p)
	if err != nil {
		return nil, fmt.Errorf("postgres: list episodes: %w", err)
	}
	out, err := collect(ctx, e, decodeEpisode, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list episodes: %w", err)
	}
	return out, nil
}

// MatchEpisodes finds the episodes matching any of keys in one query, an
// index probe (episodes_by_hash) per key (memory.EpisodeMatcher).
func (e *executor) MatchEpisodes(ctx context.Context, ns string, keys []memory.EpisodeKey) ([]*memory.Episode, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("postgres: match episodes: %w", err)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	hashes := make([]string, len(keys))
	times := make([]int64, len(keys))
	var c enc
	for i, k := range keys {
		hashes[i], times[i] = k.ContentHash, c.time("occurred_at", k.OccurredAt)
	}
	if c.err != nil {
		return nil, fmt.Errorf("postgres: match episodes: %w", c.err)
	}
	out, err := collect(ctx, e, decodeEpisode, qMatchEpisodes, ns, hashes, times)
	if err != nil {
		return nil, fmt.Errorf("postgres: match episodes: %w", err)
	}
	return out, nil
}

// qMatchEpisodes: the keys made distinct first, so no episode is answered
// twice (an episode matches one key only).
const qMatchEpisodes = `SELECT x.* FROM (SELECT DISTINCT h, t FROM unnest($2::text[], $3::bigint[]) AS k(h, t)) AS k
CROSS JOIN LATERAL (
  SELECT ` + episodeCols + ` FROM episodes
  WHERE namespace = $1 AND content_hash = k.h COLLATE "C" AND occurred_at = k.t
) AS x`

// ScanEpisodes walks every episode in id order, purged ones included.
func (e *executor) ScanEpisodes(ctx context.Context, p memory.ScanParams, fn func(*memory.Episode) error) error {
	return scan(ctx, e, "scan episodes", p.Namespace, qScanEpisodes, decodeEpisode, fn)
}

// ---- memories ---------------------------------------------------------------

const memoryCols = `namespace, id, agent_id, user_id, project_id, session_id, kind, subject, key,
	created_at, updated_at`

const (
	qInsertMemory = `INSERT INTO memories (` + memoryCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
	ON CONFLICT DO NOTHING`
	qGetMemory  = `SELECT ` + memoryCols + ` FROM memories WHERE namespace = $1 AND id = $2`
	qFindMemory = `SELECT ` + memoryCols + ` FROM memories
	WHERE namespace = $1 AND subject = $2 AND key = $3
	  AND agent_id = $4 AND user_id = $5 AND project_id = $6 AND session_id = $7`
	qScanMemories = `SELECT ` + memoryCols + ` FROM memories WHERE namespace = $1 ORDER BY id`
)

func decodeMemory(r pgx.Rows) (*memory.Memory, error) {
	var (
		m                memory.Memory
		created, updated int64
	)
	err := r.Scan(&m.Namespace, &m.ID, &m.Scope.AgentID, &m.Scope.UserID, &m.Scope.ProjectID, &m.Scope.SessionID,
		&m.Kind, &m.Subject, &m.Key, &created, &updated)
	if err != nil {
		return nil, err
	}
	m.CreatedAt, m.UpdatedAt = fromNanos(created), fromNanos(updated)
	return &m, nil
}

func (e *executor) CreateMemory(ctx context.Context, m *memory.Memory) error {
	if m == nil {
		return fmt.Errorf("postgres: create memory: %w", memory.Invalidf("nil memory"))
	}
	op := "create memory " + m.ID
	if err := checkNamespace(m.Namespace); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	if err := checkID("memory", m.ID); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	var c enc
	args := []any{
		m.Namespace, m.ID, m.Scope.AgentID, m.Scope.UserID, m.Scope.ProjectID, m.Scope.SessionID,
		string(m.Kind), m.Subject, m.Key, c.time("created_at", m.CreatedAt), c.time("updated_at", m.UpdatedAt),
	}
	if c.err != nil {
		return fmt.Errorf("postgres: %s: %w", op, c.err)
	}
	return e.write(ctx, m.Namespace, op, func(e *executor) error {
		tag, err := e.exec(ctx, qInsertMemory, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return memory.Conflictf(nil, "a memory with this id, or this slot (subject, key and scope), exists")
		}
		e.slotCreated(m)
		return nil
	})
}

func (e *executor) GetMemory(ctx context.Context, p memory.GetParams) (*memory.Memory, error) {
	m, err := getOne(ctx, e, p, decodeMemory, qGetMemory)
	if err != nil {
		return nil, fmt.Errorf("postgres: get memory %s: %w", p.ID, err)
	}
	return m, nil
}

func (e *executor) FindMemory(ctx context.Context, p memory.FindMemoryParams) (*memory.Memory, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: find memory: %w", err)
	}
	if m, ok := e.cachedSlot(p); ok {
		if m == nil {
			return nil, fmt.Errorf("postgres: find memory %s/%s: %w", p.Subject, p.Key, memory.ErrNotFound)
		}
		return m, nil
	}
	m, err := one(ctx, e, decodeMemory, qFindMemory, p.Namespace, p.Subject, p.Key,
		p.Scope.AgentID, p.Scope.UserID, p.Scope.ProjectID, p.Scope.SessionID)
	if err != nil {
		return nil, fmt.Errorf("postgres: find memory %s/%s: %w", p.Subject, p.Key, err)
	}
	return m, nil
}

func (e *executor) ScanMemories(ctx context.Context, p memory.ScanParams, fn func(*memory.Memory) error) error {
	return scan(ctx, e, "scan memories", p.Namespace, qScanMemories, decodeMemory, fn)
}
