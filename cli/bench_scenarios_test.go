package cli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchScenarios(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db") // the suite must not touch it

	code, out, errs := runCLI(t, db, "", "bench", "scenarios", "--category", "history", "--verbose", "--facts")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"## mnemon bench scenarios", "| history |", "| **overall** |", "Facts written:", "Retrieve latency:", "### Misses", "### Facts written"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| updates |") || strings.Contains(out, "Never-stated questions") {
		t.Errorf("--category history reported other categories:\n%s", out)
	}
	if errs != "" {
		t.Fatalf("progress written to a non-terminal stderr: %q", errs)
	}

	code, out, errs = runCLI(t, db, "", "bench", "scenarios", "--category", "never-stated", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var rep struct {
		Questions   int `json:"questions"`
		NeverStated struct {
			Questions  int `json:"questions"`
			Violations int `json:"violations"`
		} `json:"never_stated"`
		Results []struct {
			Category string   `json:"category"`
			Wrong    []string `json:"wrong"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Questions == 0 || rep.NeverStated.Questions != rep.Questions || len(rep.Results) != rep.Questions {
		t.Fatalf("--json never-stated: %+v", rep)
	}
	for _, r := range rep.Results {
		if r.Category != "never-stated" || len(r.Wrong) == 0 {
			t.Fatalf("--json result: %+v", r)
		}
	}

	// A scenario file of one's own.
	mine := filepath.Join(t.TempDir(), "mine.json")
	if err := os.WriteFile(mine, []byte(`[{"id": "mine", "category": "preferences",
		"sessions": [{"id": "s1", "day": 0, "turns": [{"speaker": "user", "text": "oolong is my tea, none of that earl grey"}]}],
		"questions": [{"q": "what tea do I drink?", "answer": ["oolong"]}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, db, "", "bench", "scenarios", "--data", mine)
	if code != 0 || !strings.Contains(out, "1 scenarios, 1 sessions, 1 turns, 1 questions") ||
		!strings.Contains(out, "Mixed in: 4 sessions of small talk") || !strings.Contains(out, "| preferences | 1 |") {
		t.Fatalf("--data: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI(t, db, "", "bench", "scenarios", "--data", mine, "--no-filler")
	if code != 0 || strings.Contains(out, "Mixed in") {
		t.Fatalf("--no-filler: exit %d\n%s%s", code, out, errs)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--category", "histroy"}, 2, `unknown category "histroy" (did you mean history?)`},
		{[]string{"--limit", "3"}, 2, "--limit 3: use 5 to"},
		{[]string{"extra"}, 2, "takes flags only"},
		{[]string{"--data", filepath.Join(t.TempDir(), "none.json")}, 1, "no file or directory"},
		{[]string{"--data", mine, "--category", "updates"}, 1, "no questions in category updates"},
	} {
		code, _, errs := runCLI(t, db, "", append([]string{"bench", "scenarios"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d: %s; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"id": "bad", "category": "updates",
		"sessions": [{"id": "s1", "day": 0, "turns": [{"speaker": "user", "text": "I live in Namur"}]}],
		"questions": [{"q": "where do I live?", "answer": ["Liege"]}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, db, "", "bench", "scenarios", "--data", bad)
	if code != 1 || !strings.Contains(errs, `"Liege" is said in no turn`) {
		t.Fatalf("invalid data: exit %d: %s", code, errs)
	}

	code, out, _ = runCLI(t, db, "", "bench", "scenarios", "--help")
	if code != 0 || !strings.Contains(out, "never-stated") || !strings.Contains(out, "--category") || !strings.Contains(out, "--verbose") {
		t.Fatalf("--help: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, db, "", "bench", "--help")
	if code != 0 || !strings.Contains(out, "scenarios") {
		t.Fatalf("bench --help does not list scenarios:\n%s", out)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the suite touched --db: %v", err)
	}
}
