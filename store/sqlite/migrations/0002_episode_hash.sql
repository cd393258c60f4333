-- Capture looks episodes up by content hash to recognise a retried event.
CREATE INDEX episodes_by_hash ON episodes (namespace, content_hash);
