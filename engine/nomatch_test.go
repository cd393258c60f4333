package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// A query whose words find nothing gets nothing but what must always be
// included: the newest episodes are no answer to it. A query with no
// content words at all still gets them.
func TestQueryMatchingNothing(t *testing.T) {
	t.Parallel()
	e, _, _ := newEngine(t)
	ctx := context.Background()
	for i, p := range []engine.RememberParams{
		{Text: "The staging cluster restarts every night at two."},
		{Text: "Deploys to production need a second reviewer."},
		{Text: "Never run migrations by hand on the primary.", Key: "rule:migrations", Value: "never by hand on the primary",
			Criticality: memory.CriticalityMustInclude, Type: memory.TypeConstraint},
	} {
		p.Namespace, p.ObservedAt = "ns", t0.Add(time.Duration(i)*time.Minute)
		if _, err := e.Remember(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// A chat turn, so the namespace has an episode the recent channel
	// offers (a remembered note stands in for its own).
	if _, err := e.Capture(ctx, engine.CaptureParams{Namespace: "ns", Events: []engine.Event{
		{Kind: memory.EpisodeUserMessage, Content: "ok, back after lunch", OccurredAt: t0.Add(time.Hour)},
	}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  []string // every item's content, in any order
	}{
		{"zzq721608 qwplmf", []string{"Never run migrations by hand on the primary."}},
		{"flurbish gronk", []string{"Never run migrations by hand on the primary."}},
	} {
		res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ns", Query: tc.query, Context: engine.NoContext})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range res.Items {
			got = append(got, it.Content)
		}
		if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
			t.Errorf("%q: items %q, want %q", tc.query, got, tc.want)
		}
	}
	res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ns", Query: "what's up?", Context: engine.NoContext})
	if err != nil {
		t.Fatal(err)
	}
	recent := 0
	for _, it := range res.Items {
		if _, ok := it.Channels[engine.ChannelRecent]; ok {
			recent++
		}
	}
	if recent == 0 {
		t.Fatalf("a query of no content words: no recent episode among %d items", len(res.Items))
	}
}
