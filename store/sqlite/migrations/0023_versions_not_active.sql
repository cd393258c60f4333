-- versions_by_status (namespace, status) took an entry from every version
-- written and moved it at every status change, so every remember's commit
-- wrote one of its pages (a WAL frame). Yet the queries by status ask for
-- the live versions, nearly every row of a namespace, which the primary
-- key reaches as cheaply. Only the versions that are not active are
-- looked up by status (history pruning finds the superseded ones, Stats
-- counts each status): this partial index holds them alone, and a new
-- version, which is active, writes nothing to it. A query that wants it
-- states status <> 'active', which the planner needs to see to use it.
DROP INDEX versions_by_status;
CREATE INDEX versions_not_active ON versions (namespace, status, memory_id) WHERE status <> 'active';
