package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/engine/enginetest"
	"github.com/mnemon-dev/mnemon/memory"
)

// "how old" asks for an age: "old" is no topic there, so an "old bike"
// does not outrank the statement that holds the ages, and the question is
// not one about an earlier value. "how long" keeps "long" as a term and
// still finds the duration over a "long weekend". "my new X" asks what X
// is now: "new" is no topic either.
func TestQuestionWordsAreNoTopic(t *testing.T) {
	t.Parallel()
	eng := enginetest.Temp(t)
	ctx := context.Background()
	for i, turn := range []string{
		"both kids are in primary school now, 6 and 8",
		"still riding my old bike to work, it squeaks like mad",
		"spent a long weekend at my parents' place, no signal at all",
		"getting to my parents' place takes about three hours by train",
		"new headphones arrived today, the old ones go to my niece",
		"my manager from march on is going to be Ilse",
	} {
		_, err := eng.Capture(ctx, engine.CaptureParams{
			Namespace: "measure", Scope: memory.Scope{SessionID: "s1"},
			Events: []engine.Event{{Kind: memory.EpisodeUserMessage, Content: turn, OccurredAt: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC).AddDate(0, 0, i)}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ query, want string }{
		{"how old are my children?", "6 and 8"},
		{"how long does it take to get to my parents?", "three hours"},
		// "new" after "my" asks for the present value, not for things
		// called new: the headphones' "new" is no match and lifts nothing.
		{"who's my new boss?", "Ilse"},
	} {
		res, err := eng.Retrieve(ctx, engine.RetrieveParams{Namespace: "measure", Query: c.query, Limit: 3, Scope: memory.Scope{SessionID: "s2"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, c.want) {
			var got []string
			for _, it := range res.Items {
				got = append(got, it.Content)
			}
			t.Errorf("%q: want %q first, got %q", c.query, c.want, got)
		}
	}
}

// "what … did I use before?" asks for the value a change replaced: the
// turn that says what changed takes no change lift for it, and does not
// mark the turn that stated the old value replaced, so that turn ranks
// above it; with history served the old fact goes first. "anymore" asks
// about now, and the change lift stays.
func TestBeforeWithoutValue(t *testing.T) {
	t.Parallel()
	eng := enginetest.Temp(t)
	ctx := context.Background()
	at := time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC)
	const old, change = "my go-to browser is firefox", "dropped firefox, it's all vivaldi for me now"
	for i, turn := range []string{old, change} {
		_, err := eng.Capture(ctx, engine.CaptureParams{
			Namespace: "before", Scope: memory.Scope{SessionID: "s" + string(rune('1'+i))},
			Events: []engine.Event{{Kind: memory.EpisodeUserMessage, Content: turn, OccurredAt: at.AddDate(0, 0, 7*i)}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	rank := func(res *engine.Result, text string) int {
		for i, it := range res.Items {
			if it.Content == text {
				return i
			}
		}
		return len(res.Items)
	}
	for _, c := range []struct {
		query        string
		history      bool
		oldAbove     bool   // the old value's turn above the change's
		changeLifted bool   // the change's turn takes the change term
		first        string // the top item holds it, if set
	}{
		{query: "what browser did I use before?", oldAbove: true},
		{query: "what browser did I use before?", history: true, oldAbove: true, first: "firefox"},
		{query: "which browser do I use?", changeLifted: true, first: "vivaldi"},
		{query: "do I use firefox anymore?", changeLifted: true, first: "vivaldi"},
	} {
		res, err := eng.Retrieve(ctx, engine.RetrieveParams{Namespace: "before", Query: c.query, Limit: 5, IncludeHistory: c.history, Scope: memory.Scope{SessionID: "s9"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		lifted := false
		for _, it := range res.Items {
			got = append(got, it.Content)
			lifted = lifted || it.Content == change && it.Terms["change"] > 0
		}
		if c.oldAbove && rank(res, old) > rank(res, change) {
			t.Errorf("%q (history %v): want %q above %q, got %q", c.query, c.history, old, change, got)
		}
		if lifted != c.changeLifted {
			t.Errorf("%q (history %v): change lifted = %v, want %v (%q)", c.query, c.history, lifted, c.changeLifted, got)
		}
		if c.first != "" && (len(got) == 0 || !strings.Contains(strings.ToLower(got[0]), c.first)) {
			t.Errorf("%q (history %v): want %q first, got %q", c.query, c.history, c.first, got)
		}
	}
}
