-- A retrieval's record time ("as known at"), NULL when it looked from now.
ALTER TABLE traces ADD COLUMN known_at INTEGER;
