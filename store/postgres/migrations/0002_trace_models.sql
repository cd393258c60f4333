-- What a retrieval's response said and its model calls cost, kept with its
-- trace (issue 19): traces.diagnostics is the JSON
-- {"notes": [...], "models": [{model, endpoint, calls, errors, tokens_in,
-- tokens_out, duration_us}]}, NULL when the retrieval had neither.
-- admissions.models is the JSON array of the same usage, on the admission
-- of an episode whose extraction called a model; NULL otherwise. Text, not
-- jsonb: it is read whole, never queried, and text is smaller.
ALTER TABLE traces ADD COLUMN diagnostics text;
ALTER TABLE admissions ADD COLUMN models text;
