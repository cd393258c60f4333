package extract

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// TestConversationFixture runs testdata/conversation.txt: realistic
// messages and the candidates each must yield (see the file's header).
func TestConversationFixture(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/conversation.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type fixture struct {
		line int
		ev   Event
		want []string
	}
	var cases []*fixture
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kinds := map[string]memory.EpisodeKind{"> ": memory.EpisodeUserMessage, "agent> ": memory.EpisodeAgentMessage, "tool> ": memory.EpisodeToolResult}
		input := false
		for prefix, kind := range kinds {
			if strings.HasPrefix(line, prefix) {
				cases = append(cases, &fixture{line: n, ev: Event{Kind: kind, Content: strings.TrimPrefix(line, prefix)}})
				input = true
			}
		}
		if input {
			continue
		}
		if len(cases) == 0 {
			t.Fatalf("line %d: expectation before any input", n)
		}
		if line != "-" {
			c := cases[len(cases)-1]
			c.want = append(c.want, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("only %d fixtures read", len(cases))
	}
	for _, c := range cases {
		got := []string{}
		for _, cand := range extractAll(t, c.ev) {
			got = append(got, summary(cand))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("testdata/conversation.txt:%d: %q\n got: %q\nwant: %q", c.line, c.ev.Content, got, c.want)
		}
	}
}
