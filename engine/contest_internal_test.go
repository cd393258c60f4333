package engine

import "testing"

// A clause that opens on the value speaks of the value, which stays,
// unless it says the value is gone.
func TestKeptAsSubject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		clause, value string
		want          bool
	}{
		{"Jenkins doesn't crash anymore, nice", "Jenkins", true},
		{"Lisbon is no longer this cheap", "Lisbon", true},
		{"so our Jenkins isn't flaky anymore", "Jenkins", true},
		{"Jenkins is gone now, all on buildkite", "Jenkins", false},
		{"our Jenkins got ditched last month", "Jenkins", false},
		{"Jenkins isn't used anymore", "Jenkins", false},
		{"finally ditched Jenkins", "Jenkins", false},    // the value is the object
		{"don't use Vim anymore", "Vim", false},          // likewise
		{"GitHub Actions replaced it", "Jenkins", false}, // the clause opens on another name
		{"Jenkins", "Jenkins", false},                    // nothing said after it
	}
	for _, tt := range tests {
		if got := keptAsSubject(tt.clause, tt.value); got != tt.want {
			t.Errorf("keptAsSubject(%q, %q) = %v, want %v", tt.clause, tt.value, got, tt.want)
		}
	}
}
