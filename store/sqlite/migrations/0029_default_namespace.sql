-- The default namespace stored as '' (issue 22's footprint; nscode.go).
-- Every row and nearly every index entry begins with its namespace, about
-- fifteen B-tree entries a note, and a store one user fills without naming
-- a namespace holds 'default' (7 bytes) in each: ~0.9 MB of a 15 MB file
-- at 10,000 notes. '' takes no bytes and no namespace can be it (names are
-- 1-64 characters); every other namespace stays as it is. The store binds
-- and reads the column through nsArg and nsName.
--
-- versions refers to memories by (namespace, memory_id): the foreign keys
-- are checked at the commit, when both tables say '' alike.

PRAGMA defer_foreign_keys = ON;

UPDATE episodes SET namespace = '' WHERE namespace = 'default';
UPDATE memories SET namespace = '' WHERE namespace = 'default';
UPDATE versions SET namespace = '' WHERE namespace = 'default';
UPDATE admissions SET namespace = '' WHERE namespace = 'default';
UPDATE changes SET namespace = '' WHERE namespace = 'default';
UPDATE traces SET namespace = '' WHERE namespace = 'default';
UPDATE feedback SET namespace = '' WHERE namespace = 'default';
UPDATE session_summaries SET namespace = '' WHERE namespace = 'default';
UPDATE episode_stubs SET namespace = '' WHERE namespace = 'default';
UPDATE procedure_uses SET namespace = '' WHERE namespace = 'default';
UPDATE procedure_cursor SET namespace = '' WHERE namespace = 'default';
UPDATE change_horizons SET namespace = '' WHERE namespace = 'default';
UPDATE episode_archive SET namespace = '' WHERE namespace = 'default';
UPDATE extraction_backlog SET namespace = '' WHERE namespace = 'default';
UPDATE extraction_waiting SET namespace = '' WHERE namespace = 'default';
UPDATE api_keys SET namespace = '' WHERE namespace = 'default';
