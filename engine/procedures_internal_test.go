package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

func TestToolStep(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, content string
		meta          map[string]string
		want          string // the step's text; "" for no step
	}{
		{"command line keeps its subcommand", "pnpm install --frozen-lockfile", nil, "Run pnpm install"},
		{"values and flags are dropped", "git commit -m 'fix the build'", nil, "Run git commit"},
		{"at most two plain words", "go test ./engine -run TestX", nil, "Run go test"},
		{"quoted and prompted", "$ `make build`", nil, "Run make build"},
		{"tool from metadata, JSON arguments by key", `{"path": "a.go", "line": 3}`, map[string]string{"tool": "Read_File"}, "Call read_file(line, path)"},
		{"tool named inside the JSON", `{"name": "search", "arguments": {"query": "x", "limit": 5}}`, nil, "Call search(limit, query)"},
		{"tool_name metadata", "ls -la /tmp", map[string]string{"tool_name": "shell"}, "Run shell ls"},
		{"JSON without a tool name", `{"path": "a.go"}`, nil, ""},
		{"empty", "   ", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := toolStep(&memory.Episode{Kind: memory.EpisodeToolCall, Content: tc.content, Metadata: tc.meta})
			if got.text != tc.want {
				t.Errorf("toolStep(%q) = %q, want %q", tc.content, got.text, tc.want)
			}
			if (got.key == "") != (tc.want == "") {
				t.Errorf("key %q for text %q", got.key, got.text)
			}
		})
	}
}

func TestCommonSteps(t *testing.T) {
	t.Parallel()
	run := func(keys ...string) []procStep {
		out := make([]procStep, len(keys))
		for i, k := range keys {
			out[i] = procStep{key: k, text: strings.ToUpper(k)}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		runs  [][]procStep
		limit int
		want  []string
	}{
		{"shared by all, in order", [][]procStep{run("a", "b", "c"), run("a", "b", "c"), run("a", "b", "c")}, 10, []string{"A", "B", "C"}},
		{"a step of one session in three is dropped", [][]procStep{run("a", "x", "b"), run("a", "b"), run("a", "b", "y")}, 10, []string{"A", "B"}},
		{"two sessions of three keep a step", [][]procStep{run("a", "b", "c"), run("a", "c"), run("a", "b", "c")}, 10, []string{"A", "B", "C"}},
		{"half is not a majority", [][]procStep{run("a", "b"), run("a"), run("a", "b"), run("a")}, 10, []string{"A"}},
		{"order by mean position", [][]procStep{run("b", "a"), run("a", "b"), run("a", "b")}, 10, []string{"A", "B"}},
		{"nothing shared", [][]procStep{run("a"), run("b"), run("c")}, 10, nil},
		{"bounded: the most shared stay", [][]procStep{run("a", "b", "c"), run("a", "c"), run("a", "b", "c")}, 2, []string{"A", "C"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := commonSteps(tc.runs, tc.limit); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// Wording: the most common text of a step wins, ties by text.
	runs := [][]procStep{
		{{key: "k", text: "Run x"}}, {{key: "k", text: "run x"}}, {{key: "k", text: "run x"}},
	}
	if got := commonSteps(runs, 10); !slices.Equal(got, []string{"run x"}) {
		t.Errorf("wording: %q", got)
	}
}

func TestNormalizeTaskType(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Deploy Atlas":          "deploy_atlas",
		"  ci/release-v2  ":     "ci_release_v2",
		"___":                   "",
		"":                      "",
		strings.Repeat("a", 70): strings.Repeat("a", 64),
	} {
		if got := NormalizeTaskType(in); got != want {
			t.Errorf("NormalizeTaskType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFirstSentenceAndClip(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"I will run the tests. Then deploy.": "I will run the tests",
		"Check v1.2 first\nthen go":          "Check v1.2 first",
		"No end":                             "No end",
		"Done!":                              "Done",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
	if got := clip("install the dependencies first", 20); got != "install the" {
		t.Errorf("clip = %q", got)
	}
	if got := clip("héhéhé", 2); got != "h" {
		t.Errorf("clip cuts a rune: %q", got)
	}
}
