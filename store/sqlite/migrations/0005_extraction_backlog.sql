-- The extraction backlog: episodes a capture stored whose extraction runs
-- later (a background job), and the job queued to run it.
--
-- Captures made while a namespace's job waits to start add their episodes
-- unclaimed (job_id ''), so one job extracts many captures and a capture
-- costs one small insert instead of one queued job. A job claims the
-- unclaimed rows when it starts and deletes each row once its episode is
-- extracted; a retried job finds the rows it claimed. seq keeps the order
-- the episodes were captured in: reconciliation depends on it.
CREATE TABLE extraction_backlog (
    seq        INTEGER NOT NULL PRIMARY KEY,
    namespace  TEXT    NOT NULL,
    episode_id TEXT    NOT NULL,
    job_id     TEXT    NOT NULL DEFAULT ''
) STRICT;

-- One row per (namespace, job, episode); a job lists its own rows in order.
CREATE UNIQUE INDEX extraction_backlog_by_job ON extraction_backlog (namespace, job_id, episode_id);
CREATE INDEX extraction_backlog_order ON extraction_backlog (namespace, job_id, seq);

-- The job queued for a namespace's unclaimed backlog that has not started.
CREATE TABLE extraction_waiting (
    namespace TEXT NOT NULL PRIMARY KEY,
    job_id    TEXT NOT NULL
) STRICT, WITHOUT ROWID;
