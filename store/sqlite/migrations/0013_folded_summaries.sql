-- Folding: once every episode of a session is purged, its summary is folded
-- into a digest of its month (one memory per scope and month) and deleted.
-- folded = 1 says the session's record points at that digest.
ALTER TABLE session_summaries ADD COLUMN folded INTEGER NOT NULL DEFAULT 0;

-- The periodic run lists the records not folded yet, oldest first, without
-- walking the folded ones (all but the last few months' in a long-lived
-- namespace).
CREATE INDEX session_summaries_unfolded ON session_summaries (namespace, last_at, session_id) WHERE folded = 0;
