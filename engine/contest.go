package engine

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// Contesting a fact that a later statement says changed.
//
// "finally got rid of teamcity, everything runs on buildkite now" ends
// "the team uses teamcity for the build pipeline", though no rule reads
// a slot in it that the fact is in (the new value, if read at all, lands
// in uses:ci). Ranking already puts such a statement above the fact
// (followChanges); storage follows it here: an active fact of the same
// subject whose whole value a newer statement names, plainly and with
// a change cue, becomes contested, with an admission that says why and
// cites the statement. A confident restatement of the value later makes
// it active again (contest_resolved, see reconcile); the lifecycle leaves
// a lone contested version as it is.
//
// The change cue is the one ranking reads (shapeOfText's shapeChange),
// taken on the clause that names the value; extract.PlainMention keeps out
// questions, plans, wishes, hedges, conditions, reports of what others
// said, negations ("never got rid of X") and values named only as part of
// a bigger phrase or as the new value ("switched to X").

// ReasonChangeStated is the admission reason of a fact contested because
// a later statement says its value changed.
const ReasonChangeStated = "change_stated"

// ChangeExtractor names the step in the admission log; its admissions'
// content says which statement named the value, and how.
const ChangeExtractor = "change"

// contestCandidates bounds the facts a statement is weighed against: the
// best lexical matches among the subject's active facts.
const contestCandidates = 20

// contestChanged contests the active facts that the statement of pe says
// changed, and returns the outcomes and admissions to report.
func (e *Engine) contestChanged(ctx context.Context, tx memory.Executor, st *nsState, w *writeBatch, pe *pendingEvent, outs []Outcome, now time.Time) ([]Outcome, []*memory.Admission, error) {
	ep := pe.ep
	if pe.epStatus != memory.StatusActive || isAgentSpeaker(ep.Speaker) || ep.Content == "" {
		return nil, nil, nil
	}
	sh := shapeOfText(ep.Content, e.analyzer)
	quits := offQuits(ep.Content, e.analyzer) // "I'm off espresso for a while"
	if (sh&shapeChange == 0 || !saysLeft(ep.Content)) && len(quits) == 0 {
		// The cheap tests first: no change word anywhere, or none that
		// says a value was left (a clause that says so is part of the
		// statement, so the statement says so too).
		return nil, nil, nil
	}
	// Whose facts it may speak of: the speaker's own (and their team's)
	// unless it opens on someone else; anyone else's only by name.
	own := sh&(shapeOther|shapeOtherName|shapeOpensName) == 0
	terms := e.analyzer.QueryTerms(ep.Content)
	if len(terms) == 0 {
		return nil, nil, nil
	}
	touched := make(map[string]bool, len(outs))
	for _, o := range outs {
		if o.EpisodeID == ep.ID && o.VersionID != "" {
			touched[o.VersionID] = true // this statement's own outcome decides it
		}
	}
	for _, v := range w.updated {
		touched[v.ID] = true
	}
	type pick struct {
		id, clause string
	}
	var picks []pick
	// keep reads the entries without the read lock (a retrieval's channel
	// holds it): safe here because reconcile holds the namespace's writer
	// lock (lockNamespace), which every writer of entries holds too (this
	// process's writes, the follower, re-embedding, imports).
	hits := st.Lexical(terms, contestCandidates, func(id string) bool {
		en, ok := st.EntryLocked(id)
		if !ok {
			return false
		}
		v := en.V
		return v.Kind == memory.KindSemantic && v.Status == memory.StatusActive && v.Value != "" &&
			!index.IsNoteKey(v.Key) && v.ObservedAt.Before(ep.OccurredAt) && ep.Scope.Visible(v.Scope) &&
			!contains(v.EvidenceEpisodeIDs, ep.ID) && !touched[v.ID]
	})
	st.RLock()
	for _, h := range hits {
		en, ok := st.EntryLocked(h.ID)
		if !ok {
			continue
		}
		clause, ok := extract.PlainMention(ep.Content, en.V.Value)
		if !ok || !e.aboutSubject(en.V.Subject, strings.ToLower(ep.Speaker), own, clause) {
			continue
		}
		cs := shapeOfText(clause, e.analyzer)
		if cs&shapeRequest != 0 || keptAsSubject(clause, en.V.Value) {
			continue
		}
		if (cs&shapeChange == 0 || !saysLeft(clause)) && !e.quitsValue(clause, en.V.Value) {
			continue
		}
		picks = append(picks, pick{h.ID, clause})
	}
	st.RUnlock()
	var (
		res  []Outcome
		adms []*memory.Admission
	)
	for _, p := range picks {
		v, err := tx.GetVersion(ctx, memory.GetParams{Namespace: st.Name(), ID: p.id})
		if err != nil {
			if IsNotFound(err) {
				continue
			}
			return nil, nil, err
		}
		if v.Status != memory.StatusActive {
			continue
		}
		v.Embedding = nil // the state is written, not the vector
		v.Status = memory.StatusContested
		if err := e.touch(ctx, tx, w, v, nil, now); err != nil {
			return nil, nil, err
		}
		detail := fmt.Sprintf("%s names %q with a change: %q", ep.ID, v.Value, p.clause)
		out := Outcome{EpisodeID: ep.ID, Decision: memory.AdmitAccept, Operation: memory.OpContest,
			Reasons: []string{ReasonChangeStated}, MemoryID: v.MemoryID, VersionID: v.ID, Content: v.Content, Version: v}
		res = append(res, out)
		adms = append(adms, &memory.Admission{
			ID: ids.New(ids.Admission), Namespace: st.Name(), EpisodeID: ep.ID, MemoryID: v.MemoryID, VersionID: v.ID,
			Decision: memory.AdmitAccept, Reasons: []string{ReasonChangeStated}, Operation: memory.OpContest,
			Content: detail, Extractor: ChangeExtractor, CreatedAt: now,
		})
	}
	return res, adms, nil
}

// quitsValue reports whether clause says its speaker is off a fact's
// whole value: "I'm off espresso" leaves "espresso", "I'm off green tea"
// leaves "green tea"; "I'm off tea" leaves no "green tea".
func (e *Engine) quitsValue(clause, value string) bool {
	val := e.analyzer.QueryTerms(value)
	if len(val) == 0 {
		return false
	}
	quits := offQuits(clause, e.analyzer)
	if len(quits) == 0 || !contains(quits, val[0]) {
		return false
	}
	terms := e.analyzer.QueryTerms(clause)
	for _, t := range val[1:] {
		if !contains(terms, t) {
			return false
		}
	}
	return true
}

// aboutSubject reports whether a statement by speaker whose clause names
// a fact's value may speak of that fact, about subject: the speaker's own
// facts (the user's, or the speaker's by name in a conversation between
// people) and their team's when own; anyone else's when the clause names
// them too ("Ines quit Deloitte", not "I left Deloitte long before Ines
// joined").
func (e *Engine) aboutSubject(subject, speaker string, own bool, clause string) bool {
	if subject == "user" || subject == "team" || subject == speaker {
		return own
	}
	names := e.analyzer.QueryTerms(strings.ReplaceAll(subject, "_", " "))
	if len(names) == 0 {
		return false
	}
	terms := e.analyzer.QueryTerms(clause)
	for _, n := range names {
		if !contains(terms, n) {
			return false
		}
	}
	return true
}

// leftWords are the change words that say a value was left behind
// ("ditched Jenkins", "quit Notion", "moved off AWS", "don't use Vim
// anymore"). Ranking's change cue (changeWords) also lifts a turn on
// words that say something is new or current ("now", "new", "upgraded",
// "joined", "bought"), which a casual remark about the value itself says
// without changing it: "Lisbon is so hot now", "Slack is down now",
// "upgraded Jenkins to the latest LTS". Those do not contest a fact.
var leftWords = map[string]bool{
	"anymore": true, "switched": true, "switching": true, "moved": true, "moving": true,
	"quit": true, "dropped": true, "ditched": true, "replaced": true, "migrated": true,
	"migration": true, "longer": true, "left": true, "sold": true, "ported": true,
	"cancelled": true, "canceled": true, "retired": true, "swapped": true, "traded": true,
	"ripped": true, "scrapped": true, "dumped": true, "ditching": true, "swapping": true,
	"replacing": true, "rid": true, "gave": true,
}

// saysLeft reports whether clause has a word of leftWords, read as
// ranking reads it ("moved" needs a direction after it, "gave" needs
// "up").
func saysLeft(clause string) bool {
	words := strings.FieldsFunc(strings.ReplaceAll(clause, "’", "'"), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	for i, w := range words {
		lw := strings.ToLower(w)
		if !leftWords[lw] || leavesActivity(words, i) {
			continue
		}
		next := ""
		if i+1 < len(words) {
			next = strings.ToLower(words[i+1])
		}
		switch {
		case lw == "gave":
			if next == "up" {
				return true
			}
		case changeNeedsNext[lw] != nil:
			if changeNeedsNext[lw][next] {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// keptAsSubject reports whether clause opens on value as its subject and
// says nothing of it being gone: "Jenkins doesn't crash anymore" and
// "Lisbon is no longer this cheap" speak of the value, which stays; its
// change words are about what it does or how it is. "Jenkins is gone
// now" and "Heroku got ditched" still say it was left.
func keptAsSubject(clause, value string) bool {
	words := strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(clause, "’", "'")), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	vals := strings.FieldsFunc(strings.ToLower(value), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	i := 0
	for i < len(words) && subjectLeads[words[i]] {
		i++
	}
	if len(vals) == 0 || i+len(vals) >= len(words) {
		return false // the clause does not open on the value, or says nothing after it
	}
	for j, v := range vals {
		if strings.TrimSuffix(words[i+j], "'s") != v {
			return false
		}
	}
	for _, w := range words[i+len(vals):] {
		if goneWords[w] {
			return false
		}
	}
	return true
}

// subjectLeads may open a clause before its subject: "so our Jenkins …".
var subjectLeads = map[string]bool{
	"the": true, "our": true, "my": true, "their": true, "his": true, "her": true, "that": true,
	"this": true, "so": true, "and": true, "but": true, "also": true, "ok": true, "well": true,
}

// goneWords say of a subject that it was left: "X is gone", "X got
// ditched", "X is history".
var goneWords = map[string]bool{
	"gone": true, "dead": true, "history": true, "retired": true, "decommissioned": true,
	"deprecated": true, "dropped": true, "ditched": true, "scrapped": true, "replaced": true,
	"removed": true, "killed": true, "sunset": true, "over": true, "out": true, "dumped": true,
	"sold": true, "cancelled": true, "canceled": true, "used": true,
}
