package sqlite

import (
	"database/sql/driver"
	"fmt"

	msqlite "modernc.org/sqlite"
)

// slotHash is what memories_slot indexes of a slot (migration 0026): the
// 64-bit FNV-1a of the subject, a zero byte and the key. The scope is not
// in it: the lookups by subject and key alone (ListVersions' filter) use
// the index too, and a slot's scopes are few.
func slotHash(subject, key string) int64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(subject); i++ {
		h = (h ^ uint64(subject[i])) * prime
	}
	h *= prime // the separator: h ^ 0 is h
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * prime
	}
	return int64(h)
}

func init() {
	// Migration 0026's fill of the new column. Only its SQL calls it.
	msqlite.MustRegisterDeterministicScalarFunction("mnemon_slot_hash", 2,
		func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			s, ok1 := args[0].(string)
			k, ok2 := args[1].(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("mnemon_slot_hash: want two texts, got %T and %T", args[0], args[1])
			}
			return slotHash(s, k), nil
		})
}
