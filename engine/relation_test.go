package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// A question about one of the user's people is not answered by a turn or a
// fact about another of them, however well a key word matched: "what's my
// kid's name?" is not answered by "my manager is Hollis" (its fact's key is
// "name"), nor by the later turn that replaced the manager. A relation of
// the same family answers it: "my daughter ...", "my boss" for "my manager".
func TestAnotherRelationDoesNotAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		turns [][]string // sessions of turns
		query string
		want  string // in the top item
	}{
		{"kid, not the manager's name",
			[][]string{{"my manager is Hollis"}, {"my son Teodor just turned six"}},
			"what's the name of my kid?", "Teodor"},
		{"kid, not the manager's replacement",
			[][]string{{"my manager is Hollis"}, {"my son Teodor just turned six"}, {"Hollis moved over to marketing, so I report to Brigid these days"}},
			"what's my kid called?", "Teodor"},
		{"boss answered by the manager",
			[][]string{{"my manager is Hollis"}, {"my son Teodor just turned six"}},
			"who is my boss?", "Hollis"},
		{"partner, not the sister",
			[][]string{{"my sister's name is Oona"}, {"my wife Carys is a vet"}},
			"what's my partner's name?", "Carys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, clk, _ := newEngine(t)
			start := clk.Now().Add(-5 * day)
			for i, turns := range tc.turns {
				captureSession(t, e, "ns", string(rune('a'+i)), start.Add(time.Duration(i)*day), turns...)
			}
			res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: tc.query,
				Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
			if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, tc.want) {
				t.Fatalf("top items %v, want %q first", contents(res), tc.want)
			}
		})
	}
}
