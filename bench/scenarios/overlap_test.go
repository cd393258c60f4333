package scenarios

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

var words = regexp.MustCompile(`[a-z0-9']+`)

// commonWords are the words a run of ordinary English is made of; a run of
// nothing else ("at the end of") is shared by any two texts and proves
// nothing.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but so if of to in on at by for with from as is are was
		were be been am i i'm me my you your it it's its he she her him his we our they them their this that
		these those there here what who how when where which not no do does did have has had will would can
		could should just all any some one up out about into over then than too very more most`) {
		commonWords[w] = true
	}
}

// wordRuns returns the runs of four words of text, lowercased, leaving
// out runs of common words only.
func wordRuns(text string) []string {
	w := words.FindAllString(strings.ToLower(text), -1)
	var out []string
	for i := 0; i+4 <= len(w); i++ {
		run := w[i : i+4]
		common := true
		for _, x := range run {
			common = common && commonWords[x]
		}
		if !common {
			out = append(out, strings.Join(run, " "))
		}
	}
	return out
}
