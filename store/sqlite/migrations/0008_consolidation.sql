-- Consolidation: sessions summarised into semantic summary memories, and the
-- stubs of the raw episodes those summaries cover.
--
-- session_summaries records which summary memory covers a session and how
-- many of its episodes it covered, so consolidating the same session again
-- changes nothing, and a session that grew since is summarised again.
CREATE TABLE session_summaries (
    namespace       TEXT    NOT NULL,
    session_id      TEXT    NOT NULL,
    memory_id       TEXT    NOT NULL, -- the summary memory (its slot)
    version_id      TEXT    NOT NULL, -- the summary version that covers the session now
    episodes        INTEGER NOT NULL, -- how many episodes it covers
    last_at         INTEGER NOT NULL, -- the newest episode it covers (occurred_at)
    consolidated_at INTEGER NOT NULL,
    PRIMARY KEY (namespace, session_id)
) STRICT, WITHOUT ROWID;

-- One row per summarised episode: what stays of it once it is forgotten
-- (id, content hash, time, the summary that covers it), and where it is in
-- its forgetting. check_at is when its retention is next worth computing
-- (it cannot fall below the threshold before), so a run reads only the
-- episodes that may be due, however many sessions the namespace holds.
CREATE TABLE episode_stubs (
    namespace         TEXT    NOT NULL,
    episode_id        TEXT    NOT NULL,
    session_id        TEXT    NOT NULL,
    version_id        TEXT    NOT NULL, -- the episodic version; '' when the episode was never indexed
    summary_memory_id TEXT    NOT NULL,
    content_hash      TEXT    NOT NULL,
    occurred_at       INTEGER NOT NULL,
    summarised_at     INTEGER NOT NULL,
    check_at          INTEGER NOT NULL,
    forgotten_at      INTEGER,          -- NULL: still served
    retention         REAL    NOT NULL, -- at the last check
    purged_at         INTEGER,          -- NULL: its text is still stored
    PRIMARY KEY (namespace, episode_id)
) STRICT, WITHOUT ROWID;

-- The forgetting pass: stubs still served, by when they are next due.
CREATE INDEX episode_stubs_due ON episode_stubs (namespace, check_at, episode_id) WHERE forgotten_at IS NULL;
-- The purge pass: forgotten stubs whose text is still stored, oldest first.
CREATE INDEX episode_stubs_purge ON episode_stubs (namespace, forgotten_at, episode_id)
    WHERE forgotten_at IS NOT NULL AND purged_at IS NULL;
