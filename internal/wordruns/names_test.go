package wordruns_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/internal/testutil"
)

// The project is measured on conversations it has never seen, so nothing
// that feeds or tests the engine may be written around the people of the
// LoCoMo dev split: a test that passes because it uses a benchmark's
// speaker says nothing about anyone else. This walks every source, data
// and fixture file of the repository (docs may cite the data; they are
// left out) and fails on any speaker's name as a whole, capitalised word.
func TestNoLoCoMoSpeakerNames(t *testing.T) {
	path, ok := testutil.FindShared("data/locomo/locomo-dev.json")
	if !ok {
		t.Skip("LoCoMo dev split not found (../shared/data); nothing to guard against")
	}
	names := speakerNames(t, path)
	if len(names) == 0 {
		t.Fatal("no speaker names read from the LoCoMo file: has its format changed?")
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	re := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)

	root := filepath.Join("..", "..")
	checked := map[string]bool{".go": true, ".txt": true, ".json": true, ".jsonl": true, ".py": true,
		".js": true, ".ts": true, ".html": true, ".css": true, ".sh": true, ".yaml": true, ".yml": true, ".toml": true}
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !checked[filepath.Ext(p)] {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		for i, line := range strings.Split(string(b), "\n") {
			if m := re.FindString(line); m != "" {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s:%d names %q, a LoCoMo speaker: invent another name", rel, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked only %d files from %s: is the repository root right?", files, root)
	}
}

// speakerNames reads the two speakers of every conversation.
func speakerNames(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var convs []struct {
		Conversation map[string]any `json:"conversation"`
	}
	if err := json.Unmarshal(b, &convs); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range convs {
		for _, k := range []string{"speaker_a", "speaker_b"} {
			if s, ok := c.Conversation[k].(string); ok && s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
