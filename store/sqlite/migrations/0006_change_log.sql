-- The change log: one row per write of a version (insert or state update),
-- in commit order. A process that keeps a search index of a namespace (a
-- server, a worker) follows it to apply what other processes wrote;
-- triggers write it, so no write path can forget it. updated_at lets a
-- follower skip a write it made itself without reading the version.
CREATE TABLE changes (
    seq        INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    namespace  TEXT    NOT NULL,
    version_id TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX changes_by_namespace ON changes (namespace, seq);

CREATE TRIGGER versions_insert_change AFTER INSERT ON versions BEGIN
    INSERT INTO changes (namespace, version_id, updated_at) VALUES (NEW.namespace, NEW.id, NEW.updated_at);
END;

CREATE TRIGGER versions_update_change AFTER UPDATE ON versions BEGIN
    INSERT INTO changes (namespace, version_id, updated_at) VALUES (NEW.namespace, NEW.id, NEW.updated_at);
END;
