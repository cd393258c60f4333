-- Number 0026 belongs to branch lean4 (the slot hash). This file only keeps
-- the numbers contiguous on branch storerate; delete it when lean4's 0026 is
-- merged (the loader refuses two migrations numbered 0026).
SELECT 1;
