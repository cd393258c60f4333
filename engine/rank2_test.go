package engine_test

import (
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// "what … before X?" is answered by the value X replaced, not by what
// names X: when only the agent's turn names X, the earlier turn is the
// user's (not the agent's own earlier remark); when X is a fact's current
// value, the version it superseded goes first.
func TestBeforeAValueIsWhatItReplaced(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		turns [][]string // sessions 20 days apart
		facts []string   // remembered 10 days apart, before the turns
		query string
		want  string // in the first item's content
	}{
		{
			name: "agent names the new town",
			turns: [][]string{
				{"the flat above the chip shop in Dunmore is freezing all winter", "lol"},
				{"how long until the longest night?", "agent: About three weeks from now."},
				{"finally done with the boxes", "agent: Welcome to Carrick!"},
			},
			query: "which town was I living in before Carrick?",
			want:  "Dunmore",
		},
		{
			name:  "a fact holds the named value",
			facts: []string{"My favorite editor is Vim.", "Actually, I switched to Neovim for my editor."},
			query: "which editor did the user use before Neovim?",
			want:  "Vim",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, clk, _ := newEngine(t)
			at := clk.Now().Add(-90 * day)
			for _, f := range tc.facts {
				remember(t, e, "ns", f, at)
				at = at.Add(10 * day)
			}
			for i, s := range tc.turns {
				captureSession(t, e, "ns", string(rune('a'+i)), at, s...)
				at = at.Add(20 * day)
			}
			res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: tc.query, Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext, IncludeHistory: true})
			if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, tc.want) || strings.Contains(res.Items[0].Content, "Neovim") {
				t.Fatalf("%q: top items %v; want %q first", tc.query, contents(res), tc.want)
			}
		})
	}
}

// A reaction of a few common words ("sounds awful, honestly") answers
// no question, however recent: where no word of the question matched and
// every cosine is weak, the turn that says something still comes first.
func TestShortReactionsBelowStatements(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		statement, query string
	}{
		{"most saturdays I swim at the lido and nap after", "how do I spend my weekends?"},
		{"gran's goulash recipe is the one thing I can cook properly", "which dish did my grandmother teach me?"},
		{"the tortoise is called Brian and he's older than me", "what's the name of my pet?"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			t.Parallel()
			e, clk, _ := newEngine(t)
			start := clk.Now().Add(-10 * day)
			captureSession(t, e, "ns", "a", start, tc.statement)
			captureSession(t, e, "ns", "b", start.Add(3*day), "agent: The quickest route avoids the ring road.", "sounds awful, honestly")
			captureSession(t, e, "ns", "c", start.Add(6*day), "agent: It keeps for three days in the fridge.", "explains the weird smell then")
			res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: tc.query, Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
			if len(res.Items) == 0 || res.Items[0].Content != tc.statement {
				t.Fatalf("%q: top items %v; want the statement first", tc.query, contents(res))
			}
		})
	}
}

// A question about one of the user's people is not answered by a turn that
// speaks of no one, though it is the closest in meaning: a place named
// near an open day does not come first for "which college does my niece go
// to?".
func TestRelationQuestionSkipsTurnsAboutNoOne(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		turns      []string
		query, not string
	}{
		{[]string{"the Marlowe Institute open morning is on saturday, might pop in", "agent: Noted."}, "which college does my niece go to?", "Marlowe"},
		{[]string{"the Hollin Road surgery shuts early on wednesdays", "agent: Good to know."}, "who is my father's doctor?", "Hollin"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			t.Parallel()
			e, clk, _ := newEngine(t)
			start := clk.Now().Add(-5 * day)
			captureSession(t, e, "ns", "a", start, tc.turns...)
			captureSession(t, e, "ns", "b", start.Add(2*day), "I keep forgetting whose turn it is for the lift share", "agent: About 16 km.")
			res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: tc.query, Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
			if len(res.Items) > 0 && strings.Contains(res.Items[0].Content, tc.not) {
				t.Fatalf("%q: top items %v; the turn naming %q, about no one, is first", tc.query, contents(res), tc.not)
			}
		})
	}
}

// A turn that opens on a plural described ("Saturdays are for …") is the
// speaker's own statement, not someone else's news, as "Graz is …" is.
func TestPluralDescribedIsTheSpeakers(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-10 * day)
	captureSession(t, e, "ns", "a", start, "Saturdays are for the allotment and a long lunch")
	captureSession(t, e, "ns", "b", start.Add(3*day), "agent: The quickest route avoids the ring road.", "sounds awful, honestly")
	q := "how do I spend my weekends?"
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	if len(res.Items) == 0 || !strings.HasPrefix(res.Items[0].Content, "Saturdays") || res.Items[0].Terms["other_subject"] != 0 {
		t.Fatalf("%q: top items %v; want the Saturdays turn first, not marked someone else's", q, contents(res))
	}
}
