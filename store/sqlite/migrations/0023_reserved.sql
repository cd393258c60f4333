-- Reserved for branch writecpu's 0023 (versions_not_active). This file only
-- keeps the numbers without a gap on a branch made before that merge; drop
-- it when merging writecpu's migration. It changes nothing.
SELECT 1;
