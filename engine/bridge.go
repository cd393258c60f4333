package engine

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/embed/vectors"
	"github.com/mnemon-dev/mnemon/memory"
)

// followBridge takes a second hop from the best candidate: a question is
// often answered by a turn that shares no word with it but shares one with
// the turn that does match ("where do I find the new staging password?":
// "the new one's in the shared vault", then "our shared creds live in the
// Bitwarden vault"). Only for a question that asks for a name or a place
// (who, where, which, what city) whose best candidate names none: the best
// candidate's own words, less the query's, are looked up, and the best
// turn they find that names someone or something goes first, with a term
// "bridge". The first hop restated the question; the second answers it.
// Moving a second hop up for every question cost LoCoMo's multi-hop
// questions more than it gained (0.352 to 0.338 recall_all@10): in a long
// conversation the best turn shares some word with many others.
//
// It returns cands with any new candidate and whether a score changed;
// cands must be sorted.
func (e *Engine) followBridge(st *nsState, cands []*scored, p RetrieveParams, qterms []string, keep func(string) bool, r Ranking) ([]*scored, bool) {
	if len(cands) == 0 || r.Bridge == 0 {
		return cands, false
	}
	top := cands[0]
	if top.en.V.Kind != memory.KindEpisodic || !top.lexical() || top.en.Shape&(shapeRequest|shapeChatter|shapeNumber) != 0 || namesPastFirst(top.en.V.Content) || !asksForName(lowerWords(p.Query)) {
		return cands, false
	}
	var bridge []string
	for _, t := range e.analyzer.QueryTerms(top.en.V.Content) {
		if !slices.Contains(qterms, t) && !slices.Contains(bridge, t) {
			bridge = append(bridge, t)
		}
	}
	if len(bridge) == 0 {
		return cands, false
	}
	user := e.userTerm()
	hits := channel(st, ChannelLexical, nil, bridge, nil, keep, false, nil, r, false)
	var next *scored
	for _, h := range hits {
		if h.ID == top.en.V.ID {
			continue
		}
		st.RLock()
		en, ok := st.EntryLocked(h.ID)
		covered := ok && func() bool { s, _ := sourceStateLocked(st, en.V, p, user, "", false); return s == "covered" }()
		if covered {
			// Its fact says it better ("my sister lives way up north in
			// Tromso" is kept as the sister's lives_in): the fact is the
			// second hop, unless no live fact of it names anything.
			en, ok = coveringFactLocked(st, en, keep)
		}
		st.RUnlock()
		if covered && !ok {
			continue
		}
		if !ok || en.V.Content == top.en.V.Content || en.Shape&(shapeRequest|shapeChatter) != 0 || isAgentSpeaker(en.V.Subject) && en.V.Kind == memory.KindEpisodic {
			continue
		}
		i := slices.IndexFunc(cands, func(c *scored) bool { return c.en.V.ID == h.ID })
		if i >= 0 {
			next = cands[i]
		} else {
			next = &scored{en: en, terms: make(memory.Terms, 0, maxTerms)}
		}
		break
	}
	if next == nil {
		return cands, false
	}
	if !bridgeNames(next.en.V.Content) && (next.en.V.Kind != memory.KindSemantic || !namesSomethingFact(next.en.V)) {
		// The second hop must name someone or something.
		return cands, false
	}
	lift := top.final + r.Bridge - next.final
	if lift <= 0 {
		return cands, false
	}
	next.terms = append(next.terms, memory.Term{Name: "bridge", Value: lift})
	next.final += lift
	if !slices.Contains(cands, next) {
		cands = append(cands, next)
	}
	return cands, true
}

// lexical reports whether the query's words found c.
func (c *scored) lexical() bool {
	for _, h := range c.channels {
		if h.Channel == ChannelLexical {
			return true
		}
	}
	return false
}

// asksForName reports whether a question asks for a person, a place or a
// named thing: "who …", "where …", "which …", "what city …".
func asksForName(ws []string) bool {
	for i, w := range ws {
		switch w {
		case "who", "whom", "whose", "where", "which":
			return true
		case "what":
			if i+1 < len(ws) && nameKinds[ws[i+1]] {
				return true
			}
		}
	}
	return false
}

// nameKinds are words after "what" that ask for a name.
var nameKinds = map[string]bool{
	"city": true, "town": true, "country": true, "place": true, "company": true, "name": true,
	"shop": true, "restaurant": true, "app": true, "tool": true, "service": true, "brand": true,
}

// coveringFactLocked returns the live fact extracted from episode en's
// turn that keep admits and that names something (a capitalised value),
// the first in the index's order. Call with st's read lock held.
func coveringFactLocked(st *nsState, en *entry, keep func(string) bool) (*entry, bool) {
	if len(en.V.EvidenceEpisodeIDs) == 0 {
		return nil, false
	}
	for _, id := range st.FactsOfEpisodeLocked(en.V.EvidenceEpisodeIDs[0]) {
		f, ok := st.EntryLocked(id)
		if ok && f.Status.Live() && !f.NameKey && keep(id) && namesSomethingFact(f.V) {
			return f, true
		}
	}
	return nil, false
}

// namesSomethingFact reports whether a fact's value is a name (a
// capitalised word): a place, a person, a product.
func namesSomethingFact(v *memory.Version) bool {
	for _, w := range strings.Fields(v.Value) {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// namesPastFirst reports whether a turn says a capitalised word past its
// first that is not "I" or one of its contractions: "booked it, I'm going
// to visit my sister" names no one.
func namesPastFirst(text string) bool {
	for i, w := range bridgeWords(text) {
		if i > 0 && capitalised(w) && w != "I" && !strings.HasPrefix(w, "I'") {
			return true
		}
	}
	return false
}

func bridgeWords(text string) []string {
	return strings.FieldsFunc(strings.ReplaceAll(text, "’", "'"), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// bridgeNames reports whether a turn names someone or something: a
// capitalised word past the first that is not "I" or one of its
// contractions ("booked it, I'm going to visit my sister" names no one),
// or a first word that is a name rather than a common word ("Yusuf has
// release duty this sprint").
func bridgeNames(text string) bool {
	for i, w := range bridgeWords(text) {
		if !capitalised(w) || w == "I" || strings.HasPrefix(w, "I'") {
			continue
		}
		if i > 0 {
			return true
		}
		lw := strings.ToLower(w)
		tb := vectors.Load()
		if strings.ContainsRune(lw, '\'') || strings.HasSuffix(lw, "ly") || strings.HasSuffix(lw, "ed") || strings.HasSuffix(lw, "ing") {
			continue // "Honestly …", "Booked …", "Guessing …": no name
		}
		if r, ok := tb.Lookup(lw); !ok || tb.Rank(r) >= bareNameRank {
			return true
		}
	}
	return false
}
