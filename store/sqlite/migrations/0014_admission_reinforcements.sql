-- Compaction keeps a memory's newest reinforcements in the admission log and
-- deletes the older ones (the version's reinforcement_count keeps the
-- total): a fact restated every day would otherwise log a row a day for
-- good. This index finds the memories over the bound without reading the
-- rest of the log.
CREATE INDEX admissions_reinforcements ON admissions (namespace, memory_id, created_at, id) WHERE operation = 'REINFORCE';
