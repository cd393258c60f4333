package sqlite

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/mnemon-dev/mnemon/memory"
)

// Consolidation: sessions, their summary records and the stubs of
// summarised episodes (see memory.Consolidation and migration 0008).

const (
	// A session's episodes are its live rows and its archived (purged)
	// ones; both groupings walk an index that covers what they read.
	qGetSession = `SELECT session_id, SUM(n), MIN(first_at), MAX(last_at) FROM (
	  SELECT session_id, COUNT(*) AS n, MIN(occurred_at) AS first_at, MAX(occurred_at) AS last_at
	  FROM episodes WHERE namespace = /*ns*/?1 AND session_id = ?2 AND session_id <> '' GROUP BY session_id
	  UNION ALL
	  SELECT session_id, SUM(episodes), MIN(first_at), MAX(last_at)
	  FROM episode_archive WHERE namespace = /*ns*/?1 AND session_id = ?2 GROUP BY session_id)
	GROUP BY session_id`
	qDueSessions = `SELECT s.session_id, SUM(s.n), MIN(s.first_at), MAX(s.last_at) FROM (
	  SELECT session_id, COUNT(*) AS n, MIN(occurred_at) AS first_at, MAX(occurred_at) AS last_at
	  FROM episodes WHERE namespace = /*ns*/?1 AND session_id != '' GROUP BY session_id
	  UNION ALL
	  SELECT session_id, SUM(episodes), MIN(first_at), MAX(last_at)
	  FROM episode_archive WHERE namespace = /*ns*/?1 AND session_id != '' GROUP BY session_id) s
	GROUP BY s.session_id
	HAVING MAX(s.last_at) < ?2
	   AND SUM(s.n) != COALESCE((SELECT m.episodes FROM session_summaries m
	                             WHERE m.namespace = /*ns*/?1 AND m.session_id = s.session_id), -1)
	ORDER BY MAX(s.last_at), s.session_id
	LIMIT ?3`

	summaryCols           = `namespace, session_id, memory_id, version_id, episodes, last_at, consolidated_at, folded`
	qGetSessionSummary    = `SELECT ` + summaryCols + ` FROM session_summaries WHERE namespace = /*ns*/? AND session_id = ?`
	qListSessionSummaries = `SELECT ` + summaryCols + ` FROM session_summaries WHERE namespace = /*ns*/?
	ORDER BY session_id LIMIT ?`
	qPutSessionSummary = `INSERT INTO session_summaries (` + summaryCols + `) VALUES (/*ns*/?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (namespace, session_id) DO UPDATE SET memory_id = excluded.memory_id,
	  version_id = excluded.version_id, episodes = excluded.episodes, last_at = excluded.last_at,
	  consolidated_at = excluded.consolidated_at, folded = excluded.folded`
	// A session is foldable once it has no live episode row: every one
	// was purged into the archive (episodes_by_session answers).
	qFoldableSessions = `SELECT ` + summaryCols + ` FROM session_summaries s
	WHERE s.namespace = /*ns*/?1 AND s.folded = 0 AND s.last_at < ?2
	  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.namespace = /*ns*/?1 AND e.session_id = s.session_id
	                  AND e.session_id <> '')
	ORDER BY s.last_at, s.session_id LIMIT ?3`
	qFoldSessions = `UPDATE session_summaries SET memory_id = ?1, version_id = ?2, folded = 1
	WHERE namespace = /*ns*/?3 AND (memory_id = ?1 OR session_id IN (SELECT value FROM json_each(?4)))`

	qDeleteSlotVersions    = `DELETE FROM versions WHERE namespace = /*ns*/? AND memory_id = ? RETURNING id`
	qDeleteSlotAdmissions  = `DELETE FROM admissions WHERE namespace = /*ns*/?1 AND substr(memory_id, -8) = substr(?2, -8) AND memory_id = ?2 AND memory_id <> ''`
	qDeleteSlotFeedback    = `DELETE FROM feedback WHERE namespace = /*ns*/? AND memory_id = ?`
	qDeleteSlot            = `DELETE FROM memories WHERE namespace = /*ns*/? AND id = ?`
	qDeleteVersion         = `DELETE FROM versions WHERE namespace = /*ns*/? AND id = ? RETURNING memory_id`
	qDeleteVersionFeedback = `DELETE FROM feedback WHERE namespace = /*ns*/? AND version_id = ?`

	stubCols = `namespace, episode_id, session_id, version_id, summary_memory_id, content_hash,
	occurred_at, summarised_at, check_at, forgotten_at, retention, purged_at`
	qAddStub = `INSERT INTO episode_stubs (` + stubCols + `) VALUES (/*ns*/?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (namespace, episode_id) DO NOTHING`
	qUpdateStub = `UPDATE episode_stubs SET summary_memory_id = ?, check_at = ?, forgotten_at = ?,
	retention = ?, purged_at = ? WHERE namespace = /*ns*/? AND episode_id = ?`

	qDeleteStub = `DELETE FROM episode_stubs WHERE namespace = /*ns*/? AND episode_id = ?`
)

// The purge's statements name kind and extractor in their stored forms
// (migration 0020).
var (
	// The episodic version goes, then its slot if no version is left in it
	// (an episodic slot holds exactly one).
	qPurgeVersion = `DELETE FROM versions WHERE namespace = /*ns*/? AND id = ? AND kind = ` + symLiteral(string(memory.KindEpisodic)) + ` RETURNING memory_id`
	qPurgeSlot    = `DELETE FROM memories WHERE namespace = /*ns*/? AND id = ? AND kind = ` + symLiteral(string(memory.KindEpisodic)) + `
	AND NOT EXISTS (SELECT 1 FROM versions WHERE namespace = /*ns*/? AND memory_id = ?)`
)

// An episode's own admissions (extractor "episode": its admission and
// the duplicates recognised as it) copied its text, and so did the
// candidates drawn from it that no version keeps (rejected, deferred):
// they go. The admissions of facts stay: their content is the fact's.
var qPurgeAdmissions = `DELETE FROM admissions WHERE namespace = /*ns*/?1 AND substr(episode_id, -8) = substr(?2, -8) AND episode_id = ?2
	AND (extractor = ` + symLiteral("episode") + ` OR decision IN (` + decisions.literal(string(memory.AdmitReject)) + `, ` + decisions.literal(string(memory.AdmitDefer)) + `))`

func decodeSession(d *decoder) memory.SessionInfo {
	return memory.SessionInfo{ID: d.str(), Episodes: int(d.int()), FirstAt: d.time(), LastAt: d.time()}
}

func decodeSessionSummary(d *decoder) *memory.SessionSummary {
	return &memory.SessionSummary{
		Namespace: d.ns(), SessionID: d.str(), MemoryID: d.str(), VersionID: d.str(),
		Episodes: int(d.int()), LastAt: d.time(), ConsolidatedAt: d.time(), Folded: d.int() != 0,
	}
}

func decodeStub(d *decoder) *memory.EpisodeStub {
	return &memory.EpisodeStub{
		Namespace: d.ns(), EpisodeID: d.str(), SessionID: d.str(), VersionID: d.str(),
		SummaryMemoryID: d.str(), ContentHash: d.str(), OccurredAt: d.time(), SummarisedAt: d.time(),
		CheckAt: d.time(), ForgottenAt: d.timePtr(), Retention: d.float(), PurgedAt: d.timePtr(),
	}
}

func (e *executor) GetSession(ctx context.Context, p memory.GetParams) (*memory.SessionInfo, error) {
	if p.ID == "" {
		return nil, fmt.Errorf("sqlite: get session: %w", memory.Invalidf("session id is empty"))
	}
	s, err := getOne(ctx, e, p, p.ID, qGetSession, decodeSession)
	if err != nil {
		return nil, fmt.Errorf("sqlite: get session %s: %w", p.ID, err)
	}
	return &s, nil
}

func (e *executor) DueSessions(ctx context.Context, p memory.DueSessionsParams) ([]memory.SessionInfo, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) {
		var c encoder
		before := c.time("before", p.Before)
		return qDueSessions, []any{p.Namespace, before, limitArg(p.Limit)}, c.err
	}, decodeSession)
	if err != nil {
		return nil, fmt.Errorf("sqlite: due sessions: %w", err)
	}
	return out, nil
}

func (e *executor) GetSessionSummary(ctx context.Context, p memory.GetParams) (*memory.SessionSummary, error) {
	s, err := getOne(ctx, e, p, p.ID, qGetSessionSummary, decodeSessionSummary)
	if err != nil {
		return nil, fmt.Errorf("sqlite: get session summary %s: %w", p.ID, err)
	}
	return s, nil
}

func (e *executor) ListSessionSummaries(ctx context.Context, p memory.ListSessionSummariesParams) ([]*memory.SessionSummary, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) {
		return qListSessionSummaries, []any{p.Namespace, limitArg(p.Limit)}, nil
	}, decodeSessionSummary)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list session summaries: %w", err)
	}
	return out, nil
}

func (e *executor) PutSessionSummary(ctx context.Context, s *memory.SessionSummary) error {
	if err := e.putSessionSummary(ctx, s); err != nil {
		return fmt.Errorf("sqlite: put session summary: %w", err)
	}
	return nil
}

func (e *executor) putSessionSummary(ctx context.Context, s *memory.SessionSummary) error {
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
	var c encoder
	folded := 0
	if s.Folded {
		folded = 1
	}
	args := []any{s.Namespace, s.SessionID, s.MemoryID, s.VersionID, s.Episodes,
		c.time("last_at", s.LastAt), c.time("consolidated_at", s.ConsolidatedAt), folded}
	if c.err != nil {
		return c.err
	}
	_, err := e.exec(ctx, qPutSessionSummary, args...)
	return mapErr(err)
}

func (e *executor) AddEpisodeStubs(ctx context.Context, p memory.AddEpisodeStubsParams) error {
	if err := e.addEpisodeStubs(ctx, p); err != nil {
		return fmt.Errorf("sqlite: add episode stubs: %w", err)
	}
	return nil
}

func (e *executor) addEpisodeStubs(ctx context.Context, p memory.AddEpisodeStubsParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	for _, s := range p.Stubs {
		if s == nil {
			return memory.Invalidf("nil episode stub")
		}
		if err := checkID("episode", s.EpisodeID); err != nil {
			return err
		}
		if err := sameNamespace("episode stub", s.EpisodeID, s.Namespace, p.Namespace); err != nil {
			return err
		}
	}
	return e.atomically(ctx, len(p.Stubs), func() error {
		for _, s := range p.Stubs {
			var c encoder
			args := []any{p.Namespace, s.EpisodeID, s.SessionID, s.VersionID, s.SummaryMemoryID, s.ContentHash,
				c.time("occurred_at", s.OccurredAt), c.time("summarised_at", s.SummarisedAt), c.time("check_at", s.CheckAt),
				c.timePtr("forgotten_at", s.ForgottenAt), s.Retention, c.timePtr("purged_at", s.PurgedAt)}
			if c.err != nil {
				return memory.Within(c.err, "episode stub %s", s.EpisodeID)
			}
			if _, err := e.exec(ctx, qAddStub, args...); err != nil {
				return memory.Within(mapErr(err), "episode stub %s", s.EpisodeID)
			}
		}
		return nil
	})
}

func (e *executor) UpdateEpisodeStub(ctx context.Context, s *memory.EpisodeStub) error {
	if err := e.updateEpisodeStub(ctx, s); err != nil {
		return fmt.Errorf("sqlite: update episode stub: %w", err)
	}
	return nil
}

func (e *executor) updateEpisodeStub(ctx context.Context, s *memory.EpisodeStub) error {
	if s == nil {
		return memory.Invalidf("nil episode stub")
	}
	if err := checkNamespace(s.Namespace); err != nil {
		return err
	}
	if err := checkID("episode", s.EpisodeID); err != nil {
		return err
	}
	var c encoder
	args := []any{s.SummaryMemoryID, c.time("check_at", s.CheckAt), c.timePtr("forgotten_at", s.ForgottenAt),
		s.Retention, c.timePtr("purged_at", s.PurgedAt), s.Namespace, s.EpisodeID}
	if c.err != nil {
		return c.err
	}
	return execOne(ctx, e, qUpdateStub, args...)
}

// execOne runs a write that must touch one row: none is ErrNotFound.
func execOne(ctx context.Context, e *executor, q string, args ...any) error {
	res, err := e.exec(ctx, q, args...)
	if err != nil {
		return mapErr(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return memory.ErrNotFound
	}
	return nil
}

func listStubsQuery(p memory.ListEpisodeStubsParams) (string, []any, error) {
	var c encoder
	w := where{args: []any{p.Namespace}}
	order := ` ORDER BY occurred_at, episode_id`
	set := 0
	if len(p.IDs) > 0 {
		w.in("episode_id", p.IDs)
		set++
	}
	if p.SessionID != "" {
		w.eq("session_id", p.SessionID)
		set++
	}
	if !p.CheckBy.IsZero() {
		w.sb.WriteString(" AND forgotten_at IS NULL")
		w.cond("check_at <= ?", c.time("check_by", p.CheckBy))
		order = ` ORDER BY check_at, episode_id`
		set++
	}
	if !p.PurgeBy.IsZero() {
		w.sb.WriteString(" AND forgotten_at IS NOT NULL AND purged_at IS NULL")
		w.cond("forgotten_at <= ?", c.time("purge_by", p.PurgeBy))
		order = ` ORDER BY forgotten_at, episode_id`
		set++
	}
	if set > 1 {
		return "", nil, fmt.Errorf("list episode stubs: set one of ids, session, check_by, purge_by")
	}
	if c.err != nil {
		return "", nil, c.err
	}
	w.args = append(w.args, limitArg(p.Limit))
	return `SELECT ` + stubCols + ` FROM episode_stubs WHERE namespace = /*ns*/?` + w.sb.String() + order + ` LIMIT ?`, w.args, w.err
}

func (e *executor) ListEpisodeStubs(ctx context.Context, p memory.ListEpisodeStubsParams) ([]*memory.EpisodeStub, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) { return listStubsQuery(p) }, decodeStub)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list episode stubs: %w", err)
	}
	return out, nil
}

func (e *executor) PurgeEpisodeText(ctx context.Context, p memory.PurgeEpisodeParams) error {
	if err := e.purgeEpisodeText(ctx, p); err != nil {
		return fmt.Errorf("sqlite: purge episode %s: %w", p.EpisodeID, err)
	}
	return nil
}

func (e *executor) purgeEpisodeText(ctx context.Context, p memory.PurgeEpisodeParams) error {
	if err := checkNamespace(p.Namespace); err != nil {
		return err
	}
	if err := checkID("episode", p.EpisodeID); err != nil {
		return err
	}
	return e.atomically(ctx, 5, func() error {
		// What stays of the episode moves into its session's archive.
		ep, err := getOne(ctx, e, memory.GetParams{Namespace: p.Namespace, ID: p.EpisodeID}, idArg(p.EpisodeID), qGetEpisode, decodeEpisode)
		switch {
		case errors.Is(err, memory.ErrNotFound):
			// Purged before: only its metadata changes.
			if ok, err := e.rearchive(ctx, p.Namespace, p.EpisodeID, p.Metadata); err != nil || !ok {
				return cmp.Or(err, memory.ErrNotFound)
			}
		case err != nil:
			return err
		default:
			ep.Content, ep.Metadata = "", p.Metadata
			if err := execOne(ctx, e, qDeleteEpisode, p.Namespace, idArg(p.EpisodeID)); err != nil {
				return err
			}
			if err := e.archiveEpisode(ctx, ep); err != nil {
				return err
			}
		}
		if p.VersionID != "" {
			var memID string
			rows, err := e.query(ctx, qPurgeVersion, p.Namespace, idArg(p.VersionID))
			if err != nil {
				return mapErr(err)
			}
			for rows.Next() {
				if err := rows.Scan(idScan{&memID}); err != nil {
					rows.Close()
					return err
				}
			}
			if err := errors.Join(rows.Err(), rows.Close()); err != nil {
				return mapErr(err)
			}
			if memID != "" {
				mid := idArg(memID)
				if _, err := e.exec(ctx, qPurgeSlot, p.Namespace, mid, p.Namespace, mid); err != nil {
					return mapErr(err)
				}
			}
		}
		if _, err := e.exec(ctx, qPurgeAdmissions, p.Namespace, idArg(p.EpisodeID)); err != nil {
			return mapErr(err)
		}
		_, err = e.exec(ctx, qDeleteStub, p.Namespace, p.EpisodeID)
		return mapErr(err)
	})
}

func (e *executor) FoldableSessions(ctx context.Context, p memory.DueSessionsParams) ([]*memory.SessionSummary, error) {
	out, err := list(ctx, e, p.Namespace, func() (string, []any, error) {
		var c encoder
		before := c.time("before", p.Before)
		return qFoldableSessions, []any{p.Namespace, before, limitArg(p.Limit)}, c.err
	}, decodeSessionSummary)
	if err != nil {
		return nil, fmt.Errorf("sqlite: foldable sessions: %w", err)
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
		ids, err := json.Marshal(p.SessionIDs)
		if err != nil {
			return err
		}
		_, err = e.exec(ctx, qFoldSessions, p.MemoryID, p.VersionID, p.Namespace, string(ids))
		return mapErr(err)
	}()
	if err != nil {
		return fmt.Errorf("sqlite: fold sessions: %w", err)
	}
	return nil
}

func (e *executor) SetPurgedMetadata(ctx context.Context, p memory.SetPurgedMetadataParams) error {
	err := func() error {
		if err := checkNamespace(p.Namespace); err != nil {
			return err
		}
		// Purged episodes are archived (migration 0012 packed the older
		// ones): each session's chunks are rewritten.
		return e.atomically(ctx, len(p.SessionIDs), func() error {
			for _, sid := range p.SessionIDs {
				chunks, err := e.archiveChunks(ctx, p.Namespace, qArchiveSession, p.Namespace, sid)
				if err != nil {
					return err
				}
				for _, c := range chunks {
					for _, ep := range c.eps {
						meta := make(map[string]string, len(ep.Metadata)+len(p.Set))
						maps.Copy(meta, ep.Metadata)
						maps.Copy(meta, p.Set)
						ep.Metadata = meta
					}
					if err := e.putChunk(ctx, p.Namespace, c); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}()
	if err != nil {
		return fmt.Errorf("sqlite: set purged metadata: %w", err)
	}
	return nil
}

func (e *executor) DeleteMemories(ctx context.Context, p memory.DeleteMemoriesParams) ([]string, error) {
	out, err := e.deleteMemories(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sqlite: delete memories: %w", err)
	}
	return out, nil
}

func (e *executor) deleteMemories(ctx context.Context, p memory.DeleteMemoriesParams) ([]string, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, err
	}
	var c encoder
	now := c.time("now", p.Now)
	if c.err != nil {
		return nil, c.err
	}
	var deleted []string
	err := e.atomically(ctx, 2, func() error {
		deleted = deleted[:0]
		for _, id := range p.MemoryIDs {
			mid := idArg(id)
			ids, err := e.strings(ctx, qDeleteSlotVersions, p.Namespace, mid)
			if err != nil {
				return err
			}
			deleted = append(deleted, ids...)
			// feedback keeps its ids as text (migration 0022).
			for _, q := range []struct {
				sql string
				id  any
			}{{qDeleteSlotAdmissions, mid}, {qDeleteSlotFeedback, id}, {qDeleteSlot, mid}} {
				if _, err := e.exec(ctx, q.sql, p.Namespace, q.id); err != nil {
					return mapErr(err)
				}
			}
		}
		for _, id := range p.VersionIDs {
			vid := idArg(id)
			mems, err := e.strings(ctx, qDeleteVersion, p.Namespace, vid)
			if err != nil {
				return err
			}
			if len(mems) == 0 {
				continue
			}
			deleted = append(deleted, id)
			// By its memory: the admission log has no index by version.
			if _, err := e.exec(ctx, qHistoryAdmissions, p.Namespace, idArg(mems[0]), vid); err != nil {
				return mapErr(err)
			}
			if _, err := e.exec(ctx, qDeleteVersionFeedback, p.Namespace, id); err != nil {
				return mapErr(err)
			}
		}
		// Logged like any version write: a follower finds the version
		// gone and drops it from its index.
		for _, id := range deleted {
			if err := e.logChange(ctx, p.Namespace, id, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return deleted, nil
}

// The Store's consolidation methods: reads on the reader pool, each write
// in a transaction of its own.

func (s *Store) FoldableSessions(ctx context.Context, p memory.DueSessionsParams) ([]*memory.SessionSummary, error) {
	return s.read.FoldableSessions(ctx, p)
}

func (s *Store) FoldSessions(ctx context.Context, p memory.FoldSessionsParams) error {
	return s.write(ctx, func(e *executor) error { return e.FoldSessions(ctx, p) })
}

func (s *Store) SetPurgedMetadata(ctx context.Context, p memory.SetPurgedMetadataParams) error {
	return s.write(ctx, func(e *executor) error { return e.SetPurgedMetadata(ctx, p) })
}

func (s *Store) DeleteMemories(ctx context.Context, p memory.DeleteMemoriesParams) ([]string, error) {
	var out []string
	err := s.write(ctx, func(e *executor) (err error) {
		out, err = e.DeleteMemories(ctx, p)
		return err
	})
	return out, err
}

func (s *Store) GetSession(ctx context.Context, p memory.GetParams) (*memory.SessionInfo, error) {
	return s.read.GetSession(ctx, p)
}

func (s *Store) DueSessions(ctx context.Context, p memory.DueSessionsParams) ([]memory.SessionInfo, error) {
	return s.read.DueSessions(ctx, p)
}

func (s *Store) GetSessionSummary(ctx context.Context, p memory.GetParams) (*memory.SessionSummary, error) {
	return s.read.GetSessionSummary(ctx, p)
}

func (s *Store) ListSessionSummaries(ctx context.Context, p memory.ListSessionSummariesParams) ([]*memory.SessionSummary, error) {
	return s.read.ListSessionSummaries(ctx, p)
}

func (s *Store) PutSessionSummary(ctx context.Context, sum *memory.SessionSummary) error {
	return s.write(ctx, func(e *executor) error { return e.PutSessionSummary(ctx, sum) })
}

func (s *Store) AddEpisodeStubs(ctx context.Context, p memory.AddEpisodeStubsParams) error {
	return s.write(ctx, func(e *executor) error { return e.AddEpisodeStubs(ctx, p) })
}

func (s *Store) UpdateEpisodeStub(ctx context.Context, stub *memory.EpisodeStub) error {
	return s.write(ctx, func(e *executor) error { return e.UpdateEpisodeStub(ctx, stub) })
}

func (s *Store) ListEpisodeStubs(ctx context.Context, p memory.ListEpisodeStubsParams) ([]*memory.EpisodeStub, error) {
	return s.read.ListEpisodeStubs(ctx, p)
}

func (s *Store) PurgeEpisodeText(ctx context.Context, p memory.PurgeEpisodeParams) error {
	return s.write(ctx, func(e *executor) error { return e.PurgeEpisodeText(ctx, p) })
}

var _ memory.Consolidation = (*Store)(nil)
