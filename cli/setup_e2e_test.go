package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupClaudeCodeNextSessionRemembers is the README's promise for
// Claude Code, end to end: `mnemon setup claude-code` once, then the
// commands it wrote are what Claude Code runs: the first session's Stop
// hook captures the turn from the transcript, and the next session's
// SessionStart hook injects what mattered in it, as does its first
// prompt's hook. The MCP server is registered with the same database.
func TestSetupClaudeCodeNextSessionRemembers(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "bin", "mnemon")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(home, "data", "mnemon.db")
	vars := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state")}
	if code, out, errs := hookRun(t, vars, "", "setup", "claude-code", "--binary", bin, "--db", db); code != 0 {
		t.Fatalf("setup: exit %d\n%s%s", code, out, errs)
	}

	var mcp struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(home, ".claude.json"), &mcp)
	if s := mcp.MCPServers["mnemon"]; s.Command != bin || strings.Join(s.Args, " ") != "mcp --db "+db {
		t.Fatalf("~/.claude.json registers %+v; want %s mcp --db %s", s, bin, db)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	readJSON(t, filepath.Join(home, ".claude", "settings.json"), &settings)
	// hook runs the command setup wrote for event, as Claude Code would
	// (in-process: the binary is this build), with the event's input.
	hook := func(event string, input map[string]any) (string, string) {
		t.Helper()
		groups := settings.Hooks[event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s hooks: %+v; want one mnemon command", event, groups)
		}
		h := groups[0].Hooks[0]
		args := strings.Fields(h.Command)
		if len(args) < 2 || args[0] != bin || args[1] != "hook" || h.Timeout <= 0 || h.Timeout > 15 {
			t.Fatalf("%s runs %q with timeout %d; want %s hook ... within 15 s", event, h.Command, h.Timeout, bin)
		}
		code, out, errs := hookRun(t, vars, hookInput(input), args[1:]...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", h.Command, code, out, errs)
		}
		if out == "" {
			return "", ""
		}
		return hookContext(t, out)
	}

	// Session one: nothing known yet, then the turn is captured.
	if _, ctx := hook("SessionStart", map[string]any{"session_id": "one", "hook_event_name": "SessionStart", "source": "startup", "cwd": home}); ctx != "" {
		t.Fatalf("a first session on a fresh machine got context %q", ctx)
	}
	hook("UserPromptSubmit", map[string]any{"session_id": "one", "hook_event_name": "UserPromptSubmit", "prompt": "Which port does the staging API listen on?"})
	hook("Stop", map[string]any{"session_id": "one", "hook_event_name": "Stop", "transcript_path": claudeTranscript(t, home)})

	// Session two starts with it, and its first prompt gets it too.
	name, ctx := hook("SessionStart", map[string]any{"session_id": "two", "hook_event_name": "SessionStart", "source": "startup", "cwd": home})
	if name != "SessionStart" || !strings.Contains(ctx, "8443") {
		t.Fatalf("the next session starts with %s %q; want the staging port from the last session", name, ctx)
	}
	name, ctx = hook("UserPromptSubmit", map[string]any{"session_id": "two", "hook_event_name": "UserPromptSubmit", "prompt": "remind me of the staging port"})
	if name != "UserPromptSubmit" || !strings.Contains(ctx, "8443") {
		t.Fatalf("the next session's prompt gets %s %q; want the staging port", name, ctx)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
}
