-- Smaller rows for what every remember writes (issue 22: 10,000 short notes
-- took 3.0 KB each). Nothing a read returns changes.
--
-- 1. Episodes keep a SHA-256 content hash as its 32 bytes, not 64 hex
--    characters; a hash that is not lowercase hex (an import's) stays text,
--    so the column is ANY. The store converts both ways (hashArg,
--    decoder.hash). Its index holds the hash's first 8 bytes (or
--    characters): a lookup probes them and compares the whole hash on the
--    row, and two hashes sharing 8 bytes are as rare as 64-bit collisions.
--    Episodes stay a rowid table: their text has no bound, and WITHOUT
--    ROWID rows past ~1 KB spill to overflow pages of their own.
-- 2. Evidence spans whose episode is in the version's evidence list are
--    written "~i:start:end,..." (i indexes evidence_episode_ids) instead of
--    JSON that repeats the 30-character id: 68 bytes to 8 for a note. JSON
--    never starts with '~'; rows that do not fit (an episode outside the
--    list) keep their JSON, which still reads.
--
-- Not done: admissions WITHOUT ROWID (it would drop the 68-byte primary-key
-- entry per row), because without ANALYZE statistics SQLite then prefers
-- the primary key's (namespace=?) to admissions_by_episode/by_memory for
-- a DELETE or UPDATE, i.e. walks the namespace's whole log, and the
-- trigger below may not say INDEXED BY.
--
-- The episodes table is rebuilt (a STRICT column's type cannot change);
-- its trigger goes with it and is made again as it was.
DROP TRIGGER episodes_unshare_on_delete;

CREATE TABLE episodes_v19 (
    namespace    TEXT    NOT NULL,
    id           TEXT    NOT NULL,
    agent_id     TEXT    NOT NULL,
    user_id      TEXT    NOT NULL,
    project_id   TEXT    NOT NULL,
    session_id   TEXT    NOT NULL,
    kind         TEXT    NOT NULL,
    speaker      TEXT    NOT NULL,
    content      TEXT    NOT NULL,
    metadata     TEXT    NOT NULL, -- JSON object, or null
    occurred_at  INTEGER NOT NULL,
    recorded_at  INTEGER NOT NULL,
    content_hash ANY     NOT NULL, -- 32 bytes, or TEXT when not lowercase hex SHA-256
    PRIMARY KEY (namespace, id)
) STRICT;

INSERT INTO episodes_v19
SELECT namespace, id, agent_id, user_id, project_id, session_id, kind, speaker, content, metadata,
       occurred_at, recorded_at,
       CASE WHEN length(content_hash) = 64 AND content_hash NOT GLOB '*[^0-9a-f]*'
            THEN unhex(content_hash) ELSE content_hash END
FROM episodes ORDER BY rowid;

DROP TABLE episodes;
ALTER TABLE episodes_v19 RENAME TO episodes;
CREATE INDEX episodes_by_session ON episodes (namespace, session_id, occurred_at);
CREATE INDEX episodes_by_time ON episodes (namespace, occurred_at);
CREATE INDEX episodes_by_hash ON episodes (namespace, substr(content_hash, 1, 8));
CREATE INDEX episodes_task_results ON episodes (namespace, session_id, occurred_at, id)
    WHERE kind = 'task_result';
CREATE INDEX episodes_task_results_by_time ON episodes (namespace, occurred_at, id)
    WHERE kind = 'task_result';

CREATE TRIGGER episodes_unshare_on_delete BEFORE DELETE ON episodes
BEGIN
    UPDATE admissions SET content = OLD.content, content_ref = NULL
    WHERE namespace = OLD.namespace AND episode_id = OLD.id AND content_ref = 1;
END;

-- Spans: every span's episode must be in the evidence list and its offsets
-- whole numbers, or the row keeps its JSON.
UPDATE versions SET evidence_spans = '~' || (
    SELECT group_concat(
        (SELECT min(e.key) FROM json_each(versions.evidence_episode_ids) e
         WHERE e.value = s.value ->> 'episode_id')
        || ':' || (s.value ->> 'start') || ':' || (s.value ->> 'end'), ',' ORDER BY s.key)
    FROM json_each(versions.evidence_spans) s)
WHERE evidence_spans LIKE '[{%'
  AND json_type(evidence_episode_ids) = 'array'
  AND NOT EXISTS (
    SELECT 1 FROM json_each(versions.evidence_spans) s
    WHERE json_type(s.value) <> 'object'
       OR (SELECT count(*) FROM json_each(s.value)) <> 3
       OR json_type(s.value, '$.start') <> 'integer' OR json_type(s.value, '$.end') <> 'integer'
       OR s.value ->> 'start' < 0 OR s.value ->> 'end' < 0
       OR NOT EXISTS (SELECT 1 FROM json_each(versions.evidence_episode_ids) e
                      WHERE e.type = 'text' AND e.value = s.value ->> 'episode_id'));

-- Indexes lose their tie-breaking columns (the 30-character ids), which
-- only ordered rows that the query now sorts itself: SQLite sorts just each
-- run of equal leading values ("LAST TERM OF ORDER BY"), so a page still
-- reads about LIMIT entries plus the ties at its edge:
--  * episodes_by_time and episodes_by_session (above) end at occurred_at;
--  * admissions_by_time and admissions_by_memory end at created_at;
--  * admissions_by_episode: an episode has a handful of admissions (one
--    per fact extracted from it), so listing them sorts a handful of rows.
--    Each entry loses created_at and the 30-character admission id.
--  * versions_by_recency (the inspector's pages) ends at recorded_at.
DROP INDEX admissions_by_episode;
CREATE INDEX admissions_by_episode ON admissions (namespace, episode_id);
DROP INDEX admissions_by_memory;
CREATE INDEX admissions_by_memory ON admissions (namespace, memory_id, created_at) WHERE memory_id <> '';
DROP INDEX admissions_by_time;
CREATE INDEX admissions_by_time ON admissions (namespace, created_at);
DROP INDEX versions_by_recency;
CREATE INDEX versions_by_recency ON versions (namespace, recorded_at) WHERE kind <> '';
