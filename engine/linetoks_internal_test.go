package engine

import (
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/tokens"
	"github.com/mnemon-dev/mnemon/memory"
)

// The count packing sums from cached line counts is the count of the
// window's whole text, for contents whose edges could join pieces across
// lines: punctuation, digits, spaces, newlines inside, other scripts,
// contractions, text that is not UTF-8.
func TestContextTokensSumLines(t *testing.T) {
	t.Parallel()
	counter, err := tokens.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{counter: counter}
	day := time.Date(2026, 4, 9, 22, 50, 0, 0, time.UTC)
	contents := []string{
		"ok nice",
		"it's 1,140 now!!!",
		"Rosalind: saw the new place on Saturday...",
		"  padded and trailing   ",
		"two lines\nsecond one?\n\nthird",
		"ends in digits 2026",
		"'s odd opener",
		"emoji 🎉 and ümlauts, 東京",
		"",
		"price: $12.50;",
		"bad \xff byte",
		"tab\tseparated\tvalues\r",
	}
	mk := func(i int, at time.Time, status memory.Status) *entry {
		return &entry{V: &memory.Version{
			ID: "ver_" + string(rune('a'+i)), Kind: memory.KindEpisodic, Subject: []string{"user", "Rosalind", "assistant"}[i%3],
			Content: contents[i%len(contents)], ObservedAt: at, Status: status,
		}}
	}
	for i := range contents {
		for _, status := range []memory.Status{memory.StatusActive, memory.StatusContested, memory.StatusSuperseded} {
			hit := mk(i, day, status)
			c := &scored{en: hit}
			for k := 1; k <= 3; k++ {
				at := day.Add(time.Duration(k) * 30 * time.Minute) // the third is past midnight: another date
				c.after = append(c.after, mk(i+k, at, memory.StatusActive))
				c.before = append(c.before, mk(i+k+3, day.Add(-time.Duration(k)*time.Minute), memory.StatusActive))
			}
			for round := 0; round < 2; round++ { // counting, then cached
				want := counter.Count(contextLines(c, view{}))
				if got := e.contextTokens(c, view{}); got != want {
					t.Errorf("window of %q (%s), round %d: summed %d tokens, counted %d", hit.V.Content, status, round, got, want)
				}
				wantLine := counter.Count(line(hit.V, view{}))
				if got, _ := e.lineTokens(hit, view{}); got != wantLine {
					t.Errorf("line %q (%s), round %d: %d tokens, counted %d", hit.V.Content, status, round, got, wantLine)
				}
			}
		}
	}
}
