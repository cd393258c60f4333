package postgres

import (
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/search"
)

// The pgvector path cannot run here (the extension is not installable on
// these machines); what it sends can be checked: the text form of vectors,
// the index and query wording, the version check.
func TestVectorLiteral(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    search.Vector
		want string
	}{
		{"dense", search.Vector{Dim: 3, Values: []float32{0.5, -0.25, 1}}, "[0.5,-0.25,1]"},
		{"sparse, indices from 1", search.Vector{Dim: 262144, Indices: []uint32{0, 7, 262143}, Values: []float32{0.5, 0.125, -1}}, "{1:0.5,8:0.125,262144:-1}/262144"},
		{"float32 shortest", search.Vector{Dim: 1, Values: []float32{0.1}}, "[0.1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := vectorLiteral(tc.v); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestVectorSQL(t *testing.T) {
	for _, tc := range []struct {
		kind      string
		dim       int
		index     []string
		predicate string // the query's WHERE must imply the index's
	}{
		{"dense", 1536, []string{"USING hnsw ((dense::vector(1536)) vector_cosine_ops)", "CONCURRENTLY IF NOT EXISTS version_vectors_dense_1536"}, "WHERE dim = 1536 AND dense IS NOT NULL"},
		{"sparse", 262444, []string{"USING hnsw ((sparse::sparsevec(262444)) sparsevec_cosine_ops)"}, "WHERE dim = 262444 AND sparse IS NOT NULL AND nnz <= 1000"},
	} {
		ddl, q := indexDDL(tc.kind, tc.dim), searchSQL(tc.kind, tc.dim)
		for _, w := range tc.index {
			if !strings.Contains(ddl, w) {
				t.Errorf("%s index: no %q in %s", tc.kind, w, ddl)
			}
		}
		if !strings.Contains(ddl, tc.predicate) || !strings.Contains(strings.Join(strings.Fields(q), " "), strings.Replace(tc.predicate, "WHERE ", "WHERE namespace = $1 AND ", 1)) {
			t.Errorf("%s: index and query predicates differ:\n%s\n%s", tc.kind, ddl, q)
		}
		if !strings.Contains(q, "namespace = $1") {
			t.Errorf("%s query does not filter on namespace: %s", tc.kind, q)
		}
	}
}

func TestVersionAtLeast(t *testing.T) {
	for ver, want := range map[string]bool{"0.8.0": true, "0.8.1": true, "1.0": true, "0.7.4": false, "0.5": false, "": false, "x.y": false} {
		if got := versionAtLeast(ver, 0, 8); got != want {
			t.Errorf("%q: %v, want %v", ver, got, want)
		}
	}
}
