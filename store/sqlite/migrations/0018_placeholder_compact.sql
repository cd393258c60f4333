-- Placeholder so branch `compact` runs its 0019 on its own: migration
-- numbers must be contiguous. At merge this file gives way to the real 0018.
SELECT 1;
