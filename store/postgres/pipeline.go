package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemon-dev/mnemon/memory"
)

// Fewer round trips for a batch of writes in one transaction.
//
// A round trip to the server costs far more than the statement on a busy
// machine (the client and the server each wait to be scheduled), so a
// transaction that writes a batch of facts spends its time waiting. Two
// things let the engine's ingest send a few statements per batch instead
// of a few per fact:
//
//   - PrefetchSlots (memory.SlotPrefetcher) looks up every slot the batch
//     will need in one query, under the namespace's write lock, and keeps
//     the answers for the transaction: FindMemory answers from them, and
//     the memories the transaction creates join them. The lock keeps them
//     true: every writer of the namespace takes it before writing, so no
//     one else creates or deletes a memory there until the transaction
//     ends. A statement of this transaction that deletes memories drops
//     them.
//   - QueueSlot (memory.SlotQueuer) queues CreateSlot's statement instead
//     of sending it. The queue goes out as one batch (one round trip)
//     before the transaction's next statement, whatever it is, and before
//     commit; a queued write that fails fails that statement or the
//     commit, and the transaction rolls back. Order is kept: nothing is
//     sent ahead of a queued write.

// slotKey names a slot: subject, key and scope in one namespace.
type slotKey struct {
	ns, subject, key string
	scope            memory.Scope
}

// queuedStmt is a queued statement without an answer to read.
type queuedStmt struct {
	sql  string
	args []any
}

// txQuerier runs a transaction's statements, sending its queued writes
// first.
type txQuerier struct {
	tx pgx.Tx
	e  *executor
}

func (q txQuerier) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := q.e.flush(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return q.tx.Exec(ctx, sql, args...)
}

func (q txQuerier) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := q.e.flush(ctx); err != nil {
		return nil, err
	}
	return q.tx.Query(ctx, sql, args...)
}

func (q txQuerier) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := q.e.flush(ctx); err != nil {
		return errRow{err}
	}
	return q.tx.QueryRow(ctx, sql, args...)
}

// errRow is a row whose statement was never sent: a queued write before
// it failed.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// flush sends the queued writes as one batch and reads their answers; the
// first failure is returned (and the transaction can only roll back). The
// queued slots of a namespace go as one multi-row statement
// (qCreateSlots), then the pgvector copies of their vectors.
func (e *executor) flush(ctx context.Context) error {
	if len(e.slotQueue) == 0 {
		return nil
	}
	pending, vecs := e.slotQueue, e.vecQueue
	e.slotQueue, e.vecQueue = nil, nil
	b := &pgx.Batch{}
	var nss []string
	for ns := range pending {
		nss = append(nss, ns)
	}
	slices.Sort(nss)
	for _, ns := range nss {
		b.Queue(qCreateSlots, slotColumns(ns, pending[ns])...)
	}
	for _, v := range vecs {
		b.Queue(v.sql, v.args...)
	}
	br := e.tx.SendBatch(ctx, b)
	var first error
	for _, ns := range nss {
		var mems, vers int
		if err := br.QueryRow().Scan(&mems, &vers); err != nil {
			first = mapErr(err)
			break
		}
		n := len(pending[ns])
		switch {
		case mems < n:
			first = memory.Conflictf(nil, "a memory with this id, or this slot (subject, key and scope), exists")
		case vers < n:
			first = memory.Conflictf(nil, "a version with this id, or this position in its memory, exists")
		}
		if first != nil {
			break
		}
	}
	if first == nil {
		for range vecs {
			if _, err := br.Exec(); err != nil {
				first = mapErr(err)
				break
			}
		}
	}
	if err := br.Close(); err != nil && first == nil {
		first = mapErr(err)
	}
	if first != nil {
		return fmt.Errorf("postgres: a queued write: %w", first)
	}
	rows := 0
	for _, q := range pending {
		rows += len(q)
	}
	return e.analyzeIfNever(ctx, rows)
}

// analyzeAfter is how many slots one flush must write before the store
// checks that the planner has statistics for memories and versions.
const analyzeAfter = 200

// statsCheck records, once per Store, that memories has been analyzed.
type statsCheck struct{ done atomic.Bool }

// analyzeIfNever runs ANALYZE on memories and versions, inside the
// transaction, after a large batch written into tables that were never
// analyzed (a new database, or a bulk load in its first minute).
//
// Without statistics the planner takes namespace = $1 to match about one
// row, so the foreign-key check of each version (PostgreSQL's own query,
// "namespace = $1 AND id = $2" on memories) may be planned on
// memories_slot with the id as a filter, and a connection keeps that plan
// until the table's statistics change: each check then reads every memory
// of the namespace, and a bulk load slows down quadratically (a fresh
// schema's batched remember spent most of its time there). ANALYZE counts
// this transaction's own uncommitted rows, and the new statistics make
// every session plan the check again, on the primary key. Once the tables
// have statistics autovacuum keeps them current, so this runs at most once
// per process. ANALYZE holds a lock that only other ANALYZE and VACUUM runs
// of these tables wait for, until commit; a role that does not own the
// tables gets a warning, not an error.
func (e *executor) analyzeIfNever(ctx context.Context, rows int) error {
	if rows < analyzeAfter || e.stats == nil || e.stats.done.Load() {
		return nil
	}
	var never bool
	if err := e.tx.QueryRow(ctx, qNeverAnalyzed).Scan(&never); err != nil {
		return fmt.Errorf("postgres: statistics check: %w", mapErr(err))
	}
	if never {
		if _, err := e.tx.Exec(ctx, `ANALYZE memories, versions`); err != nil {
			return fmt.Errorf("postgres: analyze: %w", mapErr(err))
		}
	}
	e.stats.done.Store(true)
	return nil
}

// qNeverAnalyzed: reltuples is -1 until a table's first VACUUM or ANALYZE.
const qNeverAnalyzed = `SELECT bool_or(reltuples < 0) FROM pg_class WHERE oid IN ('memories'::regclass, 'versions'::regclass)`

// slotColumns turns queued slots (each qCreateSlot's 50 arguments) into
// qCreateSlots' 50 arrays, one per column, and the namespace.
func slotColumns(ns string, rows [][]any) []any {
	cols := make([]any, 0, 51)
	for c := range rows[0] {
		switch rows[0][c].(type) {
		case string:
			cols = append(cols, column[string](rows, c))
		case int:
			cols = append(cols, column[int](rows, c))
		case int64:
			cols = append(cols, column[int64](rows, c))
		case *int64:
			cols = append(cols, column[*int64](rows, c))
		case float64:
			cols = append(cols, column[float64](rows, c))
		case []byte:
			cols = append(cols, column[[]byte](rows, c))
		default:
			panic(fmt.Sprintf("postgres: slot column %d is a %T", c+1, rows[0][c]))
		}
	}
	return append(cols, ns)
}

// column is column c of rows as a slice of its type, for an array
// parameter.
func column[T any](rows [][]any, c int) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = r[c].(T)
	}
	return out
}

// qCreateSlots is qCreateSlot for many slots of one namespace ($51): its
// 50 arguments as arrays. The change-log entries are appended in queue
// order under the namespace's lock; it answers how many memories and
// versions it wrote, and anything short of all of them is a conflict.
var qCreateSlots = func() string {
	types := []string{"text", "text", "text", "integer", "text", "text", "text", "text",
		"text", "text", "text", "text", "text", "text", "text",
		"float8", "float8", "float8", "integer", "integer",
		"text", "text", "text",
		"bigint", "bigint", "bigint", "bigint", "bigint",
		"text", "text",
		"text", "text", "text", "text", "integer", "text",
		"integer", "text", "bytea",
		"text", "text", "text", "text", "text", "text", "text", "text", "text", "bigint", "bigint"}
	var arrays, names, vcols, mcols []string
	for i, t := range types {
		arrays = append(arrays, fmt.Sprintf("$%d::%s[]", i+1, t))
		names = append(names, fmt.Sprintf("c%d", i+1))
		col := fmt.Sprintf("u.c%d", i+1)
		if t == "text" {
			col += ` COLLATE "C"`
		}
		if i == 28 || i == 29 {
			col = fmt.Sprintf("u.c%d::jsonb", i+1)
		}
		if i < 39 {
			vcols = append(vcols, col)
		} else {
			mcols = append(mcols, col)
		}
	}
	return `WITH u AS (
	  SELECT * FROM unnest(` + strings.Join(arrays, ", ") + `) WITH ORDINALITY AS u(` + strings.Join(names, ", ") + `, n)
	), m AS (
	  INSERT INTO memories (` + memoryCols + `) SELECT ` + strings.Join(mcols, ", ") + ` FROM u ORDER BY u.n
	  ON CONFLICT DO NOTHING RETURNING id
	), ns_lock AS (
	  SELECT pg_advisory_xact_lock(` + fmt.Sprint(lockNamespace) + `, hashtext(current_schema() || '/' || $51::text)),
	         pg_notify('` + changesChannel + `', current_schema() || '/' || $51::text)
	), ch AS (
	  INSERT INTO changes (namespace, version_id, updated_at) SELECT $51::text, u.c2, u.c28 FROM ns_lock, u ORDER BY u.n
	), v AS (
	  INSERT INTO versions (` + versionCols + `) SELECT ` + strings.Join(vcols, ", ") + `
	  FROM u JOIN m ON m.id = u.c41 COLLATE "C" ORDER BY u.n
	  ON CONFLICT DO NOTHING RETURNING 1
	)
	SELECT (SELECT count(*) FROM m), (SELECT count(*) FROM v)`
}()

// PrefetchSlots reads the slots named by ps (all in namespace ns) in one
// query and keeps them, found or not, for FindMemory in this transaction
// (memory.SlotPrefetcher). Outside a transaction it does nothing.
func (e *executor) PrefetchSlots(ctx context.Context, ns string, ps []memory.FindMemoryParams) error {
	if e.tx == nil || e.readOnly || len(ps) == 0 {
		return nil
	}
	if err := checkNamespace(ns); err != nil {
		return fmt.Errorf("postgres: prefetch slots: %w", err)
	}
	return e.write(ctx, ns, "prefetch slots", func(e *executor) error {
		cols := make([][]string, 6)
		for _, p := range ps {
			if p.Namespace != ns {
				return memory.Invalidf("slot of namespace %q in a prefetch of %q", p.Namespace, ns)
			}
			for i, v := range []string{p.Subject, p.Key, p.Scope.AgentID, p.Scope.UserID, p.Scope.ProjectID, p.Scope.SessionID} {
				cols[i] = append(cols[i], v)
			}
		}
		found, err := collect(ctx, e, decodeMemory, qPrefetchSlots, ns, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5])
		if err != nil {
			return err
		}
		if e.slots == nil {
			e.slots = map[slotKey]*memory.Memory{}
		}
		for _, p := range ps {
			e.slots[slotKey{ns, p.Subject, p.Key, p.Scope}] = nil // known missing unless found
		}
		for _, m := range found {
			e.slots[slotKey{ns, m.Subject, m.Key, m.Scope}] = m
		}
		return nil
	})
}

// qPrefetchSlots looks each slot up on its own in memories_slot (a lateral
// join, one index probe per slot), whatever the planner knows of the table:
// written as IN (subquery), a table without statistics was planned as a
// nested loop comparing every slot with every memory of the namespace.
const qPrefetchSlots = `SELECT m.namespace, m.id, m.agent_id, m.user_id, m.project_id, m.session_id, m.kind, m.subject, m.key,
  m.created_at, m.updated_at
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS t(s, k, a, u, p, x)
CROSS JOIN LATERAL (
  SELECT ` + memoryCols + ` FROM memories
  WHERE namespace = $1 AND subject = t.s COLLATE "C" AND key = t.k COLLATE "C" AND agent_id = t.a COLLATE "C"
    AND user_id = t.u COLLATE "C" AND project_id = t.p COLLATE "C" AND session_id = t.x COLLATE "C"
) AS m`

// cachedSlot answers FindMemory from the prefetched slots: ok is false
// when the slot was not prefetched.
func (e *executor) cachedSlot(p memory.FindMemoryParams) (*memory.Memory, bool) {
	if e.slots == nil {
		return nil, false
	}
	m, ok := e.slots[slotKey{p.Namespace, p.Subject, p.Key, p.Scope}]
	if !ok {
		return nil, false
	}
	if m == nil {
		return nil, true
	}
	c := *m
	return &c, true
}

// slotCreated records a memory this transaction created, for cachedSlot.
func (e *executor) slotCreated(m *memory.Memory) {
	if e.slots != nil {
		c := *m
		e.slots[slotKey{m.Namespace, m.Subject, m.Key, m.Scope}] = &c
	}
}

// forgetSlots drops the prefetched slots when a statement deletes
// memories.
func (e *executor) forgetSlots(sql string) {
	if e.slots != nil && strings.Contains(sql, "DELETE FROM memories") {
		e.slots = nil
	}
}

// QueueSlot is CreateSlot sent later, with the transaction's next
// statement or its commit (memory.SlotQueuer); its conflicts fail that
// statement or the commit. Outside a transaction it is CreateSlot.
func (e *executor) QueueSlot(ctx context.Context, m *memory.Memory, v *memory.Version) error {
	if e.tx == nil || e.readOnly {
		return e.CreateSlot(ctx, m, v)
	}
	args, err := e.slotArgs("queue slot", m, v)
	if err != nil {
		return err
	}
	if !e.locked[m.Namespace] {
		// The namespace's write lock comes before the first write there.
		if _, err := e.exec(ctx, qLockNamespace, lockNamespace, m.Namespace); err != nil {
			return fmt.Errorf("postgres: queue slot %s: %w", m.ID, err)
		}
		e.locked[m.Namespace] = true
	}
	if e.slotQueue == nil {
		e.slotQueue = map[string][][]any{}
	}
	e.slotQueue[m.Namespace] = append(e.slotQueue[m.Namespace], args)
	if e.vec != nil {
		if q, vargs, ok := e.vec.put(v.Namespace, v.ID, v.Embedding); ok {
			e.vecQueue = append(e.vecQueue, queuedStmt{q, vargs})
		}
	}
	e.slotCreated(m)
	return nil
}
