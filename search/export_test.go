package search

import (
	"sync/atomic"
	"testing"
)

// RetrievalSet exposes a benchmark corpus to the external test package,
// which can import embed (this package cannot, embed imports it).
type RetrievalSet struct {
	IDs, Texts, Queries []string
	Relevant            []map[string]bool
}

// LoadLoCoMo returns the LoCoMo retrieval set padded to 100k documents, or
// false when the data is not beside the repository.
func LoadLoCoMo(tb testing.TB) (*RetrievalSet, bool) {
	s, ok := loadLoCoMo(tb)
	if !ok {
		return nil, false
	}
	return &RetrievalSet{IDs: s.ids, Texts: s.texts, Queries: s.queries, Relevant: s.relevant}, true
}

// SetTailSeeding turns the tail scan's seeding (tailSeeds) on or off, so
// the external benchmarks can compare the two scans.
func SetTailSeeding(on bool) { tailSeeding = on }

// Scaled is scaled, for the external test package.
func Scaled(full int) int { return scaled(full) }

// SetMinRotRows sets the tail block size from which the first checkpoint
// reads rotated coordinates (0: never), for blocks built after the call,
// and returns the previous setting.
func SetMinRotRows(n int) int {
	old := minRotRows
	minRotRows = n
	return old
}

// WaitRotations waits until the axes of the blocks ix's bulk loads left to
// rotateLater are installed, so a benchmark measures the scan as it runs
// once they are.
func WaitRotations(ix *Index) { ix.rotating.Wait() }

// SetTailTouchedOnly turns the scan of the touched rows alone
// (touchedOnly) on or off, so the external benchmarks can compare it with
// the scan of every row.
func SetTailTouchedOnly(on bool) { tailTouchedOnly = on }

// SetTailThird turns tailScan's third bound on the axes on or off, so the
// external benchmarks can compare the two scans.
func SetTailThird(on bool) { tailThird = on }

// CountTailRowReads counts the rows tailScan reads whole until the
// returned function is called, which returns the count.
func CountTailRowReads() func() int64 {
	var n atomic.Int64
	tailRowReads = &n
	return func() int64 { tailRowReads = nil; return n.Load() }
}
