-- A version whose evidence list mixes an id of mnemon's shape with
-- another (imported, user-given) keeps the list as JSON (0022). When the
-- first id is of mnemon's shape, the reads that look up the version's
-- first evidence episode read that id as text from the JSON, but the
-- episode row holds it as 16 bytes: a version that shared the episode's
-- text (shared bit 8) read an empty content, and deleting the episode
-- copied nothing into it. Such a version takes its own copy of the text
-- here; new ones no longer share it (firstIDFindable, ids.go).
--
-- Writing content fires versions_unshare_on_embedding, whose lookup of the
-- first evidence episode is the one that misses: it would empty the text
-- of the versions sharing this row. It is dropped for the update and made
-- again as 0022 made it.

DROP TRIGGER versions_unshare_on_embedding;

UPDATE versions SET content = coalesce((SELECT e.content FROM episodes e
        WHERE e.namespace = versions.namespace AND e.id = mnemon_compact_id(versions.evidence_episode_ids ->> 0)), ''),
    shared = nullif(shared & ~8, 0)
WHERE shared & 8 AND typeof(evidence_episode_ids) = 'text'
  AND typeof(mnemon_compact_id(evidence_episode_ids ->> 0)) = 'blob';

CREATE TRIGGER versions_unshare_on_embedding BEFORE UPDATE OF embedding, content ON versions
WHEN coalesce(OLD.shared, 0) & 2 = 0
BEGIN
    UPDATE versions SET content = CASE WHEN OLD.shared & 8 THEN coalesce((SELECT e.content FROM episodes e
        WHERE e.namespace = OLD.namespace AND e.id = iif(typeof(OLD.evidence_episode_ids) = 'blob',
            substr(OLD.evidence_episode_ids, 1, 16), OLD.evidence_episode_ids ->> 0)), '') ELSE OLD.content END,
        embedding = OLD.embedding, same_as = NULL, shared = shared & ~2
    WHERE namespace = OLD.namespace AND same_as = OLD.id;
END;
