package jobs_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// TestReembedOnStart: a database written with another embedder is
// re-embedded by the job the workers run when they start, without waiting
// for the maintenance interval.
func TestReembedOnStart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemon.db")
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	old, err := engine.New(engine.Config{Store: st, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"ana", "bob"} {
		if _, err := old.Remember(ctx, engine.RememberParams{Namespace: ns, Text: "I live in Lisbon."}); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	eng, err := engine.New(engine.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	q := startQueue(t, st, eng, time.Hour)
	deadline := time.Now().Add(30 * time.Second)
	for _, ns := range []string{"ana", "bob"} {
		for {
			n, err := eng.StaleEmbeddings(ctx, ns)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			if time.Now().After(deadline) {
				js, _ := q.List(ctx, jobs.ListParams{})
				t.Fatalf("%s: %d versions still carry the old embedder's vectors; jobs %+v", ns, n, js)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
