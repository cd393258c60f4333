package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mnemonCLI runs this package's main with args in a child process, as a
// user runs the binary, and returns its standard output.
func mnemonCLI(t *testing.T, args ...string) []byte {
	t.Helper()
	raw, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MNEMON_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, childArgs+"="+string(raw))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mnemon %v: %v\n%s", args, err, out)
	}
	return out
}

// A casual quit ("I'm off X, Y instead") said after a statement about X
// ranks above it for a question about what holds now, through the real
// CLI on a real SQLite file; time off ("off work today") does not: the
// statement, or the fact drawn from it, comes first.
func TestRecallCasualQuit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, before, after, query string
		want                       []string
	}{
		{"quit", "I take two sugars in my tea", "I'm off sugar, honey instead", "what do I put in my tea these days?", []string{"I'm off sugar, honey instead"}},
		{"time off", "I work at the ferry terminal on weekdays", "I'm off work today, dentist at noon", "where do I work on weekdays?",
			[]string{"I work at the ferry terminal on weekdays", "The user works at the ferry terminal."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "m.db")
			mnemonCLI(t, "remember", "--db", db, "--observed-at", "2026-03-01T09:00:00Z", tc.before)
			mnemonCLI(t, "remember", "--db", db, "--observed-at", "2026-05-01T09:00:00Z", tc.after)
			var res struct {
				Items []struct {
					Content string `json:"content"`
				} `json:"items"`
			}
			out := mnemonCLI(t, "recall", "--db", db, "-k", "3", "--json", tc.query)
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("recall output: %v\n%s", err, out)
			}
			if len(res.Items) == 0 || !slices.Contains(tc.want, res.Items[0].Content) {
				t.Fatalf("recall %q: first item %+v, want one of %q", tc.query, res.Items, tc.want)
			}
		})
	}
}
