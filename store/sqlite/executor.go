package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// executor implements memory.Executor either inside a write transaction on
// the writer connection (tx set) or on the reader pool (db set).
type executor struct {
	tx *sql.Tx
	db *sql.DB
	// raw, on a write transaction's executor, runs its statements on the
	// writer connection's handle (rawwrite.go); tx then only begins and
	// ends the transaction, and serves SQLTx.
	raw *rawWriter
	// ended is set once the raw path's transaction is over: its executor
	// then refuses every call, as a finished *sql.Tx does.
	ended bool
	// stmts are the statements prepared on the pool this executor runs on
	// (stmts.go); any other SQL is run unprepared.
	stmts *stmtCache
	// write is set on the write transaction's executor: a frequent query
	// it runs unprepared is prepared before the next transaction.
	write bool
	// store, set on the Store's read executor only, lets Scan methods
	// use the fast path (fastscan.go).
	store *Store
	// bufs, on write executors, recycles JSON encoding buffers.
	bufs *sync.Pool
	// texts, on write executors, maps the versions written in this
	// transaction by text, so a second version of the same text can share
	// the first one's row (sharedCandidate).
	texts map[textKey]sharedText
	// slots and episodeTexts, on write executors, hold the memories
	// (subject and key) and episode texts written or read in this
	// transaction, so a version of them stores its subject and key or its
	// text by reference (shared bits 4 and 8) without a lookup.
	slots        map[rowKey]slotName
	episodeTexts map[rowKey]string
	// versionSeqs, on write executors, holds the versions this transaction
	// wrote, by id: an admission naming one of them with its memory stores
	// the version's seq instead of its id (migration 0027).
	versionSeqs map[rowKey]versionSeq
	// freeSlot, on write executors, is the last slot this transaction
	// looked up and found free (hasFreeSlot set): CreateMemory then needs
	// no probe of its own to know no memory holds it, since writers are
	// serialised and only CreateMemory fills a slot.
	freeSlot    memory.FindMemoryParams
	hasFreeSlot bool
	// local, on transaction executors, holds the frequent queries not in
	// stmts yet, prepared on the transaction's own connection (txStmt).
	local map[string]*sql.Stmt
}

// rowKey names a row of a namespace.
type rowKey struct{ ns, id string }

// versionSeq is a version's memory and seq, which never change.
type versionSeq struct {
	memoryID string
	seq      int
}

// slotName is a memory's subject and key, which never change.
type slotName struct{ subject, key string }

// noteSlot records a memory written or read in this transaction.
func (e *executor) noteSlot(m *memory.Memory) {
	if !e.write || m == nil {
		return
	}
	if e.slots == nil {
		e.slots = make(map[rowKey]slotName)
	} else if len(e.slots) >= maxSharedTexts {
		clear(e.slots)
	}
	e.slots[rowKey{m.Namespace, m.ID}] = slotName{m.Subject, m.Key}
}

// noteEpisode records an episode written in this transaction whose text a
// version may refer to.
func (e *executor) noteEpisode(ns string, ep *memory.Episode) {
	if !e.write || len(ep.Content) < minEpisodeText {
		return
	}
	if e.episodeTexts == nil {
		e.episodeTexts = make(map[rowKey]string)
	} else if len(e.episodeTexts) >= maxSharedTexts {
		clear(e.episodeTexts)
	}
	e.episodeTexts[rowKey{ns, ep.ID}] = ep.Content
}

var (
	_ memory.Executor       = (*executor)(nil)
	_ memory.SlotHeadReader = (*executor)(nil)
)

func (e *executor) query(ctx context.Context, q string, args ...any) (rowSet, error) {
	e.forgetTexts(q) // DELETE ... RETURNING runs here
	args = bindNamespaces(q, args)
	if e.raw != nil {
		if err := e.rawReady(ctx); err != nil {
			return nil, err
		}
		return e.raw.query(q, args)
	}
	st := e.stmts.get(q)
	if e.tx != nil {
		if st != nil {
			// Reuses the statement already prepared on the
			// transaction's connection; its copy is closed at commit.
			return e.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
		}
		if e.write {
			e.stmts.later(q)
		}
		// A read transaction holds one of the reader connections:
		// preparing on the pool could wait for another that never frees.
		if st := e.txStmt(ctx, q); st != nil {
			return st.QueryContext(ctx, args...)
		}
		return e.tx.QueryContext(ctx, q, args...)
	}
	if st == nil {
		st = e.stmts.prepare(ctx, q)
	}
	if st != nil {
		return st.QueryContext(ctx, args...)
	}
	return e.db.QueryContext(ctx, q, args...)
}

func (e *executor) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	e.forgetTexts(q)
	args = bindNamespaces(q, args)
	if e.raw != nil {
		if err := e.rawReady(ctx); err != nil {
			return nil, err
		}
		return e.raw.exec(q, args)
	}
	if e.tx == nil {
		// The Store routes every write through InTx; reaching this is a bug.
		return nil, errors.New("write outside a transaction")
	}
	if st := e.stmts.get(q); st != nil {
		return e.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	if e.write {
		e.stmts.later(q)
	}
	if st := e.txStmt(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return e.tx.ExecContext(ctx, q, args...)
}

// rawReady says whether a raw statement may run: the transaction is not
// over and ctx is not done (raw statements do not watch it while they run).
func (e *executor) rawReady(ctx context.Context) error {
	if e.ended {
		return sql.ErrTxDone
	}
	return ctx.Err()
}

// txStmt returns q prepared on the transaction's own connection when it
// is one of the frequent queries but not prepared on the pool yet (that
// happens before the next transaction, see stmtCache.later): a batch's
// first transaction runs the same insert once per row, and SQLite parses
// an unprepared statement again at every call. database/sql closes the
// statement when the transaction ends. It returns nil for any other SQL,
// or when preparing fails (the caller runs q unprepared, which reports the
// error in its place).
func (e *executor) txStmt(ctx context.Context, q string) *sql.Stmt {
	if !isPreparable(q) {
		return nil
	}
	if st := e.local[q]; st != nil {
		return st
	}
	st, err := e.tx.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	if e.local == nil {
		e.local = map[string]*sql.Stmt{}
	}
	e.local[q] = st
	return st
}

// atomically makes a multi-row write all-or-nothing even when the caller's
// transaction goes on after the error: a savepoint undoes the rows already
// inserted by this call.
func (e *executor) atomically(ctx context.Context, n int, fn func() error) error {
	if n <= 1 {
		return fn() // one statement is atomic by itself
	}
	if _, err := e.exec(ctx, "SAVEPOINT batch"); err != nil {
		return mapErr(err)
	}
	if err := fn(); err != nil {
		// Undo even if ctx is what failed: the transaction may be reused.
		rctx := context.WithoutCancel(ctx)
		_, rbErr := e.exec(rctx, "ROLLBACK TO batch")
		_, relErr := e.exec(rctx, "RELEASE batch")
		return errors.Join(err, rbErr, relErr)
	}
	_, err := e.exec(ctx, "RELEASE batch")
	return mapErr(err)
}

// checkNamespace rejects a malformed namespace before it reaches SQL, so a
// typo cannot create a tenant nobody can name again.
func checkNamespace(ns string) error { return memory.ValidateNamespace(ns) }

func checkID(what, id string) error {
	if id == "" {
		return memory.Invalidf("%s id is empty", what)
	}
	return nil
}

// sameNamespace makes sure a row handed in a namespace's params belongs to
// that namespace: rows cannot be slipped across tenants. An empty row
// namespace takes the params'.
func sameNamespace(what, id, rowNS, ns string) error {
	if rowNS != "" && rowNS != ns {
		return memory.Invalidf("%s %s has namespace %q, expected %q", what, id, rowNS, ns)
	}
	return nil
}

// limitArg turns the params' "0 means no limit" into SQLite's LIMIT -1.
func limitArg(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// where builds a filtered query. Lists are passed as one JSON array
// parameter expanded by json_each, so the SQL text depends only on which
// filters are set, not on how many values they hold: the few shapes stay
// few enough to prepare.
type where struct {
	sb   strings.Builder
	args []any
	err  error
}

func (w *where) eq(col string, v any) {
	w.sb.WriteString(" AND " + col + " = ?")
	w.args = append(w.args, v)
}

func (w *where) in(col string, list any) {
	b, err := json.Marshal(list)
	if err != nil && w.err == nil {
		w.err = err
	}
	w.sb.WriteString(" AND " + col + " IN (SELECT value FROM json_each(?))")
	w.args = append(w.args, string(b))
}

// inIDs is in for an id column stored compactly (ids.go).
func (w *where) inIDs(col string, ids []string) {
	w.sb.WriteString(" AND " + col + " IN " + idsInSQL)
	w.args = append(w.args, idsInArg(ids))
}

func (w *where) cond(sqlText string, v any) {
	w.sb.WriteString(" AND " + sqlText)
	w.args = append(w.args, v)
}

// ---- episodes ---------------------------------------------------------------

const episodeCols = `namespace, id, agent_id, user_id, project_id, session_id, kind, speaker,
	content, metadata, occurred_at, recorded_at, content_hash`

const (
	qInsertEpisode = `INSERT INTO episodes (` + episodeCols + `)
	VALUES (/*ns*/?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qGetEpisode   = `SELECT ` + episodeCols + ` FROM episodes WHERE namespace = /*ns*/? AND id = ?`
	qScanEpisodes = `SELECT ` + episodeCols + ` FROM episodes WHERE namespace = /*ns*/? ORDER BY id`
)

func decodeEpisode(d *decoder) *memory.Episode {
	ep := &memory.Episode{
		Namespace: d.ns(),
		ID:        d.id(),
		Scope:     memory.Scope{AgentID: d.sym(), UserID: d.sym(), ProjectID: d.sym(), SessionID: d.sym()},
		Kind:      memory.EpisodeKind(d.episodeKind()),
		Speaker:   d.coded(speakers),
		Content:   d.str(),
	}
	d.json(&ep.Metadata)
	ep.OccurredAt, ep.RecordedAt = d.timePair()
	ep.ContentHash = d.hash(ep.Content)
	return ep
}

func (e *executor) CreateEpisodes(ctx context.Context, p memory.CreateEpisodesParams) error {
	if err := e.createEpisodes(ctx, p); err != nil {
		return fmt.Errorf("sqlite: create episodes: %w", err)
	}
	return nil
}

func (e *executor) createEpisodes(ctx context.Context, p memory.CreateEpisodesParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	for _, ep := range p.Episodes {
		if ep == nil {
			return memory.Invalidf("nil episode")
		}
		if err := checkID("episode", ep.ID); err != nil {
			return err
		}
		if err := sameNamespace("episode", ep.ID, ep.Namespace, p.Namespace); err != nil {
			return err
		}
	}
	return e.atomically(ctx, len(p.Episodes), func() error {
		for _, ep := range p.Episodes {
			var c encoder
			args := []any{
				p.Namespace, idArg(ep.ID), ep.Scope.AgentID, ep.Scope.UserID, ep.Scope.ProjectID, ep.Scope.SessionID,
				encodeEpisodeKind(string(ep.Kind)), speakers.encode(ep.Speaker), ep.Content, episodeMetadata(&c, ep.Metadata),
				nil, nil, episodeHashArg(ep.ContentHash, ep.Content),
			}
			occurred := c.time("occurred_at", ep.OccurredAt)
			args[10], args[11] = occurred, sameTime(c.time("recorded_at", ep.RecordedAt), occurred)
			if c.err != nil {
				return memory.Within(c.err, "episode %s", ep.ID)
			}
			if _, err := e.exec(ctx, qInsertEpisode, args...); err != nil {
				return memory.Within(mapErr(err), "episode %s", ep.ID)
			}
			e.noteEpisode(p.Namespace, ep)
		}
		return nil
	})
}

func (e *executor) GetEpisode(ctx context.Context, p memory.GetParams) (*memory.Episode, error) {
	ep, err := getOne(ctx, e, p, idArg(p.ID), qGetEpisode, decodeEpisode)
	if errors.Is(err, memory.ErrNotFound) {
		// A purged episode lives on in its session's archive.
		var eps []*memory.Episode
		eps, err = e.archived(ctx, memory.ListEpisodesParams{Namespace: p.Namespace, IDs: []string{p.ID}}, nil)
		if err == nil && len(eps) == 0 {
			err = memory.ErrNotFound
		}
		if err == nil {
			ep = eps[0]
		}
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get episode %s: %w", p.ID, err)
	}
	return ep, nil
}

func listEpisodesQuery(p memory.ListEpisodesParams) (string, []any, error) {
	w := where{args: []any{p.Namespace}}
	if p.SessionID != "" {
		w.eq("session_id", p.SessionID)
		w.sb.WriteString(" AND session_id <> ''") // episodes_by_session is partial on it
	}
	if len(p.IDs) > 0 {
		w.inIDs("id", p.IDs)
	}
	if p.ContentHash != "" {
		// episodes_by_hash holds the hash's first 8 bytes; the row holds
		// all of it, or only those 8 when the hash is its content's
		// SHA-256 (migration 0021): listEpisodes compares the hash as read.
		full, short := hashLookupArgs(p.ContentHash)
		w.cond("substr(content_hash, 1, 8) = substr(?, 1, 8)", full)
		w.sb.WriteString(" AND content_hash IN (?, ?)")
		w.args = append(w.args, full, short)
	}
	if !p.OccurredAt.IsZero() {
		var c encoder
		w.eq("occurred_at", c.time("occurred_at", p.OccurredAt))
		if c.err != nil {
			return "", nil, c.err
		}
	}
	w.args = append(w.args, limitArg(p.Limit))
	order := ` ORDER BY occurred_at, id`
	if len(p.IDs) > 0 || p.ContentHash != "" {
		// Without the unary plus, SQLite walks the whole namespace in
		// time order to skip a sort; a few ids are cheaper looked up by
		// key and sorted.
		order = ` ORDER BY +occurred_at, id`
	}
	return `SELECT ` + episodeCols + ` FROM episodes WHERE namespace = /*ns*/?` + w.sb.String() +
		order + ` LIMIT ?`, w.args, w.err
}

func (e *executor) ListEpisodes(ctx context.Context, p memory.ListEpisodesParams) ([]*memory.Episode, error) {
	out, err := e.listEpisodes(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list episodes: %w", err)
	}
	return out, nil
}

// listEpisodes merges the live episodes with the archived (purged) ones
// that match p.
func (e *executor) listEpisodes(ctx context.Context, p memory.ListEpisodesParams) ([]*memory.Episode, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) { return listEpisodesQuery(p) }, decodeEpisode)
	if err == nil && p.ContentHash != "" {
		// A row holding 8 bytes of a hash matched on them alone: the hash
		// as read, from its content, decides. (Two texts whose SHA-256
		// share 64 bits is the one case where the limit counts a row
		// dropped here.)
		out = slices.DeleteFunc(out, func(ep *memory.Episode) bool { return ep.ContentHash != p.ContentHash })
	}
	if err != nil || p.Held {
		return out, err // purged episodes are all in the archive
	}
	var found map[string]bool
	if len(p.IDs) > 0 {
		if len(out) == len(p.IDs) {
			return out, nil // every id is live
		}
		found = make(map[string]bool, len(out))
		for _, ep := range out {
			found[ep.ID] = true
		}
	}
	arch, err := e.archived(ctx, p, found)
	if err != nil || len(arch) == 0 {
		return out, err
	}
	// Outside a transaction the two reads are two snapshots: an episode
	// purged between them is in both, and its archived copy is the truth.
	archivedIDs := make(map[string]bool, len(arch))
	for _, ep := range arch {
		archivedIDs[ep.ID] = true
	}
	out = slices.DeleteFunc(out, func(ep *memory.Episode) bool { return archivedIDs[ep.ID] })
	out = append(out, arch...)
	sortEpisodes(out)
	if p.Limit > 0 && len(out) > p.Limit {
		out = out[:p.Limit]
	}
	return out, nil
}

// ScanEpisodes walks the live episodes in id order, then the archived ones
// session by session (each session's in id order). Run it in a transaction
// (Store.ScanEpisodes does): the two parts must read one snapshot, or an
// episode purged in between would be walked twice.
func (e *executor) ScanEpisodes(ctx context.Context, p memory.ScanParams, fn func(*memory.Episode) error) error {
	if err := scan(ctx, e, p.Namespace, "scan episodes", qScanEpisodes, decodeEpisode, fn); err != nil {
		return err
	}
	chunks, err := e.archiveChunks(ctx, p.Namespace, qArchiveAll, p.Namespace)
	if err != nil {
		return fmt.Errorf("sqlite: scan episodes: %w", err)
	}
	for i, c := range chunks {
		if i+1 < len(chunks) && chunks[i+1].session == c.session {
			continue // the session's chunks go together, in id order
		}
		var eps []*memory.Episode
		for j := i; j >= 0 && chunks[j].session == c.session; j-- {
			eps = append(eps, chunks[j].eps...)
		}
		slices.SortFunc(eps, func(a, b *memory.Episode) int { return strings.Compare(a.ID, b.ID) })
		for _, ep := range eps {
			if err := fn(ep); err != nil {
				return err
			}
		}
	}
	return nil
}

// ---- memories ---------------------------------------------------------------

const memoryCols = `namespace, id, agent_id, user_id, project_id, session_id, kind, subject, "key",
	created_at, updated_at`

const (
	qInsertMemory = `INSERT INTO memories (` + memoryCols + `, slot_hash) VALUES (/*ns*/?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qGetMemory    = `SELECT ` + memoryCols + ` FROM memories WHERE namespace = /*ns*/? AND id = ?`
	// A slot is found by its hash (memories_slot, migration 0026) and
	// compared whole on the row. Without statistics the planner would walk
	// the namespace in the primary key instead.
	qFindMemory = `SELECT ` + memoryCols + ` FROM memories INDEXED BY memories_slot
	WHERE namespace = /*ns*/? AND slot_hash = ? AND subject = ? AND "key" = ?
	  AND agent_id = ? AND user_id = ? AND project_id = ? AND session_id = ?`
	qScanMemories = `SELECT ` + memoryCols + ` FROM memories WHERE namespace = /*ns*/? ORDER BY id`
)

func decodeMemory(d *decoder) *memory.Memory {
	m := &memory.Memory{
		Namespace: d.ns(),
		ID:        d.id(),
		Scope:     memory.Scope{AgentID: d.sym(), UserID: d.sym(), ProjectID: d.sym(), SessionID: d.sym()},
		Kind:      memory.Kind(d.code()),
		Subject:   d.sym(),
		Key:       d.str(),
	}
	m.CreatedAt, m.UpdatedAt = d.timePair()
	return m
}

func (e *executor) CreateMemory(ctx context.Context, m *memory.Memory) error {
	if m == nil {
		return fmt.Errorf("sqlite: create memory: %w", memory.Invalidf("nil memory"))
	}
	if err := e.createMemory(ctx, m); err != nil {
		return fmt.Errorf("sqlite: create memory %s: %w", m.ID, err)
	}
	return nil
}

func (e *executor) createMemory(ctx context.Context, m *memory.Memory) error {
	if err := checkNamespace(m.Namespace); err != nil {
		return err
	}
	if err := checkID("memory", m.ID); err != nil {
		return err
	}
	var c encoder
	hash := slotHash(m.Subject, m.Key)
	args := []any{
		m.Namespace, idArg(m.ID), m.Scope.AgentID, m.Scope.UserID, m.Scope.ProjectID, m.Scope.SessionID,
		encodeSym(string(m.Kind)), m.Subject, m.Key, nil, nil, hash,
	}
	created := c.time("created_at", m.CreatedAt)
	args[9], args[10] = created, sameTime(c.time("updated_at", m.UpdatedAt), created)
	if c.err != nil {
		return c.err
	}
	// One memory per slot, which a UNIQUE memories_slot said before 0026;
	// it holds the slot's hash only now. The engine's remember has just
	// found the slot free in this transaction (ReadSlotHead); anything
	// else probes it.
	p := memory.FindMemoryParams{Namespace: m.Namespace, Subject: m.Subject, Key: m.Key, Scope: m.Scope}
	if !e.hasFreeSlot || e.freeSlot != p {
		taken, err := collect(ctx, e, decodeMemory, qFindMemory, m.Namespace, hash, m.Subject, m.Key,
			m.Scope.AgentID, m.Scope.UserID, m.Scope.ProjectID, m.Scope.SessionID)
		if err != nil {
			return err
		}
		if len(taken) > 0 {
			return fmt.Errorf("%w: a memory already holds the slot %s/%s in this scope", memory.ErrConflict, m.Subject, m.Key)
		}
	}
	if _, err := e.exec(ctx, qInsertMemory, args...); err != nil {
		return mapErr(err)
	}
	if e.freeSlot == p {
		e.hasFreeSlot = false // taken now
	}
	e.noteSlot(m)
	return nil
}

func (e *executor) GetMemory(ctx context.Context, p memory.GetParams) (*memory.Memory, error) {
	m, err := getOne(ctx, e, p, idArg(p.ID), qGetMemory, decodeMemory)
	if err != nil {
		return nil, fmt.Errorf("sqlite: get memory %s: %w", p.ID, err)
	}
	return m, nil
}

func (e *executor) FindMemory(ctx context.Context, p memory.FindMemoryParams) (*memory.Memory, error) {
	m, err := e.findMemory(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sqlite: find memory %s/%s: %w", p.Subject, p.Key, err)
	}
	return m, nil
}

func (e *executor) findMemory(ctx context.Context, p memory.FindMemoryParams) (*memory.Memory, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, err
	}
	out, err := collect(ctx, e, decodeMemory, qFindMemory, p.Namespace, slotHash(p.Subject, p.Key), p.Subject, p.Key,
		p.Scope.AgentID, p.Scope.UserID, p.Scope.ProjectID, p.Scope.SessionID)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		e.noteFreeSlot(p)
		return nil, memory.ErrNotFound
	}
	return out[0], nil
}

// noteFreeSlot records that no memory holds p's slot (see freeSlot).
func (e *executor) noteFreeSlot(p memory.FindMemoryParams) {
	if e.write {
		e.freeSlot, e.hasFreeSlot = p, true
	}
}

// qSlot finds a slot and the highest seq of its whole history (a probe of
// the slot's last (namespace, memory_id, seq) entry); qSlotLive reads its
// live versions, walking the slot's entries, no version's body decoded
// unless it is live. The unary plus keeps the planner off any index by
// status (there was one on every version's status). Two statements rather than one join: a new slot (most
// writes) costs one narrow lookup, not the setup of a 53-column result.
const (
	qSlot = `SELECT ` + memoryCols + `,
	(SELECT max(s.seq) FROM versions s WHERE s.namespace = memories.namespace AND s.memory_id = memories.id)
	FROM memories INDEXED BY memories_slot WHERE namespace = /*ns*/? AND slot_hash = ? AND subject = ? AND "key" = ?
	  AND agent_id = ? AND user_id = ? AND project_id = ? AND session_id = ?`
	qSlotLive = `SELECT ` + versionColsLean + ` FROM versions
	WHERE namespace = /*ns*/? AND memory_id = ? AND +status IN ('active', 'contested')
	ORDER BY recorded_at, id`
)

// slotRow is a row of qSlot.
type slotRow struct {
	m      *memory.Memory
	maxSeq int64
}

func decodeSlotRow(d *decoder) slotRow {
	r := slotRow{m: decodeMemory(d)}
	if d.i < d.n && d.src.kind(d.i) == kindNull {
		d.i++ // a slot without versions
	} else {
		r.maxSeq = d.int()
	}
	return r
}

// ReadSlotHead implements memory.SlotHeadReader.
func (e *executor) ReadSlotHead(ctx context.Context, p memory.FindMemoryParams) (*memory.SlotHead, error) {
	h, err := e.readSlotHead(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read slot %s/%s: %w", p.Subject, p.Key, err)
	}
	return h, nil
}

func (e *executor) readSlotHead(ctx context.Context, p memory.FindMemoryParams) (*memory.SlotHead, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, err
	}
	rows, err := collect(ctx, e, decodeSlotRow, qSlot, p.Namespace, slotHash(p.Subject, p.Key), p.Subject, p.Key,
		p.Scope.AgentID, p.Scope.UserID, p.Scope.ProjectID, p.Scope.SessionID)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		e.noteFreeSlot(p)
		return nil, memory.ErrNotFound
	}
	h := &memory.SlotHead{Memory: rows[0].m, NextSeq: int(rows[0].maxSeq) + 1}
	e.noteSlot(h.Memory)
	if rows[0].maxSeq > 0 {
		if h.Live, err = collect(ctx, e, decodeVersion, qSlotLive, p.Namespace, idArg(h.Memory.ID)); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (e *executor) ScanMemories(ctx context.Context, p memory.ScanParams, fn func(*memory.Memory) error) error {
	return scan(ctx, e, p.Namespace, "scan memories", qScanMemories, decodeMemory, fn)
}

// ---- versions ---------------------------------------------------------------

// A version's text and vector may be stored once for two rows (migration
// 0017): shared bit 1 says value is the content, bit 2 that content and
// embedding are version same_as's. Migration 0020 adds two: bit 4 says
// subject and key are its memory's (the slot's, which never change), bit 8
// that content is the text of its first evidence episode; both stored
// empty. An episode's delete first copies its text into the versions that
// refer to it (trigger episodes_unshare_on_delete, through the partial
// index versions_episode_text). The reads below put them back, so every
// query that selects these columns returns what was written. They name the
// outer table "versions": every query reads it unaliased. The first evidence
// id is read from either stored form of the list (migration 0022: 16-byte
// ids one after the other, or JSON; a BLOB given to ->> would be read as
// JSONB): iif(typeof(x) = 'blob', substr(x, 1, 16), x ->> 0).
const (
	versionSlotSubject = `CASE WHEN versions.shared & 4 THEN (SELECT m.subject FROM memories m
	WHERE m.namespace = versions.namespace AND m.id = versions.memory_id) ELSE versions.subject END`
	versionSlotKey = `CASE WHEN versions.shared & 4 THEN (SELECT m."key" FROM memories m
	WHERE m.namespace = versions.namespace AND m.id = versions.memory_id) ELSE versions."key" END`
	versionSharedContent = `(SELECT CASE WHEN s.shared & 8 THEN coalesce((SELECT e.content FROM episodes e
	WHERE e.namespace = s.namespace AND e.id = iif(typeof(s.evidence_episode_ids) = 'blob', substr(s.evidence_episode_ids, 1, 16), s.evidence_episode_ids ->> 0)), '') ELSE s.content END
	FROM versions s WHERE s.namespace = versions.namespace AND s.id = versions.same_as)`
	versionEpisodeText = `coalesce((SELECT e.content FROM episodes e
	WHERE e.namespace = versions.namespace AND e.id = iif(typeof(versions.evidence_episode_ids) = 'blob', substr(versions.evidence_episode_ids, 1, 16), versions.evidence_episode_ids ->> 0)), '')`
	versionContentExpr = `CASE WHEN versions.shared & 2 THEN ` + versionSharedContent + `
	WHEN versions.shared & 8 THEN ` + versionEpisodeText + ` ELSE versions.content END`
	// Bit 1 reads as NULL and decodeVersion copies the content: the
	// content's expression (a shared row's or an episode's text) is not
	// evaluated twice.
	versionValueExpr = `CASE WHEN versions.shared & 1 THEN NULL ELSE versions.value END`
	// Bit 16 (migration 0020): valid_from is observed_at, stored 0 (which
	// takes no bytes). Bit 512 (migration 0024): updated_at is recorded_at,
	// stored 0, as on every version no update has touched; the update that
	// first changes it grows the row by 8 bytes.
	versionValidFrom = `CASE WHEN versions.shared & 16 THEN versions.observed_at ELSE versions.valid_from END`
	versionUpdatedAt = `CASE WHEN versions.shared & 512 THEN versions.recorded_at ELSE versions.updated_at END`
	// Bits 32, 64 and 128 (migration 0024): confidence, usefulness and
	// trust stored as whole thousandths (see milli), which take 0-3 bytes
	// instead of a REAL's 8; usefulness as its thousandths away from 0.5
	// (memory.NeutralUsefulness), so the usual value is stored 0.
	versionConfidence    = `CASE WHEN versions.shared & 32 THEN versions.confidence / 1000.0 ELSE versions.confidence END`
	versionUsefulness    = `CASE WHEN versions.shared & 64 THEN 0.5 + versions.usefulness / 1000.0 ELSE versions.usefulness END`
	versionTrust         = `CASE WHEN versions.shared & 128 THEN versions.trust / 1000.0 ELSE versions.trust END`
	versionEmbeddingExpr = `CASE WHEN versions.shared & 2 THEN (SELECT s.embedding FROM versions s
	WHERE s.namespace = versions.namespace AND s.id = versions.same_as) ELSE versions.embedding END`
)

// versionWriteCols are the stored columns, in the order createVersion binds them.
const versionWriteCols = `namespace, id, memory_id, seq, agent_id, user_id, project_id, session_id,
	kind, type, subject, "key", value, content, criticality,
	confidence, usefulness, trust, reinforcement_count, failure_count,
	status, operation, superseded_by,
	observed_at, recorded_at, valid_from, valid_to, updated_at,
	evidence_episode_ids, evidence_spans,
	prov_extractor, prov_model, prov_prompt_version, prov_embedder, prov_embedder_dim, prov_source,
	tokens, search_text, embedding, shared, same_as`

const versionColsBase = `namespace, id, memory_id, seq, agent_id, user_id, project_id, session_id,
	kind, type, ` + versionSlotSubject + `, ` + versionSlotKey + `, ` + versionValueExpr + `, ` + versionContentExpr + `, criticality,
	` + versionConfidence + `, ` + versionUsefulness + `, ` + versionTrust + `, reinforcement_count, failure_count,
	status, operation, superseded_by,
	observed_at, recorded_at, ` + versionValidFrom + `, valid_to, ` + versionUpdatedAt + `,
	evidence_episode_ids, evidence_spans,
	prov_extractor, prov_model, prov_prompt_version, prov_embedder, prov_embedder_dim, prov_source,
	tokens, search_text`

const (
	versionCols = versionColsBase + `, ` + versionEmbeddingExpr
	// versionColsLean reads a version without its embedding (the column
	// decodes as NULL, so Embedding stays nil).
	versionColsLean = versionColsBase + `, NULL`
)

const (
	qInsertVersion = `INSERT INTO versions (` + versionWriteCols + `) VALUES (
	/*ns*/?, ?, ?, ?, ?, ?, ?, ?,
	?, ?, ?, ?, ?, ?, ?,
	?, ?, ?, ?, ?,
	?, ?, ?,
	?, ?, ?, ?, ?,
	?, ?,
	?, ?, ?, ?, ?, ?,
	?, ?, ?, ?, ?)`
	// The lifecycle columns only: the claim is immutable by construction,
	// not by the caller's discipline.
	qUpdateVersionState = `UPDATE versions SET
	status = ?, operation = ?, superseded_by = ?, valid_to = ?,
	confidence = ?, usefulness = ?, trust = ?,
	reinforcement_count = ?, failure_count = ?,
	evidence_episode_ids = ?, evidence_spans = ?, updated_at = iif(? = recorded_at, 0, ?),
	shared = nullif(coalesce(shared, 0) & ~736 | ? | iif(? = recorded_at, 512, 0), 0)
	WHERE namespace = /*ns*/? AND id = ?`
	qGetVersion   = `SELECT ` + versionCols + ` FROM versions WHERE namespace = /*ns*/? AND id = ?`
	qScanVersions = `SELECT ` + versionCols + ` FROM versions WHERE namespace = /*ns*/? ORDER BY id`
	// qStreamVersions is StreamVersions': the versions a search index
	// holds, versionCols' columns with a shared text and vector read
	// through one join on the version holding them rather than a subquery
	// per column (16 % less time for the read of 100,000 versions, half of
	// them sharing their episode's).
	qStreamVersions = `SELECT v.namespace, v.id, v.memory_id, v.seq, v.agent_id, v.user_id, v.project_id, v.session_id,
	v.kind, v.type, CASE WHEN v.shared & 4 THEN m.subject ELSE v.subject END, CASE WHEN v.shared & 4 THEN m."key" ELSE v."key" END,
	CASE WHEN v.shared & 1 THEN NULL ELSE v.value END,
	` + streamContent + `, v.criticality,
	CASE WHEN v.shared & 32 THEN v.confidence / 1000.0 ELSE v.confidence END,
	CASE WHEN v.shared & 64 THEN 0.5 + v.usefulness / 1000.0 ELSE v.usefulness END,
	CASE WHEN v.shared & 128 THEN v.trust / 1000.0 ELSE v.trust END, v.reinforcement_count, v.failure_count,
	v.status, v.operation, v.superseded_by,
	v.observed_at, v.recorded_at, CASE WHEN v.shared & 16 THEN v.observed_at ELSE v.valid_from END, v.valid_to,
	CASE WHEN v.shared & 512 THEN v.recorded_at ELSE v.updated_at END,
	v.evidence_episode_ids, v.evidence_spans,
	v.prov_extractor, v.prov_model, v.prov_prompt_version, v.prov_embedder, v.prov_embedder_dim, v.prov_source,
	v.tokens, v.search_text, CASE WHEN v.shared & 2 THEN s.embedding ELSE v.embedding END
	FROM versions v LEFT JOIN versions s ON v.shared & 2 AND s.namespace = v.namespace AND s.id = v.same_as
	LEFT JOIN memories m ON v.shared & 4 AND m.namespace = v.namespace AND m.id = v.memory_id
	LEFT JOIN episodes ve ON v.shared & 8 AND ve.namespace = v.namespace AND ve.id = iif(typeof(v.evidence_episode_ids) = 'blob', substr(v.evidence_episode_ids, 1, 16), v.evidence_episode_ids ->> 0)
	LEFT JOIN episodes se ON s.shared & 8 AND se.namespace = s.namespace AND se.id = iif(typeof(s.evidence_episode_ids) = 'blob', substr(s.evidence_episode_ids, 1, 16), s.evidence_episode_ids ->> 0)
	WHERE v.namespace = /*ns*/? AND v.status NOT IN ('deleted', 'quarantined') ORDER BY v.id`
	// streamContent is versionContentExpr over qStreamVersions' joins.
	streamContent = `CASE WHEN v.shared & 2 THEN (CASE WHEN s.shared & 8 THEN coalesce(se.content, '') ELSE s.content END)
	WHEN v.shared & 8 THEN coalesce(ve.content, '') ELSE v.content END`
)

func decodeVersion(d *decoder) *memory.Version {
	v := new(memory.Version)
	decodeVersionInto(d, v)
	return v
}

// decodeVersionInto is decodeVersion into v, so a batch's versions can be
// one allocation (rawBatch.decode).
func decodeVersionInto(d *decoder, v *memory.Version) {
	const valueCol = 12 // NULL: the value is the content (shared bit 1)
	valueIsContent := d.i+valueCol < d.n && d.src.kind(d.i+valueCol) == kindNull
	*v = memory.Version{
		Namespace:          d.ns(),
		ID:                 d.id(),
		MemoryID:           d.id(),
		Seq:                int(d.int()),
		Scope:              memory.Scope{AgentID: d.sym(), UserID: d.sym(), ProjectID: d.sym(), SessionID: d.sym()},
		Kind:               memory.Kind(d.code()),
		Type:               memory.Type(d.code()),
		Subject:            d.sym(),
		Key:                d.str(),
		Value:              d.nullStr(),
		Content:            d.str(),
		Criticality:        memory.Criticality(d.code()),
		Confidence:         d.float(),
		Usefulness:         d.float(),
		Trust:              d.float(),
		ReinforcementCount: int(d.int()),
		FailureCount:       int(d.int()),
		Status:             memory.Status(d.sym()),
		Operation:          memory.Operation(d.code()),
		SupersededBy:       d.id(),
		ObservedAt:         d.time(),
		RecordedAt:         d.time(),
		ValidFrom:          d.time(),
		ValidTo:            d.timePtr(),
		UpdatedAt:          d.time(),
	}
	if valueIsContent {
		v.Value = v.Content
	}
	v.EvidenceEpisodeIDs = d.idList()
	v.EvidenceSpans = d.spans(v.EvidenceEpisodeIDs, v.Content)
	v.Provenance = memory.Provenance{
		Extractor:     d.code(),
		Model:         d.code(),
		PromptVersion: d.code(),
		Embedder:      d.code(),
		EmbedderDim:   int(d.int()),
		Source:        d.code(),
	}
	v.Tokens = int(d.int())
	v.SearchText = d.str()
	v.Embedding = d.embedding()
}

func (e *executor) CreateVersion(ctx context.Context, v *memory.Version) error {
	if v == nil {
		return fmt.Errorf("sqlite: create version: %w", memory.Invalidf("nil version"))
	}
	if err := e.createVersion(ctx, v); err != nil {
		return fmt.Errorf("sqlite: create version %s: %w", v.ID, err)
	}
	return nil
}

func (e *executor) createVersion(ctx context.Context, v *memory.Version) error {
	if err := checkNamespace(v.Namespace); err != nil {
		return err
	}
	if err := checkID("version", v.ID); err != nil {
		return err
	}
	if err := checkID("memory", v.MemoryID); err != nil {
		return err
	}
	var c encoder
	args := []any{
		v.Namespace, idArg(v.ID), idArg(v.MemoryID), v.Seq,
		v.Scope.AgentID, v.Scope.UserID, v.Scope.ProjectID, v.Scope.SessionID,
		encodeSym(string(v.Kind)), encodeSym(string(v.Type)), v.Subject, v.Key, v.Value, v.Content, encodeSym(string(v.Criticality)),
		v.Confidence, v.Usefulness, v.Trust, v.ReinforcementCount, v.FailureCount,
		string(v.Status), encodeSym(string(v.Operation)), idArg(v.SupersededBy),
		c.time("observed_at", v.ObservedAt), c.time("recorded_at", v.RecordedAt),
		c.time("valid_from", v.ValidFrom), c.timePtr("valid_to", v.ValidTo), c.time("updated_at", v.UpdatedAt),
		idListArg(&c, "evidence_episode_ids", v.EvidenceEpisodeIDs), c.spans(v.EvidenceEpisodeIDs, v.EvidenceSpans, v.Content),
		encodeSym(v.Provenance.Extractor), encodeSym(v.Provenance.Model), encodeSym(v.Provenance.PromptVersion),
		encodeSym(v.Provenance.Embedder), v.Provenance.EmbedderDim, encodeSym(v.Provenance.Source),
		v.Tokens, v.SearchText, blob(search.PackVector(v.Embedding)), nil, nil,
	}
	if c.err != nil {
		return c.err
	}
	var shared int64
	if v.Value == v.Content && v.Value != "" {
		args[12], shared = "", 1 // value is the content
	}
	owner := e.sharedWith(v)
	if owner != "" {
		args[13], args[38], args[40] = "", nil, idArg(owner)
		shared |= 2
	}
	if args[25] == args[23] {
		args[25], shared = int64(0), shared|16 // valid_from is observed_at
	}
	if args[27] == args[24] {
		args[27], shared = int64(0), shared|512 // updated_at is recorded_at
	}
	// Subject and key, and the text, by reference when this transaction
	// wrote or read the memory and the episode they are the same as.
	if m, ok := e.slots[rowKey{v.Namespace, v.MemoryID}]; ok && m.subject == v.Subject && m.key == v.Key {
		args[10], args[11], shared = "", "", shared|4
	}
	if owner == "" && len(v.Content) >= minEpisodeText && len(v.EvidenceEpisodeIDs) > 0 && firstIDFindable(args[28], v.EvidenceEpisodeIDs[0]) {
		if text, ok := e.episodeTexts[rowKey{v.Namespace, v.EvidenceEpisodeIDs[0]}]; ok && text == v.Content {
			args[13], shared = "", shared|8
		}
	}
	shared |= milliScores(args[15:18])
	if shared != 0 {
		args[39] = shared
	}
	// The change first: if the insert then fails and the caller's
	// transaction goes on, a follower reads a version that is not there
	// and skips it; the other order could commit a write no follower sees.
	if err := e.logChange(ctx, v.Namespace, v.ID, c.time("updated_at", v.UpdatedAt)); err != nil {
		return err
	}
	if _, err := e.exec(ctx, qInsertVersion, args...); err != nil {
		return mapErr(err)
	}
	e.rememberText(v, owner)
	e.noteVersion(v)
	return nil
}

// sharedWith names a version written earlier in this transaction with v's
// very content and vector, whose row v can share, or "" if none. A
// remember writes its episode's version and, kept as a note, a version of
// the same text with the same vector, in one transaction.
func (e *executor) sharedWith(v *memory.Version) string {
	if v.Content == "" {
		return ""
	}
	w, ok := e.texts[textKey{v.Namespace, v.Content}]
	if !ok || !bytes.Equal(w.embedding, v.Embedding) {
		return ""
	}
	return w.id
}

// rememberText records a version just inserted in full as one a later
// version of this transaction may share.
func (e *executor) rememberText(v *memory.Version, owner string) {
	if v.Content == "" || e.tx == nil || owner != "" {
		return
	}
	k := textKey{v.Namespace, v.Content}
	if _, ok := e.texts[k]; ok {
		return // the first one stays the row others share
	}
	if e.texts == nil {
		e.texts = make(map[textKey]sharedText)
	} else if len(e.texts) >= maxSharedTexts {
		clear(e.texts) // a long import: only nearby writes share
	}
	e.texts[k] = sharedText{id: v.ID, embedding: v.Embedding}
}

// forgetTexts drops what rememberText recorded once a statement may have
// deleted or changed those rows (a delete, a re-embedding, a rollback to a
// savepoint): a version shares only a row known to hold what it holds.
func (e *executor) forgetTexts(q string) {
	if (len(e.texts) > 0 || len(e.slots) > 0 || len(e.episodeTexts) > 0 || len(e.versionSeqs) > 0) &&
		(q == qSetEmbedding || strings.HasPrefix(q, "DELETE") || strings.HasPrefix(q, "ROLLBACK")) {
		clear(e.texts)
		clear(e.slots)
		clear(e.episodeTexts)
		clear(e.versionSeqs)
	}
}

// noteVersion records a version this transaction wrote, for the admissions
// that name it (versionSeqs).
func (e *executor) noteVersion(v *memory.Version) {
	if !e.write || v.Seq < 1 {
		return
	}
	if e.versionSeqs == nil {
		e.versionSeqs = make(map[rowKey]versionSeq)
	} else if len(e.versionSeqs) >= maxSharedTexts {
		clear(e.versionSeqs)
	}
	e.versionSeqs[rowKey{v.Namespace, v.ID}] = versionSeq{v.MemoryID, v.Seq}
}

// maxSharedTexts bounds the texts a transaction remembers for sharing.
const maxSharedTexts = 1024

type sharedText struct {
	id        string
	embedding []byte
}

type textKey struct{ ns, content string }

func (e *executor) UpdateVersionState(ctx context.Context, v *memory.Version) error {
	if v == nil {
		return fmt.Errorf("sqlite: update version state: %w", memory.Invalidf("nil version"))
	}
	if err := e.updateVersionState(ctx, v); err != nil {
		return fmt.Errorf("sqlite: update version state %s: %w", v.ID, err)
	}
	return nil
}

// qSetEmbedding gives a version that shared another's text and vector its
// own copy of the text with its new vector; a version others share has
// them copied first (trigger versions_unshare_on_embedding).
const qSetEmbedding = `UPDATE versions SET embedding = ?, prov_embedder = ?, prov_embedder_dim = ?,
	content = ` + versionContentExpr + `, same_as = NULL, shared = versions.shared & ~10
	WHERE namespace = /*ns*/? AND id = ?`

// minEpisodeText is the shortest content a version refers to its episode
// for rather than storing it (shared bit 8): below it the entry in
// versions_episode_text would cost about what the text does.
const minEpisodeText = 48

// qOwnEpisodeText gives a version that refers to its first evidence
// episode's text its own copy before an update names another episode first.
const qOwnEpisodeText = `UPDATE versions SET content = ` + versionEpisodeText + `, shared = versions.shared & ~8
	WHERE namespace = /*ns*/?1 AND id = ?2 AND versions.shared & 8
	  AND (iif(typeof(versions.evidence_episode_ids) = 'blob', substr(versions.evidence_episode_ids, 1, 16), versions.evidence_episode_ids ->> 0))
	  IS NOT iif(typeof(?3) = 'blob', substr(?3, 1, 16), ?3 ->> 0)`

func (e *executor) SetEmbedding(ctx context.Context, p memory.SetEmbeddingParams) error {
	if err := e.setEmbedding(ctx, p); err != nil {
		return fmt.Errorf("sqlite: set embedding %s: %w", p.ID, err)
	}
	return nil
}

func (e *executor) setEmbedding(ctx context.Context, p memory.SetEmbeddingParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	var c encoder
	at := c.time("changed_at", p.ChangedAt)
	if c.err != nil {
		return c.err
	}
	if err := e.logChange(ctx, p.Namespace, p.ID, at); err != nil {
		return err
	}
	return execOne(ctx, e, qSetEmbedding, blob(search.PackVector(p.Embedding)), encodeSym(p.Embedder), p.EmbedderDim, p.Namespace, idArg(p.ID))
}

func (e *executor) updateVersionState(ctx context.Context, v *memory.Version) error {
	if err := checkNamespace(v.Namespace); err != nil {
		return err
	}
	var c encoder
	updated := c.time("updated_at", v.UpdatedAt)
	args := []any{
		string(v.Status), encodeSym(string(v.Operation)), idArg(v.SupersededBy), c.timePtr("valid_to", v.ValidTo),
		v.Confidence, v.Usefulness, v.Trust,
		v.ReinforcementCount, v.FailureCount,
		idListArg(&c, "evidence_episode_ids", v.EvidenceEpisodeIDs), c.spans(v.EvidenceEpisodeIDs, v.EvidenceSpans, v.Content),
		nil, nil, nil, nil, // updated_at (twice), the score bits, updated_at
		v.Namespace, idArg(v.ID),
	}
	if c.err != nil {
		return c.err
	}
	args[11], args[12], args[13], args[14] = updated, updated, milliScores(args[4:7]), updated
	// The change first, as in createVersion.
	if err := e.logChange(ctx, v.Namespace, v.ID, updated); err != nil {
		return err
	}
	if _, err := e.exec(ctx, qOwnEpisodeText, v.Namespace, args[16], args[9]); err != nil {
		return mapErr(err)
	}
	return execOne(ctx, e, qUpdateVersionState, args...)
}

func (e *executor) GetVersion(ctx context.Context, p memory.GetParams) (*memory.Version, error) {
	v, err := getOne(ctx, e, p, idArg(p.ID), qGetVersion, decodeVersion)
	if err != nil {
		return nil, fmt.Errorf("sqlite: get version %s: %w", p.ID, err)
	}
	return v, nil
}

func listVersionsQuery(p memory.ListVersionsParams) (string, []any, error) {
	w := where{args: []any{p.Namespace}}
	if p.MemoryID != "" {
		w.eq("memory_id", idArg(p.MemoryID))
	}
	if len(p.IDs) > 0 {
		w.inIDs("id", p.IDs)
	}
	if len(p.Kinds) > 0 {
		w.in("kind", encodeSyms(p.Kinds))
	}
	if len(p.Statuses) > 0 {
		w.in("status", p.Statuses)
		if !slices.Contains(p.Statuses, memory.StatusActive) {
			// Lets the planner use versions_not_active (the partial
			// index's condition must appear in the query).
			w.sb.WriteString(" AND status <> 'active'")
		}
	}
	if p.Subject != "" || p.Key != "" {
		// A version has its slot's subject and key. The slots answer, so
		// versions need no index of their own on them (migration 0017
		// dropped it): one index fewer to write on every version, and
		// fewer bytes. With both, memories_slot finds the slot by its hash
		// (migration 0026); with one of them the namespace's memories are
		// walked, comparing it on each row.
		if p.Subject != "" && p.Key != "" {
			w.sb.WriteString(" AND memory_id IN (SELECT id FROM memories INDEXED BY memories_slot WHERE namespace = /*ns*/? AND slot_hash = ?")
			w.args = append(w.args, p.Namespace, slotHash(p.Subject, p.Key))
		} else {
			w.sb.WriteString(" AND memory_id IN (SELECT id FROM memories WHERE namespace = /*ns*/?")
			w.args = append(w.args, p.Namespace)
		}
		if p.Subject != "" {
			w.eq("subject", p.Subject)
		}
		if p.Key != "" {
			w.eq(`"key"`, p.Key)
		}
		w.sb.WriteString(")")
		// A version storing its own subject and key must match too; one
		// with shared bit 4 has its memory's, which the subquery matched.
		if p.Subject != "" {
			w.cond("(versions.shared & 4 OR subject = ?)", p.Subject)
		}
		if p.Key != "" {
			w.cond(`(versions.shared & 4 OR "key" = ?)`, p.Key)
		}
	}
	w.args = append(w.args, limitArg(p.Limit))
	cols := versionCols
	if p.WithoutEmbeddings {
		cols = versionColsLean
	}
	return `SELECT ` + cols + ` FROM versions WHERE namespace = /*ns*/?` + w.sb.String() +
		` ORDER BY recorded_at, id LIMIT ?`, w.args, w.err
}

func (e *executor) ListVersions(ctx context.Context, p memory.ListVersionsParams) ([]*memory.Version, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) { return listVersionsQuery(p) }, decodeVersion)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list versions: %w", err)
	}
	return out, nil
}

// pageVersionsQuery reads versions_by_recency, whose condition (kind is
// not empty) no other query states: a plain (namespace, recorded_at, id) index
// would draw ListVersions' filtered shapes (ORDER BY recorded_at, id) off
// their status and subject indexes. INDEXED BY makes the query fail
// rather than fall back to sorting the namespace.
func pageVersionsQuery(p memory.PageVersionsParams) (string, []any, error) {
	w := where{args: []any{p.Namespace}}
	var c encoder
	if p.After != nil {
		at := c.time("after", p.After.RecordedAt)
		// The first term bounds the index range; the second breaks ties.
		w.cond("recorded_at <= ?", at)
		w.sb.WriteString(" AND (recorded_at < ? OR id < ?)")
		w.args = append(w.args, at, idArg(p.After.ID))
	}
	if !p.Until.IsZero() {
		w.cond("recorded_at < ?", c.time("until", p.Until))
	}
	if !p.Since.IsZero() {
		w.cond("recorded_at >= ?", c.time("since", p.Since))
	}
	if len(p.Kinds) > 0 {
		w.in("kind", encodeSyms(p.Kinds))
	}
	if len(p.Types) > 0 {
		w.in("type", encodeSyms(p.Types))
	}
	if len(p.Statuses) > 0 {
		w.in("status", p.Statuses)
		if !slices.Contains(p.Statuses, memory.StatusActive) {
			// Lets the planner use versions_not_active (the partial
			// index's condition must appear in the query).
			w.sb.WriteString(" AND status <> 'active'")
		}
	}
	if p.Subject != "" {
		w.cond("("+versionSlotSubject+") = ?", p.Subject)
	}
	for _, f := range []struct{ col, v string }{{"agent_id", p.Scope.AgentID}, {"user_id", p.Scope.UserID},
		{"project_id", p.Scope.ProjectID}, {"session_id", p.Scope.SessionID}} {
		if f.v != "" {
			w.eq(f.col, f.v)
		}
	}
	if p.Text != "" {
		w.cond(`(`+versionContentExpr+`) LIKE ? ESCAPE '\'`, "%"+likeEscape(p.Text)+"%")
	}
	if c.err != nil {
		return "", nil, c.err
	}
	w.args = append(w.args, max(p.Limit, 1))
	return `SELECT ` + versionColsLean + ` FROM versions INDEXED BY versions_by_recency WHERE namespace = /*ns*/? AND kind <> ''` +
		w.sb.String() + ` ORDER BY recorded_at DESC, id DESC LIMIT ?`, w.args, w.err
}

// likeEscape makes s match itself in a LIKE pattern escaped by '\'.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

func (e *executor) PageVersions(ctx context.Context, p memory.PageVersionsParams) ([]*memory.Version, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) { return pageVersionsQuery(p) }, decodeVersion)
	if err != nil {
		return nil, fmt.Errorf("sqlite: page versions: %w", err)
	}
	return out, nil
}

// qUnsettledVersions reads the versions_unsettled index (its WHERE word
// for word; 0.5 is memory.NeutralUsefulness, stored 0 under shared bit
// 64). INDEXED BY makes the query fail rather than fall back to reading
// every live version.
const qUnsettledVersions = `SELECT ` + versionColsLean + ` FROM versions INDEXED BY versions_unsettled
	WHERE namespace = /*ns*/? AND status IN ('active', 'contested') AND (usefulness <> iif(shared & 64, 0, 0.5) OR valid_to IS NOT NULL OR status = 'contested')`

func (e *executor) ListUnsettledVersions(ctx context.Context, p memory.ScanParams) ([]*memory.Version, error) {
	out, err := e.listUnsettledVersions(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list unsettled versions: %w", err)
	}
	return out, nil
}

func (e *executor) listUnsettledVersions(ctx context.Context, p memory.ScanParams) ([]*memory.Version, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) { return qUnsettledVersions, []any{p.Namespace}, nil }, decodeVersion)
	if err != nil {
		return nil, err
	}
	// Every contested version is unsettled, so out names each contested
	// memory; the settled members of their groups join from the slot
	// index, one memory at a time (contests are few).
	have := make(map[string]bool, len(out))
	var contested []string
	for _, v := range out {
		have[v.ID] = true
		if v.Status == memory.StatusContested && !slices.Contains(contested, v.MemoryID) {
			contested = append(contested, v.MemoryID)
		}
	}
	for _, mid := range contested {
		group, err := e.ListVersions(ctx, memory.ListVersionsParams{Namespace: p.Namespace, MemoryID: mid,
			Statuses: []memory.Status{memory.StatusActive}, WithoutEmbeddings: true})
		if err != nil {
			return nil, err
		}
		for _, v := range group {
			if !have[v.ID] {
				have[v.ID] = true
				out = append(out, v)
			}
		}
	}
	slices.SortFunc(out, func(a, b *memory.Version) int {
		if c := a.RecordedAt.Compare(b.RecordedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

func (e *executor) ScanVersions(ctx context.Context, p memory.ScanParams, fn func(*memory.Version) error) error {
	return scan(ctx, e, p.Namespace, "scan versions", qScanVersions, decodeVersion, fn)
}

// ---- admissions -------------------------------------------------------------

// An admission whose content is its episode's text stores it empty with
// content_ref 1 (migration 0017); the read puts the text back. An
// admission whose version is one of its memory's stores the version's seq,
// an INTEGER, where the id would be (migration 0027: 1 or 2 bytes, not 16
// or 30); the read looks the id up by (namespace, memory_id, seq), and
// before a version goes the trigger versions_unref_admissions writes its
// id back into the admissions that refer to it so.
const admissionVersionID = `CASE WHEN typeof(admissions.version_id) = 'integer' THEN (SELECT v.id FROM versions v
	  WHERE v.namespace = admissions.namespace AND v.memory_id = admissions.memory_id AND v.seq = admissions.version_id)
	ELSE admissions.version_id END`

const admissionCols = `namespace, id, episode_id, memory_id, ` + admissionVersionID + `, decision, reasons,
	operation, CASE WHEN admissions.content_ref = 1 THEN coalesce((SELECT e.content FROM episodes e
	  WHERE e.namespace = admissions.namespace AND e.id = admissions.episode_id), '') ELSE admissions.content END,
	extractor, created_at, models`

const admissionWriteCols = `namespace, id, episode_id, memory_id, version_id, decision, reasons,
	operation, content, extractor, created_at, content_ref, models`

const (
	// The join reads the episode (?12: its id, NULL for an empty content):
	// when the content is its very text, the row stores it empty and says
	// so. Conditions on parameters alone (?9 <> '') stay out of the SQL:
	// the planner weighs them against partial indexes' conditions and then
	// prepares the statement again for every new value.
	qInsertAdmission = `INSERT INTO admissions (` + admissionWriteCols + `) SELECT
	?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, CASE WHEN e.content IS NULL THEN ?9 ELSE '' END, ?10, ?11,
	CASE WHEN e.content IS NOT NULL THEN 1 END, ?13
	FROM (SELECT 1) LEFT JOIN episodes e ON e.namespace = /*ns*/?1 AND e.id = ?12 AND e.content = ?9`
	// qInsertAdmissionValues stores the arguments as they are, for when
	// the join's outcome is known without it (createAdmissions).
	qInsertAdmissionValues = `INSERT INTO admissions (` + admissionWriteCols + `) VALUES
	(/*ns*/?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)`
	qScanAdmissions = `SELECT ` + admissionCols + ` FROM admissions WHERE namespace = /*ns*/? ORDER BY created_at, id`
)

func decodeAdmission(d *decoder) *memory.Admission {
	a := &memory.Admission{
		Namespace: d.ns(),
		ID:        d.id(),
		EpisodeID: d.id(),
		MemoryID:  d.id(),
		VersionID: d.id(),
		Decision:  memory.AdmissionDecision(d.coded(decisions)),
	}
	a.Reasons = d.reasons()
	a.Operation = memory.Operation(d.code())
	a.Content = d.str()
	a.Extractor = d.code()
	a.CreatedAt = d.time()
	if m := d.nullStr(); m != "" && d.err == nil {
		if a.Models, d.err = memory.DecodeModels(m); d.err != nil {
			d.err = fmt.Errorf("decode column %q: %w", d.src.name(d.i-1), d.err)
		}
	}
	return a
}

func (e *executor) CreateAdmissions(ctx context.Context, p memory.CreateAdmissionsParams) error {
	if err := e.createAdmissions(ctx, p); err != nil {
		return fmt.Errorf("sqlite: create admissions: %w", err)
	}
	return nil
}

func (e *executor) createAdmissions(ctx context.Context, p memory.CreateAdmissionsParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	for _, a := range p.Admissions {
		if a == nil {
			return memory.Invalidf("nil admission")
		}
		if err := checkID("admission", a.ID); err != nil {
			return err
		}
		if err := sameNamespace("admission", a.ID, a.Namespace, p.Namespace); err != nil {
			return err
		}
	}
	return e.atomically(ctx, len(p.Admissions), func() error {
		for _, a := range p.Admissions {
			var c encoder
			args := []any{
				p.Namespace, idArg(a.ID), idArg(a.EpisodeID), idArg(a.MemoryID), idArg(a.VersionID), decisions.encode(string(a.Decision)),
				c.reasons(a.Reasons), encodeSym(string(a.Operation)), a.Content, encodeSym(a.Extractor),
				c.time("created_at", a.CreatedAt), nil, nullText(memory.EncodeModels(a.Models)),
			}
			if a.Content != "" {
				args[11] = args[2] // the episode's id
			}
			if ref, ok := e.versionSeqs[rowKey{p.Namespace, a.VersionID}]; ok && a.MemoryID != "" && ref.memoryID == a.MemoryID {
				args[4] = int64(ref.seq) // the version by its memory's seq
			}
			if c.err != nil {
				return memory.Within(c.err, "admission %s", a.ID)
			}
			q := qInsertAdmission
			switch text, ok := e.episodeTexts[rowKey{p.Namespace, a.EpisodeID}]; {
			case a.Content == "":
				// The join finds nothing (?12 is NULL): the content as given.
				q = qInsertAdmissionValues
			case ok && text == a.Content:
				// The episode this transaction wrote holds the very text:
				// what the join would find, without reading the episode.
				q, args[8], args[11] = qInsertAdmissionValues, "", int64(1)
			}
			if _, err := e.exec(ctx, q, args...); err != nil {
				return memory.Within(mapErr(err), "admission %s", a.ID)
			}
		}
		return nil
	})
}

func listAdmissionsQuery(p memory.ListAdmissionsParams) (string, []any, error) {
	w := where{args: []any{p.Namespace}}
	// admissions_by_memory and admissions_by_episode hold an id's last 8
	// characters (migration 0021), or its compact form's last 8 bytes
	// (0022); the row holds all of it.
	if p.MemoryID != "" {
		w.cond("substr(memory_id, -8) = substr(?, -8)", idArg(p.MemoryID))
		w.eq("memory_id", idArg(p.MemoryID))
		w.sb.WriteString(" AND memory_id <> ''") // admissions_by_memory is partial on it
	}
	if p.EpisodeID != "" {
		w.cond("substr(episode_id, -8) = substr(?, -8)", idArg(p.EpisodeID))
		w.eq("episode_id", idArg(p.EpisodeID))
	}
	if p.Decision != "" {
		w.eq("decision", decisions.encode(string(p.Decision)))
	}
	w.args = append(w.args, limitArg(p.Limit))
	from := ` FROM admissions`
	// admissions_by_memory and admissions_by_episode are the id's tail
	// alone (migrations 0019, 0021; 0028 left the namespace to the row): a
	// memory's or an episode's few rows are sorted after. Without statistics the planner
	// would rather walk admissions_by_time to skip that sort, i.e. the
	// namespace's whole log.
	switch {
	case p.MemoryID != "":
		from += ` INDEXED BY admissions_by_memory`
	case p.EpisodeID != "":
		from += ` INDEXED BY admissions_by_episode`
	}
	return `SELECT ` + admissionCols + from + ` WHERE namespace = /*ns*/?` + w.sb.String() +
		` ORDER BY created_at DESC, id DESC LIMIT ?`, w.args, w.err
}

func (e *executor) ScanAdmissions(ctx context.Context, p memory.ScanParams, fn func(*memory.Admission) error) error {
	return scan(ctx, e, p.Namespace, "scan admissions", qScanAdmissions, decodeAdmission, fn)
}

func (e *executor) ListAdmissions(ctx context.Context, p memory.ListAdmissionsParams) ([]*memory.Admission, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) { return listAdmissionsQuery(p) }, decodeAdmission)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list admissions: %w", err)
	}
	return out, nil
}

// ---- traces -----------------------------------------------------------------

const traceCols = `namespace, id, query, agent_id, user_id, project_id, session_id, task_type,
	item_limit, token_budget, tokens_used, as_of, include_history, items, created_at, duration_us, known_at,
	diagnostics`

// traceColsLean reads a trace without its items (they decode as none).
var traceColsLean = strings.Replace(traceCols, " items,", " X'6E756C6C',", 1) // the blob "null"

const (
	qInsertTrace = `INSERT INTO traces (` + traceCols + `)
	VALUES (/*ns*/?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qGetTrace   = `SELECT ` + traceCols + ` FROM traces WHERE namespace = /*ns*/? AND id = ?`
	qScanTraces = `SELECT ` + traceCols + ` FROM traces WHERE namespace = /*ns*/? ORDER BY created_at, id`
)

func decodeTrace(d *decoder) *memory.Trace {
	t := &memory.Trace{
		Namespace:      d.ns(),
		ID:             d.str(),
		Query:          d.str(),
		Scope:          memory.Scope{AgentID: d.sym(), UserID: d.sym(), ProjectID: d.sym(), SessionID: d.sym()},
		TaskType:       d.sym(),
		Limit:          int(d.int()),
		TokenBudget:    int(d.int()),
		TokensUsed:     int(d.int()),
		AsOf:           d.timePtr(),
		IncludeHistory: d.bool(),
	}
	t.Items = d.traceItems()
	t.CreatedAt = d.time()
	t.DurationMicros = d.int()
	t.KnownAt = d.timePtr()
	if s := d.nullStr(); s != "" && d.err == nil {
		if err := t.DecodeDiagnostics(s); err != nil {
			d.err = fmt.Errorf("decode column %q: %w", d.src.name(d.i-1), err)
		}
	}
	return t
}

func (e *executor) CreateTrace(ctx context.Context, t *memory.Trace) error {
	if t == nil {
		return fmt.Errorf("sqlite: create trace: %w", memory.Invalidf("nil trace"))
	}
	if err := e.createTrace(ctx, t); err != nil {
		return fmt.Errorf("sqlite: create trace %s: %w", t.ID, err)
	}
	return nil
}

func (e *executor) createTrace(ctx context.Context, t *memory.Trace) error {
	if err := checkNamespace(t.Namespace); err != nil {
		return err
	}
	if err := checkID("trace", t.ID); err != nil {
		return err
	}
	c := encoder{bufs: e.bufs}
	defer c.release()
	args := []any{
		t.Namespace, t.ID, t.Query, t.Scope.AgentID, t.Scope.UserID, t.Scope.ProjectID, t.Scope.SessionID,
		t.TaskType, t.Limit, t.TokenBudget, t.TokensUsed, c.timePtr("as_of", t.AsOf), boolInt(t.IncludeHistory),
		c.traceItems(t.Items), c.time("created_at", t.CreatedAt), t.DurationMicros, c.timePtr("known_at", t.KnownAt),
		nullText(t.EncodeDiagnostics()),
	}
	if c.err != nil {
		return c.err
	}
	_, err := e.exec(ctx, qInsertTrace, args...)
	return mapErr(err)
}

func (e *executor) GetTrace(ctx context.Context, p memory.GetParams) (*memory.Trace, error) {
	t, err := getOne(ctx, e, p, p.ID, qGetTrace, decodeTrace)
	if err != nil {
		return nil, fmt.Errorf("sqlite: get trace %s: %w", p.ID, err)
	}
	return t, nil
}

func listTracesQuery(p memory.ListTracesParams) (string, []any, error) {
	w := where{args: []any{p.Namespace}}
	if !p.Since.IsZero() {
		var c encoder
		w.cond("created_at >= ?", c.time("since", p.Since))
		w.err = c.err
	}
	w.args = append(w.args, limitArg(p.Limit))
	cols := traceCols
	if p.WithoutItems {
		cols = traceColsLean
	}
	return `SELECT ` + cols + ` FROM traces WHERE namespace = /*ns*/?` + w.sb.String() +
		` ORDER BY created_at DESC, id DESC LIMIT ?`, w.args, w.err
}

func (e *executor) ScanTraces(ctx context.Context, p memory.ScanParams, fn func(*memory.Trace) error) error {
	return scan(ctx, e, p.Namespace, "scan traces", qScanTraces, decodeTrace, fn)
}

func (e *executor) ListTraces(ctx context.Context, p memory.ListTracesParams) ([]*memory.Trace, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) { return listTracesQuery(p) }, decodeTrace)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list traces: %w", err)
	}
	return out, nil
}

// ---- stats and namespaces ---------------------------------------------------

// qStats counts everything in one statement, so the numbers come from one
// snapshot even while writes go on. The versions that are not active are
// counted in versions_not_active, the active ones as the rest of a count
// over the primary key (no index holds the active versions alone; reading
// the rows to group them would read every version's page).
const qStats = `
SELECT 'episodes', '', count(*) FROM episodes WHERE namespace = /*ns*/?1
UNION ALL SELECT 'episodes', 'archived', coalesce(sum(episodes), 0) FROM episode_archive WHERE namespace = /*ns*/?1
UNION ALL SELECT 'memories', '', count(*) FROM memories WHERE namespace = /*ns*/?1
UNION ALL SELECT 'admissions', '', count(*) FROM admissions WHERE namespace = /*ns*/?1
UNION ALL SELECT 'traces', '', count(*) FROM traces WHERE namespace = /*ns*/?1
UNION ALL SELECT 'versions', status, count(*) FROM versions WHERE namespace = /*ns*/?1 AND status <> 'active' GROUP BY status
UNION ALL SELECT 'versions', 'active', count(*) - (SELECT count(*) FROM versions WHERE namespace = /*ns*/?1 AND status <> 'active')
  FROM versions WHERE namespace = /*ns*/?1 HAVING count(*) > (SELECT count(*) FROM versions WHERE namespace = /*ns*/?1 AND status <> 'active')`

func (e *executor) Stats(ctx context.Context, p memory.StatsParams) (*memory.Stats, error) {
	st, err := e.stats(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sqlite: stats: %w", err)
	}
	return st, nil
}

func (e *executor) stats(ctx context.Context, p memory.StatsParams) (*memory.Stats, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, err
	}
	rows, err := e.query(ctx, qStats, p.Namespace)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	st := &memory.Stats{Namespace: p.Namespace, Versions: map[memory.Status]int{}}
	for rows.Next() {
		var table, status string
		var n int
		if err := rows.Scan(&table, &status, &n); err != nil {
			return nil, err
		}
		switch table {
		case "episodes":
			st.Episodes += n
		case "memories":
			st.Memories = n
		case "admissions":
			st.Admissions = n
		case "traces":
			st.Traces = n
		case "versions":
			st.Versions[memory.Status(status)] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	return st, nil
}

// qNamespaces finds the distinct namespaces of each table by skipping
// through its primary key index (each step is one index seek past the
// previous namespace), so the cost grows with the number of namespaces, not
// of rows.
const qNamespaces = `
WITH RECURSIVE
  e(ns) AS (SELECT min(namespace) FROM episodes UNION ALL
            SELECT (SELECT min(namespace) FROM episodes WHERE namespace > e.ns) FROM e WHERE e.ns IS NOT NULL),
  m(ns) AS (SELECT min(namespace) FROM memories UNION ALL
            SELECT (SELECT min(namespace) FROM memories WHERE namespace > m.ns) FROM m WHERE m.ns IS NOT NULL),
  v(ns) AS (SELECT min(namespace) FROM versions UNION ALL
            SELECT (SELECT min(namespace) FROM versions WHERE namespace > v.ns) FROM v WHERE v.ns IS NOT NULL),
  a(ns) AS (SELECT min(namespace) FROM admissions UNION ALL
            SELECT (SELECT min(namespace) FROM admissions WHERE namespace > a.ns) FROM a WHERE a.ns IS NOT NULL),
  t(ns) AS (SELECT min(namespace) FROM traces UNION ALL
            SELECT (SELECT min(namespace) FROM traces WHERE namespace > t.ns) FROM t WHERE t.ns IS NOT NULL),
  x(ns) AS (SELECT min(namespace) FROM episode_archive UNION ALL
            SELECT (SELECT min(namespace) FROM episode_archive WHERE namespace > x.ns) FROM x WHERE x.ns IS NOT NULL)
SELECT ns FROM e WHERE ns IS NOT NULL
UNION SELECT ns FROM x WHERE ns IS NOT NULL
UNION SELECT ns FROM m WHERE ns IS NOT NULL
UNION SELECT ns FROM v WHERE ns IS NOT NULL
UNION SELECT ns FROM a WHERE ns IS NOT NULL
UNION SELECT ns FROM t WHERE ns IS NOT NULL
ORDER BY 1`

// ---- shared read paths ------------------------------------------------------

// getOne reads the row named by p, or memory.ErrNotFound.
//
// key is the row's id as bound: idArg(p.ID) for the tables whose ids are
// stored compactly, p.ID for the others.
func getOne[T any](ctx context.Context, e *executor, p memory.GetParams, key any, q string, decode func(*decoder) T) (T, error) {
	var zero T
	if err := checkNamespace(p.Namespace); err != nil {
		return zero, err
	}
	out, err := collect(ctx, e, decode, q, p.Namespace, key)
	if err != nil {
		return zero, err
	}
	if len(out) == 0 {
		return zero, memory.ErrNotFound
	}
	return out[0], nil
}

// list runs a filtered query built by build.
func list[T any](ctx context.Context, e *executor, ns string, build func() (string, []any, error), decode func(*decoder) T) ([]T, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	q, args, err := build()
	if err != nil {
		return nil, memory.Invalidf("%v", err)
	}
	// Kept prepared once used: a builder must keep every value out of
	// the SQL text (in args), or each call would prepare a statement.
	listShapes.LoadOrStore(q, struct{}{})
	return collect(ctx, e, decode, q, args...)
}

// collect runs q and decodes every row.
func collect[T any](ctx context.Context, e *executor, decode func(*decoder) T, q string, args ...any) ([]T, error) {
	var out []T
	err := each(ctx, e, decode, q, args, func(v T) error {
		out = append(out, v)
		return nil
	})
	return out, err
}

// errStopped carries the callback's error out of each, so scan can return
// it untouched while wrapping database errors.
type errStopped struct{ err error }

func (e errStopped) Error() string { return e.err.Error() }

// each streams the rows of q through decode into fn, one row in memory at a
// time.
func each[T any](ctx context.Context, e *executor, decode func(*decoder) T, q string, args []any, fn func(T) error) error {
	rows, err := e.query(ctx, q, args...)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	var d decoder
	if rr, ok := rows.(*rawRows); ok {
		// Read in place, each column converted once.
		for rr.Next() {
			d.reset(rr, rr.n)
			v := decode(&d)
			if d.err != nil {
				return d.err
			}
			if err := fn(v); err != nil {
				return errStopped{err}
			}
		}
		return mapErr(rr.Err())
	}
	r, err := newSQLRow(rows)
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := r.scan(rows); err != nil {
			return err
		}
		d.reset(r, len(r.cols))
		v := decode(&d)
		if d.err != nil {
			return d.err
		}
		if err := fn(v); err != nil {
			return errStopped{err}
		}
	}
	if err := rows.Err(); err != nil {
		return mapErr(err)
	}
	return nil
}

// scan walks a namespace in id order: on the fast path outside a
// transaction, through database/sql inside one (to see its own writes). fn's error is returned as is; a
// database error is wrapped with op.
func scan[T any](ctx context.Context, e *executor, ns, op, q string, decode func(*decoder) T, fn func(T) error) error {
	if err := checkNamespace(ns); err != nil {
		return fmt.Errorf("sqlite: %s: %w", op, err)
	}
	var err error
	if s := e.store; s != nil {
		if s.closed.Load() {
			return fmt.Errorf("sqlite: %s: %w", op, errClosed)
		}
		err = fastScan(ctx, s.fast, q, ns, decode, fn)
	} else {
		err = each(ctx, e, decode, q, []any{ns}, fn)
	}
	var stopped errStopped
	if errors.As(err, &stopped) {
		return stopped.err
	}
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", op, err)
	}
	return nil
}

// milli is x's stored form as whole thousandths (x = base + y/1000 exactly,
// as the reads compute it) when x has a fraction and is such a number:
// confidence 0.8 is stored 800 (2 bytes), usefulness 0.5 as 0 away from its
// base 0.5 (no bytes), where a REAL takes 8. A whole x is stored as a small
// integer by SQLite already; any other x (0.1 + 0.2, NaN) is kept as it is.
func milli(x, base float64) (int64, bool) {
	if x == math.Trunc(x) {
		return 0, false
	}
	y := math.Round((x - base) * 1000)
	if !(math.Abs(y) < 1<<40) || base+y/1000 != x {
		return 0, false
	}
	return int64(y), true
}

// milliScores replaces confidence, usefulness and trust (scores[0:3], as
// bound) by their thousandths where milli allows, returning the shared
// bits (32, 64, 128) that say which.
func milliScores(scores []any) int64 {
	var bits int64
	for i, base := range [3]float64{0, memory.NeutralUsefulness, 0} {
		if y, ok := milli(scores[i].(float64), base); ok {
			scores[i], bits = y, bits|32<<i
		}
	}
	return bits
}
