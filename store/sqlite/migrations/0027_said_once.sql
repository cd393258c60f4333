-- Values said once (issue 22's footprint); the Go step (migrate_once.go)
-- finishes what needs the store's code tables.
--
-- An episode's recorded_at is nearly always its occurred_at, a memory's
-- updated_at its created_at (memories are never updated): the second is
-- stored 0, which takes no bytes, when it is the first's very value. The
-- instant 0 itself is then stored as -9223372036854775807, which no real
-- instant has (the store refuses years before 1678, and the zero time is
-- the smallest int64). Reads put both back (sameTime, codec.go).
UPDATE episodes SET recorded_at = CASE WHEN recorded_at = occurred_at THEN 0 ELSE -9223372036854775807 END
WHERE recorded_at = occurred_at OR recorded_at = 0;
UPDATE memories SET updated_at = CASE WHEN updated_at = created_at THEN 0 ELSE -9223372036854775807 END
WHERE updated_at = created_at OR updated_at = 0;

-- Admissions' decision and operation become one-character codes (the step);
-- the partial index of REINFORCE rows is made again on the coded value.
DROP INDEX admissions_reinforcements;

-- An admission whose version is one of its memory's stores the version's
-- seq, an INTEGER, where the id would be; the read looks the id up by
-- (namespace, memory_id, seq). Before a version goes, the trigger writes
-- its id back into the admissions that refer to it so.
UPDATE admissions SET version_id = (SELECT v.seq FROM versions v
    WHERE v.namespace = admissions.namespace AND v.id = admissions.version_id)
WHERE memory_id <> '' AND typeof(version_id) <> 'integer' AND version_id <> ''
  AND EXISTS (SELECT 1 FROM versions v WHERE v.namespace = admissions.namespace
              AND v.id = admissions.version_id AND v.memory_id = admissions.memory_id);
DROP TRIGGER IF EXISTS versions_unref_admissions;
CREATE TRIGGER versions_unref_admissions BEFORE DELETE ON versions
BEGIN
    UPDATE admissions SET version_id = OLD.id
    WHERE namespace = OLD.namespace AND substr(memory_id, -8) = substr(OLD.memory_id, -8)
      AND memory_id = OLD.memory_id AND memory_id <> '' AND version_id = OLD.seq;
END;
