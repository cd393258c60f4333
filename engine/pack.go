package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/memory"
)

// Sections of a context pack, in the order they are rendered.
var sections = [...]string{"Constraints", "Preferences", "Facts", "Decisions", "Procedures", "Episodes"}

// sectionIndex is the place of sectionOf(v) in sections.
func sectionIndex(v *memory.Version) int {
	s := sectionOf(v)
	for i, name := range sections {
		if name == s {
			return i
		}
	}
	panic("engine: section " + s + " is not in sections")
}

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
	b.Grow(len(v.Content) + 32)
	writeLine(&b, v, w)
	return b.String()
}

// writeLine writes line(v, w) to b.
func writeLine(b *strings.Builder, v *memory.Version, w view) {
	b.WriteString("- ")
	if v.Kind == memory.KindEpisodic {
		b.WriteString("[")
		writeMinute(b, v.ObservedAt)
		b.WriteString("] ")
		if !saysSpeaker(v) {
			b.WriteString(v.Subject)
			b.WriteString(": ")
		}
	}
	b.WriteString(strings.TrimSpace(v.Content))
	b.WriteString(note(v, w))
	b.WriteString("\n")
}

// writeMinute writes t as "2006-01-02 15:04", without a string between.
func writeMinute(b *strings.Builder, t time.Time) {
	var buf [32]byte
	b.Write(t.AppendFormat(buf[:0], "2006-01-02 15:04"))
}

// note is what a line adds after an item's text for the view: whether it
// is contested, or history.
func note(v *memory.Version, w view) string {
	switch {
	case v.Status == memory.StatusContested:
		return " (contested)"
	case w.history(v) && v.ValidTo != nil:
		return " (history, until " + v.ValidTo.Format("2006-01-02") + ")"
	case w.history(v):
		return " (history)"
	}
	return ""
}

// saysSpeaker reports whether an episode's content already opens with its
// speaker ("Rosalind: ..."), as transcripts do: the line need not repeat it.
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
	ref := 0.0                // the score windows are judged against (shareOfBest)
	if p.Context > 0 {
		shown = make(map[string]bool)
		ref = confidenceReference(cands)
	}

	// cost measures c as it would be packed: an episode with its window
	// of neighbours unless alone.
	costAs := func(c *scored, alone bool) int {
		if shown != nil && c.en.V.Kind == memory.KindEpisodic {
			c.before, c.after = nil, nil
			if !alone {
				// The window depends on what is already shown: measure it now.
				nb, na := window(c.en.V, packed, shareOfBest(c, ref), p.Context)
				st.RLock()
				c.before, c.after = st.NeighboursLocked(c.en.V, nb, na, ContextGap, keep, shown)
				st.RUnlock()
			}
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
	cost := func(c *scored) int { return costAs(c, false) }
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
		if used+n > budget && (len(c.before) > 0 || len(c.after) > 0) {
			// Its window does not fit: the episode alone may. A tight
			// budget holds more hits this way than whole windows.
			n = costAs(c, true)
		}
		if used+n > budget {
			c.reason = fmt.Sprintf("does not fit: needs %d tokens, %d left", n, budget-used)
			continue
		}
		take(c, n, "ranked")
	}

	// What packing added up leaves out the blank lines between sections:
	// take the rendered context's exact count (renderedTokens) and drop
	// from the bottom until it fits.
	for {
		text := render(cands, viewOf(p))
		n := e.renderedTokens(cands, text, viewOf(p))
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

// renderedTokens is e.counter.Count(text), text being render(cands, w),
// summed from the counts packing kept of each packed candidate's lines
// (c.lineToks) rather than counted again: counting the whole context was
// a twentieth of a search's CPU.
//
// The sum is exact (see linetoks.go): a piece of the counter's pattern
// never runs past a line's closing newline into a line that opens on
// another character, and every line and section header opens on one. The
// one join that is no such boundary is a section's last line and the
// blank line before the next section's header ("...\n" "\n"): the last
// piece of the line, its closing newline (after punctuation, with it),
// takes the blank line's newline as well, so that join is counted as it
// is, from the line alone. Text that is not valid UTF-8 is counted whole
// by the counter, so then the whole is counted.
func (e *Engine) renderedTokens(cands []*scored, text string, w view) int {
	if !utf8.ValidString(text) {
		return e.counter.Count(text)
	}
	var last [len(sections)]*scored // each section's last packed candidate
	n := 0
	for _, c := range cands {
		if c.packed {
			last[sectionIndex(c.en.V)] = c
			n += c.lineToks
		}
	}
	final := -1
	for i, c := range last {
		if c != nil {
			n += e.counter.Count(header(sections[i]))
			final = i
		}
	}
	for _, c := range last[:max(final, 0)] {
		if c == nil {
			continue
		}
		// The section's last line, as render writes it.
		var l string
		if k := len(c.after); k > 0 {
			l = neighbourLine(c.after[k-1].V, c.en.V)
		} else {
			l = line(c.en.V, w)
		}
		n += e.counter.Count(l+"\n") - e.counter.Count(l)
	}
	return n
}

// shareOfBest is c's score as a share of ref, the best candidate's
// (confidenceReference); 1 when the best scores nothing, so that nothing
// is judged against it.
func shareOfBest(c *scored, ref float64) float64 {
	if ref > 0 {
		return c.final / ref
	}
	return 1
}

// confidenceReference is the score a window is judged against: the best
// candidate's (cands are in rank order), counting a fact marked down as no
// answer to a question about a happening (event_attitude) at its score
// before that mark. The mark says what kind of item answers, not how well
// the question's words and meaning were matched, and the share is a
// measure of the latter: without this, "Ida likes boats." marked down for
// "when did Ida sell the boat?" would open a window for every weak turn.
func confidenceReference(cands []*scored) float64 {
	if len(cands) == 0 {
		return 0
	}
	ref := cands[0].final
	for _, c := range cands {
		for _, t := range c.terms {
			if t.Name == "event_attitude" && c.final-t.Value > ref {
				ref = c.final - t.Value
			}
		}
	}
	return ref
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
	size := 0
	for _, c := range cands {
		if c.packed {
			s := sectionOf(c.en.V)
			by[s] = append(by[s], c)
			size += len(c.en.V.Content) + 32
			for _, en := range c.before {
				size += len(en.V.Content) + 32
			}
			for _, en := range c.after {
				size += len(en.V.Content) + 32
			}
		}
	}
	var b strings.Builder
	b.Grow(size + 16*len(by))
	for _, s := range sections {
		if len(by[s]) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s)
		b.WriteString(":\n") // header(s)
		for _, c := range by[s] {
			if len(c.before)+len(c.after) > 0 {
				writeContextLines(&b, c, w)
				continue
			}
			writeLine(&b, c.en.V, w)
		}
	}
	return b.String()
}

// item turns a packed candidate into a result item with its explanation.
func (e *Engine) item(st *nsState, c *scored, qterms, members []string, w view) Item {
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
	it.Explanation = e.explain(st, c, qterms, members, w)
	return it
}

// explain says, in one paragraph, which channels found a memory, what
// dominated, how the score was built and why it was packed. It builds the
// text with appends into one buffer (fmt cost most of an item's time); the
// text is byte for byte what the fmt formats in explainFmt (the internal
// test) give.
func (e *Engine) explain(st *nsState, c *scored, qterms, members []string, w view) string {
	v := c.en.V
	b := make([]byte, 0, 256)
	b = append(b, "found by "...)
	first := true
	for _, name := range Channels {
		h, ok := c.channels.Get(name)
		if !ok {
			continue
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		b = append(b, name...)
		b = append(b, " #"...)
		b = strconv.AppendInt(b, int64(h.Rank), 10)
		b = append(b, " ("...)
		switch name {
		case ChannelLexical:
			b = append(b, "bm25 "...)
			b = strconv.AppendFloat(b, h.Score, 'f', 2, 64)
			ts := st.ExplainLexical(v.ID, qterms)
			for i, t := range ts[:min(len(ts), 3)] {
				if i == 0 {
					b = append(b, ": "...)
				} else {
					b = append(b, ", "...)
				}
				b = append(b, t.Term...)
				b = append(b, ' ')
				b = strconv.AppendFloat(b, t.Score, 'f', 2, 64)
			}
			if ms := st.ExplainLexical(v.ID, members); len(ms) > 0 {
				// One of a kind the question names in the plural.
				best := ms[0]
				for _, m := range ms[1:] {
					if m.Score > best.Score {
						best = m
					}
				}
				b = append(b, "; one of the kind asked for: "...)
				b = append(b, best.Term...)
			}
		case ChannelSemantic:
			b = append(b, "cosine "...)
			b = strconv.AppendFloat(b, h.Score, 'f', 2, 64)
		case ChannelStructured:
			if v.Kind == memory.KindEpisodic {
				// An episode matches by its speaker and the keys its facts lent it.
				b = append(b, "speaker and lent keys: "...)
				for i, k := range c.en.KeyTerms {
					if i > 0 {
						b = append(b, ' ')
					}
					b = append(b, k...)
				}
			} else {
				b = append(b, "key "...)
				b = append(b, v.Key...)
			}
		case ChannelCritical:
			b = append(b, "must_include"...)
		case ChannelRecent:
			b = append(b, "recent episode"...)
			if len(c.channels) == 1 {
				b = append(b, "; newness alone adds no relevance"...)
			}
		case ChannelGraph:
			b = append(b, "claim "...)
			b = append(b, v.Subject...)
			b = append(b, ' ')
			b = append(b, index.KeyWords(v.Key)...)
			b = append(b, ' ')
			b = append(b, v.Value...)
		}
		b = append(b, ')')
	}
	if first && c.via != "" {
		b = append(b, c.via...)
	}
	b = append(b, "; fused "...)
	b = strconv.AppendFloat(b, c.fused, 'f', 3, 64)
	for _, t := range c.terms {
		b = append(b, ' ')
		b = appendSigned(b, t.Value, 3)
		b = append(b, ' ')
		b = append(b, t.Name...)
	}
	b = append(b, " = "...)
	b = strconv.AppendFloat(b, c.final, 'f', 3, 64)
	b = append(b, "; "...)
	b = append(b, c.action...)
	b = append(b, " (trust "...)
	b = strconv.AppendFloat(b, c.trust, 'f', 2, 64)
	b = append(b, ", uncertainty "...)
	b = strconv.AppendFloat(b, uncertaintyOf(v), 'f', 2, 64)
	b = append(b, "); "...)
	b = append(b, c.reason...)
	b = append(b, " in "...)
	b = append(b, sectionOf(v)...)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(c.lineToks), 10)
	b = append(b, " tokens"...)
	switch {
	case v.Status == memory.StatusContested:
		b = append(b, "; contested: another value is also held, or a later statement says it changed"...)
	case w.history(v):
		b = append(b, "; history: no longer current"...)
	case w.currentThen(v) && w.asOf != nil:
		b = append(b, "; current as of "...)
		b = w.asOf.AppendFormat(b, time.RFC3339)
		b = append(b, " (later "...)
		b = append(b, v.Status...)
		b = append(b, ')')
	case w.currentThen(v):
		b = append(b, "; current as known at "...)
		b = w.knownAt.AppendFormat(b, time.RFC3339)
		b = append(b, " (later "...)
		b = append(b, v.Status...)
		b = append(b, ')')
	}
	return string(b)
}

// appendSigned appends x with prec decimals and always a sign, as fmt's
// %+.Nf writes it ("+0.020", "-0.100", "+NaN", "+Inf").
func appendSigned(b []byte, x float64, prec int) []byte {
	n := len(b)
	b = strconv.AppendFloat(b, x, 'f', prec, 64)
	if c := b[n]; c != '-' && c != '+' {
		b = append(b, 0)
		copy(b[n+1:], b[n:])
		b[n] = '+'
	}
	return b
}
