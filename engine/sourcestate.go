package engine

import "github.com/mnemon-dev/mnemon/memory"

// sourceStateLocked says whether an episodic version's derived facts are
// servable for p: covered (at least one is), stale (none is), or "" when no
// fact was derived from it; and whether every one of them is about someone
// other than the user (user is the user's subject term; team, when not
// "", the speaker's team's, which a question in the first person is about
// too: "which package manager should I use?" after "the repo uses pnpm"). With currentOnly
// a fact that is history for p covers nothing. The caller holds st.RLock.
func sourceStateLocked(st *nsState, v *memory.Version, p RetrieveParams, user, team string, currentOnly bool) (state string, aboutOther bool) {
	if v.Kind != memory.KindEpisodic || len(v.EvidenceEpisodeIDs) == 0 {
		return "", false
	}
	facts := st.FactsOfEpisodeLocked(v.EvidenceEpisodeIDs[0])
	if len(facts) == 0 {
		return "", false
	}
	state, aboutOther = "stale", true
	// For the common request a fact is served exactly when its entry says
	// it is live and owned by no one (see admits): read from the entry,
	// not from the fact's version, a cache miss for each fact of each
	// episode a retrieval ranks.
	common := commonRequest(p)
	counted := false
	for _, id := range facts {
		en, ok := st.EntryLocked(id)
		if !ok {
			continue
		}
		if en.NameKey && en.SubjectTerm != user { // relationNameKey(en.V.Key)
			// "my sister Oona got hired ...": the sister's name says
			// none of what the turn tells of her.
			continue
		}
		counted = true
		if en.SubjectTerm == "" || en.SubjectTerm == user || team != "" && en.SubjectTerm == team {
			aboutOther = false
		}
		if state != "stale" {
			continue
		}
		if common {
			if en.Ownerless && en.Status.Live() {
				state = "covered"
			}
		} else if servableLocked(st, en.V, p) && !(currentOnly && viewOf(p).history(en.V)) {
			state = "covered"
		}
	}
	if !counted {
		return "", false
	}
	return state, aboutOther
}
