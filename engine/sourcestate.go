package engine

import "github.com/mnemon-dev/mnemon/memory"

// sourceStateLocked says whether an episodic version's derived facts are
// servable for p: covered (at least one is), stale (none is, and the
// current version of one of them competes: rival reports it), or "" when
// no fact was derived from it or none of the facts that replaced them is
// in the running; and whether every one of them is about someone other
// than the user (user is the user's subject term). The caller holds
// st.RLock.
//
// An episode is stale for a question only beside what replaced it: "I use
// vim" yields to "switched to emacs" for "which editor?". When nothing
// that replaced its facts was found, the episode is the best record of
// what the question's words name ("decided on nomad for streaming since it
// works offline", whose slot a later decision took over), and a penalty
// would only lift notes that hold fewer of those words. A nil rival
// counts every fact as competing.
func sourceStateLocked(st *nsState, v *memory.Version, p RetrieveParams, user string, rival func(memoryID string) bool) (state string, aboutOther bool) {
	if v.Kind != memory.KindEpisodic || len(v.EvidenceEpisodeIDs) == 0 {
		return "", false
	}
	facts := st.FactsOfEpisodeLocked(v.EvidenceEpisodeIDs[0])
	if len(facts) == 0 {
		return "", false
	}
	state, aboutOther = "stale", true
	replaced := false // the current version of some fact competes
	for _, id := range facts {
		en, ok := st.EntryLocked(id)
		if !ok {
			continue
		}
		if en.SubjectTerm == "" || en.SubjectTerm == user {
			aboutOther = false
		}
		if state == "stale" && servableLocked(st, en.V, p) {
			state = "covered"
		}
		replaced = replaced || rival == nil || rival(en.V.MemoryID)
	}
	if state == "stale" && !replaced {
		state = ""
	}
	return state, aboutOther
}
