package scenarios

import (
	"github.com/mnemon-dev/mnemon/internal/wordruns"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The suite is a yardstick only while nothing is fitted to it, and it was
// written without borrowing from what mnemon already knows: no run of four
// words of a turn or a question may appear in the extractor's rules and
// lexicons, the synthetic suite's templates or (when present) the LoCoMo
// file. A failure names the runs: reword the scenario, or take the
// sentence out of the rules.
func TestSuiteSharesNoWordRuns(t *testing.T) {
	scs, err := Suite()
	if err != nil {
		t.Fatal(err)
	}
	filler, err := Filler()
	if err != nil {
		t.Fatal(err)
	}
	mine := map[string]string{}
	add := func(text string) {
		for _, r := range wordRuns(text) {
			mine[r] = text
		}
	}
	for _, s := range scs {
		for _, ss := range s.Sessions {
			for _, tu := range ss.Turns {
				add(tu.Text)
			}
		}
		for _, q := range s.Questions {
			add(q.Text)
		}
	}
	for _, f := range filler {
		for _, tu := range f.Turns {
			add(tu.Text)
		}
	}

	var sources []string
	// The extractor's rules and data, not its tests.
	err = filepath.WalkDir(filepath.Join("..", "..", "extract"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && !strings.HasSuffix(path, "_test.go") {
			sources = append(sources, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sources = append(sources, filepath.Join("..", "synthetic", "templates.go"))
	if locomo := filepath.Join("..", "..", "..", "shared", "data", "locomo", "locomo-dev.json"); fileExists(locomo) {
		sources = append(sources, locomo)
	}
	for _, path := range sources {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var shared []string
		seen := map[string]bool{}
		for _, r := range wordRuns(string(b)) {
			if said, ok := mine[r]; ok && !seen[r] {
				seen[r] = true
				shared = append(shared, r+" (in "+said+")")
			}
		}
		sort.Strings(shared)
		if len(shared) > 0 {
			t.Errorf("%s shares word runs with the scenario suite:\n  %s", path, strings.Join(shared, "\n  "))
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// wordRuns is the normaliser both guards share (internal/wordruns).
func wordRuns(text string) []string { return wordruns.Of(text) }
