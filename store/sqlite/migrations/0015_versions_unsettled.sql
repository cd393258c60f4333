-- The lifecycle job changes only live versions that are unsettled: their
-- usefulness away from the neutral 0.5 it decays toward, a valid_to, or a
-- contest. Most live versions are settled, and reading every one of them
-- on each run cost time in proportion to the namespace. This index holds
-- only the unsettled ones; ListUnsettledVersions reads it.
CREATE INDEX versions_unsettled ON versions (namespace, memory_id)
    WHERE status IN ('active', 'contested') AND (usefulness <> 0.5 OR valid_to IS NOT NULL OR status = 'contested');
