package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// hookRun runs mnemon in-process with exactly vars as its environment.
func hookRun(t *testing.T, vars map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	if len(args) > 0 && args[0] == "hook" && !slices.Contains(args, "--timeout") {
		// Under -race on a busy 2-core machine a hook can run past its
		// 5 s default and print nothing; these tests check what it
		// prints, and the test of the bound passes its own.
		args = append(slices.Clip(args), "--timeout", "2m")
	}
	return hookRunB(vars, stdin, args...)
}

func hookRunB(vars map[string]string, stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }}
	code := Main(context.Background(), args, env)
	return code, out.String(), errb.String()
}

// hookContext parses a hook's output: the agent event name and the context.
func hookContext(t *testing.T, out string) (string, string) {
	t.Helper()
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("hook output is not the agents' JSON: %v\n%s", err, out)
	}
	return v.HookSpecificOutput.HookEventName, v.HookSpecificOutput.AdditionalContext
}

func hookInput(fields map[string]any) string {
	b, _ := json.Marshal(fields)
	return string(b)
}

// claudeTranscript writes a transcript in Claude Code's JSON-lines form:
// an earlier turn, then the last one with a tool call between the prompt
// and the final answer.
func claudeTranscript(t *testing.T, dir string) string {
	lines := []map[string]any{
		{"type": "user", "message": map[string]any{"role": "user", "content": "What is the capital of the build matrix?"}},
		{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "An earlier answer."}}}},
		{"type": "user", "isMeta": true, "message": map[string]any{"role": "user", "content": "<command-name>/clear</command-name>"}},
		{"type": "user", "message": map[string]any{"role": "user", "content": "Which port does the staging API listen on?"}},
		{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Let me check the config."},
			map[string]any{"type": "tool_use", "id": "t1", "name": "Read", "input": map[string]any{"file_path": "deploy/staging.yaml"}},
		}}},
		{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": "port: 8443"}}}},
		{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "The staging API listens on port 8443 behind the VPN."}}}},
	}
	var b strings.Builder
	for _, l := range lines {
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, "transcript.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHookLocal runs the three hook events against a real SQLite file, as
// Claude Code and Gemini CLI would call them.
func TestHookLocal(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	vars := map[string]string{"HOME": dir, "XDG_STATE_HOME": filepath.Join(dir, "state")}

	// No database yet: a prompt hook prints nothing and creates nothing.
	code, out, _ := hookRun(t, vars, hookInput(map[string]any{"session_id": "s1", "prompt": "how do we deploy?"}), "hook", "user-prompt", "--db", db)
	if code != 0 || out != "" {
		t.Fatalf("no database: exit %d, output %q", code, out)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatal("a prompt hook created the database")
	}

	if code, _, errs := hookRun(t, vars, "", "remember", "--db", db, "Deploys go out with make ship from the release branch."); code != 0 {
		t.Fatalf("remember: %s", errs)
	}
	code, out, _ = hookRun(t, vars, hookInput(map[string]any{"session_id": "s1", "hook_event_name": "UserPromptSubmit", "prompt": "how do we deploy?"}), "hook", "user-prompt", "--db", db)
	name, ctx := hookContext(t, out)
	if code != 0 || name != "UserPromptSubmit" || !strings.Contains(ctx, "make ship") {
		t.Fatalf("user-prompt: exit %d, %s %q", code, name, ctx)
	}

	// Stop: the last turn of the transcript is captured, once.
	stop := hookInput(map[string]any{"session_id": "claude-s1", "hook_event_name": "Stop", "transcript_path": claudeTranscript(t, dir)})
	for range 2 {
		if code, out, _ := hookRun(t, vars, stop, "hook", "stop", "--db", db); code != 0 || out != "" {
			t.Fatalf("stop: exit %d, output %q", code, out)
		}
	}
	_, export, _ := hookRun(t, vars, "", "export", "--db", db)
	episodes := 0
	for _, line := range strings.Split(export, "\n") {
		if strings.HasPrefix(line, `{"record":"episode"`) && strings.Contains(line, "listens on port 8443") {
			episodes++
		}
	}
	if n := episodes; n != 1 {
		t.Errorf("the answer is stored %d times, want once:\n%s", n, export)
	}
	for _, want := range []string{"Which port does the staging API listen on?", `"claude-s1"`} {
		if !strings.Contains(export, want) {
			t.Errorf("export lacks %q:\n%s", want, export)
		}
	}
	for _, not := range []string{"An earlier answer", "tool_result", "port: 8443"} {
		if strings.Contains(export, not) {
			t.Errorf("export holds %q, which is not the last turn's messages", not)
		}
	}

	// The next session starts with what mattered.
	code, out, _ = hookRun(t, vars, hookInput(map[string]any{"session_id": "claude-s2", "source": "startup", "cwd": "/src/api"}), "hook", "session-start", "--db", db)
	name, ctx = hookContext(t, out)
	if code != 0 || name != "SessionStart" || ctx == "" {
		t.Fatalf("session-start: exit %d, %s %q", code, name, ctx)
	}
	_, out, _ = hookRun(t, vars, hookInput(map[string]any{"session_id": "claude-s2", "prompt": "which port is staging on?"}), "hook", "user-prompt", "--db", db)
	if _, ctx := hookContext(t, out); !strings.Contains(ctx, "8443") {
		t.Errorf("the captured turn is not recalled in the next session:\n%s", ctx)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "state", "mnemon", "hook.log"))
	if !strings.Contains(string(log), "event=stop") || !strings.Contains(string(log), "bytes of context") {
		t.Errorf("hook.log:\n%s", log)
	}
}

// TestHookNeverBlocks: bad input, a slow server and a wrong call print
// nothing, and none exits 2 (which blocks a prompt in Claude Code).
func TestHookNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"HOME": dir}
	logFile := filepath.Join(dir, ".local", "state", "mnemon", "hook.log")

	code, out, errs := hookRun(t, vars, "not json", "hook", "user-prompt", "--db", filepath.Join(dir, "m.db"))
	if code != 0 || out != "" || errs != "" {
		t.Errorf("bad input: exit %d, out %q, err %q", code, out, errs)
	}

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	began := time.Now()
	code, out, _ = hookRun(t, vars, hookInput(map[string]any{"session_id": "s", "prompt": "anything"}), "hook", "user-prompt", "--url", slow.URL, "--timeout", "300ms")
	if took := time.Since(began); code != 0 || out != "" || took > 2*time.Second {
		t.Errorf("slow server: exit %d, out %q, took %s", code, out, took)
	}

	if code, _, _ := hookRun(t, vars, "{}", "hook", "pre-tool"); code != 1 {
		t.Errorf("unknown event: exit %d, want 1", code)
	}
	if code, _, _ := hookRun(t, vars, "{}", "hook", "stop", "--agent", "emacs"); code != 1 {
		t.Errorf("unknown agent: exit %d, want 1", code)
	}
	log, _ := os.ReadFile(logFile)
	for _, want := range []string{"hook input is not a JSON object", "hook timed out after 300ms", "event=pre-tool"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("hook.log lacks %q:\n%s", want, log)
		}
	}
}

// TestHookRemote runs the hooks against a real mnemon serve on loopback
// (--url), as Gemini CLI calls them: the turn comes in the AfterAgent input.
func TestHookRemote(t *testing.T) {
	dir := t.TempDir()
	srv := startServe(t, map[string]string{}, "--addr", "127.0.0.1:0", "--db", migratedDB(t, filepath.Join(dir, "srv.db")))
	vars := map[string]string{"HOME": dir, "MNEMON_URL": srv.url}

	code, out, _ := hookRun(t, vars, hookInput(map[string]any{"session_id": "g1", "prompt": "anything"}), "hook", "user-prompt", "--agent", "gemini-cli")
	if code != 0 || out != "" {
		t.Fatalf("empty server: exit %d, out %q", code, out)
	}
	turn := hookInput(map[string]any{"session_id": "g1", "hook_event_name": "AfterAgent",
		"prompt": "Where do the nightly backups go?", "prompt_response": "The nightly backups go to the bucket s3://acme-backups-eu."})
	if code, out, _ := hookRun(t, vars, turn, "hook", "stop", "--agent", "gemini-cli"); code != 0 || out != "" {
		t.Fatalf("stop: exit %d, out %q", code, out)
	}
	// The server extracts a capture in the background: ask until it is in.
	ask := hookInput(map[string]any{"session_id": "g2", "hook_event_name": "BeforeAgent", "prompt": "where are the nightly backups stored?"})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		code, out, _ = hookRun(t, vars, ask, "hook", "user-prompt", "--agent", "gemini-cli")
		if out != "" || time.Now().After(deadline) {
			break
		}
	}
	if out == "" {
		log, _ := os.ReadFile(filepath.Join(dir, ".local", "state", "mnemon", "hook.log"))
		t.Fatalf("no context; hook.log:\n%s", log)
	}
	name, ctx := hookContext(t, out)
	if code != 0 || name != "BeforeAgent" || !strings.Contains(ctx, "acme-backups-eu") {
		log, _ := os.ReadFile(filepath.Join(dir, ".local", "state", "mnemon", "hook.log"))
		t.Logf("hook.log:\n%s", log)
		t.Fatalf("user-prompt over --url: exit %d, %s %q", code, name, ctx)
	}
}

// TestSetupCommand drives mnemon setup on a fixture home directory.
func TestSetupCommand(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "bin", "mnemon")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	vars := map[string]string{"HOME": home}
	settings := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	orig := "{\"theme\": \"GitHub\"}\n"
	os.WriteFile(settings, []byte(orig), 0o644)

	code, out, errs := hookRun(t, vars, "", "setup", "gemini-cli", "--print", "--binary", bin, "--db", "rel.db")
	if code != 0 || !strings.Contains(out, "nothing was written") || !strings.Contains(out, bin+" hook user-prompt --agent gemini-cli") {
		t.Fatalf("--print: exit %d\n%s%s", code, out, errs)
	}
	if data, _ := os.ReadFile(settings); string(data) != orig {
		t.Fatal("--print wrote the file")
	}
	code, out, errs = hookRun(t, vars, "", "setup", "gemini-cli", "--binary", bin, "--db", "rel.db", "--namespace", "work")
	if code != 0 {
		t.Fatalf("setup: exit %d\n%s%s", code, out, errs)
	}
	data, _ := os.ReadFile(settings)
	abs, _ := filepath.Abs("rel.db")
	for _, want := range []string{`"theme": "GitHub"`, `"BeforeAgent"`, abs, `"--namespace",`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("settings.json lacks %s:\n%s", want, data)
		}
	}
	if _, out, _ = hookRun(t, vars, "", "setup", "gemini-cli", "--binary", bin, "--db", "rel.db", "--namespace", "work"); !strings.Contains(out, "already set up") {
		t.Errorf("second setup: %s", out)
	}
	if code, _, _ = hookRun(t, vars, "", "setup", "gemini-cli", "--remove", "--binary", bin); code != 0 {
		t.Fatal("--remove failed")
	}
	if data, _ := os.ReadFile(settings); string(data) != orig {
		t.Errorf("--remove did not restore the file:\n%s", data)
	}

	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	if code, out, errs = hookRun(t, vars, "", "setup", "cursor", "--project", "--dir", proj, "--binary", bin, "--db", "/data/m.db"); code != 0 {
		t.Fatalf("cursor --project: exit %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(proj, ".cursor", "mcp.json")); err != nil {
		t.Errorf("no project mcp.json: %v\n%s", err, out)
	}
	if code, _, _ = hookRun(t, vars, "", "setup", "emacs", "--binary", bin); code != 2 {
		t.Errorf("unknown target: exit %d, want 2", code)
	}
	os.MkdirAll(filepath.Join(home, ".codex"), 0o755)
	os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte("[mcp_servers.mnemon]\ncommand = \"x\"\n"), 0o644)
	if code, _, errs = hookRun(t, vars, "", "setup", "codex", "--binary", bin); code != 1 || !strings.Contains(errs, "config_conflict") {
		t.Errorf("conflict: exit %d %s", code, errs)
	}
}
