package index

import (
	"sort"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// The memory cap. A server holds the index of every namespace it serves;
// with many namespaces that can outgrow the machine. Config.MemoryCap
// bounds the estimated bytes of all held indexes: when a load takes the
// total over it, whole namespaces are evicted, least recently used first,
// and read from the store again on their next use (a reload, as at
// start). The namespace just used is never evicted, so one namespace
// larger than the cap is still served, alone.
//
// The estimate is per version: a fixed cost (entry, postings, vector
// block, maps: versionOverhead) plus what the version's own text and
// vector weigh, averaged over the namespace when it is loaded.
// BenchmarkIndexBytes measured 2,757 heap bytes per short captured turn
// with the word-vector embedder, against an estimate of 2,016 with a fixed
// cost of 1,200; the fixed cost is set to 1,950 to match.

// versionOverhead is the estimated fixed bytes of one indexed version
// beyond its text and vector (see BenchmarkIndexBytes).
const versionOverhead = 1950

// versionBytes is what one version's own fields add to the index: its
// text is held in the entry and, as terms, in the postings; its vector
// once decoded.
func versionBytes(v *memory.Version) int64 {
	text := len(v.Content) + len(v.SearchText) + len(v.Value) + len(v.Key) + len(v.Subject) + len(v.ID) + len(v.MemoryID)
	return int64(2*text + len(v.Embedding))
}

// Bytes returns the estimated memory the namespace's index holds.
func (st *Namespace) Bytes() int64 {
	per := st.perVersion.Load()
	if per == 0 {
		per = versionOverhead
	}
	return int64(st.Size()) * per
}

// MemoryBytes returns the estimated memory of every held index.
func (s *Set) MemoryBytes() int64 {
	var n int64
	for _, st := range s.held() {
		n += st.Bytes()
	}
	return n
}

// touch records a use of st for the least-recently-used order.
func (st *Namespace) touch() {
	st.usedAt.Store(time.Now().UnixNano())
}

// enforceCap evicts least recently used namespaces other than keep until
// the held indexes fit the cap. A namespace whose writer is busy is in use
// and is passed over (taking its lock here could wait on a writer that
// waits on this load).
func (s *Set) enforceCap(keep *Namespace) {
	limit := s.cfg.MemoryCap
	if limit <= 0 {
		return
	}
	sts := s.held()
	var total int64
	sizes := make(map[*Namespace]int64, len(sts))
	for _, st := range sts {
		b := st.Bytes()
		sizes[st] = b
		total += b
	}
	if total <= limit {
		return
	}
	sort.Slice(sts, func(i, j int) bool { return sts[i].usedAt.Load() < sts[j].usedAt.Load() })
	for _, st := range sts {
		if total <= limit {
			return
		}
		if st == keep || !st.writeMu.TryLock() {
			continue
		}
		s.evict(st)
		st.writeMu.Unlock()
		total -= sizes[st]
		s.evictions.Add(1)
		s.cfg.Logger.Info("index memory cap reached; evicted the least recently used namespace (reloaded on its next use)",
			"namespace", st.name, "bytes", sizes[st], "cap", limit)
	}
	if total > limit {
		s.cfg.Logger.Warn("index memory cap exceeded by namespaces in use", "bytes", total, "cap", limit)
	}
}

// Evictions returns how many namespaces the memory cap has evicted.
func (s *Set) Evictions() int64 { return s.evictions.Load() }
