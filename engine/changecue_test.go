package engine_test

import "testing"

// Changes said in passing, captured as a user says them, end up in the
// slots they change: the new value current, the old one history (issue
// 16). The extractor's own tables cover the wording; these check that its
// cues reach reconciliation with the right effect.
func TestScenarioChangeCuesInPassing(t *testing.T) {
	t.Parallel()
	runScenarios(t, []scenario{
		{
			name: "a last shift and a start elsewhere",
			steps: []step{
				{text: "I work at Acme.", capture: true},
				{text: "Friday was my last shift at Acme, I start at Globex next week.", capture: true},
			},
			slots: []slotWant{{"user", "works_at", []valueStatus{{"Acme", expired}, {"Globex", active}}}},
			queries: []queryWant{
				{query: "where does the user work?", top: "Globex", absent: []string{"Acme"}},
			},
		},
		{
			name: "a flat bought in one city, a commute to another",
			steps: []step{
				{text: "I live in Brussels.", capture: true},
				{text: "Finally closed on a flat in Ghent, I'll keep commuting to Brussels.", capture: true},
			},
			slots: []slotWant{{"user", "lives_in", []valueStatus{{"Brussels", superseded}, {"Ghent", active}}}},
			queries: []queryWant{
				{query: "where does the user live?", top: "Ghent", absent: []string{"Brussels"}},
			},
		},
		{
			name:  "a value corrected in its own message",
			steps: []step{{text: "I live in Graz, sorry, Linz.", capture: true}},
			slots: []slotWant{{"user", "lives_in", []valueStatus{{"Linz", active}}}},
		},
		{
			name: "a tool ripped out for another",
			steps: []step{
				{text: "We use MySQL.", capture: true},
				{text: "We ripped out MySQL for SQLite last quarter.", capture: true},
			},
			slots: []slotWant{{"team", "uses:database", []valueStatus{{"MySQL", expired}, {"SQLite", active}}}},
		},
		{
			name:  "on X these days, gave up on Y: Y is history even if never stored",
			steps: []step{{text: "I'm on Arch these days, gave up on Ubuntu.", capture: true}},
			slots: []slotWant{{"user", "prefers:os", []valueStatus{{"Arch", active}, {"Ubuntu", superseded}}}},
		},
		{
			name: "on X these days, gave up on Y: a stored Y becomes history",
			steps: []step{
				{text: "I use Ubuntu.", capture: true},
				{text: "I'm on Arch these days, gave up on Ubuntu.", capture: true},
			},
			slots: []slotWant{{"user", "prefers:os", []valueStatus{{"Arch", active}, {"Ubuntu", superseded}}}},
		},
	})
}
