package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/memory"
)

// Consolidation (memory.ConsolidationStore). A purged episode stays in
// episodes with its text removed and purged set: it is still counted in
// its session and read back as it was, text aside.

const (
	qGetSession = `SELECT session_id, count(*), min(occurred_at), max(occurred_at)
	FROM episodes WHERE namespace = $1 AND session_id = $2 GROUP BY session_id`
	qDueSessions = `SELECT s.session_id, s.n, s.first_at, s.last_at FROM (
	  SELECT session_id, count(*) AS n, min(occurred_at) AS first_at, max(occurred_at) AS last_at
	  FROM episodes WHERE namespace = $1 AND session_id <> '' GROUP BY session_id) s
	WHERE s.last_at < $2
	  AND s.n <> COALESCE((SELECT m.episodes FROM session_summaries m
	                       WHERE m.namespace = $1 AND m.session_id = s.session_id), -1)
	ORDER BY s.last_at, s.session_id
	LIMIT $3`

	summaryCols           = `namespace, session_id, memory_id, version_id, episodes, last_at, consolidated_at, folded`
	qGetSessionSummary    = `SELECT ` + summaryCols + ` FROM session_summaries WHERE namespace = $1 AND session_id = $2`
	qListSessionSummaries = `SELECT ` + summaryCols + ` FROM session_summaries WHERE namespace = $1
	ORDER BY session_id LIMIT $2`
	qPutSessionSummary = `INSERT INTO session_summaries (` + summaryCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
	ON CONFLICT (namespace, session_id) DO UPDATE SET memory_id = excluded.memory_id,
	  version_id = excluded.version_id, episodes = excluded.episodes, last_at = excluded.last_at,
	  consolidated_at = excluded.consolidated_at, folded = excluded.folded`
	qFoldableSessions = `SELECT ` + summaryCols + ` FROM session_summaries s
	WHERE s.namespace = $1 AND NOT s.folded AND s.last_at < $2
	  AND NOT EXISTS (SELECT 1 FROM episodes e
	                  WHERE e.namespace = $1 AND e.session_id = s.session_id AND NOT e.purged)
	ORDER BY s.last_at, s.session_id LIMIT $3`
	qFoldSessions = `UPDATE session_summaries SET memory_id = $1, version_id = $2, folded = true
	WHERE namespace = $3 AND (memory_id = $1 OR session_id = ANY($4))`
	// A purged episode's metadata gains the keys of $3 (an object).
	qSetPurgedMetadata = `UPDATE episodes SET metadata =
	  CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata || $3::text::jsonb ELSE $3::text::jsonb END
	WHERE namespace = $1 AND session_id = ANY($2) AND purged`

	qDeleteSlotVersions    = `DELETE FROM versions WHERE namespace = $1 AND memory_id = ANY($2) RETURNING id`
	qDeleteSlotAdmissions  = `DELETE FROM admissions WHERE namespace = $1 AND memory_id = ANY($2)`
	qDeleteSlotFeedback    = `DELETE FROM feedback WHERE namespace = $1 AND memory_id = ANY($2)`
	qDeleteSlots           = `DELETE FROM memories WHERE namespace = $1 AND id = ANY($2)`
	qDeleteVersions        = `DELETE FROM versions WHERE namespace = $1 AND id = ANY($2) RETURNING id`
	qDeleteVersionAdmits   = `DELETE FROM admissions WHERE namespace = $1 AND version_id = ANY($2)`
	qDeleteVersionFeedback = `DELETE FROM feedback WHERE namespace = $1 AND version_id = ANY($2)`

	stubCols = `namespace, episode_id, session_id, version_id, summary_memory_id, content_hash,
	occurred_at, summarised_at, check_at, forgotten_at, retention, purged_at`
	qAddStubs = `INSERT INTO episode_stubs (` + stubCols + `)
	SELECT $1, u.* FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
	  $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::float8[], $12::bigint[]) AS u
	ON CONFLICT (namespace, episode_id) DO NOTHING`
	qUpdateStub = `UPDATE episode_stubs SET summary_memory_id = $1, check_at = $2, forgotten_at = $3,
	retention = $4, purged_at = $5 WHERE namespace = $6 AND episode_id = $7`

	qPurgeEpisode = `UPDATE episodes SET content = '', metadata = $3::text::jsonb, purged = true
	WHERE namespace = $1 AND id = $2`
	qPurgeVersion = `DELETE FROM versions WHERE namespace = $1 AND id = $2 AND kind = 'episodic' RETURNING memory_id`
	qPurgeSlot    = `DELETE FROM memories WHERE namespace = $1 AND id = $2 AND kind = 'episodic'
	AND NOT EXISTS (SELECT 1 FROM versions WHERE namespace = $1 AND memory_id = $2)`
	qDeleteStub      = `DELETE FROM episode_stubs WHERE namespace = $1 AND episode_id = $2`
	qPurgeAdmissions = `DELETE FROM admissions WHERE namespace = $1 AND episode_id = $2
	AND (extractor = 'episode' OR decision IN ('reject', 'defer'))`
)

func decodeSession(r pgx.Rows) (memory.SessionInfo, error) {
	var (
		s           memory.SessionInfo
		first, last int64
	)
	err := r.Scan(&s.ID, &s.Episodes, &first, &last)
	s.FirstAt, s.LastAt = fromNanos(first), fromNanos(last)
	return s, err
}

func decodeSessionSummary(r pgx.Rows) (*memory.SessionSummary, error) {
	var (
		s                      memory.SessionSummary
		last, consolidatedTime int64
	)
	if err := r.Scan(&s.Namespace, &s.SessionID, &s.MemoryID, &s.VersionID, &s.Episodes, &last, &consolidatedTime, &s.Folded); err != nil {
		return nil, err
	}
	s.LastAt, s.ConsolidatedAt = fromNanos(last), fromNanos(consolidatedTime)
	return &s, nil
}

func decodeStub(r pgx.Rows) (*memory.EpisodeStub, error) {
	var (
		s                        memory.EpisodeStub
		occurred, summarised, ck int64
		forgotten, purged        *int64
	)
	err := r.Scan(&s.Namespace, &s.EpisodeID, &s.SessionID, &s.VersionID, &s.SummaryMemoryID, &s.ContentHash,
		&occurred, &summarised, &ck, &forgotten, &s.Retention, &purged)
	if err != nil {
		return nil, err
	}
	s.OccurredAt, s.SummarisedAt, s.CheckAt = fromNanos(occurred), fromNanos(summarised), fromNanos(ck)
	s.ForgottenAt, s.PurgedAt = fromNanosPtr(forgotten), fromNanosPtr(purged)
	return &s, nil
}

func (e *executor) GetSession(ctx context.Context, p memory.GetParams) (*memory.SessionInfo, error) {
	if p.ID == "" {
		return nil, fmt.Errorf("postgres: get session: %w", memory.Invalidf("session id is empty"))
	}
	s, err := getOne(ctx, e, p, decodeSession, qGetSession)
	if err != nil {
		return nil, fmt.Errorf("postgres: get session %s: %w", p.ID, err)
	}
	return &s, nil
}

func (e *executor) DueSessions(ctx context.Context, p memory.DueSessionsParams) ([]memory.SessionInfo, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: due sessions: %w", err)
	}
	var c enc
	before := c.time("before", p.Before)
	if c.err != nil {
		return nil, fmt.Errorf("postgres: due sessions: %w", c.err)
	}
	out, err := collect(ctx, e, decodeSession, qDueSessions, p.Namespace, before, limit(p.Limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: due sessions: %w", err)
	}
	return out, nil
}

func (e *executor) GetSessionSummary(ctx context.Context, p memory.GetParams) (*memory.SessionSummary, error) {
	s, err := getOne(ctx, e, p, decodeSessionSummary, qGetSessionSummary)
	if err != nil {
		return nil, fmt.Errorf("postgres: get session summary %s: %w", p.ID, err)
	}
	return s, nil
}

func (e *executor) ListSessionSummaries(ctx context.Context, p memory.ListSessionSummariesParams) ([]*memory.SessionSummary, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list session summaries: %w", err)
	}
	out, err := collect(ctx, e, decodeSessionSummary, qListSessionSummaries, p.Namespace, limit(p.Limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: list session summaries: %w", err)
	}
	return out, nil
}

func (e *executor) PutSessionSummary(ctx context.Context, s *memory.SessionSummary) error {
	err := func() error {
		if s == nil {
			return memory.Invalidf("nil session summary")
		}
		if err := checkNamespace(s.Namespace); err != nil {
			return err
		}
		if err := checkID("session", s.SessionID); err != nil {
			return err
		}
		if err := checkID("memory", s.MemoryID); err != nil {
			return err
		}
		var c enc
		args := []any{s.Namespace, s.SessionID, s.MemoryID, s.VersionID, s.Episodes,
			c.time("last_at", s.LastAt), c.time("consolidated_at", s.ConsolidatedAt), s.Folded}
		if c.err != nil {
			return c.err
		}
		return e.writeTx(ctx, s.Namespace, func(e *executor) error {
			_, err := e.exec(ctx, qPutSessionSummary, args...)
			return err
		})
	}()
	if err != nil {
		return fmt.Errorf("postgres: put session summary: %w", err)
	}
	return nil
}

func (e *executor) AddEpisodeStubs(ctx context.Context, p memory.AddEpisodeStubsParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("postgres: add episode stubs: %w", err)
	}
	var (
		c                                          enc
		ids, sessions, versions, summaries, hashes []string
		occurred, summarised, checkAt              []int64
		forgotten, purged                          []*int64
		retention                                  []float64
	)
	for _, s := range p.Stubs {
		if s == nil {
			return fmt.Errorf("postgres: add episode stubs: %w", memory.Invalidf("nil episode stub"))
		}
		if err := checkID("episode", s.EpisodeID); err != nil {
			return fmt.Errorf("postgres: add episode stubs: %w", err)
		}
		if err := sameNamespace("episode stub", s.EpisodeID, s.Namespace, p.Namespace); err != nil {
			return fmt.Errorf("postgres: add episode stubs: %w", err)
		}
		ids, sessions, versions = append(ids, s.EpisodeID), append(sessions, s.SessionID), append(versions, s.VersionID)
		summaries, hashes = append(summaries, s.SummaryMemoryID), append(hashes, s.ContentHash)
		occurred = append(occurred, c.time("occurred_at", s.OccurredAt))
		summarised = append(summarised, c.time("summarised_at", s.SummarisedAt))
		checkAt = append(checkAt, c.time("check_at", s.CheckAt))
		forgotten = append(forgotten, c.timePtr("forgotten_at", s.ForgottenAt))
		retention = append(retention, s.Retention)
		purged = append(purged, c.timePtr("purged_at", s.PurgedAt))
		if c.err != nil {
			return fmt.Errorf("postgres: add episode stubs: %w", memory.Within(c.err, "episode stub %s", s.EpisodeID))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return e.write(ctx, p.Namespace, "add episode stubs", func(e *executor) error {
		_, err := e.exec(ctx, qAddStubs, p.Namespace, ids, sessions, versions, summaries, hashes,
			occurred, summarised, checkAt, forgotten, retention, purged)
		return err
	})
}

func (e *executor) UpdateEpisodeStub(ctx context.Context, s *memory.EpisodeStub) error {
	err := func() error {
		if s == nil {
			return memory.Invalidf("nil episode stub")
		}
		if err := checkNamespace(s.Namespace); err != nil {
			return err
		}
		if err := checkID("episode", s.EpisodeID); err != nil {
			return err
		}
		var c enc
		args := []any{s.SummaryMemoryID, c.time("check_at", s.CheckAt), c.timePtr("forgotten_at", s.ForgottenAt),
			s.Retention, c.timePtr("purged_at", s.PurgedAt), s.Namespace, s.EpisodeID}
		if c.err != nil {
			return c.err
		}
		return e.writeTx(ctx, s.Namespace, func(e *executor) error { return e.execOne(ctx, qUpdateStub, args...) })
	}()
	if err != nil {
		return fmt.Errorf("postgres: update episode stub: %w", err)
	}
	return nil
}

func (e *executor) ListEpisodeStubs(ctx context.Context, p memory.ListEpisodeStubsParams) ([]*memory.EpisodeStub, error) {
	out, err := e.listEpisodeStubs(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("postgres: list episode stubs: %w", err)
	}
	return out, nil
}

func (e *executor) listEpisodeStubs(ctx context.Context, p memory.ListEpisodeStubsParams) ([]*memory.EpisodeStub, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, err
	}
	var c enc
	w := newWhere(p.Namespace)
	order := ` ORDER BY occurred_at, episode_id`
	set := 0
	if len(p.IDs) > 0 {
		w.add("episode_id = ANY(?)", p.IDs)
		set++
	}
	if p.SessionID != "" {
		w.add("session_id = ?", p.SessionID)
		set++
	}
	if !p.CheckBy.IsZero() {
		w.sb.WriteString(" AND forgotten_at IS NULL")
		w.add("check_at <= ?", c.time("check_by", p.CheckBy))
		order = ` ORDER BY check_at, episode_id`
		set++
	}
	if !p.PurgeBy.IsZero() {
		w.sb.WriteString(" AND forgotten_at IS NOT NULL AND purged_at IS NULL")
		w.add("forgotten_at <= ?", c.time("purge_by", p.PurgeBy))
		order = ` ORDER BY forgotten_at, episode_id`
		set++
	}
	if set > 1 {
		return nil, memory.Invalidf("list episode stubs: set one of ids, session, check_by, purge_by")
	}
	if c.err != nil {
		return nil, c.err
	}
	q := `SELECT ` + stubCols + ` FROM episode_stubs WHERE namespace = $1` + w.sb.String() + order + ` LIMIT ` + w.next(limit(p.Limit))
	return collect(ctx, e, decodeStub, q, w.args...)
}

func (e *executor) PurgeEpisodeText(ctx context.Context, p memory.PurgeEpisodeParams) error {
	op := "purge episode " + p.EpisodeID
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	if err := checkID("episode", p.EpisodeID); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	var c enc
	meta := c.json("metadata", p.Metadata)
	if c.err != nil {
		return fmt.Errorf("postgres: %s: %w", op, c.err)
	}
	return e.write(ctx, p.Namespace, op, func(e *executor) error {
		if err := e.execOne(ctx, qPurgeEpisode, p.Namespace, p.EpisodeID, meta); err != nil {
			return err
		}
		if p.VersionID != "" {
			mems, err := e.strs(ctx, qPurgeVersion, p.Namespace, p.VersionID)
			if err != nil {
				return err
			}
			if len(mems) > 0 {
				if _, err := e.exec(ctx, qPurgeSlot, p.Namespace, mems[0]); err != nil {
					return err
				}
			}
		}
		if _, err := e.exec(ctx, qPurgeAdmissions, p.Namespace, p.EpisodeID); err != nil {
			return err
		}
		_, err := e.exec(ctx, qDeleteStub, p.Namespace, p.EpisodeID)
		return err
	})
}

func (e *executor) FoldableSessions(ctx context.Context, p memory.DueSessionsParams) ([]*memory.SessionSummary, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: foldable sessions: %w", err)
	}
	var c enc
	before := c.time("before", p.Before)
	if c.err != nil {
		return nil, fmt.Errorf("postgres: foldable sessions: %w", c.err)
	}
	out, err := collect(ctx, e, decodeSessionSummary, qFoldableSessions, p.Namespace, before, limit(p.Limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: foldable sessions: %w", err)
	}
	return out, nil
}

func (e *executor) FoldSessions(ctx context.Context, p memory.FoldSessionsParams) error {
	err := func() error {
		if err := checkNamespace(p.Namespace); err != nil {
			return err
		}
		if err := checkID("memory", p.MemoryID); err != nil {
			return err
		}
		if err := checkID("version", p.VersionID); err != nil {
			return err
		}
		sessions := p.SessionIDs
		if sessions == nil {
			sessions = []string{}
		}
		return e.writeTx(ctx, p.Namespace, func(e *executor) error {
			_, err := e.exec(ctx, qFoldSessions, p.MemoryID, p.VersionID, p.Namespace, sessions)
			return err
		})
	}()
	if err != nil {
		return fmt.Errorf("postgres: fold sessions: %w", err)
	}
	return nil
}

func (e *executor) SetPurgedMetadata(ctx context.Context, p memory.SetPurgedMetadataParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("postgres: set purged metadata: %w", err)
	}
	set := p.Set
	if set == nil {
		set = map[string]string{}
	}
	var c enc
	obj := c.json("set", set)
	if c.err != nil {
		return fmt.Errorf("postgres: set purged metadata: %w", c.err)
	}
	if len(p.SessionIDs) == 0 {
		return nil
	}
	return e.write(ctx, p.Namespace, "set purged metadata", func(e *executor) error {
		_, err := e.exec(ctx, qSetPurgedMetadata, p.Namespace, p.SessionIDs, obj)
		return err
	})
}

func (e *executor) DeleteMemories(ctx context.Context, p memory.DeleteMemoriesParams) ([]string, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: delete memories: %w", err)
	}
	var c enc
	now := c.time("now", p.Now)
	if c.err != nil {
		return nil, fmt.Errorf("postgres: delete memories: %w", c.err)
	}
	var deleted []string
	err := e.write(ctx, p.Namespace, "delete memories", func(e *executor) error {
		deleted = nil
		if len(p.MemoryIDs) > 0 {
			ids, err := e.strs(ctx, qDeleteSlotVersions, p.Namespace, p.MemoryIDs)
			if err != nil {
				return err
			}
			deleted = append(deleted, ids...)
			for _, q := range []string{qDeleteSlotAdmissions, qDeleteSlotFeedback, qDeleteSlots} {
				if _, err := e.exec(ctx, q, p.Namespace, p.MemoryIDs); err != nil {
					return err
				}
			}
		}
		if len(p.VersionIDs) > 0 {
			ids, err := e.strs(ctx, qDeleteVersions, p.Namespace, p.VersionIDs)
			if err != nil {
				return err
			}
			deleted = append(deleted, ids...)
			for _, q := range []string{qDeleteVersionAdmits, qDeleteVersionFeedback} {
				if _, err := e.exec(ctx, q, p.Namespace, ids); err != nil {
					return err
				}
			}
		}
		return e.logChanges(ctx, p.Namespace, deleted, now)
	})
	if err != nil {
		return nil, err
	}
	return deleted, nil
}
