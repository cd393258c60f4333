-- Purged episodes, packed per session. Once consolidation purges an
-- episode's text, what stays of it (id, scope, kind, speaker, times, content
-- hash, the metadata naming its summary) is read rarely: explain, export, a
-- retried capture. As a row of episodes with its four index entries it cost
-- about 600 bytes, more than a one-sentence text it replaced; packed here, a
-- chunk of up to 256 episodes of one session in one blob, about 70.
--
-- packed is the store's own binary format (store/sqlite/archive.go); the
-- other columns are what lookups need without decoding it: the session, the
-- id range (explain and export look episodes up by id) and the time range
-- (a retried capture is recognised by content hash and time).
CREATE TABLE episode_archive (
    namespace  TEXT    NOT NULL,
    session_id TEXT    NOT NULL,
    chunk      INTEGER NOT NULL, -- 0, 1, ... within the session
    first_id   TEXT    NOT NULL, -- smallest and largest episode id packed
    last_id    TEXT    NOT NULL,
    first_at   INTEGER NOT NULL, -- earliest and latest occurred_at packed
    last_at    INTEGER NOT NULL,
    episodes   INTEGER NOT NULL,
    packed     BLOB    NOT NULL
) STRICT;

-- A rowid table, not WITHOUT ROWID: a chunk of a session's episodes (about
-- 1.5 KiB) is past what an index b-tree keeps in a cell (about 1 KiB), and
-- each chunk's spill would take a 4 KiB overflow page of its own.
CREATE UNIQUE INDEX episode_archive_key ON episode_archive (namespace, session_id, chunk);

CREATE INDEX episode_archive_by_id ON episode_archive (namespace, last_id, first_id);
CREATE INDEX episode_archive_by_time ON episode_archive (namespace, last_at, first_at);
