-- Folding: once every episode of a session is purged, its summary is folded
-- into a digest of its month (one memory per scope and month) and deleted.
-- folded = 1 says the session's record points at that digest.
ALTER TABLE session_summaries ADD COLUMN folded INTEGER NOT NULL DEFAULT 0;
