package cli

import (
	"encoding/json"
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
	for _, want := range []string{"## Categories 1-4 (headline)", "| mnemon |", "| bm25 |", "| mnemon, no context |", "| mnemon, context 2 |", "5 adversarial (apart)", "recall_all@25"} {
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
