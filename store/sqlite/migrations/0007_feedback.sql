-- Feedback: every outcome (helpful, unused, harmful) applied to a version a
-- retrieval served, with the usefulness and trust it moved, so explain can
-- show how they moved. Rows are never edited.
--
-- One event per (retrieval, version, source, outcome): repeating a
-- feedback request is a no-op, enforced here as well as in the engine.
CREATE TABLE feedback (
    namespace         TEXT    NOT NULL,
    id                TEXT    NOT NULL,
    retrieval_id      TEXT    NOT NULL,
    memory_id         TEXT    NOT NULL,
    version_id        TEXT    NOT NULL,
    outcome           TEXT    NOT NULL,
    severity          REAL    NOT NULL,
    source            TEXT    NOT NULL,
    used              INTEGER NOT NULL, -- 0 or 1
    overlap           REAL,             -- NULL: no output was given
    task_succeeded    INTEGER NOT NULL, -- 0 or 1
    reinforced        INTEGER NOT NULL, -- 0 or 1
    usefulness_before REAL    NOT NULL,
    usefulness_after  REAL    NOT NULL,
    trust_before      REAL    NOT NULL,
    trust_after       REAL    NOT NULL,
    status_after      TEXT    NOT NULL,
    created_at        INTEGER NOT NULL,
    PRIMARY KEY (namespace, id)
) STRICT;

CREATE UNIQUE INDEX feedback_once ON feedback (namespace, retrieval_id, version_id, source, outcome);
CREATE INDEX feedback_by_memory ON feedback (namespace, memory_id, created_at, id);
CREATE INDEX feedback_by_version ON feedback (namespace, version_id, created_at, id);
