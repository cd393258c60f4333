package agenthook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeLines(t *testing.T, lines ...any) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		if s, ok := l.(string); ok {
			b.WriteString(s + "\n")
			continue
		}
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Codex writes its session as response_item lines; the user's own text is
// an input_text block, with the environment context it injects as another
// user message.
func TestTurnFromCodexTranscript(t *testing.T) {
	msg := func(role, typ, text string) map[string]any {
		return map[string]any{"type": "response_item", "payload": map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": typ, "text": text}}}}
	}
	p := writeLines(t,
		map[string]any{"type": "session_meta", "payload": map[string]any{"id": "x"}},
		msg("user", "input_text", "<environment_context>\n  <cwd>/src</cwd>\n</environment_context>"),
		msg("user", "input_text", "Rename the flag to --dry-run."),
		map[string]any{"type": "response_item", "payload": map[string]any{"type": "function_call", "name": "shell", "arguments": "{}"}},
		msg("assistant", "output_text", "Renamed it in cli/flags.go and the README."),
		"not json at all",
	)
	msgs, err := Turn(Config{}, Input{SessionID: "c1", TranscriptPath: p})
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{{"user", "Rename the flag to --dry-run."}, {"assistant", "Renamed it in cli/flags.go and the README."}}
	if len(msgs) != 2 || msgs[0] != want[0] || msgs[1] != want[1] {
		t.Errorf("turn %+v, want %+v", msgs, want)
	}
}

// Without a transcript or a prompt in the stop input, the prompt the
// user-prompt hook noted is the user's message.
func TestTurnFromNotedPrompt(t *testing.T) {
	cfg := Config{Agent: "codex", StateDir: t.TempDir()}
	rememberPrompt(cfg, Input{SessionID: "c2", Prompt: "Why is CI red?"})
	msgs, err := Turn(cfg, Input{SessionID: "c2", LastAssistantMessage: "A flaky test in store/; rerun fixed it."})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Content != "Why is CI red?" || msgs[1].Role != "assistant" {
		t.Errorf("turn %+v", msgs)
	}
	// Another agent's session of the same id keeps its own state.
	other, _ := Turn(Config{Agent: "claude-code", StateDir: cfg.StateDir}, Input{SessionID: "c2", LastAssistantMessage: "x"})
	if len(other) != 1 {
		t.Errorf("state leaked across agents: %+v", other)
	}
}

func TestOutputAndInput(t *testing.T) {
	if Output("claude-code", "user-prompt", "", "  \n") != nil {
		t.Error("an empty context is printed")
	}
	out := Output("codex", "session-start", "", "Facts:\n- uses pnpm")
	var v map[string]map[string]string
	if err := json.Unmarshal(out, &v); err != nil || v["hookSpecificOutput"]["hookEventName"] != "SessionStart" || !strings.HasSuffix(v["hookSpecificOutput"]["additionalContext"], "- uses pnpm") {
		t.Errorf("output %s (%v)", out, err)
	}
	// Gemini CLI's name for the event when the input does not carry one.
	if !strings.Contains(string(Output("gemini-cli", "user-prompt", "", "x")), `"hookEventName":"BeforeAgent"`) {
		t.Error("gemini-cli prompt event is not BeforeAgent")
	}
	for _, bad := range []string{"", "   ", "[1]", "{"} {
		if _, err := ParseInput(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseInput(%q) took it", bad)
		}
	}
	if got := cutBytes("añb", 2); got != "a" {
		t.Errorf("cutBytes split a character: %q", got)
	}
}
