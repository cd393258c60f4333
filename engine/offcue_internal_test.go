package engine

import (
	"slices"
	"testing"

	"github.com/mnemon-dev/mnemon/search"
)

// A casual quit said with "off" names what was given up; a trip, time
// off, a phrase or a switch that is off names nothing.
func TestOffQuits(t *testing.T) {
	t.Parallel()
	an := search.NewAnalyzer()
	for _, tc := range []struct {
		text string
		want string // the term of what was given up; "" for none
	}{
		{"I'm off caffeine, rooibos instead", "caffeine"},
		{"im off sugar these days", "sugar"},
		{"went off dairy a while back, oat milk instead", "dairy"},
		{"I've been off Instagram since the spring", "instagram"},
		{"gone off lager, it's all cider now", "lager"},
		{"I’m totally off crisps", "crisps"},
		{"we're off meat on weekdays", "meat"},
		{"got off Facebook last year", "facebook"},
		{"I'm off to Glasgow on the sleeper", ""},
		{"I'm off work today with a cold", ""},
		{"I'm off on Thursday, back Monday", ""},
		{"off the top of my head I'd say forty", ""},
		{"the hallway lights are off", ""},
		{"I'm off sick this week", ""},
		{"my cousin is off gluten", ""},
		{"I'm going to go off bread next month", ""},
		{"I'm off", ""},
		{"turned the heating off", ""},
	} {
		got := offQuits(tc.text, an)
		if tc.want == "" {
			if len(got) != 0 {
				t.Errorf("%q: offQuits = %v, want none", tc.text, got)
			}
			continue
		}
		want := an.QueryTerms(tc.want)
		if len(want) == 0 || !slices.Contains(got, want[0]) {
			t.Errorf("%q: offQuits = %v, want %v", tc.text, got, want)
		}
	}
}
