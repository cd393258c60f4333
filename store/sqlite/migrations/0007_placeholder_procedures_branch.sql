-- PLACEHOLDER on branch i5-procedures only: migrations must be numbered without gaps,
-- and 0007 belongs to another branch of issue 5. DELETE THIS FILE when merging.
SELECT 1;
