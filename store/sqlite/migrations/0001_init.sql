-- mnemon schema, version 1.
--
-- Conventions:
--   * Every table leads with namespace and every index starts with it, so a
--     query that filters on namespace never reads another tenant's rows. The
--     primary key is (namespace, id): the same id may exist in two
--     namespaces (an export re-imported elsewhere) without a conflict that
--     would reveal one tenant's ids to another.
--   * Timestamps are INTEGER unix nanoseconds UTC. The zero time.Time is
--     stored as -9223372036854775808 (the smallest int64), which sorts first
--     as the zero time does; real instants are limited to 1678..2261.
--   * Lists, maps and nested values are JSON text; fields that queries filter
--     or sort on are proper columns.
--   * STRICT tables: a wrong type is an error at write, not a surprise at read.

CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL
) STRICT;

CREATE TABLE episodes (
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
    content_hash TEXT    NOT NULL,
    PRIMARY KEY (namespace, id)
) STRICT;

CREATE INDEX episodes_by_session ON episodes (namespace, session_id, occurred_at, id);
CREATE INDEX episodes_by_time ON episodes (namespace, occurred_at, id);

-- A memory is a slot: one per (subject, key, scope) in a namespace.
CREATE TABLE memories (
    namespace  TEXT    NOT NULL,
    id         TEXT    NOT NULL,
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

CREATE UNIQUE INDEX memories_slot
    ON memories (namespace, subject, "key", agent_id, user_id, project_id, session_id);

-- A version is one claim of a memory. The claim columns never change after
-- insert; the lifecycle columns (status .. updated_at, evidence) do.
CREATE TABLE versions (
    namespace            TEXT    NOT NULL,
    id                   TEXT    NOT NULL,
    memory_id            TEXT    NOT NULL,
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
    superseded_by        TEXT    NOT NULL,
    observed_at          INTEGER NOT NULL,
    recorded_at          INTEGER NOT NULL,
    valid_from           INTEGER NOT NULL,
    valid_to             INTEGER,          -- NULL: still valid
    updated_at           INTEGER NOT NULL,
    evidence_episode_ids TEXT    NOT NULL, -- JSON array, or null
    evidence_spans       TEXT    NOT NULL, -- JSON array, or null
    -- Provenance as columns: a re-embedding job selects by embedder.
    prov_extractor       TEXT    NOT NULL,
    prov_model           TEXT    NOT NULL,
    prov_prompt_version  TEXT    NOT NULL,
    prov_embedder        TEXT    NOT NULL,
    prov_embedder_dim    INTEGER NOT NULL,
    prov_source          TEXT    NOT NULL,
    tokens               INTEGER NOT NULL,
    search_text          TEXT    NOT NULL,
    embedding            BLOB,             -- NULL: none
    PRIMARY KEY (namespace, id),
    -- One version per position in a memory's history: two writers racing to
    -- append the same seq get a conflict instead of a forked history.
    UNIQUE (namespace, memory_id, seq),
    FOREIGN KEY (namespace, memory_id) REFERENCES memories (namespace, id)
) STRICT;

CREATE INDEX versions_by_status ON versions (namespace, status);
CREATE INDEX versions_by_subject_key ON versions (namespace, subject, "key");

CREATE TABLE admissions (
    namespace  TEXT    NOT NULL,
    id         TEXT    NOT NULL,
    episode_id TEXT    NOT NULL,
    memory_id  TEXT    NOT NULL,
    version_id TEXT    NOT NULL,
    decision   TEXT    NOT NULL,
    reasons    TEXT    NOT NULL, -- JSON array, or null
    operation  TEXT    NOT NULL,
    content    TEXT    NOT NULL,
    extractor  TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (namespace, id)
) STRICT;

-- The log is read newest first, so each index ends with the sort order.
CREATE INDEX admissions_by_memory ON admissions (namespace, memory_id, created_at, id);
CREATE INDEX admissions_by_episode ON admissions (namespace, episode_id, created_at, id);
CREATE INDEX admissions_by_time ON admissions (namespace, created_at, id);

CREATE TABLE traces (
    namespace       TEXT    NOT NULL,
    id              TEXT    NOT NULL,
    query           TEXT    NOT NULL,
    agent_id        TEXT    NOT NULL,
    user_id         TEXT    NOT NULL,
    project_id      TEXT    NOT NULL,
    session_id      TEXT    NOT NULL,
    task_type       TEXT    NOT NULL,
    item_limit      INTEGER NOT NULL,
    token_budget    INTEGER NOT NULL,
    tokens_used     INTEGER NOT NULL,
    as_of           INTEGER,          -- NULL: the present
    include_history INTEGER NOT NULL, -- 0 or 1
    items           TEXT    NOT NULL, -- JSON array, or null
    created_at      INTEGER NOT NULL,
    duration_us     INTEGER NOT NULL,
    PRIMARY KEY (namespace, id)
) STRICT;

CREATE INDEX traces_by_time ON traces (namespace, created_at, id);
