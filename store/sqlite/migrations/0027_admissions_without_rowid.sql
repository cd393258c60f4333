-- The admissions table keyed by its primary key (issue 22's stores/s). A
-- remember writes one or two admissions, and as a rowid table each went into
-- five B-trees: the row under its rowid, (namespace, id) again in the primary
-- key's own index, and the three indexes below that every admission has an
-- entry in. Each B-tree a commit touches is at least one 4 KB page in the
-- WAL. WITHOUT ROWID, the row lives in the primary key's B-tree: one B-tree
-- and about 1.2 pages fewer a remember. The secondary indexes then end in
-- the id (16 bytes for mnemon's ids) instead of a rowid, and
-- admissions_by_time covers "ORDER BY created_at, id" whole.
--
-- Nothing refers to an admission's rowid; the episode delete trigger updates
-- admissions by their columns and is unchanged.

CREATE TEMP TABLE admissions_v27_copy AS SELECT * FROM admissions;
DROP TABLE admissions;

CREATE TABLE admissions (
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
) STRICT, WITHOUT ROWID;
INSERT INTO admissions (namespace, id, episode_id, memory_id, version_id, decision, reasons, operation,
    content, extractor, created_at, content_ref, models)
SELECT namespace, id, episode_id, memory_id, version_id, decision, reasons, operation,
    content, extractor, created_at, content_ref, models
FROM admissions_v27_copy ORDER BY namespace, id;
DROP TABLE admissions_v27_copy;

CREATE INDEX admissions_reinforcements ON admissions (namespace, memory_id, created_at, id) WHERE operation = 'REINFORCE';
CREATE INDEX admissions_by_time ON admissions (namespace, created_at);
CREATE INDEX admissions_by_episode ON admissions (namespace, substr(episode_id, -8));
CREATE INDEX admissions_by_memory ON admissions (namespace, substr(memory_id, -8)) WHERE memory_id <> '';

-- Without statistics the planner reads a WITHOUT ROWID table's rows for a
-- namespace through its primary key rather than through an index on an id's
-- tail (the index's entries would each need a search of the primary key),
-- i.e. it walks the namespace's whole log. The queries name the index
-- (INDEXED BY); a trigger's UPDATE may not, so the episode delete trigger
-- finds the rows in a subquery that does and updates them by their key.
DROP TRIGGER episodes_unshare_on_delete;
CREATE TRIGGER episodes_unshare_on_delete BEFORE DELETE ON episodes
BEGIN
    UPDATE admissions SET content = OLD.content, content_ref = NULL
    WHERE namespace = OLD.namespace AND id IN (SELECT id FROM admissions INDEXED BY admissions_by_episode
        WHERE namespace = OLD.namespace AND substr(episode_id, -8) = substr(OLD.id, -8)
          AND episode_id = OLD.id AND content_ref = 1);
    UPDATE versions SET content = OLD.content, shared = shared & ~8
    WHERE namespace = OLD.namespace
      AND substr(iif(typeof(evidence_episode_ids) = 'blob', substr(evidence_episode_ids, 1, 16), evidence_episode_ids ->> 0), -8) = substr(OLD.id, -8)
      AND shared & 8
      AND iif(typeof(evidence_episode_ids) = 'blob', substr(evidence_episode_ids, 1, 16), evidence_episode_ids ->> 0) = OLD.id;
END;
