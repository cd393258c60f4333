// Package unchanged builds the inputs of extract's TestExtractionUnchanged;
// it holds only this test, so extract's own tests do not link the engine
// the synthetic generator needs.
package unchanged

import (
	"bufio"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/bench/synthetic"
	"github.com/mnemon-dev/mnemon/internal/testutil"
)

// TestBuildUnchangedInputs writes the inputs TestExtractionUnchanged reads
// when a refactoring of the rules must keep their output: every text the
// repository holds for the extractor (the golden sentences, the
// conversation file, the scenario suite and its small talk, 17 synthetic
// seeds, the LoCoMo dev turns when ../shared has them, the string literals
// of the tests that drive the rules), each as said and in the variants
// that reach other paths of the rules (an agent's message, lower case, a
// correction after it, a project, a third person before it...).
//
//	go test ./extract/unchanged -extract.build-inputs in.jsonl
//
// Sentences built for the matcher being moved belong beside them, in the
// same format; see docs/benchmarks/synthetic.md.
var buildInputs = flag.String("extract.build-inputs", "", "write the inputs of TestExtractionUnchanged here")

func TestBuildUnchangedInputs(t *testing.T) {
	if *buildInputs == "" {
		t.Skip("no -extract.build-inputs")
	}
	var texts []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			texts = append(texts, s)
		}
	}
	golden, _ := filepath.Glob("../testdata/golden/*.json")
	for _, f := range golden {
		jsonTexts(t, f, add)
	}
	if b, err := os.ReadFile("../testdata/conversation.txt"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			add(l)
		}
	}
	filepath.WalkDir("../../bench/scenarios/testdata", func(p string, _ os.DirEntry, _ error) error {
		if strings.HasSuffix(p, ".json") {
			jsonTexts(t, p, add)
		}
		return nil
	})
	if p, ok := testutil.FindShared("data/locomo/locomo-dev.json"); ok {
		jsonTexts(t, p, add)
	}
	seeds := []uint64{1001, 1002} // the tuning seeds, and the test seeds 1-15
	for s := range uint64(15) {
		seeds = append(seeds, s+1)
	}
	for _, seed := range seeds {
		for _, u := range synthetic.Generate(synthetic.Spec{Seed: seed, Users: 40, Sessions: 4}) {
			for _, turn := range u.Turns {
				add(turn.Text)
			}
		}
	}
	for _, dir := range []string{"..", "../../engine", "../../httpapi", "../../bench/synthetic", "../../bench/scenarios", "../../bench/locomo", "../../cli", "../../mcpserver"} {
		files, _ := filepath.Glob(dir + "/*_test.go")
		for _, name := range files {
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && strings.Contains(s, " ") && len(s) < 400 {
						add(s)
					}
				}
				return true
			})
		}
	}
	out, err := os.Create(*buildInputs)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	seen := map[string]bool{}
	n := 0
	for _, s := range texts {
		if seen[s] {
			continue
		}
		seen[s] = true
		bare := strings.TrimRight(s, ".!?")
		low := strings.ToLower(s[:1]) + s[1:]
		for _, v := range []struct{ Text, Kind, Speaker, Project string }{
			{Text: s, Kind: "user_message"},
			{Text: s, Kind: "agent_message", Speaker: "assistant"},
			{Text: strings.ToLower(s), Kind: "user_message"},
			{Text: "actually, " + low, Kind: "user_message"},
			{Text: s, Kind: "user_message", Project: "proj-a"},
			{Text: bare + ", sorry, Linz.", Kind: "user_message"},
			{Text: "I'd say " + low, Kind: "user_message"},
			{Text: "so " + bare + " now", Kind: "user_message"},
			{Text: "we " + low, Kind: "user_message"},
			{Text: bare + " these days, not anymore", Kind: "user_message"},
			{Text: bare + " though, honestly.", Kind: "user_message"},
			{Text: "my brother " + low, Kind: "user_message"},
			{Text: "Tom says " + low, Kind: "user_message"},
			{Text: "I switched from " + bare + " to Neovim", Kind: "user_message"},
		} {
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d distinct texts, %d inputs", len(seen), n)
}

// jsonTexts passes every string of a JSON file kept under "text",
// "sentence", "context" or "q", and every string of a list, to add.
func jsonTexts(t *testing.T, path string, add func(string)) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "text" || k == "sentence" || k == "context" || k == "q") {
					add(s)
				} else {
					walk(x)
				}
			}
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					add(s)
				} else {
					walk(x)
				}
			}
		}
	}
	walk(v)
}
