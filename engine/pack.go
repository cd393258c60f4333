package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/memory"
)

// Sections of a context pack, in the order they are rendered.
var sections = []string{"Constraints", "Preferences", "Facts", "Decisions", "Procedures", "Episodes"}

func sectionOf(v *memory.Version) string {
	if v.Kind == memory.KindEpisodic {
		return "Episodes"
	}
	switch v.Type {
	case memory.TypeConstraint:
		return "Constraints"
	case memory.TypePreference:
		return "Preferences"
	case memory.TypeDecision:
		return "Decisions"
	case memory.TypeProcedure:
		return "Procedures"
	}
	return "Facts"
}

// view is the time a retrieval looks from: valid time (AsOf: what was
// true then) and record time (KnownAt: what mnemon held then).
type view struct {
	asOf, knownAt *time.Time
	ended         map[string]time.Time // see RetrieveParams.ended
}

func viewOf(p RetrieveParams) view { return view{asOf: p.AsOf, knownAt: p.KnownAt, ended: p.ended} }

// endedAt is when history version v stopped being current (record time).
func (w view) endedAt(v *memory.Version) time.Time {
	if t, ok := w.ended[v.ID]; ok {
		return t
	}
	return v.UpdatedAt
}

// currentThen reports whether a version that is history now was the
// current value from the view: true at AsOf, or not yet superseded or
// expired at KnownAt.
func (w view) currentThen(v *memory.Version) bool {
	if !v.Status.History() {
		return false
	}
	if w.knownAt != nil && !w.endedAt(v).After(*w.knownAt) {
		return false // already history then
	}
	if w.asOf != nil {
		return v.ValidAt(*w.asOf)
	}
	return w.knownAt != nil
}

// history reports whether v is shown as history: superseded or expired,
// unless the retrieval looks from a time at which it was current.
func (w view) history(v *memory.Version) bool {
	return v.Status.History() && !w.currentThen(v)
}

// line renders one item as it appears in the context.
func line(v *memory.Version, w view) string {
	var b strings.Builder
	b.WriteString("- ")
	if v.Kind == memory.KindEpisodic {
		b.WriteString("[")
		b.WriteString(v.ObservedAt.Format("2006-01-02 15:04"))
		b.WriteString("] ")
		if !saysSpeaker(v) {
			b.WriteString(v.Subject)
			b.WriteString(": ")
		}
	}
	b.WriteString(strings.TrimSpace(v.Content))
	switch {
	case v.Status == memory.StatusContested:
		b.WriteString(" (contested)")
	case w.history(v) && v.ValidTo != nil:
		b.WriteString(" (history, until " + v.ValidTo.Format("2006-01-02") + ")")
	case w.history(v):
		b.WriteString(" (history)")
	}
	b.WriteString("\n")
	return b.String()
}

// saysSpeaker reports whether an episode's content already opens with its
// speaker ("Caroline: ..."), as transcripts do: the line need not repeat it.
func saysSpeaker(v *memory.Version) bool {
	name, _, ok := strings.Cut(v.Content, ":")
	return ok && v.Subject != "" && strings.EqualFold(strings.TrimSpace(name), v.Subject)
}

func header(section string) string { return section + ":\n" }

// pack chooses what goes into the context: up to CriticalMax must_include
// memories first, on their reserved share of the budget (the most relevant
// one on the whole budget, so it survives tiny budgets), then the rest
// greedily in rank order. The rendered context never exceeds the budget.
func (e *Engine) pack(st *nsState, keep func(string) bool, cands []*scored, p RetrieveParams, r Ranking) (string, int) {
	budget := p.TokenBudget
	reserve := int(r.CriticalShare * float64(budget))
	used, packed := 0, 0
	opened := make(map[string]bool)
	var shown map[string]bool // with context: episodes already in the pack
	if p.Context > 0 {
		shown = make(map[string]bool)
	}

	cost := func(c *scored) int {
		if shown != nil && c.en.V.Kind == memory.KindEpisodic {
			// The window depends on what is already shown: measure it now.
			nb, na := window(c.en.V, packed, shareOfBest(c, cands), p.Context)
			st.RLock()
			c.before, c.after = st.NeighboursLocked(c.en.V, nb, na, ContextGap, keep, shown)
			st.RUnlock()
			c.lineToks = e.contextTokens(c, viewOf(p))
		} else if c.lineToks == 0 {
			c.lineToks, _ = e.lineTokens(c.en, viewOf(p))
		}
		n := c.lineToks
		if s := sectionOf(c.en.V); !opened[s] {
			n += e.counter.Count(header(s))
		}
		return n
	}
	// Texts already packed: the same words said in three sessions take one
	// line, not three, citing all three. Only episodes are skipped so; a
	// fact of the same words says more (its validity, its status), and
	// liftRepeatingFacts ranked it at the turn's place.
	said := make(map[uint64]*scored)
	take := func(c *scored, n int, reason string) {
		c.packed, c.reason = true, reason
		if k := sameText(c.en.V.Content); said[k] == nil {
			said[k] = c
		}
		used += n
		packed++
		opened[sectionOf(c.en.V)] = true
		if shown != nil {
			shown[c.en.V.ID] = true
			for _, en := range c.before {
				shown[en.V.ID] = true
			}
			for _, en := range c.after {
				shown[en.V.ID] = true
			}
		}
	}

	// must_include memories are packed on top of the limit: a caller asking
	// for one item still gets its constraints, and still gets its item.
	critical := 0
	for _, c := range cands {
		v := c.en.V
		if critical == r.CriticalMax {
			break
		}
		if v.Criticality != memory.CriticalityMustInclude || !v.Status.Live() || c.action == memory.ActionIgnore {
			continue
		}
		n := cost(c)
		if used+n <= reserve || (critical == 0 && used+n <= budget) {
			take(c, n, "critical reservation")
			packed-- // not counted against the limit
			critical++
		}
	}
	for _, c := range cands {
		if c.packed {
			continue
		}
		if c.action == memory.ActionIgnore {
			c.reason = fmt.Sprintf("trust %.2f below %.2f", c.trust, r.HintAt)
			continue
		}
		if packed == p.Limit {
			c.reason = "limit reached"
			continue
		}
		if shown[c.en.V.ID] {
			c.reason = "shown as context of another item"
			continue
		}
		if first := said[sameText(c.en.V.Content)]; first != nil && c.en.V.Kind == memory.KindEpisodic {
			c.reason = "same text as " + first.en.V.MemoryID + ", packed: cited there"
			first.alsoSaid = append(first.alsoSaid, c.en.V.EvidenceEpisodeIDs...)
			continue
		}
		n := cost(c)
		if used+n > budget {
			c.reason = fmt.Sprintf("does not fit: needs %d tokens, %d left", n, budget-used)
			continue
		}
		take(c, n, "ranked")
	}

	// Token counts of pieces are not strictly additive under BPE: count
	// the real context and drop from the bottom until it fits.
	for {
		text := render(cands, viewOf(p))
		n := e.counter.Count(text)
		if n <= budget {
			return text, n
		}
		last := -1
		for i := len(cands) - 1; i >= 0; i-- {
			if cands[i].packed {
				last = i
				break
			}
		}
		if last < 0 {
			return "", 0
		}
		cands[last].packed = false
		cands[last].reason = "does not fit once rendered"
	}
}

// shareOfBest is c's score as a share of the best candidate's (cands are
// in rank order); 1 when the best scores nothing, so that nothing is
// judged against it.
func shareOfBest(c *scored, cands []*scored) float64 {
	if best := cands[0].final; best > 0 {
		return c.final / best
	}
	return 1
}

// sameText is a key under which two contents read the same: case and
// spacing aside. It hashes instead of building the normalised string, so a
// retrieval that compares hundreds of candidates allocates nothing for it,
// and reads ASCII a byte at a time (the common case).
func sameText(s string) uint64 {
	h := uint64(textOffset)
	space, started := false, false
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= utf8.RuneSelf {
			return sameTextRunes(s)
		}
		switch b {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			space = started
			continue
		}
		if space {
			h = (h ^ ' ') * textPrime
			space = false
		}
		started = true
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		h = (h ^ uint64(b)) * textPrime
	}
	return h
}

// FNV-1a's constants.
const textOffset, textPrime = 14695981039346656037, 1099511628211

// sameTextRunes is sameText for text beyond ASCII; on ASCII it gives the
// same key.
func sameTextRunes(s string) uint64 {
	h := uint64(textOffset)
	space, started := false, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = started
			continue
		}
		if space {
			h = (h ^ ' ') * textPrime
			space = false
		}
		started = true
		r = unicode.ToLower(r)
		for r > 0 {
			h = (h ^ uint64(r&0xff)) * textPrime
			r >>= 8
		}
	}
	return h
}

// render writes the packed candidates as sections, each in rank order.
func render(cands []*scored, w view) string {
	by := make(map[string][]*scored)
	for _, c := range cands {
		if c.packed {
			s := sectionOf(c.en.V)
			by[s] = append(by[s], c)
		}
	}
	var b strings.Builder
	for _, s := range sections {
		if len(by[s]) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(header(s))
		for _, c := range by[s] {
			if len(c.before)+len(c.after) > 0 {
				b.WriteString(contextLines(c, w))
				continue
			}
			b.WriteString(line(c.en.V, w))
		}
	}
	return b.String()
}

// item turns a packed candidate into a result item with its explanation.
func (e *Engine) item(st *nsState, c *scored, qterms []string, w view) Item {
	v := c.en.V
	it := Item{
		MemoryID: v.MemoryID, VersionID: v.ID, Seq: v.Seq, Kind: v.Kind, Type: v.Type,
		Subject: v.Subject, Key: v.Key, Value: v.Value, Content: v.Content, Status: v.Status,
		Section: sectionOf(v), Score: c.final, Tokens: c.lineToks, Trust: c.trust, Uncertainty: uncertaintyOf(v), Action: c.action,
		EpisodeIDs: v.EvidenceEpisodeIDs, Channels: c.channels.Map(), Terms: c.terms.Map(),
		ObservedAt: v.ObservedAt, ValidFrom: v.ValidFrom, ValidTo: v.ValidTo,
	}
	ctx := contextOf(c)
	if ctx != nil || len(c.alsoSaid) > 0 {
		it.Context = ctx
		it.EpisodeIDs = slices.Clone(v.EvidenceEpisodeIDs)
		for _, l := range ctx {
			if l.EpisodeID != "" {
				it.EpisodeIDs = append(it.EpisodeIDs, l.EpisodeID)
			}
		}
		for _, id := range c.alsoSaid {
			if !slices.Contains(it.EpisodeIDs, id) {
				it.EpisodeIDs = append(it.EpisodeIDs, id)
			}
		}
	}
	if w.currentThen(v) {
		// From the time asked about, this was the current value.
		it.Status = memory.StatusActive
	}
	it.Explanation = e.explain(st, c, qterms, w)
	return it
}

// explain says, in one paragraph, which channels found a memory, what
// dominated, how the score was built and why it was packed.
func (e *Engine) explain(st *nsState, c *scored, qterms []string, w view) string {
	v := c.en.V
	var parts []string
	for _, name := range Channels {
		h, ok := c.channels.Get(name)
		if !ok {
			continue
		}
		var detail string
		switch name {
		case ChannelLexical:
			ts := st.ExplainLexical(v.ID, qterms)
			if len(ts) > 3 {
				ts = ts[:3]
			}
			words := make([]string, len(ts))
			for i, t := range ts {
				words[i] = fmt.Sprintf("%s %.2f", t.Term, t.Score)
			}
			detail = fmt.Sprintf("bm25 %.2f", h.Score)
			if len(words) > 0 {
				detail += ": " + strings.Join(words, ", ")
			}
		case ChannelSemantic:
			detail = fmt.Sprintf("cosine %.2f", h.Score)
		case ChannelStructured:
			detail = "key " + v.Key
			if v.Kind == memory.KindEpisodic {
				// An episode matches by its speaker and the keys its facts lent it.
				detail = "speaker and lent keys: " + strings.Join(c.en.KeyTerms, " ")
			}
		case ChannelCritical:
			detail = "must_include"
		case ChannelRecent:
			detail = "recent episode"
			if len(c.channels) == 1 {
				detail += "; newness alone adds no relevance"
			}
		case ChannelGraph:
			detail = "claim " + v.Subject + " " + index.KeyWords(v.Key) + " " + v.Value
		}
		parts = append(parts, fmt.Sprintf("%s #%d (%s)", name, h.Rank, detail))
	}
	var b strings.Builder
	b.WriteString("found by ")
	b.WriteString(strings.Join(parts, ", "))
	fmt.Fprintf(&b, "; fused %.3f", c.fused)
	for _, t := range c.terms {
		fmt.Fprintf(&b, " %+.3f %s", t.Value, t.Name)
	}
	fmt.Fprintf(&b, " = %.3f; %s (trust %.2f, uncertainty %.2f); %s in %s, %d tokens", c.final, c.action, c.trust, uncertaintyOf(v), c.reason, sectionOf(v), c.lineToks)
	switch {
	case v.Status == memory.StatusContested:
		b.WriteString("; contested: another value of this memory is also held")
	case w.history(v):
		b.WriteString("; history: no longer current")
	case w.currentThen(v) && w.asOf != nil:
		fmt.Fprintf(&b, "; current as of %s (later %s)", w.asOf.Format(time.RFC3339), v.Status)
	case w.currentThen(v):
		fmt.Fprintf(&b, "; current as known at %s (later %s)", w.knownAt.Format(time.RFC3339), v.Status)
	}
	return b.String()
}
