-- Shorter stored forms for what nearly every version and admission row
-- repeats (issue 22). Nothing a read returns changes: the store maps them
-- back at its codec boundary.
--
-- 1. A version's vector is kept packed (search.PackVector): the word-vector
--    embedder's 64 dense trailing dimensions as a count instead of 64 index
--    gaps and their values with a Rice-coded exponent, and the hashed
--    head's few distinct values as a palette. It is
--    used only when it unpacks to the very bytes written (the version 2
--    encoding), so every cosine is bit-identical; other vectors stay as
--    they were, and unpacked rows still read.
-- 2. Symbol columns no index names -- versions' kind, type, criticality,
--    operation and provenance names, memories' kind, admissions' extractor
--    -- store a known name as one control character, and admissions'
--    reasons as one byte per reason (symcodes.go holds both tables, which
--    are part of the file format). The filters on them (kinds, types, the
--    purge's kind and extractor) name the stored form. Status and
--    admissions' operation and decision keep their text: partial indexes
--    name them.
-- 3. A version whose subject and key are its memory's (every version the
--    engine writes: a version belongs to its slot) stores them empty and
--    sets shared bit 4; reads take them from the memory, whose subject and
--    key never change and which cannot go while it has versions (the
--    foreign key). The note's key was 37 bytes of each version row. The
--    store writes it so when its transaction wrote or read the memory.
-- 4. A version whose content is the text of its first evidence episode
--    (a note and the episode's own version are) stores it empty and sets
--    shared bit 8; reads take the episode's. Before an episode is deleted,
--    its trigger copies the text back into those versions, found through
--    versions_episode_text (its key: the id's last 8 characters, compared
--    whole on the row). An update that names another first episode copies
--    it first (qOwnEpisodeText). Texts under 48 bytes stay: the index entry
--    would cost about as much. The store writes it so when its transaction
--    wrote the episode (a remember writes both).
-- 5. valid_from equal to observed_at (a version as written; it never
--    changes) is stored 0, with shared bit 16: 8 bytes a row. updated_at
--    is left as it is: a state update would grow the row, and a row that
--    grows in a full page splits it (measured: more bytes lost than saved).
--
-- Symbols and vectors are rewritten by this migration's Go step
-- (migrateShortForms), which builds the mapping from the same tables the
-- store uses. Rewriting a version's content or embedding would fire
-- versions_unshare_on_embedding and copy its text and vector into every
-- version sharing them, so that trigger is dropped here; the step makes
-- both versions triggers again, now copying a text referred to by bit 8.
DROP TRIGGER versions_unshare_on_embedding;
DROP TRIGGER versions_unshare_on_delete;
DROP TRIGGER episodes_unshare_on_delete;

UPDATE versions SET subject = '', "key" = '', shared = coalesce(shared, 0) | 4
WHERE coalesce(shared, 0) & 4 = 0
  AND EXISTS (SELECT 1 FROM memories m WHERE m.namespace = versions.namespace AND m.id = versions.memory_id
              AND m.subject = versions.subject AND m."key" = versions."key");

UPDATE versions SET content = '', shared = coalesce(shared, 0) | 8
WHERE coalesce(shared, 0) & 10 = 0 AND length(CAST(content AS BLOB)) >= 48
  AND (CASE WHEN json_valid(evidence_episode_ids) THEN json_type(evidence_episode_ids, '$[0]') END) = 'text'
  AND EXISTS (SELECT 1 FROM episodes e WHERE e.namespace = versions.namespace
              AND e.id = json_extract(versions.evidence_episode_ids, '$[0]') AND e.content = versions.content);

-- json_extract, not the ->> operator, in the schema's index and trigger: a
-- sqlite3 older than 3.38 (Debian 11's) must still be able to read the file.
CREATE INDEX versions_episode_text ON versions (namespace, substr(json_extract(evidence_episode_ids, '$[0]'), -8))
    WHERE shared & 8;

CREATE TRIGGER episodes_unshare_on_delete BEFORE DELETE ON episodes
BEGIN
    UPDATE admissions SET content = OLD.content, content_ref = NULL
    WHERE namespace = OLD.namespace AND episode_id = OLD.id AND content_ref = 1;
    UPDATE versions SET content = OLD.content, shared = shared & ~8
    WHERE namespace = OLD.namespace AND substr(json_extract(evidence_episode_ids, '$[0]'), -8) = substr(OLD.id, -8)
      AND shared & 8 AND json_extract(evidence_episode_ids, '$[0]') = OLD.id;
END;

UPDATE versions SET valid_from = 0, shared = coalesce(shared, 0) | 16
WHERE coalesce(shared, 0) & 16 = 0 AND valid_from = observed_at;
