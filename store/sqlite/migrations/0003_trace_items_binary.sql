-- Trace items move from JSON text to the compact binary encoding of
-- memory.TraceItems (every retrieval writes one trace; JSON cost more to
-- write than the retrieval itself). Rows written before stay readable:
-- their JSON text is kept as bytes and recognised by its first character.
CREATE TABLE traces_v3 (
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
    items           BLOB    NOT NULL, -- memory.TraceItems binary, or legacy JSON
    created_at      INTEGER NOT NULL,
    duration_us     INTEGER NOT NULL,
    PRIMARY KEY (namespace, id)
) STRICT;

INSERT INTO traces_v3
SELECT namespace, id, query, agent_id, user_id, project_id, session_id, task_type, item_limit,
       token_budget, tokens_used, as_of, include_history, CAST(items AS BLOB), created_at, duration_us
FROM traces;

DROP TABLE traces;
ALTER TABLE traces_v3 RENAME TO traces;
CREATE INDEX traces_by_time ON traces (namespace, created_at, id);
