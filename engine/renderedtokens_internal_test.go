package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/internal/tokens"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// TestTokensUsedIsTheContextsCount checks that a retrieval's tokens_used,
// now summed from the packed lines' kept counts (renderedTokens), is the
// count of its context counted whole: for contexts of one section and of
// several (facts, preferences, decisions, episodes, with turns shown
// around a hit and without), lines closing on a word, on a question mark,
// on a parenthesis, on digits, beyond ASCII (and on the endings whose
// closing newline takes the blank line before the next section into
// another count: "…", "”", "->", "**"), and budgets that make
// packing drop what does not fit once rendered.
func TestTokensUsedIsTheContextsCount(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	st := sqlitetest.Open(t, sqlite.Options{})
	e, err := New(Config{Store: st, Clock: clock.NewManual(at.Add(500 * time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	turns := []string{
		"I prefer green tea in the morning",
		"we decided to move the wiki to Confluence because search was awful",
		"I live in Zürich now",
		"is the nightly build still broken?",
		"the nightly build failed again (third time this week)",
		"ok",
		"my sister Ana visits in März, probably the 14th",
		"deadline for the grant report is 2026-05-01",
		"I moved from Lisbon to Zürich last spring!!",
		"remember: never deploy on Fridays",
		"the café near the office closes at 17:30",
		"we decided to use Postgres 16 for the ledger",
		"what did we decide about the ledger database?",
		"I prefer vim over emacs… mostly",
		"日本語のメモ: the build server lives in rack 12",
		"the nightly build is green again 🎉",
		// Endings whose closing newline and the blank line after a
		// section count other than the two apart.
		"the ledger migration is blocked on the build again…",
		"Ana called the grant report “done”",
		"I prefer tea, and the pipeline goes build -> test ->",
		"decided the café wiki page is **bold**",
	}
	for i, text := range turns {
		for s := range 2 {
			p := RememberParams{Namespace: "ns", Text: text, Scope: memory.Scope{SessionID: fmt.Sprintf("s%d", s)},
				ObservedAt: at.Add(time.Duration(s*len(turns)+i) * 7 * time.Minute)}
			if _, err := e.Remember(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	queries := []string{"nightly build", "where do I live", "ledger database", "tea", "what did we decide", "sister visit",
		"grant report deadline", "café", "rack", "Fridays deploy", "editor", "build broken?",
		"Ana grant report", "what did Ana call the report", "ledger migration blocked", "pipeline", "wiki page bold"}
	sections := 0
	for _, q := range queries {
		for _, turnsAround := range []int{NoContext, 1, 3} {
			for _, budget := range []int{40, 90, 200, 1000} {
				res, err := e.Retrieve(ctx, RetrieveParams{Namespace: "ns", Query: q, Limit: 10, TokenBudget: budget, Context: turnsAround})
				if err != nil {
					t.Fatal(err)
				}
				if want := e.counter.Count(res.Context); res.TokensUsed != want {
					t.Fatalf("query %q context %d budget %d: tokens_used %d, the context counts %d:\n%s", q, turnsAround, budget, res.TokensUsed, want, res.Context)
				}
				if strings.Count(res.Context, ":\n") > 1 {
					sections++
				}
			}
		}
	}
	if sections < 20 {
		t.Fatalf("%d contexts had more than one section: the test needs more", sections)
	}
}

// TestRenderedTokensJoins checks renderedTokens against the whole count on
// contexts built to put every kind of line last in a section followed by
// another: a fact, an episode alone and one with turns after it, each
// closing on the endings whose join with the blank line counts other
// than apart ("…" and "”" one token fewer, "->" and "**" one more).
func TestRenderedTokensJoins(t *testing.T) {
	counter, err := tokens.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{counter: counter}
	at := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	n := 0
	entryOf := func(kind memory.Kind, typ memory.Type, content string) *entry {
		n++
		v := &memory.Version{ID: fmt.Sprintf("ver_%03d", n), Kind: kind, Type: typ, Subject: "user", Content: content,
			Status: memory.StatusActive, ObservedAt: at.Add(time.Duration(n) * time.Minute)}
		return &entry{V: v, Status: v.Status, Ownerless: true}
	}
	endings := []string{"done.", "blocked…", "it “done”", "build -> test ->", "is **bold**", "ok?", "(third time)", "12", "🎉"}
	checked := 0
	for _, end := range endings {
		for _, other := range endings {
			for shape := range 3 {
				var cands []*scored
				add := func(en *entry, before, after []*entry) {
					c := &scored{en: en, packed: true, before: before, after: after}
					if len(before)+len(after) > 0 {
						c.lineToks = e.contextTokens(c, view{})
					} else {
						c.lineToks, _ = e.lineTokens(en, view{})
					}
					cands = append(cands, c)
				}
				add(entryOf(memory.KindSemantic, memory.TypePreference, "prefers tea, "+other), nil, nil)
				switch shape {
				case 0: // a fact closes the Facts section
					add(entryOf(memory.KindSemantic, memory.TypeFact, "the wiki is "+end), nil, nil)
				case 1: // a decision closes its section
					add(entryOf(memory.KindSemantic, memory.TypeDecision, "we chose "+end), nil, nil)
				case 2: // the Preferences section closes on other, then a fact and episodes
					add(entryOf(memory.KindSemantic, memory.TypeFact, "rack 12 "+end), nil, nil)
				}
				ep := entryOf(memory.KindEpisodic, memory.TypeEvent, "the nightly build "+other)
				add(ep, []*entry{entryOf(memory.KindEpisodic, memory.TypeEvent, "before it "+end)}, []*entry{entryOf(memory.KindEpisodic, memory.TypeEvent, "after it "+end)})
				text := render(cands, view{})
				if got, want := e.renderedTokens(cands, text, view{}), counter.Count(text); got != want {
					t.Fatalf("renderedTokens %d, the context counts %d:\n%s", got, want, text)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}
