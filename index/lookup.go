package index

import (
	"iter"
	"slices"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// What the read path asks of a namespace's index. A retrieval reads many
// entries per step (a channel filters hundreds of hits): it takes the read
// lock once (RLock) and calls the ...Locked methods under it, rather than
// lock per lookup. Entries are immutable once published, so an entry may be
// used after the lock is released.

// Name returns the namespace the index is of.
func (st *Namespace) Name() string { return st.name }

// RLock takes the index's read lock, for the ...Locked methods. Writers
// wait for it: hold it for a step of a retrieval, not across store reads.
func (st *Namespace) RLock() { st.mu.RLock() }

// RUnlock releases the read lock.
func (st *Namespace) RUnlock() { st.mu.RUnlock() }

// EntryLocked returns the entry of a version id. Call with RLock held.
func (st *Namespace) EntryLocked(id string) (*Entry, bool) { return st.entries.load(id) }

// Lexical runs the lexical (BM25) channel: at most k hits that keep lets
// through. keep is called under the search index's own lock; if it reads
// entries, hold RLock.
func (st *Namespace) Lexical(qterms []string, k int, keep func(string) bool) []search.Hit {
	return st.ix.Lexical(qterms, k, keep)
}

// LexicalRelated is Lexical with related terms weighted below the query's
// (search.Index's LexicalRelated); common filters as LexicalCommon does.
func (st *Namespace) LexicalRelated(qterms, related []string, weight float32, k int, keep func(string) bool, common bool) []search.Hit {
	f := search.Filter{Keep: keep}
	if common {
		f = search.Filter{Marked: true}
	}
	return st.ix.LexicalRelated(qterms, related, weight, k, f)
}

// LexicalAllTerms is Lexical for a keyword query: a document's score is
// scaled by the share of the query's terms it holds (search.Index's
// LexicalAllTerms).
func (st *Namespace) LexicalAllTerms(qterms []string, k int, keep func(string) bool) []search.Hit {
	return st.ix.LexicalAllTerms(qterms, k, keep)
}

// Semantic runs the vector channel: at most k hits at or above floor that
// keep lets through (see Lexical for keep).
func (st *Namespace) Semantic(qvec search.Vector, k int, floor float64, keep func(string) bool) []search.Hit {
	return st.ix.Semantic(qvec, k, floor, keep)
}

// LexicalCommon is Lexical (LexicalAllTerms with allTerms) for the common
// request, whose filter is "live, and no agent, user or project owns it":
// it filters on the search index's mark of each version (see common), a
// byte per document, not a lookup of its entry by id.
func (st *Namespace) LexicalCommon(qterms []string, k int, allTerms bool) []search.Hit {
	return st.ix.LexicalFiltered(qterms, k, search.Filter{Marked: true}, allTerms)
}

// SemanticCommon is Semantic for the common request (see LexicalCommon).
func (st *Namespace) SemanticCommon(qvec search.Vector, k int, floor float64) []search.Hit {
	return st.ix.SemanticFiltered(qvec, k, floor, search.Filter{Marked: true})
}

// ExplainLexical returns what each query term scored for version id.
func (st *Namespace) ExplainLexical(id string, qterms []string) []search.TermScore {
	return st.ix.ExplainLexical(id, qterms)
}

// SizeLocked returns the number of indexed versions. The caller holds
// st.RLock.
func (st *Namespace) SizeLocked() int { return st.entries.len() }

// KeyPostingsLocked returns the ids of the versions whose key, slot alias
// or lent key has the term t (the structured channel). A posting may be
// listed twice after an update, or name a version no longer indexed: check
// it with EntryLocked. Read-only; call with RLock held.
func (st *Namespace) KeyPostingsLocked(t string) []string { return st.structured[t] }

// CriticalLocked yields the ids of the versions whose criticality is
// must_include, in no order. Call with RLock held.
func (st *Namespace) CriticalLocked() iter.Seq[string] {
	return func(yield func(string) bool) {
		for id := range st.critical {
			if !yield(id) {
				return
			}
		}
	}
}

// EpisodesLocked returns the episodic version ids in time order (observed
// at, then id), oldest first. Read-only; call with RLock held.
func (st *Namespace) EpisodesLocked() []string { return st.episodes }

// FactsOfEpisodeLocked returns the ids of the fact versions that cite
// episode ep as evidence, of any status. Read-only; call with RLock held.
func (st *Namespace) FactsOfEpisodeLocked(ep string) []string { return st.derived[ep] }

// FactsCiting returns the indexed current facts extracted from each
// episode.
func (st *Namespace) FactsCiting(eps []*memory.Episode) map[string][]*memory.Version {
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := make(map[string][]*memory.Version)
	for _, ep := range eps {
		for _, id := range st.derived[ep.ID] {
			if en, ok := st.entries.load(id); ok && en.V.Status.Live() {
				out[ep.ID] = append(out[ep.ID], en.V)
			}
		}
	}
	return out
}

// StaleEmbeddings returns the ids of the indexed versions whose provenance
// names another embedder, in id order.
func (st *Namespace) StaleEmbeddings(name string, dim int) []string {
	st.mu.RLock()
	defer st.mu.RUnlock()
	var ids []string
	for id, en := range st.entries.m {
		if p := en.V.Provenance; p.Embedder != name || p.EmbedderDim != dim {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// NeighboursLocked returns up to nb servable episodes before the episode v
// and na after it in st's time order, within the same scope and
// conversation, nearest first on each side, skipping none: the window
// stops at the first gap longer than maxGap, scope change or episode
// already shown. Call with RLock held.
func (st *Namespace) NeighboursLocked(v *memory.Version, nb, na int, maxGap time.Duration, keep func(string) bool, shown map[string]bool) (before, after []*Entry) {
	if nb+na == 0 {
		return nil, nil
	}
	i := st.episodeIndexLocked(v)
	if i < 0 {
		return nil, nil
	}
	walk := func(step, n int) []*Entry {
		var out []*Entry
		prev := v
		for j := i + step; j >= 0 && j < len(st.episodes) && len(out) < n; j += step {
			id := st.episodes[j]
			en, ok := st.entries.load(id)
			if !ok || shown[id] || !keep(id) || en.V.Scope != v.Scope || gap(en.V.ObservedAt, prev.ObservedAt) > maxGap {
				break
			}
			out = append(out, en)
			prev = en.V
		}
		return out
	}
	return walk(-1, nb), walk(1, na)
}

func gap(a, b time.Time) time.Duration {
	if a.After(b) {
		return a.Sub(b)
	}
	return b.Sub(a)
}
