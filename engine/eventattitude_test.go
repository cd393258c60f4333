package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/engine/enginetest"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// paddlers is a chat between two neighbours over three evenings: one of
// them says she loves kayaking (a taste the rules keep as a fact), and
// later tells of selling her kayak.
var paddlers = [][][2]string{
	{
		{"Wren", "Honestly I love kayaking more than anything, the river is my happy place."},
		{"Ilse", "You should take me along some time."},
		{"Wren", "Deal, once the water warms up a bit."},
	},
	{
		{"Ilse", "Any news on your side?"},
		{"Wren", "I managed to sell the kayak on Sunday, a student from the rowing club took it and the garage has room for the bikes again."},
		{"Ilse", "Wow, a big step for you."},
	},
	{
		{"Ilse", "My nephew starts school next week, he is thrilled."},
		{"Wren", "Aw, tell him good luck from me."},
	},
}

func captureChat(t *testing.T, eng *engine.Engine, ns string, chat [][][2]string) {
	t.Helper()
	at := time.Date(2026, 5, 1, 19, 0, 0, 0, time.UTC)
	for s, turns := range chat {
		evs := make([]engine.Event, len(turns))
		for i, turn := range turns {
			evs[i] = engine.Event{Kind: memory.EpisodeUserMessage, Speaker: turn[0], Content: turn[1], OccurredAt: at.Add(time.Duration(i) * time.Minute)}
		}
		if _, err := eng.Capture(context.Background(), engine.CaptureParams{Namespace: ns, Scope: memory.Scope{SessionID: "evening-" + string(rune('a'+s))}, Events: evs}); err != nil {
			t.Fatal(err)
		}
		at = at.AddDate(0, 0, 9)
	}
}

// A question about a happening ("when did Wren sell the kayak?") is
// answered by the turn that tells of it, not by the standing taste that
// shares its person and a word ("Wren likes kayaking."): with the
// event_attitude mark the turn comes first; without it the taste does,
// which is what the mark is for. A question after the taste itself keeps
// the fact first.
func TestHappeningAskedOutranksStandingTaste(t *testing.T) {
	t.Parallel()
	off := engine.DefaultRanking()
	off.EventAttitude = 0
	first := map[string]map[string]engine.Item{}
	for name, r := range map[string]engine.Ranking{"default": engine.DefaultRanking(), "off": off} {
		_, eng := enginetest.Open(t, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{Synchronous: "NORMAL"}, engine.Config{Ranking: r})
		captureChat(t, eng, "paddlers", paddlers)
		first[name] = map[string]engine.Item{}
		for _, q := range []string{"When did Wren sell the kayak?", "Who did Wren sell the kayak to?", "What does Wren love doing?"} {
			res, err := eng.Retrieve(context.Background(), engine.RetrieveParams{Namespace: "paddlers", Query: q, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Items) == 0 {
				t.Fatalf("%s: %q: nothing retrieved", name, q)
			}
			first[name][q] = res.Items[0]
		}
	}
	for _, q := range []string{"When did Wren sell the kayak?", "Who did Wren sell the kayak to?"} {
		if got := first["default"][q]; got.Kind != memory.KindEpisodic || !strings.Contains(got.Content, "sell the kayak") {
			t.Errorf("%q: first %s %q, want the turn about the sale", q, got.Kind, got.Content)
		}
		if got := first["off"][q]; got.Kind != memory.KindSemantic || got.Type != memory.TypePreference {
			t.Errorf("%q without the mark: first %s %q, want the taste (else this test shows nothing)", q, got.Kind, got.Content)
		}
	}
	if got := first["default"]["What does Wren love doing?"]; got.Kind != memory.KindSemantic || !strings.Contains(strings.ToLower(got.Content), "kayak") {
		t.Errorf("a question after the taste: first %s %q, want the taste", got.Kind, got.Content)
	}
}
