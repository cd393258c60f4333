package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/memory"
)

// maxTurnScan bounds how far back in a namespace's episodes the turn
// before a correction is looked for in the index.
const maxTurnScan = 4096

// turnsBack is how many of the speaker's turns before a correction are
// read for the value it corrects.
const turnsBack = 4

// correctAcross reads a turn that only corrects one of the speaker's turns
// before it ("we're on node 20" then "scratch that, node 22 since last
// week"): alone it names no slot, so it is read joined to each of the
// speaker's last turns in turn, nearest first, and what the first pair
// says that the earlier turn alone did not (the corrected value, with a
// correction cue) becomes this turn's candidates. A turn whose value the
// correction cannot stand in for ("I'm allergic to shellfish" for "node
// 22") is passed over. prev is the batch's episodes before pe (the same
// capture or extraction chunk); the namespace's index has the earlier ones.
func (e *Engine) correctAcross(ctx context.Context, pe *pendingEvent, prev []*pendingEvent, source string) error {
	e.stayNow(ctx, pe, prev, source) // "Ines is in Glasgow now", after her home
	if pe.epStatus != memory.StatusActive || !pe.indexed || !extract.CorrectsPrevious(pe.ep.Content) {
		return nil
	}
	// "let's go with Asana instead" alone is a decision of its own; after
	// "we track bugs in Trello" it is the tracker's new value.
	instead := len(pe.cands) > 0 && extract.PutsInstead(pe.ep.Content)
	if len(pe.cands) > 0 && !instead {
		return nil
	}
	turns := previousTurnsInBatch(pe, prev, turnsBack)
	if len(turns) < turnsBack && (len(turns) == len(prev) || len(prev) == 0 || prev[0].ep.Scope == pe.ep.Scope) {
		turns = append(turns, e.previousTurnsInIndex(ctx, pe, turnsBack-len(turns), len(turns))...)
	}
	// The nearest turn the correction reads with wins, unless a farther
	// one holds a value of the new value's own kind ("node 20" for "node
	// 22", past a turn about a daughter).
	var best []extract.Candidate
	for _, before := range turns {
		cs, kin, err := e.correctionOf(ctx, pe, before)
		if err != nil {
			return err
		}
		if len(cs) > 0 && (best == nil || kin) {
			best = cs
		}
		if kin {
			break
		}
	}
	if len(best) == 0 && extract.PutsInstead(pe.ep.Content) {
		// "matcha instead lately", the first thing said in a new sitting:
		// the value it replaces was stated in an earlier one.
		for _, before := range e.insteadEarlier(ctx, pe) {
			cs, kin, err := e.correctionOf(ctx, pe, before)
			if err != nil {
				return err
			}
			if len(cs) > 0 && kin {
				best = cs
				break
			}
		}
	}
	if len(best) > 0 {
		if instead {
			pe.cands = pe.cands[:0] // the pair's reading replaces the turn's own
		}
		for _, c := range best {
			c.Start, c.End = 0, len(pe.ep.Content) // the evidence is this turn
			cand := e.ruleCandidate(pe, c, source)
			cand.reasons = append(cand.reasons, "corrects_previous_turn")
			pe.cands = append(pe.cands, cand)
		}
		pe.gated = false
	}
	return nil
}

// correctionOf returns what pe's turn, read after before, corrects: the
// candidates of the pair, with a correction cue, that before alone did not
// give, and whether one of them has a value of the same category as a
// value before stated (kin: "node 22" after "node 20").
func (e *Engine) correctionOf(ctx context.Context, pe *pendingEvent, before string) ([]extract.Candidate, bool, error) {
	ev := extract.Event{Kind: pe.ep.Kind, Speaker: pe.ep.Speaker, OccurredAt: pe.ep.OccurredAt, ProjectID: pe.ep.Scope.ProjectID, Content: before}
	had, err := e.extractor.Extract(ctx, ev)
	if err != nil || len(had) == 0 {
		return nil, false, err // nothing stated there to correct
	}
	sep := " "
	if !strings.ContainsAny(before[len(before)-1:], ".!?") {
		sep = ". "
	}
	ev.Content = before + sep + pe.ep.Content
	both, err := e.extractor.Extract(ctx, ev)
	if err != nil {
		return nil, false, err
	}
	seen := make(map[string]bool, len(had))
	for _, c := range had {
		seen[c.Subject+"\x00"+c.Key+"\x00"+c.Value] = true
	}
	var out []extract.Candidate
	kin := false
	for _, c := range both {
		if c.Cue != extract.CueCorrection || seen[c.Subject+"\x00"+c.Key+"\x00"+c.Value] {
			continue
		}
		out = append(out, c)
		if nc, ok := extract.CategoryOf(c.Value); ok {
			for _, h := range had {
				if hc, ok := extract.CategoryOf(h.Value); ok && hc == nc {
					kin = true
				}
			}
		}
	}
	return out, kin, nil
}

// previousTurnsInBatch returns the texts of up to n of the speaker's turns
// before pe among prev (pe's batch, in order), nearest first, in the same
// session.
func previousTurnsInBatch(pe *pendingEvent, prev []*pendingEvent, n int) []string {
	var out []string
	for i := len(prev) - 1; i >= 0 && len(out) < n; i-- {
		p := prev[i].ep
		if p.Scope != pe.ep.Scope {
			break
		}
		if p.Speaker == pe.ep.Speaker && p.Content != "" {
			out = append(out, p.Content)
		}
	}
	return out
}

// previousTurnsInIndex returns the texts of up to n of the speaker's turns
// before pe in its session from the namespace's index (turns captured by
// earlier requests and already extracted), nearest first, each within
// ContextGap of the one after it; skip are the nearest already read from
// the batch.
func (e *Engine) previousTurnsInIndex(ctx context.Context, pe *pendingEvent, n, skip int) []string {
	if n <= 0 {
		return nil
	}
	st, err := e.namespace(ctx, pe.ep.Namespace)
	if err != nil {
		return nil
	}
	speaker := strings.ToLower(pe.ep.Speaker)
	at := pe.ep.OccurredAt
	st.RLock()
	defer st.RUnlock()
	eps := st.EpisodesLocked()
	var out []string
	for i := len(eps) - 1; i >= 0 && i >= len(eps)-maxTurnScan && len(out) < n; i-- {
		en, ok := st.EntryLocked(eps[i])
		if !ok || en.V.Scope != pe.ep.Scope || slices.Contains(en.V.EvidenceEpisodeIDs, pe.ep.ID) || en.V.ObservedAt.After(at) {
			continue
		}
		if at.Sub(en.V.ObservedAt) > ContextGap {
			break
		}
		at = en.V.ObservedAt
		if en.V.Subject != speaker || en.V.Content == "" {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		out = append(out, en.V.Content)
	}
	return out
}

// insteadSlots is how many live facts of the category an "instead" turn
// with no value before it in its session is read against.
const insteadSlots = 2

// insteadEarlier returns the texts of the turns that stated the live
// value an "instead" turn may put its value in place of when nothing
// before it in its session did: the speaker's (or team's) live
// prefers:CAT or uses:CAT fact of the category the lexicon places the
// turn's value in, visible to the turn, newest first, at most
// insteadSlots of them. correctionOf then reads the turn after each; only
// a pair whose values are of one kind counts.
func (e *Engine) insteadEarlier(ctx context.Context, pe *pendingEvent) []string {
	cat, ok := extract.InsteadCategory(pe.ep.Content)
	if !ok {
		return nil
	}
	st, err := e.namespace(ctx, pe.ep.Namespace)
	if err != nil {
		return nil
	}
	speaker := strings.ToLower(pe.ep.Speaker)
	if speaker == "" {
		speaker = DefaultSpeaker
	}
	scope := factScope(pe.ep.Scope)
	var found []*memory.Version
	st.RLock()
	for _, v := range e.liveFactsOfCategoryLocked(st, cat) {
		if !scope.Visible(v.Scope) || len(v.EvidenceEpisodeIDs) == 0 ||
			v.Subject != speaker && v.Subject != "team" ||
			v.Key != "prefers:"+cat && v.Key != "uses:"+cat && !strings.HasPrefix(v.Key, "uses:"+cat+":") {
			continue
		}
		found = append(found, v)
	}
	st.RUnlock()
	slices.SortFunc(found, func(a, b *memory.Version) int { return b.ObservedAt.Compare(a.ObservedAt) })
	var out []string
	for _, v := range found {
		if len(out) == insteadSlots {
			break
		}
		ep, err := e.store.GetEpisode(ctx, memory.GetParams{Namespace: pe.ep.Namespace, ID: v.EvidenceEpisodeIDs[0]})
		if err != nil || ep == nil || ep.Content == "" || ep.ID == pe.ep.ID {
			continue
		}
		out = append(out, ep.Content)
	}
	return out
}
