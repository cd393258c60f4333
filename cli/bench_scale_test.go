package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchScale(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never.db") // the suite must not touch it
	svg := filepath.Join(t.TempDir(), "plots")

	code, out, errs := runCLI(t, db, "", "bench", "scale", "--sizes", "200,1000", "--sessions", "2,4", "--turns", "4", "--queries", "10", "--svg", svg, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Fatalf("progress written to a non-terminal stderr: %q", errs)
	}
	var rep struct {
		Sizes []struct {
			Memories int `json:"memories"`
			Indexed  int `json:"indexed"`
			Retrieve struct {
				P95 float64 `json:"p95_ms"`
			} `json:"retrieve"`
		} `json:"sizes"`
		Sessions []struct {
			Available bool   `json:"available"`
			Note      string `json:"note"`
		} `json:"sessions"`
		Targets []struct {
			Status string `json:"status"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(rep.Sizes) != 2 || rep.Sizes[1].Indexed != 1000 || rep.Sizes[1].Retrieve.P95 <= 0 {
		t.Fatalf("sizes: %+v", rep.Sizes)
	}
	if len(rep.Sessions) != 2 || !rep.Sessions[0].Available || !rep.Sessions[1].Available || rep.Sessions[1].Note != "" {
		t.Fatalf("sessions: %+v", rep.Sessions)
	}
	for _, name := range []string{"scale-latency-size.svg", "scale-storage-size.svg", "scale-latency-sessions.svg", "scale-storage-sessions.svg"} {
		b, err := os.ReadFile(filepath.Join(svg, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(b, new(struct{})); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// --replot prints a saved report again and redraws its plots.
	saved := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(saved, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	replotted := filepath.Join(t.TempDir(), "replot")
	code, md, errs := runCLI(t, db, "", "bench", "scale", "--replot", saved, "--svg", replotted)
	if code != 0 || !strings.Contains(md, "| 1k | 1000 |") {
		t.Fatalf("--replot: exit %d\n%s%s", code, md, errs)
	}
	if names, _ := filepath.Glob(filepath.Join(replotted, "*.svg")); len(names) != 4 {
		t.Fatalf("--replot drew %v", names)
	}

	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("the suite touched the user's database: %v", err)
	}

	code, out, errs = runCLI(t, db, "", "bench", "scale", "--sizes", "none", "--sessions", "2", "--turns", "2", "--queries", "5")
	if code != 0 || !strings.Contains(out, "| sessions |") || !strings.Contains(out, "with consolidation") || strings.Contains(out, "Memories in one namespace") {
		t.Fatalf("markdown: exit %d\n%s%s", code, out, errs)
	}

	for _, bad := range [][]string{{"--sizes", "1x"}, {"--sizes", "none", "--sessions", "none"}, {"--turns", "1"}, {"--queries", "0"}} {
		code, _, errs = runCLI(t, db, "", append([]string{"bench", "scale"}, bad...)...)
		if code != 2 || !strings.Contains(errs, "bench scale") {
			t.Errorf("%v: exit %d: %s", bad, code, errs)
		}
	}
	code, out, _ = runCLI(t, db, "", "bench", "scale", "--help")
	if code != 0 || !strings.Contains(out, "--sizes") || !strings.Contains(out, "VmHWM") {
		t.Fatalf("--help: exit %d\n%s", code, out)
	}
}

func TestParseCounts(t *testing.T) {
	t.Parallel()
	got, err := parseCounts("100k, 1k,1M,1000", 1, 10_000_000)
	if err != nil || len(got) != 3 || got[0] != 1000 || got[1] != 100_000 || got[2] != 1_000_000 {
		t.Fatalf("parseCounts: %v, %v", got, err)
	}
	if got, err := parseCounts("none", 1, 10); err != nil || got != nil {
		t.Fatalf("none: %v, %v", got, err)
	}
	if _, err := parseCounts("0", 1, 10); err == nil {
		t.Fatal("0 accepted below the minimum")
	}
}
