-- Placeholder: migration 0016 belongs to another branch (numbers are assigned per
-- branch; this file is replaced by that branch's migration when they merge).
SELECT 1;
