package extract

import (
	"github.com/mnemon-dev/mnemon/internal/wordruns"
	"go/scanner"
	gotoken "go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/internal/testutil"
)

// The extractor must read English, not recall the benchmarks that measure
// it: no run of four words in its rules, lexicons or the examples its
// comments give may appear in a template of bench/synthetic or (when the
// file is present) in the LoCoMo dev split. A failure names the run and
// where it is; generalise the rule (other words, a token pattern, a
// lexicon class) rather than deleting what it can read.
func TestRulesShareNoWordRunsWithBenchmarks(t *testing.T) {
	bench := map[string]string{} // run -> where the benchmark says it
	src, err := os.ReadFile(filepath.Join("..", "bench", "synthetic", "templates.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range goTexts(t, "templates.go", src, false) {
		for _, r := range wordRuns(s) {
			bench[r] = "bench/synthetic/templates.go: " + s
		}
	}
	if path, ok := testutil.FindShared("data/locomo/locomo-dev.json"); ok {
		for _, s := range jsonFileStrings(t, path) {
			for _, r := range wordRuns(s) {
				if _, ok := bench[r]; !ok {
					bench[r] = "LoCoMo dev: " + s
				}
			}
		}
	} else {
		t.Log("LoCoMo dev split not found; checking against bench/synthetic only")
	}

	// Every file of the extractor but its tests and their data.
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "testdata":
			return filepath.SkipDir
		case d.IsDir() || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		texts := []string{string(b)}
		if strings.HasSuffix(path, ".go") {
			texts = goTexts(t, path, b, true)
		}
		var shared []string
		seen := map[string]bool{}
		for _, s := range texts {
			for _, r := range wordRuns(s) {
				if where, ok := bench[r]; ok && !seen[r] {
					seen[r] = true
					shared = append(shared, strconv.Quote(r)+" in "+strconv.Quote(clip(s))+", as "+clip(where))
				}
			}
		}
		sort.Strings(shared)
		if len(shared) > 0 {
			t.Errorf("extract/%s shares word runs with the benchmarks:\n  %s", path, strings.Join(shared, "\n  "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// goTexts returns the texts of a Go file: each string literal, with a run of
// literals separated only by commas joined into one (seq(ts, i, "a", "b")
// spells a phrase), and, when comments is set, each comment.
func goTexts(t *testing.T, name string, src []byte, comments bool) []string {
	t.Helper()
	fset := gotoken.NewFileSet()
	var s scanner.Scanner
	mode := scanner.Mode(0)
	if comments {
		mode = scanner.ScanComments
	}
	s.Init(fset.AddFile(name, -1, len(src)), src, func(pos gotoken.Position, msg string) {
		t.Errorf("%s: %s", pos, msg)
	}, mode)
	var out, run []string
	flush := func() {
		if len(run) > 0 {
			out = append(out, strings.Join(run, " "))
			run = run[:0]
		}
	}
	for {
		_, tok, lit := s.Scan()
		switch tok {
		case gotoken.EOF:
			flush()
			return out
		case gotoken.STRING:
			if v, err := strconv.Unquote(lit); err == nil {
				run = append(run, v)
			}
		case gotoken.COMMA:
		case gotoken.COMMENT:
			flush()
			out = append(out, lit)
		default:
			flush()
		}
	}
}

// jsonStrings collects every string in a decoded JSON document.
func jsonStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, x := range v {
			out = jsonStrings(x, out)
		}
	case map[string]any:
		for _, x := range v {
			out = jsonStrings(x, out)
		}
	}
	return out
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 90 {
		return s[:90] + "..."
	}
	return s
}

// wordRuns is the normaliser both guards share (internal/wordruns).
func wordRuns(text string) []string { return wordruns.Of(text) }
