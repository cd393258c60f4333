-- API keys for the HTTP API, each bound to one namespace with one role.
--
-- Unlike the memory tables, keys are looked up across namespaces: a request
-- presents a key, and the key's row says which namespace it may reach. So
-- the primary key is the id alone (ids are unique across the store) and the
-- hash is unique across the store. Only the SHA-256 of a key is stored; the
-- raw key is shown once when it is made and never kept.
CREATE TABLE api_keys (
    id         TEXT    NOT NULL PRIMARY KEY,
    namespace  TEXT    NOT NULL,
    role       TEXT    NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
    name       TEXT    NOT NULL,
    prefix     TEXT    NOT NULL,
    hash       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER          -- NULL while the key is active
) STRICT;

-- Every authenticated request finds its key by hash.
CREATE UNIQUE INDEX api_keys_by_hash ON api_keys (hash);
-- Listing: one namespace's keys, or every key, oldest first.
CREATE INDEX api_keys_by_namespace ON api_keys (namespace, created_at, id);
CREATE INDEX api_keys_by_time ON api_keys (created_at, id);
-- Counting the active keys (is the server open?) reads this index only.
CREATE INDEX api_keys_active ON api_keys (revoked_at);
