package engine

import (
	"sync/atomic"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/memory"
)

// Token counts of the lines packing renders, kept on the entry. Packing
// measures every candidate it considers, with the turns shown around it
// (about fifty a retrieval, ten of which fit), and counting each window's
// text again was half of a first-person retrieval's time.
//
// A count may be summed line by line: the counter splits text into the
// pieces of cl100k_base's pattern and adds their counts, and a piece never
// runs past a line's closing newline into a next line that opens on
// neither '\r' nor '\n' (every line here opens on "- " or "  "). So the
// count of a window is the sum of its lines' counts. Text that is not valid
// UTF-8 is counted whole by the counter, so it is not summed.

// The counts are kept in the entry's index.Toks. A slot holds the count
// plus one, negated when the line is not valid UTF-8 (so not summable);
// zero is not counted yet: Line is line(v, w) for a view that shows v as it
// is, NearSameDay a neighbourLine beside a hit of the same date,
// NearOtherDate one beside a hit of another date.

// cachedCount returns the count of render()'s text, counted into slot the
// first time, and whether the text may be summed with others.
func (e *Engine) cachedCount(slot *atomic.Int32, render func() string) (int, bool) {
	if n := slot.Load(); n != 0 {
		if n < 0 {
			return int(-n) - 1, false
		}
		return int(n) - 1, true
	}
	s := render()
	n, ok := e.counter.Count(s), utf8.ValidString(s)
	if ok {
		slot.Store(int32(n) + 1)
	} else {
		slot.Store(-int32(n) - 1)
	}
	return n, ok
}

// lineTokens is e.counter.Count(line(en.V, w)), and whether it may be
// summed with other lines.
func (e *Engine) lineTokens(en *entry, w view) (int, bool) {
	if en.V.Status == memory.StatusContested || w.history(en.V) {
		// The line carries a note that depends on the view: count it.
		s := line(en.V, w)
		return e.counter.Count(s), utf8.ValidString(s)
	}
	return e.cachedCount(&en.Toks.Line, func() string { return line(en.V, w) })
}

// neighbourTokens is e.counter.Count(neighbourLine(en.V, hit)), and whether
// it may be summed with other lines.
func (e *Engine) neighbourTokens(en *entry, hit *memory.Version) (int, bool) {
	slot := &en.Toks.NearOtherDate
	if sameDate(en.V, hit) {
		slot = &en.Toks.NearSameDay
	}
	return e.cachedCount(slot, func() string { return neighbourLine(en.V, hit) })
}

// contextTokens is e.counter.Count(contextLines(c, w)), summed from the
// lines' cached counts.
func (e *Engine) contextTokens(c *scored, w view) int {
	var n int
	var ok bool
	if len(c.before) == 0 {
		n, ok = e.lineTokens(c.en, w)
	} else {
		// The window's first turn opens the item, the hit follows it
		// (contextLines).
		first := c.before[len(c.before)-1]
		n, ok = e.lineTokens(first, w)
		k, summable := e.neighbourTokens(c.en, first.V)
		if note(c.en.V, w) != "" {
			k, summable = 0, false
		}
		n, ok = n+k, ok && summable
		for _, en := range c.before[:len(c.before)-1] {
			k, summable := e.neighbourTokens(en, c.en.V)
			n, ok = n+k, ok && summable
		}
	}
	for _, en := range c.after {
		k, summable := e.neighbourTokens(en, c.en.V)
		n, ok = n+k, ok && summable
	}
	if !ok {
		return e.counter.Count(contextLines(c, w))
	}
	return n
}

// sameDate reports whether neighbourLine leaves v's date out beside hit.
func sameDate(v, hit *memory.Version) bool {
	y, m, d := v.ObservedAt.Date()
	return y == hit.ObservedAt.Year() && m == hit.ObservedAt.Month() && d == hit.ObservedAt.Day()
}
