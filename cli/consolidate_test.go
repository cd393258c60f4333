package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConsolidateCommand(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	old := time.Now().UTC().Add(-10 * 24 * time.Hour).Format(time.RFC3339)
	young := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339)
	events := strings.Join([]string{
		fmt.Sprintf(`{"kind":"user_message","content":"I prefer Vim as my editor.","occurred_at":%q,"session_id":"s-old"}`, old),
		fmt.Sprintf(`{"kind":"user_message","content":"We decided to ship the release on Friday.","occurred_at":%q,"session_id":"s-old"}`, old),
		fmt.Sprintf(`{"kind":"user_message","content":"ok thanks","occurred_at":%q,"session_id":"s-old"}`, old),
		fmt.Sprintf(`{"kind":"user_message","content":"I live in Porto.","occurred_at":%q,"session_id":"s-new"}`, young),
	}, "\n")
	if code, _, errs := runCLI(t, db, events, "capture"); code != 0 {
		t.Fatalf("capture: %s", errs)
	}
	run := func(wantCode int, args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, db, "", args...)
		if code != wantCode {
			t.Fatalf("mnemon %v: exit %d, want %d: %s%s", args, code, wantCode, out, errs)
		}
		return out + errs
	}

	out := run(0, "consolidate", "s-old")
	if !strings.Contains(out, "session s-old (3 episodes) summarised into mem_") || !strings.Contains(out, "Vim") || strings.Contains(out, "ok thanks") {
		t.Errorf("consolidate s-old:\n%s", out)
	}
	out = run(0, "consolidate", "s-old")
	if !strings.Contains(out, "already summarised") {
		t.Errorf("consolidate again:\n%s", out)
	}
	out = run(0, "consolidate", "s-new")
	if !strings.Contains(out, "too recent") {
		t.Errorf("young session:\n%s", out)
	}
	// --min-age makes the young session due for the periodic run.
	out = run(0, "consolidate", "--all-due", "--min-age", "30m", "--json")
	var rep struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
			Status    string `json:"status"`
		} `json:"sessions"`
		Forgotten []any `json:"forgotten"`
		Purged    []any `json:"purged"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(rep.Sessions) != 1 || rep.Sessions[0].SessionID != "s-new" || rep.Sessions[0].Status != "summarised" || rep.Forgotten == nil || rep.Purged == nil {
		t.Errorf("all due: %+v", rep)
	}
	out = run(0, "consolidate", "--all-due")
	if !strings.Contains(out, "nothing is due") {
		t.Errorf("all due again:\n%s", out)
	}
	// The summary is a fact like any other.
	out = run(0, "facts", "--subject", "session")
	if !strings.Contains(out, "Vim") || !strings.Contains(out, "Porto") {
		t.Errorf("facts about sessions:\n%s", out)
	}

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"consolidate"}, 2, "one SESSION_ID or --all-due"},
		{[]string{"consolidate", "s-old", "--all-due"}, 2, "one SESSION_ID or --all-due"},
		{[]string{"consolidate", "a", "b"}, 2, "one SESSION_ID or --all-due"},
		{[]string{"consolidate", "--all-due", "--force"}, 2, "--force applies"},
		{[]string{"consolidate", "s-old", "--min-age", "soon"}, 2, "not an age"},
		{[]string{"consolidate", "s-old", "--purge-after", "-3d"}, 2, "above zero"},
		{[]string{"consolidate", "s-old", "--summary-tokens", "5"}, 2, "from 20 to 4000"},
		{[]string{"consolidate", "--all-due", "--digest-tokens", "9000"}, 2, "from 20 to 8000"},
		{[]string{"consolidate", "s\x01"}, 2, "control characters"},
		{[]string{"consolidate", "s-none"}, 1, `no session "s-none"`},
		{[]string{"--namespace", "other", "consolidate", "s-old"}, 1, `no session "s-old" in namespace "other"`},
	} {
		if out := run(c.code, c.args...); !strings.Contains(out, c.msg) {
			t.Errorf("mnemon %q: %s, want %q", c.args, out, c.msg)
		}
	}
	help := run(0, "help", "consolidate")
	for _, want := range []string{"--all-due", "--min-age", "--purge-after", "retention", "stub"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}

// A session months old is summarised and its episodes forgotten by one
// periodic run, purged by the next, and its summary folded into its
// month's digest.
func TestConsolidateFoldsOldSessions(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	at := time.Now().UTC().Add(-300 * 24 * time.Hour)
	events := fmt.Sprintf(`{"kind":"user_message","content":"I prefer Vim as my editor.","occurred_at":%q,"session_id":"s-old"}`, at.Format(time.RFC3339))
	if code, _, errs := runCLI(t, db, events, "capture"); code != 0 {
		t.Fatalf("capture: %s", errs)
	}
	var out string
	for range 2 {
		code, o, errs := runCLI(t, db, "", "consolidate", "--all-due", "--purge-after", "1ns")
		if code != 0 {
			t.Fatalf("consolidate: %s%s", o, errs)
		}
		out += o
	}
	month := at.Format("2006-01")
	for _, want := range []string{"summarised into", "forgot 1 summarised episode", "purged the text of 1 forgotten episode",
		"folded the summaries of 1 session (every episode purged) into the digest of " + month} {
		if !strings.Contains(out, want) {
			t.Errorf("consolidate --all-due twice:\n%s\nwant %q", out, want)
		}
	}
	code, facts, errs := runCLI(t, db, "", "facts", "--subject", "session")
	if code != 0 || !strings.Contains(facts, "summary:month:"+month) || !strings.Contains(facts, "Vim") || strings.Contains(facts, "summary:s-old") {
		t.Errorf("facts about sessions after folding (exit %d):\n%s%s", code, facts, errs)
	}
}
