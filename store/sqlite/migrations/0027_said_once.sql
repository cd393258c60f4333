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
