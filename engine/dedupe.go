package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// Dedupe defaults.
const (
	// DefaultDedupeThreshold is the cosine at or above which two active
	// facts of one scope are the same fact told twice (as nearDuplicate at
	// write time).
	DefaultDedupeThreshold = nearDuplicate
	// DefaultDedupeLimit bounds the versions one run supersedes.
	DefaultDedupeLimit = 500
	// DefaultDedupeScopeCap bounds the facts of one scope a run compares
	// pairwise (the newest first): the work of a run is at most
	// cap²/2 dot products per scope.
	DefaultDedupeScopeCap = 2000
)

// DedupeParams runs dedupe over one namespace. Zero fields take defaults.
type DedupeParams struct {
	Namespace string
	// Threshold is the cosine at or above which two facts link
	// (default DefaultDedupeThreshold); in (0, 1].
	Threshold float64
	DryRun    bool
	// Limit bounds the versions one run supersedes (default DefaultDedupeLimit).
	Limit int
	// ScopeCap bounds the facts of one scope compared in one run
	// (default DefaultDedupeScopeCap).
	ScopeCap int
}

// DedupeReport says what one dedupe run did. A second run right after the
// first reports all zeros.
type DedupeReport struct {
	Namespace string  `json:"namespace"`
	DryRun    bool    `json:"dry_run"`
	Threshold float64 `json:"threshold"`
	// Clusters counts groups of duplicates merged into their strongest member.
	Clusters int `json:"clusters"`
	// Superseded counts the weaker members superseded (duplicate_of).
	Superseded int `json:"superseded"`
	// More says the run stopped at its limit or left part of a scope
	// uncompared: run it again.
	More    bool              `json:"more"`
	Changes []LifecycleChange `json:"changes"`
	// Judged counts the pairs of the ambiguous band the chat model was
	// asked about this run (DuplicateJudge), JudgedSame those it called
	// one fact; every other answer kept both.
	Judged     int `json:"judged,omitempty"`
	JudgedSame int `json:"judged_same,omitempty"`
}

// dedupeFact is an active fact with its decoded embedding.
type dedupeFact struct {
	v     *memory.Version
	vec   search.Vector
	neg   bool // its content negates (see negated)
	fresh bool // written or touched since the last complete run
}

// dedupeMark is how far a namespace's dedupe has compared: every pair of
// facts active then and not touched since was compared at this threshold
// and left nothing to merge. The next run compares only pairs with a fresh
// member, so the periodic job costs (fresh facts × facts), not facts²: at
// 1,800 facts a full run took 1.5 s of dot products every hour.
type dedupeMark struct {
	threshold float64
	through   time.Time
}

// dedupeMarkSlack keeps the mark behind the run's start: a write whose
// clock time came before the listing but committed after it (it waited for
// the writer behind a long import or consolidation) is still fresh next
// time.
const dedupeMarkSlack = 10 * time.Minute

// Dedupe clusters the active semantic memories of each scope of a
// namespace by the cosine of their embeddings (single linkage: A~B and B~C
// put A, B and C in one cluster even when A and C are further apart) and
// supersedes the weaker members of a cluster into its strongest, with
// superseded_by pointing at it and an admission-log entry (extractor
// "dedupe", reason duplicate_of).
//
// Contradictions are never merged: no link is made between two facts that
// contradict (see contradicts), and a member joins its cluster's strongest
// only if it does not contradict it; the members left out stay active and
// are clustered again among themselves until nothing more merges. So a run
// leaves no two active facts it would merge, and running it again changes
// nothing.
//
// The strongest member ranks first by criticality (a must_include fact is
// never superseded by a plain one), then confidence, reinforcement,
// usefulness and recency (observed_at, then recorded_at), then id.
func (e *Engine) Dedupe(ctx context.Context, p DedupeParams) (*DedupeReport, error) {
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	switch {
	case p.Threshold == 0:
		p.Threshold = DefaultDedupeThreshold
	case !(p.Threshold > 0 && p.Threshold <= 1):
		return nil, fmt.Errorf("dedupe: %w", memory.Invalidf("threshold %v: use a cosine in (0, 1], like 0.92", p.Threshold))
	}
	if p.Limit < 0 || p.ScopeCap < 0 {
		return nil, fmt.Errorf("dedupe: %w", memory.Invalidf("limit and scope cap: use 0 for the default or a positive number"))
	}
	if p.Limit == 0 {
		p.Limit = DefaultDedupeLimit
	}
	if p.ScopeCap == 0 {
		p.ScopeCap = DefaultDedupeScopeCap
	}
	now := e.clock.Now()
	var since time.Time
	if m, ok := e.dedupeMarks.Load(ns); ok && m.(dedupeMark).threshold == p.Threshold {
		since = m.(dedupeMark).through
	}
	// Cluster without holding the namespace's writer (the comparison is
	// the expensive part); under the lock, each merge is applied only if
	// both sides are still active, else left to the next run.
	vs, err := e.store.ListVersions(ctx, memory.ListVersionsParams{
		Namespace: ns, Statuses: []memory.Status{memory.StatusActive}, Kinds: []memory.Kind{memory.KindSemantic},
	})
	if err != nil {
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	rep := &DedupeReport{Namespace: ns, DryRun: p.DryRun, Threshold: p.Threshold, Changes: []LifecycleChange{}}
	planned, err := planDedupe(vs, p, since, now, rep, e.newJudge(ctx, ns, p.Threshold, rep))
	if err != nil {
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	vs = nil
	// A complete run (nothing left over) moves the mark; a dry run or one
	// that stopped at a bound leaves it, so the next compares as much.
	mark := func() {
		if !p.DryRun && !rep.More {
			e.dedupeMarks.Store(ns, dedupeMark{threshold: p.Threshold, through: now.Add(-dedupeMarkSlack)})
		}
	}
	if p.DryRun || len(planned) == 0 {
		mark()
		return rep, nil
	}
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	defer unlock()
	var (
		changed []*memory.Version
		applied []LifecycleChange
	)
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		changed, applied = changed[:0], applied[:0]
		for i, c := range rep.Changes {
			v, err := tx.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: c.VersionID})
			if err != nil {
				return err
			}
			head, err := tx.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: c.SupersededBy})
			if err != nil {
				return err
			}
			if v.Status != memory.StatusActive || head.Status != memory.StatusActive {
				continue // moved since the plan: the next run sees it anew
			}
			v.Status, v.SupersededBy, v.ValidTo = planned[i].Status, planned[i].SupersededBy, planned[i].ValidTo
			v.UpdatedAt, v.Trust = now, trustOf(v, now)
			changed = append(changed, v)
			applied = append(applied, c)
		}
		if len(changed) == 0 {
			return nil
		}
		return e.writeChanges(ctx, tx, ns, "dedupe", changed, applied, now)
	})
	if err != nil {
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	if skipped := len(rep.Changes) - len(applied); skipped > 0 {
		rep.Changes, rep.Superseded, rep.More = applied, len(applied), true
	}
	mark()
	for _, v := range changed {
		st.UpdateState(v)
	}
	return rep, nil
}

// planDedupe clusters vs per scope and returns the versions it superseded,
// recording each in rep.
func planDedupe(vs []*memory.Version, p DedupeParams, since, now time.Time, rep *DedupeReport, judge *dupJudge) ([]*memory.Version, error) {
	byScope := make(map[memory.Scope][]*dedupeFact)
	var scopes []memory.Scope
	for _, v := range vs {
		if len(v.Embedding) == 0 || v.Type == memory.TypeSummary {
			// Nothing to compare; or a session's summary, one per
			// session by construction, never another's duplicate.
			continue
		}
		vec, err := search.DecodeVector(v.Embedding)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w: embedding: %v", v.ID, memory.ErrCorrupt, err)
		}
		if _, ok := byScope[v.Scope]; !ok {
			scopes = append(scopes, v.Scope)
		}
		byScope[v.Scope] = append(byScope[v.Scope], &dedupeFact{v: v, vec: vec, neg: negated(v.Content), fresh: v.UpdatedAt.After(since)})
	}
	var changed []*memory.Version
	for _, sc := range scopes {
		facts := byScope[sc]
		if len(facts) > p.ScopeCap {
			// The newest facts are the likeliest restatements of each
			// other; the rest wait for a later run.
			sort.SliceStable(facts, func(i, j int) bool { return facts[i].v.RecordedAt.After(facts[j].v.RecordedAt) })
			facts = facts[:p.ScopeCap]
			rep.More = true
		}
		sort.SliceStable(facts, func(i, j int) bool { return stronger(facts[i].v, facts[j].v) })
		edges := dedupeEdges(facts, p.Threshold, judge)
		for {
			merged, stop := mergeClusters(facts, edges, p.Limit-len(changed), now, rep, judge)
			changed = append(changed, merged...)
			if stop {
				rep.More = true
				return changed, nil
			}
			if len(merged) == 0 {
				break
			}
			// Members left out of their cluster (they contradict its
			// strongest) are clustered again among themselves.
			kept := facts[:0:0]
			for _, f := range facts {
				if f.v.Status == memory.StatusActive {
					kept = append(kept, f)
				}
			}
			facts = kept
			edges = dedupeEdges(facts, p.Threshold, judge)
		}
	}
	if judge.leftOver() {
		rep.More = true // pairs of the band wait for the next run's calls
	}
	return changed, nil
}

// dedupeEdges links every pair of facts at or above the threshold that do
// not contradict each other; edges[i] lists j > i and j < i alike. Pairs
// of two facts that are not fresh were compared by an earlier complete
// run and are skipped. With a judge, a pair in the ambiguous band below
// the threshold links when the chat model calls it one fact.
func dedupeEdges(facts []*dedupeFact, threshold float64, judge *dupJudge) [][]int {
	edges := make([][]int, len(facts))
	// Each fresh fact against every other, a pair of two fresh ones once:
	// the work is fresh × facts, not facts².
	for i := range facts {
		if !facts[i].fresh {
			continue
		}
		for j := range facts {
			if j == i || (facts[j].fresh && j < i) {
				continue
			}
			a, b := facts[i], facts[j]
			if a.vec.Dim != b.vec.Dim || contradicts(a, b) {
				continue
			}
			if cos := float64(a.vec.Dot(b.vec)); cos < threshold && !judge.same(a, b, cos) {
				continue
			}
			edges[i] = append(edges[i], j)
			edges[j] = append(edges[j], i)
		}
	}
	return edges
}

// mergeClusters finds the connected components of facts (ordered strongest
// first) and supersedes each component's members into its strongest. It
// returns what it superseded, and stop when it reached limit.
func mergeClusters(facts []*dedupeFact, edges [][]int, limit int, now time.Time, rep *DedupeReport, judge *dupJudge) (merged []*memory.Version, stop bool) {
	comp := make([]int, len(facts))
	for i := range comp {
		comp[i] = -1
	}
	for root := range facts {
		if comp[root] >= 0 {
			continue
		}
		// Facts are ordered strongest first, so the first fact of a
		// component is its strongest.
		members := []int{root}
		comp[root] = root
		for k := 0; k < len(members); k++ {
			for _, j := range edges[members[k]] {
				if comp[j] < 0 {
					comp[j] = root
					members = append(members, j)
				}
			}
		}
		if len(members) < 2 {
			continue
		}
		sort.Ints(members) // strongest first
		head := facts[root]
		cluster := false
		for _, m := range members[1:] {
			f := facts[m]
			if contradicts(f, head) {
				continue // stays active; clustered again without head
			}
			if len(merged) >= limit {
				return merged, true
			}
			if !cluster {
				cluster = true
				rep.Clusters++
			}
			v := f.v
			from := v.Status
			v.Status, v.SupersededBy = memory.StatusSuperseded, head.v.ID
			if v.ValidTo == nil {
				v.ValidTo = timePtr(now)
			}
			v.UpdatedAt = now
			v.Trust = trustOf(v, now)
			rep.Superseded++
			rep.Changes = append(rep.Changes, LifecycleChange{
				MemoryID: v.MemoryID, VersionID: v.ID, Reason: ReasonDuplicateOf, From: from, To: v.Status,
				SupersededBy: head.v.ID,
				Detail:       fmt.Sprintf("cosine %.3f with %s, which is stronger", float64(f.vec.Dot(head.vec)), head.v.ID) + judge.detail(f, head),
			})
			merged = append(merged, v)
		}
	}
	return merged, false
}

// stronger reports whether a should stand for b when they are duplicates.
func stronger(a, b *memory.Version) bool {
	if ca, cb := criticalityRank(a.Criticality), criticalityRank(b.Criticality); ca != cb {
		return ca > cb
	}
	if a.Confidence != b.Confidence {
		return a.Confidence > b.Confidence
	}
	if a.ReinforcementCount != b.ReinforcementCount {
		return a.ReinforcementCount > b.ReinforcementCount
	}
	if a.Usefulness != b.Usefulness {
		return a.Usefulness > b.Usefulness
	}
	if !a.ObservedAt.Equal(b.ObservedAt) {
		return a.ObservedAt.After(b.ObservedAt)
	}
	if !a.RecordedAt.Equal(b.RecordedAt) {
		return a.RecordedAt.After(b.RecordedAt)
	}
	return a.ID < b.ID
}

func criticalityRank(c memory.Criticality) int {
	switch c {
	case memory.CriticalityMustInclude:
		return 2
	case memory.CriticalityHigh:
		return 1
	}
	return 0
}

// contradicts reports whether two facts may disagree, so merging them
// would lose one side; when unsure, both are kept:
//
//   - the same key about the same subject (a slot's values; in one scope
//     only one is active, but imports and other extractors may break that)
//     with different values, or about different subjects ("the user lives
//     in Lisbon" is not "my sister lives in Lisbon");
//   - opposite polarity: likes:X against dislikes:X, or one content
//     negated and the other not ("Atlas uses pnpm" / "Atlas does not use
//     pnpm"; "always use tabs" / "never use tabs").
func contradicts(a, b *dedupeFact) bool {
	va, vb := a.v, b.v
	if va.Key == vb.Key && (va.Subject != vb.Subject || !sameValue(va.Value, vb.Value)) {
		return true
	}
	if pa, pb := polarKey(va.Key), polarKey(vb.Key); pa.slot == pb.slot && pa.negative != pb.negative {
		return true
	}
	return a.neg != b.neg
}

type polar struct {
	slot     string
	negative bool
}

// polarKey reads a key's polarity: dislikes:X is the negative of likes:X.
func polarKey(key string) polar {
	head, rest, ok := strings.Cut(key, ":")
	if !ok {
		return polar{slot: key}
	}
	switch head {
	case "dislikes", "hates", "avoids":
		return polar{slot: "likes:" + rest, negative: true}
	case "loves", "enjoys":
		return polar{slot: "likes:" + rest}
	}
	return polar{slot: key}
}

// negationWords flip a sentence's polarity. The rule extractor's contents
// say "dislikes" and "never"; people and models say the rest.
var negationWords = map[string]bool{
	"not": true, "no": true, "never": true, "none": true, "nobody": true, "nothing": true, "neither": true,
	"nor": true, "cannot": true, "without": true, "dislike": true, "dislikes": true, "hate": true,
	"hates": true, "avoid": true, "avoids": true, "don't": true, "doesn't": true, "didn't": true,
	"isn't": true, "aren't": true, "wasn't": true, "won't": true, "can't": true, "shouldn't": true,
	"mustn't": true, "dont": true, "doesnt": true, "isnt": true, "stopped": true,
}

// negated reports whether a content has an odd number of negations ("does
// not use", "no longer", "never"): a double negation reads as positive.
func negated(content string) bool {
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(content), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '\'' || r == '’')
	}) {
		w = strings.ReplaceAll(w, "’", "'")
		if negationWords[w] || strings.HasSuffix(w, "n't") {
			n++
		}
	}
	return n%2 == 1
}
