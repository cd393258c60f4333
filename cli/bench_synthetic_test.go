package cli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchSynthetic(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db") // the suite must not touch it

	code, out, errs := runCLI(t, db, "", "bench", "synthetic", "--users", "2", "--sessions", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Split      string `json:"split"`
		Questions  int    `json:"questions"`
		Conditions []struct {
			Condition string  `json:"condition"`
			Accuracy  float64 `json:"accuracy"`
		} `json:"conditions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Split != "test" || rep.Questions == 0 || len(rep.Conditions) != 6 {
		t.Fatalf("report: %+v", rep)
	}
	if errs != "" {
		t.Fatalf("progress written to a non-terminal stderr: %q", errs)
	}

	code, out, errs = runCLI(t, db, "", "bench", "synthetic", "--users", "1", "--sessions", "3", "--conditions", "none,hybrid")
	if code != 0 || !strings.Contains(out, "| mnemon, full hybrid |") || strings.Contains(out, "last 400 words") {
		t.Fatalf("markdown: exit %d\n%s%s", code, out, errs)
	}

	// Tuning seeds are labelled, and refused without --tune; --tune
	// refuses a test seed.
	code, _, errs = runCLI(t, db, "", "bench", "synthetic", "--seed", "1500")
	if code != 2 || !strings.Contains(errs, "tuning seed") {
		t.Fatalf("tuning seed without --tune: exit %d: %s", code, errs)
	}
	code, out, errs = runCLI(t, db, "", "bench", "synthetic", "--tune", "--seed", "1500", "--users", "1", "--sessions", "2", "--conditions", "none")
	if code != 0 || !strings.Contains(out, "Tuning seed: not a test result") {
		t.Fatalf("--tune: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = runCLI(t, db, "", "bench", "synthetic", "--tune")
	if code != 2 || !strings.Contains(errs, "test seed") {
		t.Fatalf("--tune with a test seed: exit %d: %s", code, errs)
	}

	code, _, errs = runCLI(t, db, "", "bench", "synthetic", "--conditions", "hybird")
	if code != 2 || !strings.Contains(errs, "unknown condition") {
		t.Fatalf("unknown condition: exit %d: %s", code, errs)
	}
	code, out, _ = runCLI(t, db, "", "bench", "synthetic", "--help")
	if code != 0 || !strings.Contains(out, "window1600") || !strings.Contains(out, "--seed") {
		t.Fatalf("--help: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, db, "", "bench", "--help")
	if code != 0 || !strings.Contains(out, "synthetic") {
		t.Fatalf("bench --help does not list synthetic:\n%s", out)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the suite touched --db: %v", err)
	}
}
