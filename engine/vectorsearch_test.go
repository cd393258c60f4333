package engine_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// exactVectors is a store that searches vectors itself, as PostgreSQL with
// pgvector does, but exactly: every stored vector of the namespace against
// the query. With it the engine's semantic channel takes the store's hits;
// the ranking must be the in-process index's.
type exactVectors struct {
	memory.Store
	calls atomic.Int64
}

func (s *exactVectors) VectorSearchEnabled() bool { return true }

func (s *exactVectors) SearchVectors(ctx context.Context, p memory.VectorSearchParams) ([]memory.VectorHit, error) {
	s.calls.Add(1)
	q, err := search.DecodeVector(p.Query)
	if err != nil {
		return nil, err
	}
	var hits []memory.VectorHit
	err = s.ScanVersions(ctx, memory.ScanParams{Namespace: p.Namespace}, func(v *memory.Version) error {
		if len(v.Embedding) == 0 {
			return nil
		}
		dv, err := search.DecodeVector(v.Embedding)
		if err != nil {
			return err
		}
		if cos := float64(q.Dot(dv)); cos >= p.Floor {
			hits = append(hits, memory.VectorHit{VersionID: v.ID, Score: cos})
		}
		return nil
	})
	slices.SortFunc(hits, func(a, b memory.VectorHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.VersionID, b.VersionID)
	})
	return hits[:min(len(hits), p.K)], err
}

// failingVectors is a store whose vector search fails: the index answers.
type failingVectors struct{ memory.Store }

func (failingVectors) VectorSearchEnabled() bool { return true }
func (failingVectors) SearchVectors(context.Context, memory.VectorSearchParams) ([]memory.VectorHit, error) {
	return nil, fmt.Errorf("the vector index is being rebuilt")
}

// TestStoreVectorSearchRanksAsTheIndex: an engine whose store searches
// vectors (the pgvector path) ranks every query as an engine on the
// in-process index does, item for item and score for score; a store whose
// search fails changes nothing either. A store without vector search is
// the path every test runs.
func TestStoreVectorSearchRanksAsTheIndex(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "v.db")
	st := sqlitetest.OpenAt(t, path, sqlite.Options{})
	plain, err := engine.New(engine.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	for i, text := range []string{
		"My favorite editor is Vim.", "I live in Lisbon.", "Atlas deploys with Nomad.", "Dana owns the billing service.",
		"The staging database runs Postgres 15.", "I prefer tea over coffee.", "Our CI runners use Docker.", "I moved to Porto in March.",
	} {
		remember(t, plain, "ns", text, t0.Add(-time.Duration(10-i)*time.Hour))
	}
	exact := &exactVectors{Store: st}
	viaStore, err := engine.New(engine.Config{Store: exact})
	if err != nil {
		t.Fatal(err)
	}
	defer viaStore.Close()
	failing, err := engine.New(engine.Config{Store: failingVectors{st}})
	if err != nil {
		t.Fatal(err)
	}
	defer failing.Close()

	for _, q := range []string{"which text editor do I use", "where does the user live", "hot drinks", "container tooling for builds", "zzz qqq"} {
		want := retrieve(t, plain, engine.RetrieveParams{Namespace: "ns", Query: q})
		for name, e := range map[string]*engine.Engine{"store search": viaStore, "failing store search": failing} {
			got := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q})
			if !sameRanking(got, want) {
				t.Errorf("%s, %q:\n%s\nwant (in-process index):\n%s", name, q, ranking(got), ranking(want))
			}
		}
	}
	if exact.calls.Load() == 0 {
		t.Fatal("the engine never asked the store's vector search")
	}
}

// sameRanking reports whether two results hold the same items in the same
// order with the same scores, up to the float32 rounding of a cosine summed
// in another order.
func sameRanking(a, b *engine.Result) bool {
	if len(a.Items) != len(b.Items) {
		return false
	}
	for i := range a.Items {
		x, y := a.Items[i], b.Items[i]
		if x.VersionID != y.VersionID || math.Abs(x.Score-y.Score) > 1e-3 ||
			math.Abs(x.Channels["semantic"].Score-y.Channels["semantic"].Score) > 1e-3 {
			return false
		}
	}
	return true
}

// ranking is a result's items with their semantic channel score.
func ranking(res *engine.Result) string {
	var b strings.Builder
	for _, it := range res.Items {
		fmt.Fprintf(&b, "%s %.4f semantic=%v\n", it.Content, it.Score, it.Channels["semantic"])
	}
	return b.String()
}
