package engine_test

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// Round four of issue 16 at the engine: asked what came before the
// current editor, the old one answers, with no history asked for,
// and only that one version of the history is served; a task about food
// reaches the user's allergy though no word of it says so.
func TestScenarioCasual4PreviousValueAndFoodTask(t *testing.T) {
	t.Parallel()
	runScenarios(t, []scenario{
		{
			name: "what came before the current editor, history not asked",
			steps: []step{
				{text: "my editor is Sublime, been on it forever", capture: true},
				{text: "switched to Helix, it's so snappy", capture: true},
				{text: "honestly thinking of trying Zed next", capture: true},
			},
			slots: []slotWant{{"user", "prefers:editor", []valueStatus{{"Sublime", superseded}, {"Helix", active}}}},
			queries: []queryWant{
				{query: "which editor did I use before Helix?", top: "Sublime", status: memory.StatusSuperseded},
				{query: "which editor do I use?", top: "Helix", absent: []string{"Sublime"}},
			},
		},
		{
			name: "a task about food reaches an allergy it shares no word with",
			steps: []step{
				{text: "allergic to shellfish, a lifelong thing sadly", capture: true},
				{text: "Noor loves tapas", capture: true},
				{text: "Noor and I are going climbing on Sunday", capture: true},
			},
			queries: []queryWant{
				{query: "book a seafood place for dinner with Noor", present: []string{"shellfish"}},
			},
		},
	})
}
