package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchLocomo(t *testing.T) {
	t.Parallel()
	fixture := filepath.Join("..", "bench", "locomo", "testdata", "tiny.json")

	code, out, errs := runCLI(t, "", "", "bench", "locomo", "--data", fixture)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"## Categories 1-4 (headline)", "| mnemon |", "| bm25 |", "| mnemon, no context |", "| mnemon, context 1 |", "5 adversarial (apart)", "recall_all@25",
		"## Recall within a token budget", "recall_all within 500", "multi-hop within 2000"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if errs != "" {
		t.Errorf("progress drawn on a non-terminal stderr: %q", errs)
	}

	code, out, errs = runCLI(t, "", "", "bench", "locomo", "--data", fixture, "--json", "--ablation", "--k", "3")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var rep struct {
		Questions int `json:"questions"`
		Arms      []struct {
			Name     string `json:"name"`
			Headline struct {
				K []int `json:"k"`
			} `json:"headline"`
		} `json:"arms"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Questions != 5 || len(rep.Arms) < 10 || len(rep.Arms[0].Headline.K) != 2 {
		t.Fatalf("--json --ablation --k 3: %d questions, %d arms, k %v", rep.Questions, len(rep.Arms), rep.Arms[0].Headline.K)
	}

	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "locomo"}, 2, "--data FILE"},
		{[]string{"bench", "locomo", "--data", "nope.json"}, 1, "no file nope.json"},
		{[]string{"bench", "locomo", "--data", fixture, "--k", "0"}, 2, "--k"},
		{[]string{"bench", "locomo", "--dat", fixture}, 2, "did you mean --data"},
		{[]string{"bench", "lokomo"}, 2, "did you mean locomo"},
	} {
		code, _, errs := runCLI(t, "", "", tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("mnemon %v: exit %d, %q; want %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
	code, out, _ = runCLI(t, "", "", "bench", "locomo", "--help")
	if code != 0 || !strings.Contains(out, "recall_all@k") || !strings.Contains(out, "--data FILE") {
		t.Errorf("bench locomo --help: exit %d\n%s", code, out)
	}
}

// TestBenchLocomoViaAPI runs the benchmark the way agent code drives
// mnemon, on a slice of the LoCoMo development split (skipped where the
// data is absent, as on a user's machine): each session captured over HTTP
// with its session id, questions asked from a later session. Recall must
// match the in-process path: a session is a conversation, not a wall.
func TestBenchLocomoViaAPI(t *testing.T) {
	t.Parallel()
	data := filepath.Join("..", "..", "shared", "data", "locomo", "locomo-dev.json")
	raw, err := os.ReadFile(data)
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("no LoCoMo development split at " + data)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The first conversation's first three sessions: questions whose
	// evidence lies in later sessions are skipped by the benchmark.
	var convs []map[string]any
	if err := json.Unmarshal(raw, &convs); err != nil {
		t.Fatal(err)
	}
	conv := convs[0]["conversation"].(map[string]any)
	for k := range conv {
		var n int
		if _, err := fmt.Sscanf(k, "session_%d", &n); err == nil && n > 3 {
			delete(conv, k)
		}
	}
	slice, err := json.Marshal(convs[:1])
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "slice.json")
	if err := os.WriteFile(file, slice, 0o600); err != nil {
		t.Fatal(err)
	}

	type report struct {
		Questions int `json:"questions"`
		Arms      []struct {
			Name     string `json:"name"`
			Headline struct {
				RecallAll []float64 `json:"recall_all"`
			} `json:"headline"`
		} `json:"arms"`
	}
	run := func(args ...string) report {
		t.Helper()
		code, out, errs := runCLI(t, "", "", append([]string{"bench", "locomo", "--data", file, "--json", "--k", "10"}, args...)...)
		if code != 0 {
			t.Fatalf("bench locomo %v: exit %d: %s", args, code, errs)
		}
		var rep report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if rep.Questions < 20 || len(rep.Arms) != 4 {
			t.Fatalf("bench locomo %v: %d questions, %d arms", args, rep.Questions, len(rep.Arms))
		}
		return rep
	}
	in, api := run(), run("--via-api")
	if api.Arms[0].Name != "mnemon via API" || in.Arms[0].Name != "mnemon" {
		t.Fatalf("arms %q and %q", api.Arms[0].Name, in.Arms[0].Name)
	}
	for i := 0; i < 3; i++ {
		a, b := api.Arms[i].Headline.RecallAll[0], in.Arms[i].Headline.RecallAll[0]
		if math.Abs(a-b) > 0.02 || a < 0.3 {
			t.Errorf("%s: recall_all@10 %.3f over the API, %.3f in process", api.Arms[i].Name, a, b)
		}
	}
	if code, _, errs := runCLI(t, "", "", "bench", "locomo", "--data", file, "--via-api", "--ablation"); code != 2 || !strings.Contains(errs, "--ablation and --via-api") {
		t.Errorf("--via-api --ablation: exit %d, %s", code, errs)
	}
}
