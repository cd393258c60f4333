// Package bench holds what the suites of `mnemon bench` share: retrieval
// metrics, percentiles, a plain BM25 baseline and progress reporting.
// Datasets and their harnesses live in subpackages (bench/locomo).
package bench

import (
	"math"
	"slices"
	"time"
)

// DefaultKs are the cut-offs reported when none are asked for.
func DefaultKs() []int { return []int{1, 5, 10, 25} }

// Recall scores one question at one cut-off k, given the gold ids its answer
// rests on and the ranked items returned, each as the ids it cites.
type Recall struct {
	All  bool    // every gold id is cited by the top k (recall_all@k)
	Any  bool    // at least one is (recall_any@k)
	Frac float64 // the fraction of gold ids cited (frac@k)
}

// RecallAt scores ranked against gold at k. An empty gold set scores
// nothing: a question without evidence cannot be retrieved for.
func RecallAt(gold []string, ranked [][]string, k int) Recall {
	if len(gold) == 0 {
		return Recall{}
	}
	found := 0
	for _, g := range gold {
		if citedIn(g, ranked, k) {
			found++
		}
	}
	return Recall{All: found == len(gold), Any: found > 0, Frac: float64(found) / float64(len(gold))}
}

// RecallAllWithin reports whether every gold id is cited by the items a
// reader with budget tokens takes from ranked: each in rank order that
// still fits, one that does not skipped (as mnemon's packer fills a token
// budget). Arms whose items differ in size (a turn, a turn with its
// neighbours) are compared at equal cost this way. tokens[i] is the size
// of ranked[i].
func RecallAllWithin(gold []string, ranked [][]string, tokens []int, budget int) bool {
	if len(gold) == 0 {
		return false
	}
	var taken [][]string
	used := 0
	for i := 0; i < len(ranked) && i < len(tokens); i++ {
		if used+tokens[i] <= budget {
			used += tokens[i]
			taken = append(taken, ranked[i])
		}
	}
	return RecallAt(gold, taken, len(taken)).All
}

func citedIn(id string, ranked [][]string, k int) bool {
	for i := 0; i < k && i < len(ranked); i++ {
		if slices.Contains(ranked[i], id) {
			return true
		}
	}
	return false
}

// Groups maps ids to their groups (turns to sessions, say), deduplicated in
// first-seen order; ids group maps to "" are dropped. Recall over groups
// (session recall: every gold session touched) is RecallAt on the groups.
func Groups(ids []string, group func(string) string) []string {
	var out []string
	for _, id := range ids {
		if g := group(id); g != "" && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// Tally accumulates recall over questions at several cut-offs.
type Tally struct {
	Ks    []int
	N     int       // questions added
	All   []float64 // per k: sums while adding, means after Means
	Any   []float64
	Frac  []float64
	Group []float64 // every gold group touched
}

// NewTally returns an empty tally for the cut-offs ks.
func NewTally(ks []int) *Tally {
	n := len(ks)
	return &Tally{Ks: slices.Clone(ks), All: make([]float64, n), Any: make([]float64, n), Frac: make([]float64, n), Group: make([]float64, n)}
}

// Add scores one question. group maps an id to its group for group
// recall; nil counts every id as its own group.
func (t *Tally) Add(gold []string, ranked [][]string, group func(string) string) {
	t.N++
	goldGroups, rankedGroups := gold, ranked
	if group != nil {
		goldGroups = Groups(gold, group)
		rankedGroups = make([][]string, len(ranked))
		for i, r := range ranked {
			rankedGroups[i] = Groups(r, group)
		}
	}
	for i, k := range t.Ks {
		r := RecallAt(gold, ranked, k)
		t.All[i] += b2f(r.All)
		t.Any[i] += b2f(r.Any)
		t.Frac[i] += r.Frac
		t.Group[i] += b2f(RecallAt(goldGroups, rankedGroups, k).All)
	}
}

// Means returns the tally's averages (sums divided by N).
func (t *Tally) Means() Scores {
	s := Scores{N: t.N, Ks: slices.Clone(t.Ks)}
	mean := func(sums []float64) []float64 {
		out := make([]float64, len(sums))
		for i, x := range sums {
			if t.N > 0 {
				out[i] = x / float64(t.N)
			}
		}
		return out
	}
	s.RecallAll, s.RecallAny, s.Frac, s.Session = mean(t.All), mean(t.Any), mean(t.Frac), mean(t.Group)
	return s
}

// Scores are mean recalls over N questions, one value per cut-off in Ks.
type Scores struct {
	N         int       `json:"questions"`
	Ks        []int     `json:"k"`
	RecallAll []float64 `json:"recall_all"`
	RecallAny []float64 `json:"recall_any"`
	Frac      []float64 `json:"frac"`
	Session   []float64 `json:"session_recall"`
}

// At returns the index of cut-off k in s.Ks, or -1.
func (s Scores) At(k int) int { return slices.Index(s.Ks, k) }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Percentile returns the p-th percentile (0..100) of xs by the
// nearest-rank method, or 0 for no values. xs is not modified.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// Millis converts durations to milliseconds for Percentile.
func Millis(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	return out
}
