package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
)

// rememberGadgets stores n facts, each keyed on the word "gadget" and a
// word of its own, in batches as a bulk import would.
func rememberGadgets(t *testing.T, e *engine.Engine, n int) {
	t.Helper()
	ctx := context.Background()
	const batch = 500
	for i := 0; i < n; i += batch {
		var ps []engine.RememberParams
		for j := i; j < min(i+batch, n); j++ {
			ps = append(ps, engine.RememberParams{
				Namespace:  "ns",
				Text:       fmt.Sprintf("Gadget %d sits on shelf %d.", j, j%40),
				Key:        fmt.Sprintf("gadget:item%d", j),
				ObservedAt: t0.Add(time.Duration(j) * time.Second),
			})
		}
		if _, err := e.RememberBatch(ctx, ps); err != nil {
			t.Fatal(err)
		}
	}
}

// structuredCandidates counts the candidates of a retrieval of query that
// the structured channel offered, as its trace records them.
func structuredCandidates(t *testing.T, e *engine.Engine, query string) int {
	t.Helper()
	ctx := context.Background()
	res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ns", Query: query})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 {
		t.Fatalf("%q: no items", query)
	}
	tr, err := e.Trace(ctx, "ns", res.RetrievalID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range tr.Items {
		if _, ok := it.Channels.Get(engine.ChannelStructured); ok {
			n++
		}
	}
	return n
}

// A key word that a few slots share finds them through the structured
// channel; one that thousands share (a stop key) is skipped by it, and the
// other channels still answer.
func TestStructuredChannelSkipsStopKeys(t *testing.T) {
	t.Parallel()
	few, _, _ := newEngine(t)
	rememberGadgets(t, few, 30)
	if structuredCandidates(t, few, "gadget") == 0 {
		t.Fatal("30 gadget slots: the structured channel offered nothing")
	}

	many, _, _ := newEngine(t)
	rememberGadgets(t, many, 1200)
	if n := structuredCandidates(t, many, "gadget"); n != 0 {
		t.Fatalf("1200 gadget slots: the structured channel offered %d candidates, want none (a stop key)", n)
	}
	// A rarer key word in the same namespace still counts.
	if structuredCandidates(t, many, "item1199") == 0 {
		t.Fatal("item1199: the structured channel offered nothing")
	}
}

// A note holding every word of a two-word query comes before the notes
// whose keys name only one of the words.
func TestStructuredKeyCoveringOneWordRanksBelowFullMatch(t *testing.T) {
	t.Parallel()
	e, _, _ := newEngine(t)
	ctx := context.Background()
	var ps []engine.RememberParams
	for i := 0; i < 12; i++ {
		ps = append(ps,
			engine.RememberParams{Namespace: "ns", Text: fmt.Sprintf("Lamp %d went up to the loft.", i), Key: fmt.Sprintf("loft:lamp%d", i)},
			engine.RememberParams{Namespace: "ns", Text: fmt.Sprintf("Kettle model %d boils slowly.", i), Key: fmt.Sprintf("kettle:model%d", i)})
	}
	ps = append(ps, engine.RememberParams{Namespace: "ns", Text: "The copper kettle is stored in the loft.", Key: "storage:copper_item"})
	for i := range ps {
		ps[i].ObservedAt = t0.Add(time.Duration(i) * time.Minute)
	}
	if _, err := e.RememberBatch(ctx, ps); err != nil {
		t.Fatal(err)
	}
	res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ns", Query: "loft kettle"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 || res.Items[0].Content != "The copper kettle is stored in the loft." {
		var got []string
		for _, it := range res.Items {
			got = append(got, it.Content)
		}
		t.Fatalf("loft kettle: items %q, want the note holding both words first", got)
	}
}
