package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
)

// benchMaintain fills a namespace with n keyed facts (built-in embedder),
// then times one lifecycle run and one dedupe run over it. Nothing is due,
// so it measures finding that out: for the lifecycle, a read of the
// store's index of unsettled versions (it read every live version before
// that index: 270 ms at 10k facts); for dedupe, the pairwise comparison of
// one scope's facts, capped at DefaultDedupeScopeCap.
func benchMaintain(b *testing.B, n int, dedupe bool) {
	e, _, _ := newEngine(b)
	ctx := context.Background()
	cities := []string{"Lisbon", "Porto", "Faro", "Braga", "Evora", "Coimbra", "Aveiro", "Viseu"}
	for i := 0; i < n; i += 500 {
		var ps []engine.RememberParams
		for j := i; j < min(n, i+500); j++ {
			city := cities[j%len(cities)]
			ps = append(ps, engine.RememberParams{Namespace: "ns",
				Text: fmt.Sprintf("Friend number %d lives in %s and works on project %d.", j, city, j%97),
				Key:  fmt.Sprintf("friend_%d:lives_in", j), Value: city})
		}
		if _, err := e.RememberBatch(ctx, ps); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		var err error
		if dedupe {
			_, err = e.Dedupe(ctx, engine.DedupeParams{Namespace: "ns", DryRun: true})
		} else {
			_, err = e.Lifecycle(ctx, engine.LifecycleParams{Namespace: "ns", DryRun: true})
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLifecycle10k(b *testing.B) { benchMaintain(b, 10_000, false) }
func BenchmarkDedupe2k(b *testing.B)     { benchMaintain(b, 2_000, true) }
