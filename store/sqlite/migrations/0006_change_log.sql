-- The change log: one row per write of a version (insert or state update),
-- in commit order. A process that keeps a search index of a namespace (a
-- server, a worker) follows it to apply what other processes wrote. The
-- store's two version writes (create, update state) append to it in the
-- same statement sequence; triggers did the same at a quarter of batch
-- ingest's throughput. updated_at lets a follower skip a write it made
-- itself without reading the version.
CREATE TABLE changes (
    seq        INTEGER NOT NULL PRIMARY KEY, -- rowid: grows with every insert (rows are never deleted)
    namespace  TEXT    NOT NULL,
    version_id TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX changes_by_namespace ON changes (namespace, seq);
