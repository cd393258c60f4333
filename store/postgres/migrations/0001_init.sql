-- mnemon schema on PostgreSQL, version 1: every table of the store.
--
-- Conventions:
--   * Every table leads with namespace and every index starts with it, so a
--     query that filters on namespace reads that tenant's rows only. The
--     primary key is (namespace, id): the same id may exist in two
--     namespaces without one tenant learning of the other. api_keys is the
--     one exception (keys are looked up across namespaces, memory.KeyStore).
--   * Text is COLLATE "C": ids, namespaces and keys sort bytewise, as the
--     store's contract orders them, whatever the database's locale, and the
--     indexes compare bytes instead of running the locale's rules.
--   * Times are bigint nanoseconds since the Unix epoch, UTC, and the zero
--     time.Time is the smallest bigint (it sorts first, as the zero time
--     does). timestamptz keeps microseconds only, and mnemon matches some
--     instants exactly (a retried capture is recognised by its content hash
--     and occurred_at; a follower of the change log recognises its own
--     writes by updated_at): rounding them would break both.
--   * Lists and maps are jsonb; JSON null and [] stay apart. Embeddings are
--     bytea in the engine's own vector encoding: the engine searches them
--     in its in-process index, so pgvector is not needed.

CREATE TABLE episodes (
    namespace    text COLLATE "C" NOT NULL,
    id           text COLLATE "C" NOT NULL,
    agent_id     text COLLATE "C" NOT NULL,
    user_id      text COLLATE "C" NOT NULL,
    project_id   text COLLATE "C" NOT NULL,
    session_id   text COLLATE "C" NOT NULL,
    kind         text COLLATE "C" NOT NULL,
    speaker      text COLLATE "C" NOT NULL,
    content      text COLLATE "C" NOT NULL,
    metadata     jsonb  NOT NULL, -- object, or null
    occurred_at  bigint NOT NULL,
    recorded_at  bigint NOT NULL,
    content_hash text COLLATE "C" NOT NULL,
    -- Purged: consolidation removed the text for good (content is '');
    -- what stays is the episode's stub. The row stays where it was.
    purged       boolean NOT NULL DEFAULT false,
    PRIMARY KEY (namespace, id)
);

CREATE INDEX episodes_by_session ON episodes (namespace, session_id, occurred_at, id);
CREATE INDEX episodes_by_time ON episodes (namespace, occurred_at, id);
-- Capture looks episodes up by content hash to recognise a retried event.
CREATE INDEX episodes_by_hash ON episodes (namespace, content_hash);
-- task_result episodes say how a session ended (procedural promotion).
CREATE INDEX episodes_task_results ON episodes (namespace, session_id, occurred_at, id)
    WHERE kind = 'task_result';
CREATE INDEX episodes_task_results_by_time ON episodes (namespace, occurred_at, id)
    WHERE kind = 'task_result';

-- A memory is a slot: one per (subject, key, scope) in a namespace.
CREATE TABLE memories (
    namespace  text COLLATE "C" NOT NULL,
    id         text COLLATE "C" NOT NULL,
    agent_id   text COLLATE "C" NOT NULL,
    user_id    text COLLATE "C" NOT NULL,
    project_id text COLLATE "C" NOT NULL,
    session_id text COLLATE "C" NOT NULL,
    kind       text COLLATE "C" NOT NULL,
    subject    text COLLATE "C" NOT NULL,
    key        text COLLATE "C" NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (namespace, id)
);

CREATE UNIQUE INDEX memories_slot
    ON memories (namespace, subject, key, agent_id, user_id, project_id, session_id);

-- A version is one claim of a memory. The claim columns never change after
-- insert; the lifecycle columns (status .. updated_at, evidence) do.
CREATE TABLE versions (
    namespace            text COLLATE "C" NOT NULL,
    id                   text COLLATE "C" NOT NULL,
    memory_id            text COLLATE "C" NOT NULL,
    seq                  integer NOT NULL,
    agent_id             text COLLATE "C" NOT NULL,
    user_id              text COLLATE "C" NOT NULL,
    project_id           text COLLATE "C" NOT NULL,
    session_id           text COLLATE "C" NOT NULL,
    kind                 text COLLATE "C" NOT NULL,
    type                 text COLLATE "C" NOT NULL,
    subject              text COLLATE "C" NOT NULL,
    key                  text COLLATE "C" NOT NULL,
    value                text COLLATE "C" NOT NULL,
    content              text COLLATE "C" NOT NULL,
    criticality          text COLLATE "C" NOT NULL,
    confidence           double precision NOT NULL,
    usefulness           double precision NOT NULL,
    trust                double precision NOT NULL,
    reinforcement_count  integer NOT NULL,
    failure_count        integer NOT NULL,
    status               text COLLATE "C" NOT NULL,
    operation            text COLLATE "C" NOT NULL,
    superseded_by        text COLLATE "C" NOT NULL,
    observed_at          bigint NOT NULL,
    recorded_at          bigint NOT NULL,
    valid_from           bigint NOT NULL,
    valid_to             bigint,          -- NULL: still valid
    updated_at           bigint NOT NULL,
    evidence_episode_ids jsonb NOT NULL,  -- array, or null
    evidence_spans       jsonb NOT NULL,  -- array, or null
    -- Provenance as columns: a re-embedding job selects by embedder.
    prov_extractor       text COLLATE "C" NOT NULL,
    prov_model           text COLLATE "C" NOT NULL,
    prov_prompt_version  text COLLATE "C" NOT NULL,
    prov_embedder        text COLLATE "C" NOT NULL,
    prov_embedder_dim    integer NOT NULL,
    prov_source          text COLLATE "C" NOT NULL,
    tokens               integer NOT NULL,
    search_text          text COLLATE "C" NOT NULL,
    embedding            bytea,           -- NULL: none
    PRIMARY KEY (namespace, id),
    -- One version per position in a memory's history: two writers racing to
    -- append the same seq get a conflict instead of a forked history.
    UNIQUE (namespace, memory_id, seq),
    FOREIGN KEY (namespace, memory_id) REFERENCES memories (namespace, id)
);

CREATE INDEX versions_by_status ON versions (namespace, status);
CREATE INDEX versions_by_subject_key ON versions (namespace, subject, key);
CREATE INDEX versions_by_time ON versions (namespace, recorded_at, id);
-- The lifecycle job reads only the live versions it may still change
-- (ListUnsettledVersions); 0.5 is memory.NeutralUsefulness.
CREATE INDEX versions_unsettled ON versions (namespace, memory_id)
    WHERE status IN ('active', 'contested') AND (usefulness <> 0.5 OR valid_to IS NOT NULL OR status = 'contested');

CREATE TABLE admissions (
    namespace  text COLLATE "C" NOT NULL,
    id         text COLLATE "C" NOT NULL,
    episode_id text COLLATE "C" NOT NULL,
    memory_id  text COLLATE "C" NOT NULL,
    version_id text COLLATE "C" NOT NULL,
    decision   text COLLATE "C" NOT NULL,
    reasons    jsonb NOT NULL, -- array, or null
    operation  text COLLATE "C" NOT NULL,
    content    text COLLATE "C" NOT NULL,
    extractor  text COLLATE "C" NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (namespace, id)
);

-- The log is read newest first, so each index ends with the sort order.
CREATE INDEX admissions_by_memory ON admissions (namespace, memory_id, created_at, id);
CREATE INDEX admissions_by_episode ON admissions (namespace, episode_id, created_at, id);
CREATE INDEX admissions_by_time ON admissions (namespace, created_at, id);
CREATE INDEX admissions_reinforcements ON admissions (namespace, memory_id, created_at, id)
    WHERE operation = 'REINFORCE';

CREATE TABLE traces (
    namespace       text COLLATE "C" NOT NULL,
    id              text COLLATE "C" NOT NULL,
    query           text COLLATE "C" NOT NULL,
    agent_id        text COLLATE "C" NOT NULL,
    user_id         text COLLATE "C" NOT NULL,
    project_id      text COLLATE "C" NOT NULL,
    session_id      text COLLATE "C" NOT NULL,
    task_type       text COLLATE "C" NOT NULL,
    item_limit      integer NOT NULL,
    token_budget    integer NOT NULL,
    tokens_used     integer NOT NULL,
    as_of           bigint,          -- NULL: the present
    known_at        bigint,          -- NULL: as known now
    include_history boolean NOT NULL,
    items           bytea  NOT NULL, -- memory.TraceItems binary encoding
    created_at      bigint NOT NULL,
    duration_us     bigint NOT NULL,
    PRIMARY KEY (namespace, id)
);

CREATE INDEX traces_by_time ON traces (namespace, created_at, id);

-- API keys for the HTTP API, each bound to one namespace with one role.
-- Looked up across namespaces by hash; only the SHA-256 of a key is stored.
CREATE TABLE api_keys (
    id         text COLLATE "C" NOT NULL PRIMARY KEY,
    namespace  text COLLATE "C" NOT NULL,
    role       text COLLATE "C" NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
    name       text COLLATE "C" NOT NULL,
    prefix     text COLLATE "C" NOT NULL,
    hash       text COLLATE "C" NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint           -- NULL while the key is active
);

CREATE UNIQUE INDEX api_keys_by_hash ON api_keys (hash);
CREATE INDEX api_keys_by_namespace ON api_keys (namespace, created_at, id);
CREATE INDEX api_keys_by_time ON api_keys (created_at, id);
CREATE INDEX api_keys_active ON api_keys (revoked_at);

-- The extraction backlog: episodes a capture stored whose extraction runs
-- later, and the job queued to run it. seq keeps the order the episodes were
-- captured in (reconciliation depends on it).
CREATE TABLE extraction_backlog (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    namespace  text COLLATE "C" NOT NULL,
    episode_id text COLLATE "C" NOT NULL,
    job_id     text COLLATE "C" NOT NULL DEFAULT ''
);

CREATE UNIQUE INDEX extraction_backlog_by_job ON extraction_backlog (namespace, job_id, episode_id);
CREATE INDEX extraction_backlog_order ON extraction_backlog (namespace, job_id, seq);

CREATE TABLE extraction_waiting (
    namespace text COLLATE "C" NOT NULL PRIMARY KEY,
    job_id    text COLLATE "C" NOT NULL
);

-- The change log: one row per write of a version, which every process that
-- keeps a search index of a namespace follows. seq comes from an identity
-- sequence. A sequence hands out numbers when rows are inserted, not when
-- they commit, so a follower reading "seq > last" could pass over a row
-- whose transaction commits after a higher one. The store prevents that per
-- namespace: a write transaction takes a transaction-scoped advisory lock on
-- the namespace before its first write there and holds it to its end (see
-- changes.go), so a namespace's changes commit in seq order and whatever a
-- reader sees of a namespace's log is a prefix of it.
CREATE TABLE changes (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    namespace  text COLLATE "C" NOT NULL,
    version_id text COLLATE "C" NOT NULL,
    updated_at bigint NOT NULL
);

CREATE INDEX changes_by_namespace ON changes (namespace, seq);

-- How far each namespace's log was pruned: a follower standing before it
-- has missed changes and reloads the namespace.
CREATE TABLE change_horizons (
    namespace      text COLLATE "C" NOT NULL PRIMARY KEY,
    pruned_through bigint NOT NULL
);

-- Feedback: every outcome applied to a version a retrieval served. Rows are
-- never edited; one event per (retrieval, version, source, outcome).
CREATE TABLE feedback (
    namespace         text COLLATE "C" NOT NULL,
    id                text COLLATE "C" NOT NULL,
    retrieval_id      text COLLATE "C" NOT NULL,
    memory_id         text COLLATE "C" NOT NULL,
    version_id        text COLLATE "C" NOT NULL,
    outcome           text COLLATE "C" NOT NULL,
    severity          double precision NOT NULL,
    source            text COLLATE "C" NOT NULL,
    used              boolean NOT NULL,
    overlap           double precision, -- NULL: no output was given
    task_succeeded    boolean NOT NULL,
    reinforced        boolean NOT NULL,
    usefulness_before double precision NOT NULL,
    usefulness_after  double precision NOT NULL,
    trust_before      double precision NOT NULL,
    trust_after       double precision NOT NULL,
    status_after      text COLLATE "C" NOT NULL,
    created_at        bigint NOT NULL,
    PRIMARY KEY (namespace, id)
);

CREATE UNIQUE INDEX feedback_once ON feedback (namespace, retrieval_id, version_id, source, outcome);
CREATE INDEX feedback_by_memory ON feedback (namespace, memory_id, created_at, id);
CREATE INDEX feedback_by_version ON feedback (namespace, version_id, created_at, id);

-- Consolidation: which summary covers a session, and the stubs of the
-- episodes it covers.
CREATE TABLE session_summaries (
    namespace       text COLLATE "C" NOT NULL,
    session_id      text COLLATE "C" NOT NULL,
    memory_id       text COLLATE "C" NOT NULL,
    version_id      text COLLATE "C" NOT NULL,
    episodes        integer NOT NULL,
    last_at         bigint  NOT NULL,
    consolidated_at bigint  NOT NULL,
    folded          boolean NOT NULL DEFAULT false,
    PRIMARY KEY (namespace, session_id)
);

CREATE INDEX session_summaries_unfolded ON session_summaries (namespace, last_at, session_id) WHERE NOT folded;
CREATE INDEX session_summaries_by_memory ON session_summaries (namespace, memory_id);

CREATE TABLE episode_stubs (
    namespace         text COLLATE "C" NOT NULL,
    episode_id        text COLLATE "C" NOT NULL,
    session_id        text COLLATE "C" NOT NULL,
    version_id        text COLLATE "C" NOT NULL, -- '' when the episode was never indexed
    summary_memory_id text COLLATE "C" NOT NULL,
    content_hash      text COLLATE "C" NOT NULL,
    occurred_at       bigint NOT NULL,
    summarised_at     bigint NOT NULL,
    check_at          bigint NOT NULL,
    forgotten_at      bigint,          -- NULL: still served
    retention         double precision NOT NULL,
    purged_at         bigint,          -- NULL: its text is still stored
    PRIMARY KEY (namespace, episode_id)
);

CREATE INDEX episode_stubs_due ON episode_stubs (namespace, check_at, episode_id) WHERE forgotten_at IS NULL;
CREATE INDEX episode_stubs_purge ON episode_stubs (namespace, forgotten_at, episode_id)
    WHERE forgotten_at IS NOT NULL AND purged_at IS NULL;
CREATE INDEX episode_stubs_by_time ON episode_stubs (namespace, occurred_at, episode_id);

-- Procedural memory: one row per procedure and session whose retrievals
-- packed it, and how far promotion has read each namespace's traces.
CREATE TABLE procedure_uses (
    namespace  text COLLATE "C" NOT NULL,
    memory_id  text COLLATE "C" NOT NULL,
    session_id text COLLATE "C" NOT NULL, -- '' for retrievals outside a session
    version_id text COLLATE "C" NOT NULL,
    packed_at  bigint NOT NULL,
    outcome    text COLLATE "C" NOT NULL, -- '' pending, success, failure, none
    settled_at bigint,                    -- NULL while pending
    PRIMARY KEY (namespace, memory_id, session_id)
);

CREATE INDEX procedure_uses_by_time ON procedure_uses (namespace, packed_at, memory_id, session_id);
CREATE INDEX procedure_uses_pending ON procedure_uses (namespace, packed_at) WHERE outcome = '';

CREATE TABLE procedure_cursor (
    namespace text COLLATE "C" NOT NULL PRIMARY KEY,
    traces_at bigint NOT NULL
);
