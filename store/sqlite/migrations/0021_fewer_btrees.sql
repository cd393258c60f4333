-- Fewer B-trees a remember writes, and shorter index entries (issue 22's
-- footprint and stores/s). Every B-tree a commit touches is a WAL frame
-- (a page of 4 KB and two write calls); a note touched about twenty.
--
--  * episodes_by_session is partial on session_id <> '': a sessionless
--    episode (a remember without a session) no longer writes an entry.
--    Every query by session says session_id <> '' (GetSession,
--    ListEpisodes by session, FoldableSessions; DueSessions did already).
--  * changes is a WITHOUT ROWID table keyed (namespace, seq): the log is
--    only ever read per namespace, so its own key replaces the rowid table
--    and changes_by_namespace. seq is now handed out per namespace (its
--    newest + 1, the newest row is never pruned, so numbers never go back);
--    the rows copied keep theirs, so a follower's position stays valid.
--  * admissions_by_episode and admissions_by_memory hold the id's last 8
--    characters, not its 30 (as versions_episode_text does): the queries
--    probe substr(id, -8) and compare the whole id on the row. An id's
--    tail is the random part of a ULID. admissions_by_memory no longer
--    ends at created_at: a memory's admissions are few (reinforcements
--    are pruned), and are sorted after; ListAdmissions names the index.
--  * an episode whose content hash is the SHA-256 of its text keeps its
--    first 8 bytes (the ones episodes_by_hash indexes); the read derives
--    the rest. SQL has no SHA-256: the rows are rewritten by this
--    migration's Go step (migrate_btrees.go), which also stores episode
--    kinds as one-character codes (episodeKindNames; task_result keeps its
--    text, which partial indexes name) and no metadata as '' ('null').

DROP INDEX episodes_by_session;
CREATE INDEX episodes_by_session ON episodes (namespace, session_id, occurred_at) WHERE session_id <> '';

CREATE TABLE changes_v21 (
    namespace  TEXT    NOT NULL,
    seq        INTEGER NOT NULL, -- per namespace: its newest + 1 (the newest row is never pruned)
    version_id TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (namespace, seq)
) STRICT, WITHOUT ROWID;
INSERT INTO changes_v21 (namespace, seq, version_id, updated_at)
SELECT namespace, seq, version_id, updated_at FROM changes ORDER BY namespace, seq;
DROP TABLE changes;
ALTER TABLE changes_v21 RENAME TO changes;

DROP INDEX admissions_by_episode;
CREATE INDEX admissions_by_episode ON admissions (namespace, substr(episode_id, -8));
DROP INDEX admissions_by_memory;
CREATE INDEX admissions_by_memory ON admissions (namespace, substr(memory_id, -8)) WHERE memory_id <> '';

-- The episode's delete trigger finds its admissions through the new
-- admissions_by_episode.
DROP TRIGGER episodes_unshare_on_delete;
CREATE TRIGGER episodes_unshare_on_delete BEFORE DELETE ON episodes
BEGIN
    UPDATE admissions SET content = OLD.content, content_ref = NULL
    WHERE namespace = OLD.namespace AND substr(episode_id, -8) = substr(OLD.id, -8)
      AND episode_id = OLD.id AND content_ref = 1;
    UPDATE versions SET content = OLD.content, shared = shared & ~8
    WHERE namespace = OLD.namespace AND substr(json_extract(evidence_episode_ids, '$[0]'), -8) = substr(OLD.id, -8)
      AND shared & 8 AND json_extract(evidence_episode_ids, '$[0]') = OLD.id;
END;
