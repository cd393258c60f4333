package sqlite_test

import (
	"math/rand/v2"
	"time"

	"testing"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// BenchmarkOpen opens and closes an already migrated file, as most tests
// and every CLI command do; OpenReadClose also answers one read and one
// write in between, the least a short-lived store does.
func BenchmarkOpen(b *testing.B) {
	path := sqlitetest.Path(b)
	opts := sqlite.Options{Synchronous: "NORMAL"}
	b.Run("OpenClose", func(b *testing.B) {
		for b.Loop() {
			st, err := sqlite.Open(b.Context(), path, opts)
			if err != nil {
				b.Fatal(err)
			}
			if err := st.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("OpenReadWriteClose", func(b *testing.B) {
		rng, now, i := rand.New(rand.NewPCG(1, 2)), time.Now().UTC(), 0
		for b.Loop() {
			st, err := sqlite.Open(b.Context(), path, opts)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := st.Stats(b.Context(), memory.StatsParams{Namespace: "ns"}); err != nil {
				b.Fatal(err)
			}
			i++
			if err := st.CreateMemory(b.Context(), newFact(rng, "open", i, 0, now).m); err != nil {
				b.Fatal(err)
			}
			if err := st.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
