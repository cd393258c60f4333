package engine

import (
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// Conversation context: an episode retrieved alone is often half of an
// exchange ("Yes, last Saturday!" answers the turn before it). With
// RetrieveParams.Context = n, a packed episode the ranking is confident of
// (among the ContextFirst best-ranked items, or scoring at least
// ContextShare of the best item's score) brings up to n episodes before
// and after it from the same conversation (same scope, each within
// ContextGap of the next), rendered around it and cited by its item; any
// episode that asks a question also brings the turn after its window,
// where the answer is. Turns already in the context are not shown twice: a
// later hit inside an earlier window is skipped, and overlapping windows
// share their lines.
//
// Why not every episode: neighbours are paid for in tokens, and they pay
// where the hit is nearly as good as the best. On LoCoMo's dev split two
// turns either side of those episodes, and none for the rest, find more
// evidence (recall_all@10 0.759) at fewer tokens (a median of about 1,050
// for ten items) than one turn either side of all ten (0.686 at 1,094);
// see docs/benchmarks/locomo.md.

// MaxContext caps RetrieveParams.Context.
const MaxContext = 3

// DefaultContext is the neighbouring turns either side of a confident
// episode when neither the call nor Config.Context says otherwise. Facts
// and summaries never bring neighbours.
const DefaultContext = 2

// ContextFirst is how many of the best-ranked packed items show their
// episode's window whatever their score.
const ContextFirst = 2

// ContextShare is the share of the best item's score from which a packed
// episode shows its window.
const ContextShare = 0.55

// ContextGap is the longest pause between two episodes of one
// conversation: a longer one starts another sitting.
const ContextGap = 30 * time.Minute

// ContextLine is a neighbouring episode shown with an item.
type ContextLine struct {
	EpisodeID  string    `json:"episode_id"`
	Speaker    string    `json:"speaker"`
	Content    string    `json:"content"`
	ObservedAt time.Time `json:"observed_at"`
	Before     bool      `json:"before"` // said before the item, else after
}

// window is how many turns before and after the episode v, packed as the
// rank-th item (from 0) with share of the best item's score (1 when the
// best scores nothing), are shown with it when the retrieval asks for n.
func window(v *memory.Version, rank int, share float64, n int) (before, after int) {
	if rank < ContextFirst || share >= ContextShare {
		before, after = n, n
	}
	if asksQuestion(v) {
		after++ // the reply
	}
	return before, after
}

// asksQuestion reports whether an episode ends in a question (a shared
// image's caption aside), so that the turn after it likely answers it.
func asksQuestion(v *memory.Version) bool {
	s := strings.TrimSpace(v.Content)
	if i := strings.LastIndex(s, " ["); i > 0 && strings.HasSuffix(s, "]") {
		s = strings.TrimSpace(s[:i])
	}
	return strings.HasSuffix(s, "?")
}

// contextLines renders an episode with its neighbours, in time order, as
// one item: the first line opens the item's bullet, the rest are indented
// under it. Turns said before the hit open it, so they cannot read as the
// end of the item above (an indented line continues the bullet before it).
func contextLines(c *scored, w view) string {
	var b strings.Builder
	writeContextLines(&b, c, w)
	return b.String()
}

// writeContextLines writes contextLines(c, w) to b.
func writeContextLines(b *strings.Builder, c *scored, w view) {
	if n := len(c.before); n > 0 {
		first := c.before[n-1].V
		writeLine(b, first, w)
		for i := n - 2; i >= 0; i-- {
			writeNeighbourLine(b, c.before[i].V, c.en.V)
		}
		writeHitInWindow(b, c.en.V, first, w)
	} else {
		writeLine(b, c.en.V, w)
	}
	for _, en := range c.after {
		writeNeighbourLine(b, en.V, c.en.V)
	}
}

// writeHitInWindow renders the hit under the turn that opens its window,
// as a neighbour of that turn, with its line's note for the view.
func writeHitInWindow(b *strings.Builder, v, first *memory.Version, w view) {
	writeNeighbour(b, v, first)
	b.WriteString(note(v, w))
	b.WriteString("\n")
}

// neighbourLine renders a neighbour indented under its hit. Its time is
// left out when it falls on the hit's date: it is within ContextGap of the
// hit, its place in the lines says when it was said, and the context costs
// tokens (the time of day was five of about forty for a turn).
func neighbourLine(v, hit *memory.Version) string {
	var b strings.Builder
	b.Grow(len(v.Content) + 32)
	writeNeighbourLine(&b, v, hit)
	return b.String()
}

// writeNeighbourLine writes neighbourLine(v, hit) to b.
func writeNeighbourLine(b *strings.Builder, v, hit *memory.Version) {
	writeNeighbour(b, v, hit)
	b.WriteString("\n")
}

// writeNeighbour writes neighbourLine(v, hit) without its newline.
func writeNeighbour(b *strings.Builder, v, hit *memory.Version) {
	b.WriteString("  ")
	if y, m, d := v.ObservedAt.Date(); y != hit.ObservedAt.Year() || m != hit.ObservedAt.Month() || d != hit.ObservedAt.Day() {
		b.WriteString("[")
		writeMinute(b, v.ObservedAt)
		b.WriteString("] ")
	}
	if !saysSpeaker(v) {
		b.WriteString(v.Subject)
		b.WriteString(": ")
	}
	b.WriteString(strings.TrimSpace(v.Content))
}

// contextOf lists an item's neighbours for the caller, in time order.
func contextOf(c *scored) []ContextLine {
	if len(c.before)+len(c.after) == 0 {
		return nil
	}
	out := make([]ContextLine, 0, len(c.before)+len(c.after))
	add := func(en *entry, before bool) {
		var ep string
		if len(en.V.EvidenceEpisodeIDs) > 0 {
			ep = en.V.EvidenceEpisodeIDs[0]
		}
		out = append(out, ContextLine{EpisodeID: ep, Speaker: en.V.Subject, Content: en.V.Content, ObservedAt: en.V.ObservedAt, Before: before})
	}
	for i := len(c.before) - 1; i >= 0; i-- {
		add(c.before[i], true)
	}
	for _, en := range c.after {
		add(en, false)
	}
	return out
}
