-- Every write transaction of mnemon opens with
--   BEGIN; SELECT mnemon_check_schema(<the schema version it writes>)
-- in one round trip: a serve or worker left running on an older binary
-- while a newer one migrates the schema refuses to write (SQLSTATE MN001,
-- the message the version the database holds) instead of writing rows in
-- forms the newer schema no longer reads. PL/pgSQL for RAISE; its plan is
-- cached per connection, so the check costs an index probe.
CREATE FUNCTION mnemon_check_schema(writes integer) RETURNS void
LANGUAGE plpgsql STABLE AS $$
DECLARE
    current integer;
BEGIN
    SELECT max(version) INTO current FROM schema_migrations;
    IF current > writes THEN
        RAISE EXCEPTION '%', current USING ERRCODE = 'MN001';
    END IF;
END
$$;
