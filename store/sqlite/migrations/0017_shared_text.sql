-- A text stored once. A remember of a short note wrote its text six times:
-- the episode, the episode's own (episodic) version, the note's version as
-- value and as content, and two admissions; and the same ~350-byte vector
-- in both versions. Measured on the peers workload (10k notes), that was
-- about 1.2 KB of every note's 5.2 KB. The rows keep every column; what
-- repeats another row is stored empty and read back through a reference,
-- so every read returns what was written.
--
-- versions.shared, a bit set (NULL: 0):
--   1  value is the content (value stored '');
--   2  content and embedding are those of version same_as in the same
--      namespace (stored '' and NULL). same_as never names a version that
--      itself has bit 2, so a reference is one lookup.
-- admissions.content_ref = 1: content is the episode's (stored '').
--
-- Triggers keep a reference good: before a version that others share is
-- deleted or its embedding replaced, and before an episode is deleted
-- (consolidation's purge), the sharing rows get their own copy. The store
-- makes references only when the bytes are equal (store/sqlite/executor.go).
ALTER TABLE versions ADD COLUMN shared INTEGER;
ALTER TABLE versions ADD COLUMN same_as TEXT;
ALTER TABLE admissions ADD COLUMN content_ref INTEGER;

-- Existing rows: the same compaction a new write gets. An episode's
-- version shares the text and vector of a version of the very same text
-- (the note a remember kept). The index on content lives only for this.
UPDATE versions SET value = '', shared = 1 WHERE value = content AND value <> '';

CREATE INDEX versions_migrate_content ON versions (namespace, content) WHERE kind <> 'episodic';
UPDATE versions SET same_as = (
    SELECT o.id FROM versions o
    WHERE o.namespace = versions.namespace AND o.content = versions.content AND o.kind <> 'episodic'
      AND o.embedding IS versions.embedding
    ORDER BY o.id LIMIT 1)
WHERE kind = 'episodic' AND content <> '';
UPDATE versions SET content = '', embedding = NULL, shared = coalesce(shared, 0) | 2 WHERE same_as IS NOT NULL;
DROP INDEX versions_migrate_content;

UPDATE admissions SET content = '', content_ref = 1
WHERE content <> '' AND content = (
    SELECT e.content FROM episodes e WHERE e.namespace = admissions.namespace AND e.id = admissions.episode_id);

-- The triggers find a version's sharers through this (few rows: only
-- sharers are in it).
CREATE INDEX versions_same_as ON versions (namespace, same_as) WHERE same_as IS NOT NULL;

CREATE TRIGGER versions_unshare_on_delete BEFORE DELETE ON versions
WHEN coalesce(OLD.shared, 0) & 2 = 0
BEGIN
    UPDATE versions SET content = OLD.content, embedding = OLD.embedding, same_as = NULL,
        shared = shared & ~2
    WHERE namespace = OLD.namespace AND same_as = OLD.id;
END;

CREATE TRIGGER versions_unshare_on_embedding BEFORE UPDATE OF embedding, content ON versions
WHEN coalesce(OLD.shared, 0) & 2 = 0
BEGIN
    UPDATE versions SET content = OLD.content, embedding = OLD.embedding, same_as = NULL,
        shared = shared & ~2
    WHERE namespace = OLD.namespace AND same_as = OLD.id;
END;

CREATE TRIGGER episodes_unshare_on_delete BEFORE DELETE ON episodes
BEGIN
    UPDATE admissions SET content = OLD.content, content_ref = NULL
    WHERE namespace = OLD.namespace AND episode_id = OLD.id AND content_ref = 1;
END;

-- An episode's own admission names no memory (memory_id ''), and no query
-- looks admissions up by an empty memory id: half the entries of
-- admissions_by_memory on a store of remembered notes were never read.
-- The queries that use it say memory_id <> '' (a non-empty id is all they
-- are ever given), so the planner may take the partial index.
DROP INDEX admissions_by_memory;
CREATE INDEX admissions_by_memory ON admissions (namespace, memory_id, created_at, id) WHERE memory_id <> '';

-- A version's subject and key are its slot's: ListVersions finds them
-- through memories_slot, and versions keep no index of their own on them.
DROP INDEX versions_by_subject_key;
