package index

import (
	"github.com/mnemon-dev/mnemon/memory"
)

// PrepareSignatures builds the namespace's wording-signature map if it is
// not built yet. The map is built lazily (a read-only command never needs
// it), and building it at 100k memories takes a few hundred milliseconds:
// a writer calls this after taking the namespace lock and before its
// transaction, so the work holds neither the store's writer nor the index
// lock that retrievals need. Only the snapshot and the install take st.mu;
// no version can be put in between, since every writer of the namespace
// holds its lock.
func (st *Namespace) PrepareSignatures() {
	an := st.cfg.Analyzer
	type fact struct{ id, content string }
	st.mu.Lock()
	if st.sigs != nil {
		st.mu.Unlock()
		return
	}
	facts := make([]fact, 0, len(st.entries.m))
	for id, en := range st.entries.m {
		if en.V.Kind != memory.KindEpisodic {
			facts = append(facts, fact{id, en.V.Content})
		}
	}
	st.mu.Unlock()

	sigs := make(map[string][]string, len(facts))
	for _, f := range facts {
		s := Signature(an, f.content)
		sigs[s] = append(sigs[s], f.id)
	}

	st.mu.Lock()
	if st.sigs == nil {
		st.sigs = sigs
	}
	st.mu.Unlock()
}
