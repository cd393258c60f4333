package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/memory"
)

// ---- versions ---------------------------------------------------------------

const versionColsBase = `namespace, id, memory_id, seq, agent_id, user_id, project_id, session_id,
	kind, type, subject, key, value, content, criticality,
	confidence, usefulness, trust, reinforcement_count, failure_count,
	status, operation, superseded_by,
	observed_at, recorded_at, valid_from, valid_to, updated_at,
	evidence_episode_ids, evidence_spans,
	prov_extractor, prov_model, prov_prompt_version, prov_embedder, prov_embedder_dim, prov_source,
	tokens, search_text`

const (
	versionCols = versionColsBase + `, embedding`
	// versionColsLean reads a version without its embedding.
	versionColsLean = versionColsBase + `, NULL::bytea`
)

// versionValues are a version's columns as parameters $1 to $39, in
// versionCols' order (versionArgs).
const versionValues = `$1::text, $2::text, $3::text, $4::integer, $5::text, $6::text, $7::text, $8::text,
	  $9::text, $10::text, $11::text, $12::text, $13::text, $14::text, $15::text,
	  $16::float8, $17::float8, $18::float8, $19::integer, $20::integer,
	  $21::text, $22::text, $23::text,
	  $24::bigint, $25::bigint, $26::bigint, $27::bigint, $28::bigint,
	  $29::text::jsonb, $30::text::jsonb,
	  $31::text, $32::text, $33::text, $34::text, $35::integer, $36::text,
	  $37::integer, $38::text, $39::bytea`

const (
	// The memory must exist in the namespace: checked in the statement
	// rather than left to the foreign key, whose violation would abort the
	// caller's transaction.
	qInsertVersion = `INSERT INTO versions (` + versionCols + `)
	SELECT ` + versionValues + `
	WHERE EXISTS (SELECT 1 FROM memories WHERE namespace = $1 AND id = $3)
	ON CONFLICT DO NOTHING`
	qMemoryExists = `SELECT count(*) FROM memories WHERE namespace = $1 AND id = $2`
	// The lifecycle columns only: the claim is immutable by construction.
	qUpdateVersionState = `UPDATE versions SET
	status = $1, operation = $2, superseded_by = $3, valid_to = $4,
	confidence = $5, usefulness = $6, trust = $7,
	reinforcement_count = $8, failure_count = $9,
	evidence_episode_ids = $10::text::jsonb, evidence_spans = $11::text::jsonb, updated_at = $12
	WHERE namespace = $13 AND id = $14`
	qSetEmbedding = `UPDATE versions SET embedding = $1, prov_embedder = $2, prov_embedder_dim = $3
	WHERE namespace = $4 AND id = $5`
	qGetVersion   = `SELECT ` + versionCols + ` FROM versions WHERE namespace = $1 AND id = $2`
	qScanVersions = `SELECT ` + versionCols + ` FROM versions WHERE namespace = $1 ORDER BY id`
	// The partial index versions_unsettled, its WHERE word for word.
	qUnsettledVersions = `SELECT ` + versionColsLean + ` FROM versions
	WHERE namespace = $1 AND status IN ('active', 'contested') AND (usefulness <> 0.5 OR valid_to IS NOT NULL OR status = 'contested')`
)

// The version writes with their change-log entries, one statement each
// (withChange): a round trip per write instead of two.
var (
	qInsertVersionLogged      = withChange(qInsertVersion, 1, 2, 28)
	qUpdateVersionStateLogged = withChange(qUpdateVersionState, 13, 14, 12)
	qSetEmbeddingLogged       = withChange(qSetEmbedding, 4, 5, 6)
	// qCreateSlot writes a new memory and its first version: the version
	// and its change-log entry only if the memory was written (its id and
	// slot were free). The versions' foreign key is checked at the end of
	// the statement, when the memory row is there. It answers how many
	// memories and versions it wrote.
	qCreateSlot = `WITH m AS (
	  INSERT INTO memories (` + memoryCols + `) VALUES ($40, $41, $42, $43, $44, $45, $46, $47, $48, $49, $50)
	  ON CONFLICT DO NOTHING RETURNING id
	), ns_lock AS (
	  SELECT pg_advisory_xact_lock(` + fmt.Sprint(lockNamespace) + `, hashtext(current_schema() || '/' || $1::text)),
	         pg_notify('` + changesChannel + `', current_schema() || '/' || $1::text)
	  FROM m
	), ch AS (
	  INSERT INTO changes (namespace, version_id, updated_at) SELECT $1::text, $2::text, $28::bigint FROM ns_lock
	), v AS (
	  INSERT INTO versions (` + versionCols + `)
	  SELECT ` + versionValues + `
	  FROM m WHERE m.id = $3::text
	  ON CONFLICT DO NOTHING RETURNING 1
	)
	SELECT (SELECT count(*) FROM m), (SELECT count(*) FROM v)`
)

func decodeVersion(r pgx.Rows) (*memory.Version, error) {
	var (
		v                                 memory.Version
		observed, recorded, from, updated int64
		validTo                           *int64
		evIDs, evSpans                    []byte
	)
	err := r.Scan(&v.Namespace, &v.ID, &v.MemoryID, &v.Seq,
		&v.Scope.AgentID, &v.Scope.UserID, &v.Scope.ProjectID, &v.Scope.SessionID,
		&v.Kind, &v.Type, &v.Subject, &v.Key, &v.Value, &v.Content, &v.Criticality,
		&v.Confidence, &v.Usefulness, &v.Trust, &v.ReinforcementCount, &v.FailureCount,
		&v.Status, &v.Operation, &v.SupersededBy,
		&observed, &recorded, &from, &validTo, &updated,
		&evIDs, &evSpans,
		&v.Provenance.Extractor, &v.Provenance.Model, &v.Provenance.PromptVersion,
		&v.Provenance.Embedder, &v.Provenance.EmbedderDim, &v.Provenance.Source,
		&v.Tokens, &v.SearchText, &v.Embedding)
	if err != nil {
		return nil, err
	}
	v.ObservedAt, v.RecordedAt, v.ValidFrom, v.UpdatedAt = fromNanos(observed), fromNanos(recorded), fromNanos(from), fromNanos(updated)
	v.ValidTo = fromNanosPtr(validTo)
	if err := unjson("evidence_episode_ids", evIDs, &v.EvidenceEpisodeIDs); err != nil {
		return nil, err
	}
	if err := unjson("evidence_spans", evSpans, &v.EvidenceSpans); err != nil {
		return nil, err
	}
	return &v, nil
}

func (e *executor) CreateVersion(ctx context.Context, v *memory.Version) error {
	if v == nil {
		return fmt.Errorf("postgres: create version: %w", memory.Invalidf("nil version"))
	}
	op := "create version " + v.ID
	if err := checkNamespace(v.Namespace); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	if err := checkID("version", v.ID); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	if err := checkID("memory", v.MemoryID); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	args, err := versionArgs(v)
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	return e.write(ctx, v.Namespace, op, func(e *executor) error {
		// The change-log entry is in the same statement: if the insert
		// writes nothing and the caller's transaction goes on, a follower
		// reads a version that is not there and skips it.
		tag, err := e.exec(ctx, qInsertVersionLogged, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return e.putVector(ctx, v.Namespace, v.ID, v.Embedding)
		}
		var n int
		if err := e.q.QueryRow(ctx, qMemoryExists, v.Namespace, v.MemoryID).Scan(&n); err != nil {
			return mapErr(err)
		}
		if n == 0 {
			return fmt.Errorf("%w: memory %s does not exist", memory.ErrNotFound, v.MemoryID)
		}
		return memory.Conflictf(nil, "a version with this id, or this position (seq %d) in its memory, exists", v.Seq)
	})
}

// versionArgs are a version's values for qInsertVersion's $1 to $39.
func versionArgs(v *memory.Version) ([]any, error) {
	var c enc
	updated := c.time("updated_at", v.UpdatedAt)
	args := []any{
		v.Namespace, v.ID, v.MemoryID, v.Seq,
		v.Scope.AgentID, v.Scope.UserID, v.Scope.ProjectID, v.Scope.SessionID,
		string(v.Kind), string(v.Type), v.Subject, v.Key, v.Value, v.Content, string(v.Criticality),
		v.Confidence, v.Usefulness, v.Trust, v.ReinforcementCount, v.FailureCount,
		string(v.Status), string(v.Operation), v.SupersededBy,
		c.time("observed_at", v.ObservedAt), c.time("recorded_at", v.RecordedAt),
		c.time("valid_from", v.ValidFrom), c.timePtr("valid_to", v.ValidTo), updated,
		c.json("evidence_episode_ids", v.EvidenceEpisodeIDs), c.json("evidence_spans", v.EvidenceSpans),
		v.Provenance.Extractor, v.Provenance.Model, v.Provenance.PromptVersion,
		v.Provenance.Embedder, v.Provenance.EmbedderDim, v.Provenance.Source,
		v.Tokens, v.SearchText, v.Embedding,
	}
	return args, c.err
}

// CreateSlot writes a new memory and its first version (memory.SlotCreator)
// in one statement, with the version's change-log entry: what
// CreateMemory then CreateVersion write, in one round trip instead of
// three. As with those two calls, a taken memory id or slot is ErrConflict
// with nothing written, and a taken version id leaves the memory written
// and answers ErrConflict.
func (e *executor) CreateSlot(ctx context.Context, m *memory.Memory, v *memory.Version) error {
	args, err := e.slotArgs("create slot", m, v)
	if err != nil {
		return err
	}
	op := "create slot " + m.ID
	return e.write(ctx, m.Namespace, op, func(e *executor) error {
		if e.readOnly {
			return errors.New("write in a read-only transaction")
		}
		var mems, vers int
		if err := e.q.QueryRow(ctx, qCreateSlot, args...).Scan(&mems, &vers); err != nil {
			return mapErr(err)
		}
		switch {
		case mems == 0:
			return memory.Conflictf(nil, "a memory with this id, or this slot (subject, key and scope), exists")
		case vers == 0:
			return memory.Conflictf(nil, "a version with this id, or this position (seq %d) in its memory, exists", v.Seq)
		}
		e.slotCreated(m)
		return e.putVector(ctx, v.Namespace, v.ID, v.Embedding)
	})
}

// slotArgs checks a memory and its first version and returns qCreateSlot's
// arguments.
func (e *executor) slotArgs(what string, m *memory.Memory, v *memory.Version) ([]any, error) {
	if m == nil || v == nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, memory.Invalidf("nil memory or version"))
	}
	op := what + " " + m.ID
	if err := checkNamespace(m.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", op, err)
	}
	for _, id := range []struct{ what, id string }{{"memory", m.ID}, {"version", v.ID}} {
		if err := checkID(id.what, id.id); err != nil {
			return nil, fmt.Errorf("postgres: %s: %w", op, err)
		}
	}
	if v.Namespace != m.Namespace || v.MemoryID != m.ID {
		return nil, fmt.Errorf("postgres: %s: %w", op, memory.Invalidf("version %s belongs to memory %s/%s, not %s/%s", v.ID, v.Namespace, v.MemoryID, m.Namespace, m.ID))
	}
	args, err := versionArgs(v)
	if err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", op, err)
	}
	var c enc
	args = append(args, m.Namespace, m.ID, m.Scope.AgentID, m.Scope.UserID, m.Scope.ProjectID, m.Scope.SessionID,
		string(m.Kind), m.Subject, m.Key, c.time("created_at", m.CreatedAt), c.time("updated_at", m.UpdatedAt))
	if c.err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", op, c.err)
	}
	return args, nil
}

func (e *executor) UpdateVersionState(ctx context.Context, v *memory.Version) error {
	if v == nil {
		return fmt.Errorf("postgres: update version state: %w", memory.Invalidf("nil version"))
	}
	op := "update version state " + v.ID
	if err := checkNamespace(v.Namespace); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	var c enc
	updated := c.time("updated_at", v.UpdatedAt)
	args := []any{
		string(v.Status), string(v.Operation), v.SupersededBy, c.timePtr("valid_to", v.ValidTo),
		v.Confidence, v.Usefulness, v.Trust,
		v.ReinforcementCount, v.FailureCount,
		c.json("evidence_episode_ids", v.EvidenceEpisodeIDs), c.json("evidence_spans", v.EvidenceSpans),
		updated, v.Namespace, v.ID,
	}
	if c.err != nil {
		return fmt.Errorf("postgres: %s: %w", op, c.err)
	}
	return e.write(ctx, v.Namespace, op, func(e *executor) error {
		return e.execOne(ctx, qUpdateVersionStateLogged, args...)
	})
}

func (e *executor) SetEmbedding(ctx context.Context, p memory.SetEmbeddingParams) error {
	op := "set embedding " + p.ID
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	var c enc
	at := c.time("changed_at", p.ChangedAt)
	if c.err != nil {
		return fmt.Errorf("postgres: %s: %w", op, c.err)
	}
	return e.write(ctx, p.Namespace, op, func(e *executor) error {
		if err := e.execOne(ctx, qSetEmbeddingLogged, p.Embedding, p.Embedder, p.EmbedderDim, p.Namespace, p.ID, at); err != nil {
			return err
		}
		return e.putVector(ctx, p.Namespace, p.ID, p.Embedding)
	})
}

// execOne runs a write that must touch a row: none is memory.ErrNotFound.
func (e *executor) execOne(ctx context.Context, q string, args ...any) error {
	tag, err := e.exec(ctx, q, args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return memory.ErrNotFound
	}
	return nil
}

func (e *executor) GetVersion(ctx context.Context, p memory.GetParams) (*memory.Version, error) {
	v, err := getOne(ctx, e, p, decodeVersion, qGetVersion)
	if err != nil {
		return nil, fmt.Errorf("postgres: get version %s: %w", p.ID, err)
	}
	return v, nil
}

func statusStrings(ss []memory.Status) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

func listVersionsQuery(p memory.ListVersionsParams) (string, []any) {
	w := newWhere(p.Namespace)
	if p.MemoryID != "" {
		w.add("memory_id = ?", p.MemoryID)
	}
	if len(p.IDs) > 0 {
		w.add("id = ANY(?)", p.IDs)
	}
	if len(p.Kinds) > 0 {
		kinds := make([]string, len(p.Kinds))
		for i, k := range p.Kinds {
			kinds[i] = string(k)
		}
		w.add("kind = ANY(?)", kinds)
	}
	if len(p.Statuses) > 0 {
		w.add("status = ANY(?)", statusStrings(p.Statuses))
	}
	if p.Subject != "" {
		w.add("subject = ?", p.Subject)
	}
	if p.Key != "" {
		w.add("key = ?", p.Key)
	}
	cols := versionCols
	if p.WithoutEmbeddings {
		cols = versionColsLean
	}
	return `SELECT ` + cols + ` FROM versions WHERE namespace = $1` + w.sb.String() +
		` ORDER BY recorded_at, id LIMIT ` + w.next(limit(p.Limit)), w.args
}

func (e *executor) ListVersions(ctx context.Context, p memory.ListVersionsParams) ([]*memory.Version, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list versions: %w", err)
	}
	q, args := listVersionsQuery(p)
	out, err := collect(ctx, e, decodeVersion, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list versions: %w", err)
	}
	return out, nil
}

// qSlotLive reads a slot's live versions and, with them, its version of
// the highest seq (live or not), which gives the next seq: the head of the
// history in one round trip, in place of the whole history.
const qSlotLive = `(SELECT ` + versionColsLean + ` FROM versions
	WHERE namespace = $1 AND memory_id = $2 AND status IN ('active', 'contested'))
UNION ALL
(SELECT ` + versionColsLean + ` FROM versions WHERE namespace = $1 AND memory_id = $2 ORDER BY seq DESC LIMIT 1)
ORDER BY recorded_at, id`

// ReadSlotHead implements memory.SlotHeadReader: the slot (from the
// prefetched slots when PrefetchSlots read it), then its live versions
// and highest seq in one query, in one snapshot.
func (e *executor) ReadSlotHead(ctx context.Context, p memory.FindMemoryParams) (h *memory.SlotHead, err error) {
	err = e.readTx(ctx, func(e *executor) error {
		m, err := e.FindMemory(ctx, p)
		if err != nil {
			return err
		}
		vs, err := collect(ctx, e, decodeVersion, qSlotLive, p.Namespace, m.ID)
		if err != nil {
			return fmt.Errorf("postgres: read slot %s/%s: %w", p.Subject, p.Key, err)
		}
		h = &memory.SlotHead{Memory: m, NextSeq: memory.NextSeq(vs)}
		for i, v := range vs {
			// The highest seq's row comes twice when it is live; the
			// two are neighbours in the order.
			if v.Status.Live() && (i == 0 || vs[i-1].ID != v.ID) {
				h.Live = append(h.Live, v)
			}
		}
		return nil
	})
	return h, err
}

// pageVersionsQuery walks versions_by_time backwards from the cursor: the
// row comparison is an index range, so a late page costs what the first
// does.
func pageVersionsQuery(p memory.PageVersionsParams) (string, []any, error) {
	w := newWhere(p.Namespace)
	var c enc
	if p.After != nil {
		at := c.time("after", p.After.RecordedAt)
		w.args = append(w.args, at, p.After.ID)
		n := len(w.args)
		w.sb.WriteString(" AND (recorded_at, id) < ($" + strconv.Itoa(n-1) + ", $" + strconv.Itoa(n) + ")")
	}
	if !p.Until.IsZero() {
		w.add("recorded_at < ?", c.time("until", p.Until))
	}
	if !p.Since.IsZero() {
		w.add("recorded_at >= ?", c.time("since", p.Since))
	}
	strs := func(n int, at func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = at(i)
		}
		return out
	}
	if len(p.Kinds) > 0 {
		w.add("kind = ANY(?)", strs(len(p.Kinds), func(i int) string { return string(p.Kinds[i]) }))
	}
	if len(p.Types) > 0 {
		w.add("type = ANY(?)", strs(len(p.Types), func(i int) string { return string(p.Types[i]) }))
	}
	if len(p.Statuses) > 0 {
		w.add("status = ANY(?)", statusStrings(p.Statuses))
	}
	if p.Subject != "" {
		w.add("subject = ?", p.Subject)
	}
	for _, f := range []struct{ col, v string }{{"agent_id", p.Scope.AgentID}, {"user_id", p.Scope.UserID},
		{"project_id", p.Scope.ProjectID}, {"session_id", p.Scope.SessionID}} {
		if f.v != "" {
			w.add(f.col+" = ?", f.v)
		}
	}
	if p.Text != "" {
		// ILIKE would fold non-ASCII letters too; LIKE on lower() of
		// both sides is what SQLite's LIKE does for ASCII, and more.
		w.add(`lower(content) LIKE ? ESCAPE '\'`, "%"+strings.ToLower(likeEscape(p.Text))+"%")
	}
	if c.err != nil {
		return "", nil, c.err
	}
	return `SELECT ` + versionColsLean + ` FROM versions WHERE namespace = $1` + w.sb.String() +
		` ORDER BY recorded_at DESC, id DESC LIMIT ` + w.next(int64(max(p.Limit, 1))), w.args, nil
}

// likeEscape makes s match itself in a LIKE pattern escaped by '\'.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

func (e *executor) PageVersions(ctx context.Context, p memory.PageVersionsParams) ([]*memory.Version, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: page versions: %w", err)
	}
	q, args, err := pageVersionsQuery(p)
	if err != nil {
		return nil, fmt.Errorf("postgres: page versions: %w", memory.Invalidf("%v", err))
	}
	out, err := collect(ctx, e, decodeVersion, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: page versions: %w", err)
	}
	return out, nil
}

// ListUnsettledVersions reads in one snapshot: the contested groups'
// settled members are read after the index.
func (e *executor) ListUnsettledVersions(ctx context.Context, p memory.ScanParams) ([]*memory.Version, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list unsettled versions: %w", err)
	}
	var out []*memory.Version
	err := e.readTx(ctx, func(e *executor) error {
		var err error
		out, err = collect(ctx, e, decodeVersion, qUnsettledVersions, p.Namespace)
		if err != nil {
			return err
		}
		// Every contested version is unsettled, so out names each
		// contested memory; their groups' settled members join here.
		have := make(map[string]bool, len(out))
		var contested []string
		for _, v := range out {
			have[v.ID] = true
			if v.Status == memory.StatusContested && !slices.Contains(contested, v.MemoryID) {
				contested = append(contested, v.MemoryID)
			}
		}
		if len(contested) == 0 {
			return nil
		}
		group, err := collect(ctx, e, decodeVersion, `SELECT `+versionColsLean+` FROM versions
		WHERE namespace = $1 AND memory_id = ANY($2) AND status = 'active'`, p.Namespace, contested)
		if err != nil {
			return err
		}
		for _, v := range group {
			if !have[v.ID] {
				have[v.ID] = true
				out = append(out, v)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list unsettled versions: %w", err)
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
	return scan(ctx, e, "scan versions", p.Namespace, qScanVersions, decodeVersion, fn)
}

// ---- admissions -------------------------------------------------------------

const admissionCols = `namespace, id, episode_id, memory_id, version_id, decision, reasons,
	operation, content, extractor, created_at, models`

const (
	qInsertAdmissions = `INSERT INTO admissions (` + admissionCols + `)
	SELECT $1, u.id, u.episode_id, u.memory_id, u.version_id, u.decision, u.reasons::jsonb,
	  u.operation, u.content, u.extractor, u.created_at, u.models
	FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
	  $8::text[], $9::text[], $10::text[], $11::bigint[], $12::text[])
	  AS u(id, episode_id, memory_id, version_id, decision, reasons, operation, content, extractor, created_at, models)
	ON CONFLICT DO NOTHING RETURNING id`
	qDeleteAdmissions = `DELETE FROM admissions WHERE namespace = $1 AND id = ANY($2)`
	qScanAdmissions   = `SELECT ` + admissionCols + ` FROM admissions WHERE namespace = $1 ORDER BY created_at, id`
)

func decodeAdmission(r pgx.Rows) (*memory.Admission, error) {
	var (
		a       memory.Admission
		reasons []byte
		created int64
		models  *string
	)
	err := r.Scan(&a.Namespace, &a.ID, &a.EpisodeID, &a.MemoryID, &a.VersionID, &a.Decision, &reasons,
		&a.Operation, &a.Content, &a.Extractor, &created, &models)
	if err != nil {
		return nil, err
	}
	if err := unjson("reasons", reasons, &a.Reasons); err != nil {
		return nil, err
	}
	if models != nil {
		if a.Models, err = memory.DecodeModels(*models); err != nil {
			return nil, err
		}
	}
	a.CreatedAt = fromNanos(created)
	return &a, nil
}

func (e *executor) CreateAdmissions(ctx context.Context, p memory.CreateAdmissionsParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("postgres: create admissions: %w", err)
	}
	var (
		c                                                       enc
		ids, episodes, mems, vers, decisions, reasons, ops, txt []string
		extractors                                              []string
		created                                                 []int64
		models                                                  []*string
	)
	for _, a := range p.Admissions {
		if a == nil {
			return fmt.Errorf("postgres: create admissions: %w", memory.Invalidf("nil admission"))
		}
		if err := checkID("admission", a.ID); err != nil {
			return fmt.Errorf("postgres: create admissions: %w", err)
		}
		if err := sameNamespace("admission", a.ID, a.Namespace, p.Namespace); err != nil {
			return fmt.Errorf("postgres: create admissions: %w", err)
		}
		ids = append(ids, a.ID)
		episodes = append(episodes, a.EpisodeID)
		mems = append(mems, a.MemoryID)
		vers = append(vers, a.VersionID)
		decisions = append(decisions, string(a.Decision))
		reasons = append(reasons, c.json("reasons", a.Reasons))
		ops = append(ops, string(a.Operation))
		txt = append(txt, a.Content)
		extractors = append(extractors, a.Extractor)
		created = append(created, c.time("created_at", a.CreatedAt))
		models = append(models, nullText(memory.EncodeModels(a.Models)))
		if c.err != nil {
			return fmt.Errorf("postgres: create admissions: %w", memory.Within(c.err, "admission %s", a.ID))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return e.write(ctx, p.Namespace, "create admissions", func(e *executor) error {
		return e.insertAll(ctx, len(ids), qInsertAdmissions,
			[]any{p.Namespace, ids, episodes, mems, vers, decisions, reasons, ops, txt, extractors, created, models},
			func(written []string) error {
				_, err := e.exec(ctx, qDeleteAdmissions, p.Namespace, written)
				return err
			})
	})
}

func listAdmissionsQuery(p memory.ListAdmissionsParams) (string, []any) {
	w := newWhere(p.Namespace)
	if p.MemoryID != "" {
		w.add("memory_id = ?", p.MemoryID)
	}
	if p.EpisodeID != "" {
		w.add("episode_id = ?", p.EpisodeID)
	}
	if p.Decision != "" {
		w.add("decision = ?", string(p.Decision))
	}
	return `SELECT ` + admissionCols + ` FROM admissions WHERE namespace = $1` + w.sb.String() +
		` ORDER BY created_at DESC, id DESC LIMIT ` + w.next(limit(p.Limit)), w.args
}

func (e *executor) ListAdmissions(ctx context.Context, p memory.ListAdmissionsParams) ([]*memory.Admission, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list admissions: %w", err)
	}
	q, args := listAdmissionsQuery(p)
	out, err := collect(ctx, e, decodeAdmission, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list admissions: %w", err)
	}
	return out, nil
}

func (e *executor) ScanAdmissions(ctx context.Context, p memory.ScanParams, fn func(*memory.Admission) error) error {
	return scan(ctx, e, "scan admissions", p.Namespace, qScanAdmissions, decodeAdmission, fn)
}

// nullText is s for a nullable text column: NULL when !ok.
func nullText(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}

// ---- traces -----------------------------------------------------------------

const traceCols = `namespace, id, query, agent_id, user_id, project_id, session_id, task_type,
	item_limit, token_budget, tokens_used, as_of, include_history, items, created_at, duration_us, known_at,
	diagnostics`

// traceColsLean reads a trace without its items (they decode as none).
var traceColsLean = strings.Replace(traceCols, " items,", " NULL::bytea,", 1)

const (
	qInsertTrace = `INSERT INTO traces (` + traceCols + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
	ON CONFLICT DO NOTHING`
	qGetTrace   = `SELECT ` + traceCols + ` FROM traces WHERE namespace = $1 AND id = $2`
	qScanTraces = `SELECT ` + traceCols + ` FROM traces WHERE namespace = $1 ORDER BY created_at, id`
)

func decodeTrace(r pgx.Rows) (*memory.Trace, error) {
	var (
		t             memory.Trace
		asOf, knownAt *int64
		items         []byte
		created       int64
		diagnostics   *string
	)
	err := r.Scan(&t.Namespace, &t.ID, &t.Query, &t.Scope.AgentID, &t.Scope.UserID, &t.Scope.ProjectID, &t.Scope.SessionID,
		&t.TaskType, &t.Limit, &t.TokenBudget, &t.TokensUsed, &asOf, &t.IncludeHistory, &items, &created,
		&t.DurationMicros, &knownAt, &diagnostics)
	if err != nil {
		return nil, err
	}
	if diagnostics != nil {
		if err := t.DecodeDiagnostics(*diagnostics); err != nil {
			return nil, err
		}
	}
	if items == nil { // traceColsLean
		t.AsOf, t.KnownAt, t.CreatedAt = fromNanosPtr(asOf), fromNanosPtr(knownAt), fromNanos(created)
		return &t, nil
	}
	if t.Items, err = memory.DecodeTraceItems(items); err != nil {
		return nil, fmt.Errorf("decode column items: %w", err)
	}
	t.AsOf, t.KnownAt, t.CreatedAt = fromNanosPtr(asOf), fromNanosPtr(knownAt), fromNanos(created)
	return &t, nil
}

// traceArgs checks a trace and returns qInsertTrace's arguments for it.
func traceArgs(t *memory.Trace) ([]any, error) {
	if t == nil {
		return nil, fmt.Errorf("postgres: create trace: %w", memory.Invalidf("nil trace"))
	}
	op := "create trace " + t.ID
	if err := checkNamespace(t.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", op, err)
	}
	if err := checkID("trace", t.ID); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", op, err)
	}
	var c enc
	args := []any{
		t.Namespace, t.ID, t.Query, t.Scope.AgentID, t.Scope.UserID, t.Scope.ProjectID, t.Scope.SessionID,
		t.TaskType, t.Limit, t.TokenBudget, t.TokensUsed, c.timePtr("as_of", t.AsOf), t.IncludeHistory,
		t.Items.AppendBinary(nil), c.time("created_at", t.CreatedAt), t.DurationMicros, c.timePtr("known_at", t.KnownAt),
		nullText(t.EncodeDiagnostics()),
	}
	if c.err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", op, c.err)
	}
	return args, nil
}

// CreateTraces writes ts with one batch per namespace (memory.TraceBatchCreator):
// the engine's trace writer hands over every trace of a 20 ms window at
// once, and a statement each made it the server's busiest client.
func (e *executor) CreateTraces(ctx context.Context, ts []*memory.Trace) error {
	byNS := map[string][][]any{}
	var nss []string
	for _, t := range ts {
		args, err := traceArgs(t)
		if err != nil {
			return err
		}
		if _, ok := byNS[t.Namespace]; !ok {
			nss = append(nss, t.Namespace)
		}
		byNS[t.Namespace] = append(byNS[t.Namespace], args)
	}
	return e.inTx(ctx, func(e *executor) error {
		for _, ns := range nss {
			rows := byNS[ns]
			err := e.write(ctx, ns, fmt.Sprintf("create %d traces", len(rows)), func(e *executor) error {
				if err := e.flush(ctx); err != nil {
					return err
				}
				b := &pgx.Batch{}
				for _, args := range rows {
					b.Queue(qInsertTrace, args...)
				}
				br := e.tx.SendBatch(ctx, b)
				var first error
				for _, args := range rows {
					tag, err := br.Exec()
					if err != nil {
						first = mapErr(err)
						break
					}
					if tag.RowsAffected() == 0 {
						first = memory.Conflictf(nil, "a trace with this id exists: %s", args[1])
						break
					}
				}
				if err := br.Close(); err != nil && first == nil {
					first = mapErr(err)
				}
				return first
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *executor) CreateTrace(ctx context.Context, t *memory.Trace) error {
	args, err := traceArgs(t)
	if err != nil {
		return err
	}
	op := "create trace " + t.ID
	return e.write(ctx, t.Namespace, op, func(e *executor) error {
		tag, err := e.exec(ctx, qInsertTrace, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return memory.Conflictf(nil, "a trace with this id exists")
		}
		return nil
	})
}

func (e *executor) GetTrace(ctx context.Context, p memory.GetParams) (*memory.Trace, error) {
	t, err := getOne(ctx, e, p, decodeTrace, qGetTrace)
	if err != nil {
		return nil, fmt.Errorf("postgres: get trace %s: %w", p.ID, err)
	}
	return t, nil
}

func listTracesQuery(p memory.ListTracesParams) (string, []any, error) {
	w := newWhere(p.Namespace)
	if !p.Since.IsZero() {
		var c enc
		w.add("created_at >= ?", c.time("since", p.Since))
		if c.err != nil {
			return "", nil, c.err
		}
	}
	cols := traceCols
	if p.WithoutItems {
		cols = traceColsLean
	}
	return `SELECT ` + cols + ` FROM traces WHERE namespace = $1` + w.sb.String() +
		` ORDER BY created_at DESC, id DESC LIMIT ` + w.next(limit(p.Limit)), w.args, nil
}

func (e *executor) ListTraces(ctx context.Context, p memory.ListTracesParams) ([]*memory.Trace, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list traces: %w", err)
	}
	q, args, err := listTracesQuery(p)
	if err != nil {
		return nil, fmt.Errorf("postgres: list traces: %w", err)
	}
	out, err := collect(ctx, e, decodeTrace, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list traces: %w", err)
	}
	return out, nil
}

func (e *executor) ScanTraces(ctx context.Context, p memory.ScanParams, fn func(*memory.Trace) error) error {
	return scan(ctx, e, "scan traces", p.Namespace, qScanTraces, decodeTrace, fn)
}

const qPruneTraces = `DELETE FROM traces WHERE namespace = $1 AND id IN (
	SELECT id FROM traces WHERE namespace = $1 AND created_at < $2
	ORDER BY created_at, id LIMIT $3)`

func (e *executor) PruneTraces(ctx context.Context, p memory.PruneTracesParams) (int, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return 0, fmt.Errorf("postgres: prune traces: %w", err)
	}
	if p.Before.IsZero() || p.Limit < 1 {
		return 0, fmt.Errorf("postgres: prune traces: %w", memory.Invalidf("a cutoff and a limit of at least 1 are required"))
	}
	var c enc
	before := c.time("before", p.Before)
	if c.err != nil {
		return 0, fmt.Errorf("postgres: prune traces: %w", c.err)
	}
	var n int
	err := e.write(ctx, p.Namespace, "prune traces", func(e *executor) error {
		tag, err := e.exec(ctx, qPruneTraces, p.Namespace, before, p.Limit)
		n = int(tag.RowsAffected())
		return err
	})
	return n, err
}

// ---- stats and namespaces ---------------------------------------------------

// qStats counts everything in one statement, so the numbers come from one
// snapshot even while writes go on.
const qStats = `
SELECT 'episodes', ''::text, count(*) FROM episodes WHERE namespace = $1
UNION ALL SELECT 'memories', '', count(*) FROM memories WHERE namespace = $1
UNION ALL SELECT 'admissions', '', count(*) FROM admissions WHERE namespace = $1
UNION ALL SELECT 'traces', '', count(*) FROM traces WHERE namespace = $1
UNION ALL SELECT 'versions', status, count(*) FROM versions WHERE namespace = $1 GROUP BY status`

func (e *executor) Stats(ctx context.Context, p memory.StatsParams) (*memory.Stats, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: stats: %w", err)
	}
	type count struct {
		table, status string
		n             int
	}
	rows, err := collect(ctx, e, func(r pgx.Rows) (count, error) {
		var c count
		return c, r.Scan(&c.table, &c.status, &c.n)
	}, qStats, p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("postgres: stats: %w", err)
	}
	st := &memory.Stats{Namespace: p.Namespace, Versions: map[memory.Status]int{}}
	for _, c := range rows {
		switch c.table {
		case "episodes":
			st.Episodes = c.n
		case "memories":
			st.Memories = c.n
		case "admissions":
			st.Admissions = c.n
		case "traces":
			st.Traces = c.n
		case "versions":
			st.Versions[memory.Status(c.status)] = c.n
		}
	}
	return st, nil
}

// skipScan finds a table's distinct namespaces by skipping through its
// primary key index, one seek past the previous namespace per step: the cost
// grows with the number of namespaces, not of rows.
func skipScan(alias, table string) string {
	return alias + `(ns) AS (SELECT min(namespace) FROM ` + table + ` UNION ALL
	SELECT (SELECT min(namespace) FROM ` + table + ` WHERE namespace > ` + alias + `.ns) FROM ` + alias + ` WHERE ` + alias + `.ns IS NOT NULL)`
}

var qNamespaces = `WITH RECURSIVE ` + strings.Join([]string{
	skipScan("e", "episodes"), skipScan("m", "memories"), skipScan("v", "versions"),
	skipScan("a", "admissions"), skipScan("t", "traces"),
}, ",\n") + `
SELECT ns FROM e WHERE ns IS NOT NULL
UNION SELECT ns FROM m WHERE ns IS NOT NULL
UNION SELECT ns FROM v WHERE ns IS NOT NULL
UNION SELECT ns FROM a WHERE ns IS NOT NULL
UNION SELECT ns FROM t WHERE ns IS NOT NULL
ORDER BY 1`

// Namespaces lists every namespace that holds a row, sorted bytewise.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) {
	out, err := s.strs(ctx, qNamespaces)
	if err != nil {
		return nil, fmt.Errorf("postgres: namespaces: %w", err)
	}
	return out, nil
}
