-- What a retrieval's response said and its model calls cost, kept with its
-- trace (issue 19): traces.diagnostics is the JSON
-- {"notes": [...], "models": [{model, endpoint, calls, errors, tokens_in,
-- tokens_out, duration_us}]}, NULL when the retrieval had neither (every
-- retrieval without a model provider: the row grows by its NULL alone).
-- admissions.models is the JSON array of the same usage, on the admission
-- of an episode whose extraction called a model; NULL otherwise.
-- Rows written before this migration read back with neither.
ALTER TABLE traces ADD COLUMN diagnostics TEXT;
ALTER TABLE admissions ADD COLUMN models TEXT;
