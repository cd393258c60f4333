-- Procedural memory (engine/procedures.go).
--
-- task_result episodes say how a session ended; promotion lists them by
-- session and by time. A partial index holds only those rows, so the
-- other episodes, most of every capture, pay nothing for it.
CREATE INDEX episodes_task_results ON episodes (namespace, session_id, occurred_at, id)
    WHERE kind = 'task_result';
CREATE INDEX episodes_task_results_by_time ON episodes (namespace, occurred_at, id)
    WHERE kind = 'task_result';

-- One row per procedure and session whose retrievals packed it: the latest
-- packing, and how the session ended once it says so. A failure is counted
-- against the procedure once, when its row settles.
CREATE TABLE procedure_uses (
    namespace  TEXT    NOT NULL,
    memory_id  TEXT    NOT NULL,
    session_id TEXT    NOT NULL, -- '' for retrievals outside a session
    version_id TEXT    NOT NULL,
    packed_at  INTEGER NOT NULL,
    outcome    TEXT    NOT NULL, -- '' pending, success, failure, none
    settled_at INTEGER,          -- NULL while pending
    PRIMARY KEY (namespace, memory_id, session_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX procedure_uses_pending ON procedure_uses (namespace, packed_at) WHERE outcome = '';

-- How far promotion has read each namespace's traces.
CREATE TABLE procedure_cursor (
    namespace TEXT    NOT NULL PRIMARY KEY,
    traces_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
