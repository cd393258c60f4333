package engine

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/memory"
)

// pronounTurns is how many of the speaker's turns before one that opens
// on "she" or "he" are read for whom it names: a chain of three ("my
// aunt retired", "she sold the flat", "she hates the cold") and no more.
const pronounTurns = 3

// pronounContext fills pe's extraction context (extract.Event.Before)
// when its turn opens on "she" or "he": the speaker's turns just before
// it in the same session, oldest first, found in its batch (prev, in
// order) and then in the namespace's index. An agent's or a tool's turn
// between them is passed over ("Oh nice!"); another person's turn ends
// the search, as does a pause longer than ContextGap: "she" after what
// someone else said, or after another sitting, stays unread. A turn
// outside any session reaches back only within its own capture.
func (e *Engine) pronounContext(ctx context.Context, pe *pendingEvent, prev []*pendingEvent) {
	pe.before = nil
	ep := pe.ep
	if ep.Kind != memory.EpisodeUserMessage && ep.Kind != memory.EpisodeUserFeedback || !extract.OpensOnPronoun(ep.Content) {
		return
	}
	var out []string
	seen := make(map[string]bool, len(prev))
	at := ep.OccurredAt
	for i := len(prev) - 1; i >= 0 && len(out) < pronounTurns; i-- {
		p := prev[i].ep
		seen[p.ID] = true
		if p.Scope != ep.Scope || p.OccurredAt.After(at) {
			continue // another session's turn in the same extraction job
		}
		if at.Sub(p.OccurredAt) > ContextGap {
			pe.before = reversed(out)
			return
		}
		at = p.OccurredAt
		switch {
		case !personTurn(p.Kind) && namesSomeoneElse(p.Content):
			// "How did Noor find it?": the agent asked about one of
			// them, and "she" is whoever the agent named.
			pe.before = reversed(out)
			return
		case !personTurn(p.Kind):
			continue
		case !strings.EqualFold(p.Speaker, ep.Speaker):
			pe.before = reversed(out)
			return
		case prev[i].epStatus == memory.StatusActive:
			out = append(out, p.Content)
		}
	}
	if len(out) < pronounTurns && ep.Scope.SessionID != "" {
		out = append(out, e.pronounTurnsInIndex(ctx, pe, at, pronounTurns-len(out), seen)...)
	}
	pe.before = reversed(out)
}

// pronounTurnsInIndex continues pronounContext in the namespace's index:
// up to n of the speaker's turns of pe's session said before at, nearest
// first, skipping the episodes in seen (already read from the batch).
func (e *Engine) pronounTurnsInIndex(ctx context.Context, pe *pendingEvent, at time.Time, n int, seen map[string]bool) []string {
	st, err := e.namespace(ctx, pe.ep.Namespace)
	if err != nil {
		return nil
	}
	speaker := strings.ToLower(pe.ep.Speaker)
	st.RLock()
	defer st.RUnlock()
	eps := st.EpisodesLocked()
	var out []string
	for i := len(eps) - 1; i >= 0 && i >= len(eps)-maxTurnScan && len(out) < n; i-- {
		en, ok := st.EntryLocked(eps[i])
		// Episode ids grow with time (internal/ids): one at or above
		// pe's is pe or was captured after it, with the same time
		// perhaps, in a deferred extraction whose episodes are stored
		// before they are read.
		if !ok || en.V.Scope != pe.ep.Scope || en.V.ObservedAt.After(at) ||
			len(en.V.EvidenceEpisodeIDs) > 0 && (seen[en.V.EvidenceEpisodeIDs[0]] || en.V.EvidenceEpisodeIDs[0] >= pe.ep.ID) {
			continue
		}
		if at.Sub(en.V.ObservedAt) > ContextGap {
			break
		}
		at = en.V.ObservedAt
		if isAgentSpeaker(en.V.Subject) && namesSomeoneElse(en.V.Content) {
			break
		}
		if isAgentSpeaker(en.V.Subject) {
			continue
		}
		if en.V.Subject != speaker {
			break
		}
		if en.V.Status == memory.StatusActive && en.V.Content != "" {
			out = append(out, en.V.Content)
		}
	}
	return out
}

// personTurn reports whether an episode of kind k is someone speaking
// (not an agent, a tool or an observation).
func personTurn(k memory.EpisodeKind) bool {
	return k == memory.EpisodeUserMessage || k == memory.EpisodeUserFeedback
}

func reversed(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := slices.Clone(ss)
	slices.Reverse(out)
	return out
}

// namesSomeoneElse reports whether an agent's turn names a person: a
// capitalised word that opens no sentence ("How did Noor find it?"), or
// one of someone's people ("how's your brother?"). A "she" after it may
// be that person.
func namesSomeoneElse(text string) bool {
	for _, sent := range strings.FieldsFunc(text, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == ';' || r == '\n' }) {
		if len(namesIn(strings.TrimSpace(sent))) > 0 {
			return true
		}
	}
	for _, w := range lowerWords(text) {
		if extract.IsRelationNoun(strings.TrimSuffix(w, "'s")) {
			return true
		}
	}
	return false
}
