package engine_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
)

// A namespace loaded from the store (in parallel, on every core) ranks
// exactly as the engine that wrote it: ties between equal scores and the
// structured channel's walk follow the store's order, not which loader
// goroutine finished first. Many notes that share their words make ties.
func TestReopenedNamespaceRanksTheSame(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mnemon.db")
	w := openEngine(t, path, engine.Config{})
	var ps []engine.RememberParams
	for i := range 400 {
		ps = append(ps, engine.RememberParams{Namespace: "ns",
			Text: fmt.Sprintf("Valve %d on rig %d needs a new gasket.", i, i%7)})
	}
	if _, err := w.RememberBatch(t.Context(), ps); err != nil {
		t.Fatal(err)
	}
	ids := func(e *engine.Engine, q string) []string {
		var out []string
		for _, it := range retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Limit: 10}).Items {
			out = append(out, it.MemoryID+"@"+fmt.Sprint(it.Score))
		}
		return out
	}
	queries := []string{"gasket", "valve gasket", "rig 3", "new gasket on the rig"}
	want := map[string][]string{}
	for _, q := range queries {
		want[q] = ids(w, q)
	}
	for open := range 3 {
		r := openEngine(t, path, engine.Config{})
		for _, q := range queries {
			if got := ids(r, q); !slices.Equal(got, want[q]) {
				t.Fatalf("open %d, %q:\n got  %v\n want %v", open, q, got, want[q])
			}
		}
	}
}
