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

-- A version's three scores as whole thousandths (issue 22's footprint): a
-- REAL takes 8 bytes, and confidence 0.8, usefulness 0.5 and trust 0.655
-- are what nearly every version holds. Under shared bit 32 confidence is
-- stored as confidence × 1000 (800: 2 bytes), under 128 trust likewise,
-- under 64 usefulness as (usefulness − 0.5) × 1000 (0: no bytes). Only a
-- value with a fraction that reads back exactly (x = 0.5 + y / 1000.0, as
-- the reads compute it) is stored so; others keep their REAL. New rows are
-- written so by the store (milli in executor.go); the old ones here.
-- versions_unsettled's "usefulness other than 0.5" reads either form.
--
-- And updated_at equal to recorded_at (every version no update has
-- touched) stored 0 under shared bit 512: 8 bytes less a version.
UPDATE versions SET
    confidence = iif(c, round(confidence * 1000), confidence),
    usefulness = iif(u, round((usefulness - 0.5) * 1000), usefulness),
    trust = iif(t, round(trust * 1000), trust),
    updated_at = iif(ua, 0, updated_at),
    shared = nullif(coalesce(shared, 0) | iif(c, 32, 0) | iif(u, 64, 0) | iif(t, 128, 0) | iif(ua, 512, 0), 0)
FROM (SELECT rowid AS r,
        confidence <> CAST(confidence AS INTEGER) AND abs(confidence) < 1e9
            AND round(confidence * 1000) / 1000.0 = confidence AS c,
        usefulness <> CAST(usefulness AS INTEGER) AND abs(usefulness) < 1e9
            AND 0.5 + round((usefulness - 0.5) * 1000) / 1000.0 = usefulness AS u,
        trust <> CAST(trust AS INTEGER) AND abs(trust) < 1e9
            AND round(trust * 1000) / 1000.0 = trust AS t,
        updated_at = recorded_at AS ua
    FROM versions WHERE coalesce(shared, 0) & 736 = 0) AS f
WHERE versions.rowid = f.r AND (f.c OR f.u OR f.t OR f.ua);

DROP INDEX versions_unsettled;
CREATE INDEX versions_unsettled ON versions (namespace, memory_id)
    WHERE status IN ('active', 'contested') AND (usefulness <> iif(shared & 64, 0, 0.5) OR valid_to IS NOT NULL OR status = 'contested');
