-- The change log is pruned (engine.Compact): entries older than a day are
-- deleted, all but each namespace's newest, so sequence numbers never go
-- back (a rowid is max + 1, and the newest row is never deleted). A
-- namespace's horizon is the newest sequence number pruned: a follower
-- that stands before it has missed changes and reloads the namespace.
CREATE TABLE change_horizons (
    namespace      TEXT    NOT NULL PRIMARY KEY,
    pruned_through INTEGER NOT NULL
) STRICT;
