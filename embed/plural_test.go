package embed

import (
	"slices"
	"testing"

	"github.com/mnemon-dev/mnemon/search"
)

// A kind named in the plural after a word that opens a noun phrase asks
// for a set; a verb's -s, a singular, or a kind after a question's verb do
// not.
func TestPluralHeads(t *testing.T) {
	t.Parallel()
	an := search.NewAnalyzer()
	for _, c := range []struct {
		text string
		want []string
	}{
		{"which towns and cities did Odile pass through?", []string{"city"}},
		{"what Baltic countries has he lived in?", []string{"country"}},
		{"what does she get up to on weekends?", []string{"weekend"}},
		{"any pets at home?", []string{"pet"}},
		{"her favourite books, and his games", []string{"book", "game"}},
		{"what is the city she grew up in?", nil},   // singular
		{"she writes books for kids", nil},          // no opener before
		{"who supports him through exams?", nil},    // a verb's -s
		{"what does Odile do at the weekend?", nil}, // singular
		{"what is it that books teach?", nil},       // a verb ends the phrase
	} {
		if got := PluralHeads(an, c.text); !slices.Equal(got, c.want) {
			t.Errorf("PluralHeads(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// Members are the stems of a kind's words not already asked for.
func TestMembers(t *testing.T) {
	t.Parallel()
	got := Members([]string{"weekend"}, []string{"weekend"})
	if !slices.Equal(got, []string{"saturdai", "sundai"}) && !slices.Equal(got, []string{"saturday", "sunday"}) {
		t.Errorf("Members(weekend) = %q, want the stems of saturday and sunday", got)
	}
	if got := Members([]string{"city"}, nil); !slices.Contains(got, "lisbon") || !slices.IsSorted(got) {
		t.Errorf("Members(city) = %q: want sorted stems holding lisbon", got)
	}
	if got := Members(nil, []string{"city"}); got != nil {
		t.Errorf("Members(nil) = %q, want nil", got)
	}
}
