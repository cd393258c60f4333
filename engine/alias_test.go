package engine_test

import (
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
)

// The structured channel finds a fact by other words for its slot: a
// question about a "beverage" reaches prefers:drink, one about an
// "employer" reaches works_at, before and after the index is rebuilt
// from the store.
func TestStructuredChannelKnowsSlotAliases(t *testing.T) {
	t.Parallel()
	e, _, _ := newEngine(t)
	remember(t, e, "ns", "My favorite drink is green tea.", t0)
	remember(t, e, "ns", "I work at Initech.", t0)
	remember(t, e, "ns", "Our team uses Buildkite for CI.", t0)
	only := []string{engine.ChannelCritical, engine.ChannelLexical, engine.ChannelSemantic, engine.ChannelRecent, engine.ChannelGraph}
	check := func(stage string) {
		t.Helper()
		for q, want := range map[string]string{
			"What beverage does the user like most?": "green tea",
			"Who is the user's employer?":            "Initech",
			"what's our build pipeline these days?":  "Buildkite",
		} {
			res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Limit: 1, Disable: only})
			if len(res.Items) != 1 || !strings.Contains(res.Items[0].Content, want) {
				t.Fatalf("%s: %q: structured channel found %+v", stage, q, res.Items)
			}
		}
	}
	check("written")
	if err := e.Rebuild(t.Context(), "ns"); err != nil {
		t.Fatal(err)
	}
	check("rebuilt")
}
