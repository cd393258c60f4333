-- Four indexes whose key is already (nearly) unique across the whole file
-- no longer begin with the namespace (issue 22's footprint: 8 bytes an
-- entry, ~340 KB for the peers workload's 10,000 notes). Each holds the last
-- 8 bytes of an id (its random part; the last 8 characters of an id of
-- another shape) or the first 8 of a content hash, and every query and
-- trigger that reads them still says namespace = ? and compares the whole
-- value on the row: the namespace filter stays, only the index no longer
-- repeats the namespace in every entry. The same id or text in two
-- namespaces (an export imported into another) shares an index key and is
-- told apart on the row.
--
-- memories_slot keeps its namespace: one slot (subject and key) recurs in
-- every namespace that names it, so its hash alone would not narrow a
-- lookup to one tenant's rows.
DROP INDEX admissions_by_episode;
CREATE INDEX admissions_by_episode ON admissions (substr(episode_id, -8));
DROP INDEX admissions_by_memory;
CREATE INDEX admissions_by_memory ON admissions (substr(memory_id, -8)) WHERE memory_id <> '';
DROP INDEX versions_episode_text;
CREATE INDEX versions_episode_text ON versions (
    substr(iif(typeof(evidence_episode_ids) = 'blob', substr(evidence_episode_ids, 1, 16), evidence_episode_ids ->> 0), -8))
    WHERE shared & 8;
DROP INDEX episodes_by_hash;
CREATE INDEX episodes_by_hash ON episodes (substr(content_hash, 1, 8));
