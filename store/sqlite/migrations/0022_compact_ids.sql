-- Ids as 16 bytes (issue 22's footprint). An id mnemon makes is a prefix,
-- "_" and a lower-case ULID, 30 bytes of text; a short note carries about
-- twenty of them in its rows, keys and indexes. The id columns of
-- memories, versions, admissions, episodes and changes become ANY: an id
-- of exactly that shape is stored as a BLOB of the ULID's 16 bytes with a
-- code for the prefix in the top 5 bits (zero in any ULID made before the
-- year 2527), any other id (imported, user-given) as its text
-- (store/sqlite/ids.go). A version's evidence episode ids are their
-- 16-byte forms one after the other when each has one, else JSON as
-- before.
--
-- The other tables keep their ids as text: they are small, and no query
-- compares their ids with these columns (ids cross between them in Go).
--
-- The tables are made again (STRICT columns cannot change type), the ids
-- converted by mnemon_compact_id and mnemon_compact_ids, SQL functions the
-- store registers for this migration (SQL has no base32). The indexes and
-- triggers are made again with them; the ones that read a version's first
-- evidence id read it from either form.

DROP TRIGGER IF EXISTS versions_unshare_on_delete; -- made by 0020's Go step
DROP TRIGGER IF EXISTS versions_unshare_on_embedding;
DROP TRIGGER episodes_unshare_on_delete;

CREATE TABLE memories_v22 (
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
) STRICT;
INSERT INTO memories_v22 (namespace, id, agent_id, user_id, project_id, session_id, kind, subject, "key", created_at, updated_at)
SELECT namespace, mnemon_compact_id(id), agent_id, user_id, project_id, session_id, kind, subject, "key", created_at, updated_at
FROM memories ORDER BY rowid;

CREATE TABLE versions_v22 (
    namespace            TEXT    NOT NULL,
    id                   ANY     NOT NULL,
    memory_id            ANY     NOT NULL,
    seq                  INTEGER NOT NULL,
    agent_id             TEXT    NOT NULL,
    user_id              TEXT    NOT NULL,
    project_id           TEXT    NOT NULL,
    session_id           TEXT    NOT NULL,
    kind                 TEXT    NOT NULL,
    type                 TEXT    NOT NULL,
    subject              TEXT    NOT NULL,
    "key"                TEXT    NOT NULL,
    value                TEXT    NOT NULL,
    content              TEXT    NOT NULL,
    criticality          TEXT    NOT NULL,
    confidence           REAL    NOT NULL,
    usefulness           REAL    NOT NULL,
    trust                REAL    NOT NULL,
    reinforcement_count  INTEGER NOT NULL,
    failure_count        INTEGER NOT NULL,
    status               TEXT    NOT NULL,
    operation            TEXT    NOT NULL,
    superseded_by        ANY     NOT NULL, -- '' for none
    observed_at          INTEGER NOT NULL,
    recorded_at          INTEGER NOT NULL,
    valid_from           INTEGER NOT NULL,
    valid_to             INTEGER,          -- NULL: still valid
    updated_at           INTEGER NOT NULL,
    evidence_episode_ids ANY     NOT NULL, -- 16-byte ids one after the other, or JSON (an array, or null)
    evidence_spans       TEXT    NOT NULL, -- JSON array, or null
    prov_extractor       TEXT    NOT NULL,
    prov_model           TEXT    NOT NULL,
    prov_prompt_version  TEXT    NOT NULL,
    prov_embedder        TEXT    NOT NULL,
    prov_embedder_dim    INTEGER NOT NULL,
    prov_source          TEXT    NOT NULL,
    tokens               INTEGER NOT NULL,
    search_text          TEXT    NOT NULL,
    embedding            BLOB,
    shared               INTEGER,
    same_as              ANY,              -- NULL: none
    PRIMARY KEY (namespace, id),
    UNIQUE (namespace, memory_id, seq),
    FOREIGN KEY (namespace, memory_id) REFERENCES memories_v22 (namespace, id)
) STRICT;
INSERT INTO versions_v22 SELECT
    namespace, mnemon_compact_id(id), mnemon_compact_id(memory_id), seq, agent_id, user_id, project_id, session_id,
    kind, type, subject, "key", value, content, criticality, confidence, usefulness, trust,
    reinforcement_count, failure_count, status, operation, mnemon_compact_id(superseded_by),
    observed_at, recorded_at, valid_from, valid_to, updated_at,
    mnemon_compact_ids(evidence_episode_ids), evidence_spans,
    prov_extractor, prov_model, prov_prompt_version, prov_embedder, prov_embedder_dim, prov_source,
    tokens, search_text, embedding, shared, mnemon_compact_id(same_as)
FROM versions ORDER BY rowid;

CREATE TABLE admissions_v22 (
    namespace   TEXT    NOT NULL,
    id          ANY     NOT NULL,
    episode_id  ANY     NOT NULL,
    memory_id   ANY     NOT NULL, -- '' for none
    version_id  ANY     NOT NULL, -- '' for none
    decision    TEXT    NOT NULL,
    reasons     TEXT    NOT NULL, -- JSON array, or null
    operation   TEXT    NOT NULL,
    content     TEXT    NOT NULL,
    extractor   TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    content_ref INTEGER,
    models      TEXT,
    PRIMARY KEY (namespace, id)
) STRICT;
INSERT INTO admissions_v22 SELECT
    namespace, mnemon_compact_id(id), mnemon_compact_id(episode_id), mnemon_compact_id(memory_id),
    mnemon_compact_id(version_id), decision, reasons, operation, content, extractor, created_at, content_ref, models
FROM admissions ORDER BY rowid;

CREATE TABLE episodes_v22 (
    namespace    TEXT    NOT NULL,
    id           ANY     NOT NULL,
    agent_id     TEXT    NOT NULL,
    user_id      TEXT    NOT NULL,
    project_id   TEXT    NOT NULL,
    session_id   TEXT    NOT NULL,
    kind         TEXT    NOT NULL,
    speaker      TEXT    NOT NULL,
    content      TEXT    NOT NULL,
    metadata     TEXT    NOT NULL, -- JSON object, or '' for none
    occurred_at  INTEGER NOT NULL,
    recorded_at  INTEGER NOT NULL,
    content_hash ANY     NOT NULL, -- 32 or 8 bytes, or TEXT when not lowercase hex SHA-256
    PRIMARY KEY (namespace, id)
) STRICT;
INSERT INTO episodes_v22 SELECT
    namespace, mnemon_compact_id(id), agent_id, user_id, project_id, session_id, kind, speaker, content,
    metadata, occurred_at, recorded_at, content_hash
FROM episodes ORDER BY rowid;

CREATE TABLE changes_v22 (
    namespace  TEXT    NOT NULL,
    seq        INTEGER NOT NULL, -- per namespace: its newest + 1 (the newest row is never pruned)
    version_id ANY     NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (namespace, seq)
) STRICT, WITHOUT ROWID;
INSERT INTO changes_v22 SELECT namespace, seq, mnemon_compact_id(version_id), updated_at FROM changes ORDER BY namespace, seq;

-- The children first: no row of a table still here refers to a parent
-- dropped (versions_v22 refers to memories_v22 until the rename).
DROP TABLE changes;
DROP TABLE admissions;
DROP TABLE versions;
DROP TABLE episodes;
DROP TABLE memories;
ALTER TABLE memories_v22 RENAME TO memories;
ALTER TABLE versions_v22 RENAME TO versions;
ALTER TABLE admissions_v22 RENAME TO admissions;
ALTER TABLE episodes_v22 RENAME TO episodes;
ALTER TABLE changes_v22 RENAME TO changes;

CREATE UNIQUE INDEX memories_slot
    ON memories (namespace, subject, "key", agent_id, user_id, project_id, session_id);

CREATE INDEX versions_by_status ON versions (namespace, status);
CREATE INDEX versions_unsettled ON versions (namespace, memory_id)
    WHERE status IN ('active', 'contested') AND (usefulness <> 0.5 OR valid_to IS NOT NULL OR status = 'contested');
CREATE INDEX versions_same_as ON versions (namespace, same_as) WHERE same_as IS NOT NULL;
CREATE INDEX versions_by_recency ON versions (namespace, recorded_at) WHERE kind <> '';
-- The first evidence id's last 8 bytes (or characters, for a text id).
CREATE INDEX versions_episode_text ON versions (namespace,
    substr(iif(typeof(evidence_episode_ids) = 'blob', substr(evidence_episode_ids, 1, 16), evidence_episode_ids ->> 0), -8))
    WHERE shared & 8;

CREATE INDEX admissions_reinforcements ON admissions (namespace, memory_id, created_at, id) WHERE operation = 'REINFORCE';
CREATE INDEX admissions_by_time ON admissions (namespace, created_at);
CREATE INDEX admissions_by_episode ON admissions (namespace, substr(episode_id, -8));
CREATE INDEX admissions_by_memory ON admissions (namespace, substr(memory_id, -8)) WHERE memory_id <> '';

CREATE INDEX episodes_by_time ON episodes (namespace, occurred_at);
CREATE INDEX episodes_by_hash ON episodes (namespace, substr(content_hash, 1, 8));
CREATE INDEX episodes_task_results ON episodes (namespace, session_id, occurred_at, id)
    WHERE kind = 'task_result';
CREATE INDEX episodes_task_results_by_time ON episodes (namespace, occurred_at, id)
    WHERE kind = 'task_result';
CREATE INDEX episodes_by_session ON episodes (namespace, session_id, occurred_at) WHERE session_id <> '';

CREATE TRIGGER versions_unshare_on_delete BEFORE DELETE ON versions
WHEN coalesce(OLD.shared, 0) & 2 = 0
BEGIN
    UPDATE versions SET content = CASE WHEN OLD.shared & 8 THEN coalesce((SELECT e.content FROM episodes e
        WHERE e.namespace = OLD.namespace AND e.id = iif(typeof(OLD.evidence_episode_ids) = 'blob',
            substr(OLD.evidence_episode_ids, 1, 16), OLD.evidence_episode_ids ->> 0)), '') ELSE OLD.content END,
        embedding = OLD.embedding, same_as = NULL, shared = shared & ~2
    WHERE namespace = OLD.namespace AND same_as = OLD.id;
END;
CREATE TRIGGER versions_unshare_on_embedding BEFORE UPDATE OF embedding, content ON versions
WHEN coalesce(OLD.shared, 0) & 2 = 0
BEGIN
    UPDATE versions SET content = CASE WHEN OLD.shared & 8 THEN coalesce((SELECT e.content FROM episodes e
        WHERE e.namespace = OLD.namespace AND e.id = iif(typeof(OLD.evidence_episode_ids) = 'blob',
            substr(OLD.evidence_episode_ids, 1, 16), OLD.evidence_episode_ids ->> 0)), '') ELSE OLD.content END,
        embedding = OLD.embedding, same_as = NULL, shared = shared & ~2
    WHERE namespace = OLD.namespace AND same_as = OLD.id;
END;
CREATE TRIGGER episodes_unshare_on_delete BEFORE DELETE ON episodes
BEGIN
    UPDATE admissions SET content = OLD.content, content_ref = NULL
    WHERE namespace = OLD.namespace AND substr(episode_id, -8) = substr(OLD.id, -8)
      AND episode_id = OLD.id AND content_ref = 1;
    UPDATE versions SET content = OLD.content, shared = shared & ~8
    WHERE namespace = OLD.namespace
      AND substr(iif(typeof(evidence_episode_ids) = 'blob', substr(evidence_episode_ids, 1, 16), evidence_episode_ids ->> 0), -8) = substr(OLD.id, -8)
      AND shared & 8
      AND iif(typeof(evidence_episode_ids) = 'blob', substr(evidence_episode_ids, 1, 16), evidence_episode_ids ->> 0) = OLD.id;
END;
