-- Placeholder so branch i5-consolidate (which owns migration 0008) builds and
-- tests alone: migrations must be numbered without gaps, and 0007 belongs to
-- another branch. DELETE THIS FILE when merging; the real 0007 replaces it
-- (two 0007 files make every Open fail, so it cannot be missed).
SELECT 1;
