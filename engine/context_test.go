package engine_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// A retrieved turn brings its neighbours from the same conversation, and
// only those: not a turn from another sitting, not one already shown.
func TestRetrieveContext(t *testing.T) {
	t.Parallel()
	e, _, _ := newEngine(t)
	ctx := context.Background()
	turns := []struct {
		speaker, text string
		at            time.Duration
	}{
		{"bo", "Bo: Did you ever find a name for the kayak?", -3 * time.Hour}, // another sitting
		{"ana", "Ana: How was the weekend?", 0},
		{"bo", "Bo: We took the kayak to the lake.", time.Minute},
		{"ana", "Ana: Lovely! Did it leak again?", 2 * time.Minute},
		{"bo", "Bo: Not a drop, the new kayak seal held.", 3 * time.Minute},
		{"ana", "Ana: Good, I booked the dentist for Monday.", 4 * time.Minute},
	}
	var evs []engine.Event
	for _, tt := range turns {
		evs = append(evs, engine.Event{Kind: memory.EpisodeUserMessage, Speaker: tt.speaker, Content: tt.text, OccurredAt: t0.Add(-time.Hour + tt.at)})
	}
	cr, err := e.Capture(ctx, engine.CaptureParams{Namespace: "ctx", Events: evs})
	if err != nil {
		t.Fatal(err)
	}
	ep := cr.EpisodeIDs

	if _, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ctx", Query: "kayak", Context: engine.MaxContext + 1}); err == nil {
		t.Fatal("context beyond MaxContext accepted")
	}
	res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ctx", Query: "lake kayak", Context: 1})
	if err != nil {
		t.Fatal(err)
	}
	var lake *engine.Item
	for i := range res.Items {
		if strings.Contains(res.Items[i].Content, "lake") {
			lake = &res.Items[i]
		}
	}
	if lake == nil {
		t.Fatalf("the lake turn was not retrieved:\n%s", res.Context)
	}
	// The turn before and after it, cited, rendered around it.
	if !slices.Contains(lake.EpisodeIDs, ep[1]) || !slices.Contains(lake.EpisodeIDs, ep[2]) || !slices.Contains(lake.EpisodeIDs, ep[3]) || len(lake.Context) != 2 {
		t.Fatalf("lake item cites %v with context %+v; want episodes 1-3", lake.EpisodeIDs, lake.Context)
	}
	// The turn before opens the item's bullet, so it cannot read as the
	// end of the item above; the hit and the turn after are indented under it.
	if !lake.Context[0].Before || lake.Context[1].Before ||
		!strings.Contains(res.Context, "\n- [2026-05-01 11:00] Ana: How was the weekend?\n  Bo: We took the kayak to the lake.\n  Ana: Lovely!") {
		t.Fatalf("context lines %+v, rendered:\n%s", lake.Context, res.Context)
	}
	// Every turn appears once in the rendered context.
	for _, tt := range turns {
		if n := strings.Count(res.Context, tt.text); n > 1 {
			t.Errorf("%q shown %d times:\n%s", tt.text, n, res.Context)
		}
	}
	// The turn from another sitting is never a neighbour.
	for _, it := range res.Items {
		if it.Content != turns[0].text && slices.Contains(it.EpisodeIDs, ep[0]) {
			t.Errorf("item %q cites the turn of another sitting", it.Content)
		}
	}
}

// TestDefaultContext: a retrieval that does not say gets the engine's
// default (DefaultContext turns either side of a top item); NoContext
// shows the episode alone; an engine configured with NoContext defaults to
// none; a bad setting is refused.
func TestDefaultContext(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	capture := func(e *engine.Engine) {
		t.Helper()
		var evs []engine.Event
		for i, text := range []string{"Bo: Back from the trip.", "Ana: How was the weekend?", "Bo: We took the kayak to the lake.", "Ana: Lovely! Did it leak again?", "Bo: Not one drop."} {
			evs = append(evs, engine.Event{Kind: memory.EpisodeUserMessage, Speaker: strings.ToLower(text[:strings.Index(text, ":")]), Content: text, OccurredAt: t0.Add(-time.Hour + time.Duration(i)*time.Minute)})
		}
		if _, err := e.Capture(ctx, engine.CaptureParams{Namespace: "ctx", Events: evs}); err != nil {
			t.Fatal(err)
		}
	}
	lines := func(e *engine.Engine, n int) int {
		t.Helper()
		res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ctx", Query: "lake kayak", Context: n})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range res.Items {
			if strings.Contains(it.Content, "lake") {
				return len(it.Context)
			}
		}
		t.Fatalf("the lake turn was not retrieved:\n%s", res.Context)
		return 0
	}
	e, _, st := newEngine(t)
	capture(e)
	if got := lines(e, 0); got != 2*engine.DefaultContext {
		t.Errorf("default: %d context lines, want %d", got, 2*engine.DefaultContext)
	}
	if got := lines(e, engine.NoContext); got != 0 {
		t.Errorf("NoContext: %d context lines", got)
	}
	if _, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ctx", Query: "kayak", Context: -2}); err == nil {
		t.Error("context -2 accepted")
	}

	quiet := openEngine(t, filepath.Join(t.TempDir(), "quiet.db"), engine.Config{Context: engine.NoContext})
	capture(quiet)
	if got := lines(quiet, 0); got != 0 {
		t.Errorf("engine default NoContext: %d context lines", got)
	}
	if got := lines(quiet, 1); got != 2 {
		t.Errorf("engine default NoContext, call asks 1: %d context lines", got)
	}
	if _, err := engine.New(engine.Config{Store: st, Context: engine.MaxContext + 1}); err == nil {
		t.Error("Config.Context beyond MaxContext accepted")
	}
}

// TestContextTapers: the ContextFirst best-ranked episodes and those
// scoring ContextShare of the best bring their window, the others come
// alone, and an episode that asks a question brings the turn after it (its
// answer) wherever it ranks.
func TestContextTapers(t *testing.T) {
	t.Parallel()
	e, _, _ := newEngine(t)
	ctx := context.Background()
	// Sittings a day apart, each a hit between two neighbours; the hits
	// share the query's words, fewer of them further down the list.
	words := []string{"glider", "harbour", "lantern", "meadow", "orchard", "pebble", "quarry", "ribbon"}
	var evs []engine.Event
	at := t0.Add(-30 * 24 * time.Hour)
	for i := range words {
		hit := "Bo: the " + strings.Join(words[:len(words)-i], " and the ") + " came up."
		if i == len(words)-1 {
			hit = "Bo: did the " + words[0] + " come up?"
		}
		for j, text := range []string{"Ana: anything new this week?", hit, "Ana: no idea, ask Cleo."} {
			evs = append(evs, engine.Event{Kind: memory.EpisodeUserMessage, Speaker: strings.ToLower(text[:strings.Index(text, ":")]), Content: text, OccurredAt: at.Add(time.Duration(j) * time.Minute)})
		}
		at = at.Add(24 * time.Hour)
	}
	if _, err := e.Capture(ctx, engine.CaptureParams{Namespace: "taper", Events: evs}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "taper", Query: strings.Join(words, " "), Limit: len(words), Context: 1})
	if err != nil {
		t.Fatal(err)
	}
	hits, windows, alone, replies := 0, 0, 0, 0
	for rank, it := range res.Items {
		if !strings.Contains(it.Content, "came up") && !strings.Contains(it.Content, "come up?") {
			continue
		}
		hits++
		var before, after int
		for _, l := range it.Context {
			if l.Before {
				before++
			} else {
				after++
			}
		}
		want := [2]int{0, 0}
		if rank < engine.ContextFirst || it.Score >= engine.ContextShare*res.Items[0].Score {
			want = [2]int{1, 1}
			windows++
		} else if strings.HasSuffix(it.Content, "?") {
			want = [2]int{0, 1}
			replies++
		} else {
			alone++
		}
		if got := [2]int{before, after}; got != want {
			t.Errorf("rank %d %q: %d before, %d after; want %v\n%s", rank, it.Content, before, after, want, res.Context)
		}
	}
	if hits != len(words) || windows <= engine.ContextFirst || alone == 0 || replies != 1 {
		t.Fatalf("%d of %d hits retrieved, %d with a window, %d alone, %d with its reply only; want all, more than %d with a window, some alone, the question with its reply:\n%s", hits, len(words), windows, alone, replies, engine.ContextFirst, res.Context)
	}
}

// TestContextYieldsToTightBudget: an episode whose window of neighbours
// does not fit what is left of the budget is packed alone rather than
// dropped, so a tight budget holds every hit it can.
func TestContextYieldsToTightBudget(t *testing.T) {
	t.Parallel()
	e, _, _ := newEngine(t)
	ctx := context.Background()
	long := "Ana: Honestly the whole week was a blur of meetings, school runs, a leaking dishwasher, two late trains and a birthday party I had completely forgotten about until the morning of it."
	var evs []engine.Event
	for i, text := range []string{long, "Bo: We took the kayak out on the lake.", long} {
		evs = append(evs, engine.Event{Kind: memory.EpisodeUserMessage, Speaker: strings.ToLower(text[:2]), Content: text, OccurredAt: t0.Add(-5*time.Hour + time.Duration(i)*time.Minute)})
	}
	for i, text := range []string{long, "Ana: The kayak seal cracked again, so it's off to the repair shop.", long} {
		evs = append(evs, engine.Event{Kind: memory.EpisodeUserMessage, Speaker: strings.ToLower(text[:3]), Content: text, OccurredAt: t0.Add(-time.Hour + time.Duration(i)*time.Minute)})
	}
	if _, err := e.Capture(ctx, engine.CaptureParams{Namespace: "tight", Events: evs}); err != nil {
		t.Fatal(err)
	}
	kayaks := func(res *engine.Result) int {
		n := 0
		for _, it := range res.Items {
			if strings.Contains(it.Content, "kayak") {
				n++
			}
		}
		return n
	}
	alone, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "tight", Query: "kayak", Context: engine.NoContext, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	wide, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "tight", Query: "kayak", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if kayaks(alone) != 2 || kayaks(wide) != 2 || wide.TokensUsed <= alone.TokensUsed {
		t.Fatalf("set-up: alone %d tokens, with windows %d tokens:\n%s\n---\n%s", alone.TokensUsed, wide.TokensUsed, alone.Context, wide.Context)
	}
	// Room for both hits alone, not for their windows.
	tight, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "tight", Query: "kayak", Limit: 2, TokenBudget: alone.TokensUsed + 5})
	if err != nil {
		t.Fatal(err)
	}
	if kayaks(tight) != 2 || tight.TokensUsed > alone.TokensUsed+5 {
		t.Fatalf("budget %d: %d of 2 hits packed in %d tokens:\n%s", alone.TokensUsed+5, kayaks(tight), tight.TokensUsed, tight.Context)
	}
}
