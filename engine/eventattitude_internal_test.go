package engine

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// asksForEvent: a question opening on "when", or asking what someone did,
// asks about a happening, unless it asks for a taste, a wish or an aim.
func TestAsksForEvent(t *testing.T) {
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"When did Wren sell the kayak?", true},
		{"when is the plumber coming round?", true},
		{"Why did Ilse cancel the trip to the coast?", true},
		{"What did the twins bring back from the fair?", true},
		{"How did Wren feel after the race?", true},
		{"What does Wren love doing?", false},
		{"What did Ilse want to cook for the party?", false},
		{"When did Wren start to like jazz?", false},
		{"Which hobby is Wren's favourite?", false},
		{"Where does Ilse live?", false},
		{"how many dogs does Ilse have?", true},
		{"How long has Wren been rowing?", true},
		{"how much does Ilse love sailing?", false},
	} {
		if got := asksForEvent(lowerWords(c.q)); got != c.want {
			t.Errorf("asksForEvent(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

// The share that decides windows is judged against the best candidate's
// score before a taste took its mark from a question after a happening:
// the mark reorders; the match stays as strong as it was.
func TestConfidenceReferenceIgnoresEventMark(t *testing.T) {
	ep := &scored{en: &entry{V: &memory.Version{Kind: memory.KindEpisodic}}, final: 0.5}
	taste := &scored{en: &entry{V: &memory.Version{Kind: memory.KindSemantic}}, final: 0.2,
		terms: memory.Terms{{Name: "event_attitude", Value: -0.7}}}
	if got := confidenceReference([]*scored{ep, taste}); got < 0.899 || got > 0.901 {
		t.Errorf("reference %v, want 0.9 (the taste before its mark)", got)
	}
	if got := confidenceReference([]*scored{ep}); got != 0.5 {
		t.Errorf("reference %v, want the best candidate's 0.5", got)
	}
	if got := confidenceReference(nil); got != 0 {
		t.Errorf("reference of nothing %v, want 0", got)
	}
}
