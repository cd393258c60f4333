-- Shorter stored forms for what nearly every version and admission row
-- repeats (issue 22). Nothing a read returns changes: the store maps them
-- back at its codec boundary.
--
-- 1. A version's vector is kept packed (search.PackVector): the word-vector
--    embedder's 64 dense trailing dimensions as a count instead of 64 index
--    gaps, and the hashed head's few distinct values as a palette. It is
--    used only when it unpacks to the very bytes written (the version 2
--    encoding), so every cosine is bit-identical; other vectors stay as
--    they were, and unpacked rows still read.
-- 2. Symbol columns no query filters on in SQL -- versions' type,
--    criticality, operation and provenance names, admissions' extractor --
--    store a known name as one control character, and admissions' reasons
--    as one byte per reason (symcodes.go holds both tables, which are part
--    of the file format). PageVersions' type filter maps its values the
--    same way. Status, kind and admissions' operation and decision keep
--    their text: partial indexes and queries name them.
-- 3. A version whose subject and key are its memory's (every version the
--    engine writes: a version belongs to its slot) stores them empty and
--    sets shared bit 4; reads take them from the memory, whose subject and
--    key never change and which cannot go while it has versions (the
--    foreign key). The note's key was 37 bytes of each version row.
--
-- The rows are rewritten by this migration's Go step (migrateShortForms),
-- which builds the mapping from the same tables the store uses. Rewriting
-- a version's embedding would fire versions_unshare_on_embedding and copy
-- its text and vector into every version sharing them, so the trigger is
-- dropped here and made again, unchanged, by the step.
DROP TRIGGER versions_unshare_on_embedding;

UPDATE versions SET subject = '', "key" = '', shared = coalesce(shared, 0) | 4
WHERE coalesce(shared, 0) & 4 = 0
  AND EXISTS (SELECT 1 FROM memories m WHERE m.namespace = versions.namespace AND m.id = versions.memory_id
              AND m.subject = versions.subject AND m."key" = versions."key");
