package index

import (
	"sort"

	"github.com/mnemon-dev/mnemon/memory"
)

// episodeIndexLocked returns the place of episode v in st.episodes, or -1
// when it is not there. Packing asks for the neighbours of about fifty
// candidates a retrieval, and a binary search reads an entry from the map
// at each of its ~15 steps; the place found last is kept on the entry and
// used when the list still holds v there (new episodes are appended, so
// places rarely move), else searched again. Call with st.mu held.
func (st *Namespace) episodeIndexLocked(v *memory.Version) int {
	en, known := st.entries.load(v.ID)
	if known {
		if i := int(en.episodeAt.Load()) - 1; i >= 0 && i < len(st.episodes) && st.episodes[i] == v.ID {
			return i
		}
	}
	i := sort.Search(len(st.episodes), func(i int) bool {
		en, _ := st.entries.load(st.episodes[i])
		return !episodeBefore(en.V, v)
	})
	if i == len(st.episodes) || st.episodes[i] != v.ID {
		return -1
	}
	if known {
		en.episodeAt.Store(int32(i + 1))
	}
	return i
}
