package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
)

// A note's key is its own opening words, not a slot a question names: the
// one note holding both words of a two-word query comes above notes that
// open on one of them, however many there are.
func TestNoteKeysAreNotSlots(t *testing.T) {
	t.Parallel()
	e, _, _ := newEngine(t)
	ctx := context.Background()
	remember := func(i int, text string) {
		t.Helper()
		p := engine.RememberParams{Namespace: "ns", Text: text, ObservedAt: t0.Add(time.Duration(i) * time.Minute)}
		if _, err := e.Remember(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// Notes opening on "quillwort", the rarer word of the query, then the
	// one that holds both words late in its sentence.
	tails := []string{"cuttings rooted in the cold frame", "seed tray cracked along one side", "sprouts look leggy near the window",
		"bed by the shed stays waterlogged", "label faded in the rain", "order arrived two days late", "pots need a deeper saucer",
		"clump divided into four", "leaves yellowing at the tips", "patch shaded by the new fence"}
	remember(0, "Moved the potted quillwort indoors because the frost came early this year")
	for i, tail := range tails {
		remember(i+1, fmt.Sprintf("Quillwort %s", tail))
	}
	res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ns", Query: "quillwort frost", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 {
		t.Fatal("no items")
	}
	if got := res.Items[0].Content; got != "Moved the potted quillwort indoors because the frost came early this year" {
		for i, it := range res.Items {
			t.Logf("%d. %.3f %q %v", i+1, it.Score, it.Content, it.Channels)
		}
		t.Fatalf("first item %q, want the note holding both words", got)
	}
	for _, it := range res.Items {
		if _, ok := it.Channels[engine.ChannelStructured]; ok {
			t.Errorf("%q (key %q) found by the structured channel: a note's key is no slot", it.Content, it.Key)
		}
	}
}
