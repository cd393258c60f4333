-- The inspector (/ui/, GET /v1/versions) pages a namespace's versions
-- newest first. A plain (namespace, recorded_at, id) index would also
-- draw ListVersions' filtered shapes (status, subject: ORDER BY
-- recorded_at, id) off their own indexes, so this one is partial on a
-- condition only PageVersions states (kind is never empty): the planner
-- considers it for that query alone, which names it with INDEXED BY.
CREATE INDEX versions_by_recency ON versions (namespace, recorded_at, id) WHERE kind <> '';
