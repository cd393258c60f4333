-- memories_slot held each memory's slot a second time: (namespace, subject,
-- key, agent_id, user_id, project_id, session_id, id), about 75 bytes a
-- memory, most of it the key (a note's key is its words, ~40 bytes). It is
-- now (namespace, slot_hash, id): slot_hash is a 64-bit FNV-1a of the
-- subject and the key (slotHash in slots.go), and a lookup compares the
-- whole slot on the row it finds. The index no longer enforces one memory
-- per slot: CreateMemory checks it in its transaction (writers are
-- serialised), and a 64-bit collision only makes a lookup read two rows.
--
-- mnemon_slot_hash is registered by the store for this migration (SQL has
-- no FNV); no index, trigger or query of the schema calls it.

DROP INDEX memories_slot;

ALTER TABLE memories ADD COLUMN slot_hash INTEGER NOT NULL DEFAULT 0;

UPDATE memories SET slot_hash = mnemon_slot_hash(subject, "key");

CREATE INDEX memories_slot ON memories (namespace, slot_hash);
