package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFeedbackAndExplain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))
	mustRun(t, db, "remember", "I live in Lisbon.")
	var rec struct {
		RetrievalID string `json:"retrieval_id"`
		Items       []struct {
			MemoryID string `json:"memory_id"`
			Value    string `json:"value"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, db, "recall", "where does the user live?", "--json")), &rec); err != nil {
		t.Fatal(err)
	}
	memID := ""
	for _, it := range rec.Items {
		if it.Value == "Lisbon" {
			memID = it.MemoryID
		}
	}
	if memID == "" {
		t.Fatalf("recall: %+v", rec)
	}
	output := filepath.Join(dir, "answer.txt")
	if err := os.WriteFile(output, []byte("You live in Lisbon."), 0o600); err != nil {
		t.Fatal(err)
	}

	// Wrong calls say what to do.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"feedback", rec.RetrievalID}, "--outcome is required"},
		{[]string{"feedback", rec.RetrievalID, "--outcome", "great"}, `--outcome "great"`},
		{[]string{"feedback", rec.RetrievalID, "--outcome", "harmful", "--severity", "3"}, "--severity 3"},
		{[]string{"feedback", rec.RetrievalID, "--outcome", "helpful", "--source", "oracle"}, `--source "oracle"`},
		{[]string{"feedback", "ret_nope", "--outcome", "helpful"}, "no retrieval ret_nope in namespace default"},
		{[]string{"feedback", rec.RetrievalID, "--outcome", "helpful", "--memory", "mem_nope"}, "mem_nope is not among the items of " + rec.RetrievalID},
		{[]string{"--namespace", "bob", "feedback", rec.RetrievalID, "--outcome", "helpful"}, "no retrieval " + rec.RetrievalID + " in namespace bob"},
	} {
		code, _, errs := runCLI(t, db, "", c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Fatalf("mnemon %v: exit %d, stderr %q; want %q", c.args, code, errs, c.want)
		}
	}

	out := mustRun(t, db, "feedback", rec.RetrievalID, "--outcome", "helpful", "--memory", memID, "--output-file", output)
	if !strings.Contains(out, "reinforced") || !strings.Contains(out, "usefulness 0.50 → 0.60") {
		t.Fatalf("feedback:\n%s", out)
	}
	out = mustRun(t, db, "feedback", rec.RetrievalID, "--outcome", "helpful", "--memory", memID, "--output-file", output)
	if !strings.Contains(out, "already recorded") {
		t.Fatalf("repeat:\n%s", out)
	}
	out = mustRun(t, db, "feedback", rec.RetrievalID, "--outcome", "harmful", "--memory", memID, "--severity", "0.5", "--source", "user", "--json")
	var res struct {
		Applied []struct {
			UsefulnessAfter float64 `json:"usefulness_after"`
		} `json:"applied"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Applied) != 1 || res.Applied[0].UsefulnessAfter != 0.45 {
		t.Fatalf("harmful --json: %v\n%s", err, out)
	}

	out = mustRun(t, db, "explain", memID)
	for _, want := range []string{"admission log:", "why:", "helpful from agent on " + rec.RetrievalID, "(reinforced)", "harmful from user", "uncertainty"} {
		if !strings.Contains(out, want) {
			t.Fatalf("explain lacks %q:\n%s", want, out)
		}
	}
	out = mustRun(t, db, "explain", rec.RetrievalID)
	if !strings.Contains(out, "candidates") || !strings.Contains(out, "feedback:") || !strings.Contains(out, "harmful") {
		t.Fatalf("explain retrieval:\n%s", out)
	}

	// Feedback travels with an export: explain in the copy tells the same
	// history.
	exp := filepath.Join(dir, "export.jsonl")
	if _, _, errs := runCLI(t, db, "", "export", "--out", exp); !strings.Contains(errs, ", 2 feedback events from namespace default") {
		t.Fatalf("export: %s", errs)
	}
	if out := mustRun(t, db, "--namespace", "copy", "import", exp); !strings.Contains(out, ", 2 feedback events into namespace copy") {
		t.Fatalf("import: %s", out)
	}
	out = mustRun(t, db, "--namespace", "copy", "explain", memID)
	for _, want := range []string{"helpful from agent on " + rec.RetrievalID, "(reinforced)", "harmful from user"} {
		if !strings.Contains(out, want) {
			t.Fatalf("explain in the imported copy lacks %q:\n%s", want, out)
		}
	}
}

func TestServeTrustThresholds(t *testing.T) {
	t.Parallel()
	env := map[string]string{"MNEMON_TRUST_FOLLOW_AT": "0.8", "MNEMON_TRUST_HINT_AT": "0.5"}
	cfg, err := loadServerConfig("", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	r, err := cfg.trustRanking()
	if err != nil || r.FollowAt != 0.8 || r.HintAt != 0.5 {
		t.Fatalf("ranking %v %v: %v", r.FollowAt, r.HintAt, err)
	}
	file := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(file, []byte(`{"trust_follow_at": 0.4, "trust_hint_at": 0.6}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = loadServerConfig(file, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.trustRanking(); err == nil || !strings.Contains(err.Error(), "trust_hint_at <= trust_follow_at") {
		t.Fatalf("hint above follow: %v", err)
	}
	if _, err := loadServerConfig("", func(k string) string {
		if k == "MNEMON_TRUST_HINT_AT" {
			return "high"
		}
		return ""
	}); err == nil {
		t.Fatal("a non-number threshold was accepted")
	}
}
