-- The memories table keyed by its primary key (issue 22's footprint). As a
-- rowid table it held each row twice over: the row under its rowid, and
-- (namespace, id) again in the primary key's own index, ~39 B a memory.
-- WITHOUT ROWID, the row lives in the primary key's B-tree; memories_slot
-- then ends in the id instead of the rowid (~14 B more a memory).
--
-- versions refers to memories. Rebuilding it as well (as 0022 did) would
-- rewrite the largest table; instead the foreign keys are deferred to the
-- commit for this migration: dropping the old table counts each version as
-- missing its memory, and putting the same rows into the new table under
-- the old name counts each of them found again. Anything left over fails
-- the commit, so no version can end up without its memory.

PRAGMA defer_foreign_keys = ON;

CREATE TEMP TABLE memories_v24_copy AS SELECT * FROM memories;
DROP TABLE memories;

CREATE TABLE memories (
    namespace  TEXT    NOT NULL,
    id         ANY     NOT NULL, -- ids: TEXT, or a 16-byte BLOB (ids.go)
    agent_id   TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    project_id TEXT    NOT NULL,
    session_id TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    subject    TEXT    NOT NULL,
    "key"      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (namespace, id)
) STRICT, WITHOUT ROWID;
INSERT INTO memories (namespace, id, agent_id, user_id, project_id, session_id, kind, subject, "key", created_at, updated_at)
SELECT namespace, id, agent_id, user_id, project_id, session_id, kind, subject, "key", created_at, updated_at
FROM memories_v24_copy ORDER BY namespace, id;
DROP TABLE memories_v24_copy;

CREATE UNIQUE INDEX memories_slot
    ON memories (namespace, subject, "key", agent_id, user_id, project_id, session_id);
