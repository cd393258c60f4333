package engine

import (
	"context"
	"strings"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/memory"
)

// stayNow reads a user's turn that says only where someone is now ("Ines
// is in Glasgow now", "I'm in Leeds these days": extract.StaysNow) as a
// change of their home, when their home is known and is another place:
// the live lives_in fact of that subject, visible to the turn, or one
// said earlier in the same batch. Said of someone whose home is not
// known, the stay may be a trip, and it stays an episode.
func (e *Engine) stayNow(ctx context.Context, pe *pendingEvent, prev []*pendingEvent, source string) {
	if pe.ep.Kind != memory.EpisodeUserMessage || pe.epStatus != memory.StatusActive || !pe.indexed {
		return
	}
	ev := extract.Event{Kind: pe.ep.Kind, Speaker: pe.ep.Speaker, OccurredAt: pe.ep.OccurredAt, ProjectID: pe.ep.Scope.ProjectID, Content: pe.ep.Content}
	for _, c := range extract.StaysNow(ev) {
		if !e.homeElsewhere(ctx, pe, prev, c.Subject, c.Value) {
			continue
		}
		cand := e.ruleCandidate(pe, c, source)
		cand.reasons = append(cand.reasons, "stay_after_known_home")
		pe.cands = append(pe.cands, cand)
		pe.gated = false
	}
}

// homeElsewhere reports whether subject's home is known and is not place:
// a lives_in candidate of an earlier event in the batch, or else a live
// lives_in fact in the namespace visible to pe.
func (e *Engine) homeElsewhere(ctx context.Context, pe *pendingEvent, prev []*pendingEvent, subject, place string) bool {
	for i := len(prev) - 1; i >= 0; i-- {
		for _, c := range prev[i].cands {
			if c.Subject == subject && c.Key == "lives_in" && c.Cue != extract.CueNegation {
				return !strings.EqualFold(c.Value, place)
			}
		}
	}
	st, err := e.namespace(ctx, pe.ep.Namespace)
	if err != nil {
		return false
	}
	scope := factScope(pe.ep.Scope)
	st.RLock()
	defer st.RUnlock()
	known := false
	for _, t := range e.analyzer.QueryTerms("lives in") {
		for _, id := range st.KeyPostingsLocked(t) {
			en, ok := st.EntryLocked(id)
			if !ok || en.V.Kind != memory.KindSemantic || !en.V.Status.Live() || en.V.Subject != subject || en.V.Key != "lives_in" || !scope.Visible(en.V.Scope) {
				continue
			}
			if strings.EqualFold(en.V.Value, place) {
				return false // already the home
			}
			known = true
		}
	}
	return known
}
