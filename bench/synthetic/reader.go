package synthetic

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Item is one piece of context a condition hands the reader, best first: a
// retrieved memory, or a turn of the conversation's tail (newest first).
type Item struct {
	Text string
	// Time is when the item's statement was made: a fact's valid-from
	// time, a turn's time.
	Time time.Time
	// Ended says the context marks the item as no longer current (a
	// superseded or expired fact). Raw turns never are.
	Ended bool
	// Unsettled says the context marks the item as contested: a hedged or
	// conflicting claim shown beside the settled one, not a value held.
	Unsettled bool
	// About is whom the context says the item is about, when it says so
	// (a memory's subject: "user", "wife", "priya"); "" when it does not
	// (a raw turn, an episode, whose subject is only its speaker).
	About string
	// Cites are the episodes the item rests on. The reader never looks at
	// them; they score recall.
	Cites []string
}

// readerEvidence is how many items naming a candidate the reader weighs
// for a previous value: enough to hold the current statement and the
// history before it, few enough that a stray mention far down the list
// does not count.
const readerEvidence = 5

// AskedAbout is the subject every question asks about: the person talking
// to the assistant, whom the engine's extractor calls "user".
const AskedAbout = "user"

// claim is one value an item says held at a time.
type claim struct {
	value string
	at    time.Time
	ended bool
	rank  int // of the item it came from
}

// Read answers a question from context by a fixed rule, the same in every
// condition. It sees what an agent would see (the question's kind, its
// candidate values and the items in the order given) and never the
// answer. It returns "" when the context supports no candidate.
//
// The rule:
//   - An item names candidates by whole words, case-insensitively. The one
//     named last is what the item says holds from its time on; candidates
//     named before it held until just before ("switched from X to Y").
//   - Items the context marks as unsettled (contested) are not read, nor
//     items it says are about someone other than the person asked about
//     ("The user's wife works at Hooli" for the user's employer).
//   - When some item naming a candidate is said to be about the person
//     asked (a memory about the user), items that do not say whom they
//     are about (raw turns, episodes) are not read: a turn like "Taylor
//     has been at Initech for ages" names a value without saying it is
//     the user's. Without such items (windows, episodes only) every turn
//     is read.
//   - Only the first readerEvidence items naming a candidate are read.
//   - Asked for the current value, the first item, in the order given,
//     that the context does not mark as ended decides it.
//   - Asked for the previous value, the newest claim not marked as ended
//     is the current one (a retrieval about the past ranks history first,
//     so order cannot say what is current), and the answer is the newest
//     claim older than it naming another value.
//   - If every item is marked ended, the newest claim is the current one.
func Read(asks Asks, candidates []string, items []Item) string {
	// When the context says of some item naming a candidate that it is
	// about the person asked, items that do not say whom they are about
	// (raw turns: "Taylor has been at Initech for ages") are not read.
	labelled := false
	for _, it := range items {
		if it.About == AskedAbout && !it.Unsettled && len(mentions(it.Text, candidates)) > 0 {
			labelled = true
			break
		}
	}
	var claims []claim
	evidence := 0
	for rank, it := range items {
		named := mentions(it.Text, candidates)
		if len(named) == 0 || it.Unsettled || it.About != "" && it.About != AskedAbout ||
			labelled && it.About == "" {
			continue
		}
		evidence++
		if evidence > readerEvidence {
			break
		}
		last := named[len(named)-1]
		claims = append(claims, claim{value: last, at: it.Time, ended: it.Ended, rank: rank})
		for i, v := range named[:len(named)-1] {
			at := it.Time.Add(-time.Duration(len(named)-1-i) * time.Nanosecond)
			claims = append(claims, claim{value: v, at: at, ended: true, rank: rank})
		}
	}
	if len(claims) == 0 {
		return ""
	}
	// The current value: for a question about now, the first item the
	// context does not mark as ended (the retrieval ranked it for the
	// present). For a question about the past the retrieval ranks history
	// first, so order says nothing about what is current: the newest claim
	// not marked as ended is.
	cur := -1
	for i, c := range claims {
		if c.ended {
			continue
		}
		if cur < 0 || asks == Previous && c.at.After(claims[cur].at) {
			cur = i
			if asks == Current {
				break
			}
		}
	}
	if cur < 0 {
		cur = 0
		for i, c := range claims {
			if c.at.After(claims[cur].at) {
				cur = i
			}
		}
	}
	if asks == Current {
		return claims[cur].value
	}
	prev := -1
	for i, c := range claims {
		if c.value == claims[cur].value || !c.at.Before(claims[cur].at) {
			continue
		}
		if prev < 0 || c.at.After(claims[prev].at) {
			prev = i
		}
	}
	if prev < 0 {
		return ""
	}
	return claims[prev].value
}

// mentions returns the candidates text names as whole words, ignoring
// case, in the order of their first mention. A candidate found only inside
// a longer one ("tea" in "green tea") is not named.
func mentions(text string, candidates []string) []string {
	lower := strings.ToLower(text)
	type span struct {
		v          string
		start, end int
	}
	var found []span
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if p := wordIndex(lower, lc); p >= 0 {
			found = append(found, span{c, p, p + len(lc)})
		}
	}
	var out []span
	for _, f := range found {
		inside := false
		for _, g := range found {
			if g.end-g.start > f.end-f.start && g.start <= f.start && f.end <= g.end {
				inside = true
			}
		}
		if !inside {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b span) int { return a.start - b.start })
	names := make([]string, len(out))
	for i, f := range out {
		names[i] = f.v
	}
	return names
}

// wordIndex returns the first index of word in s where it stands as whole
// words (not inside a longer word), or -1.
func wordIndex(s, word string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], word)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(word)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (i == 0 || !isWordRune(before)) && (end == len(s) || !isWordRune(after)) {
			return i
		}
		off = i + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
