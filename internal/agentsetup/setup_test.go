package agentsetup

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the after/ golden trees")

const (
	testBinary = "/opt/mnemon/bin/mnemon"
	testDB     = "/home/dev/.local/share/mnemon/mnemon.db"
)

// readTree is every regular file under dir, by slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return out
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if filepath.Base(rel) == ".keep" {
			return nil
		}
		data, err := os.ReadFile(path)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: %s is missing", what, k)
		} else if g != w {
			t.Errorf("%s: %s differs:\n--- got\n%s\n--- want\n%s", what, k, g, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected file %s:\n%s", what, k, got[k])
		}
	}
}

func caseOptions(name, root string) Options {
	target, variant, _ := strings.Cut(name, "_")
	o := Options{Target: target, Home: root, ConfigDir: filepath.Join(root, ".config"), Binary: testBinary, DB: testDB}
	if strings.HasPrefix(variant, "project") {
		o.ProjectDir = filepath.Join(root, "proj")
	}
	if strings.HasSuffix(variant, "namespace") {
		o.Namespace = "work"
	}
	return o
}

func run(t *testing.T, o Options) []Change {
	t.Helper()
	changes, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	return changes
}

// TestGolden runs each testdata/TARGET_VARIANT case: setup on before/ gives
// after/ (backups included); a second setup changes nothing; --remove
// gives before/ back (the backups stay); a second --remove changes nothing.
func TestGolden(t *testing.T) {
	cases, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		name := c.Name()
		t.Run(name, func(t *testing.T) {
			before := readTree(t, filepath.Join("testdata", name, "before"))
			root := t.TempDir()
			writeTree(t, root, before)
			o := caseOptions(name, root)

			changes := run(t, o)
			if len(changes) == 0 {
				t.Fatal("setup planned no change")
			}
			for _, ch := range changes {
				if len(ch.What) == 0 {
					t.Errorf("%s: a change that says nothing about what it does", ch.Path)
				}
			}
			got := readTree(t, root)
			afterDir := filepath.Join("testdata", name, "after")
			if *update {
				os.RemoveAll(afterDir)
				writeTree(t, afterDir, got)
			}
			after := readTree(t, afterDir)
			sameTree(t, "after setup", got, after)

			if again := run(t, o); len(again) != 0 {
				t.Errorf("second setup changed %s", again[0].Path)
			}
			sameTree(t, "after a second setup", readTree(t, root), after)

			o.Remove = true
			if removed := run(t, o); len(removed) == 0 {
				t.Fatal("--remove planned no change")
			}
			restored := readTree(t, root)
			for k := range restored {
				if strings.HasSuffix(k, BackupSuffix) {
					if want := before[strings.TrimSuffix(k, BackupSuffix)]; restored[k] != want {
						t.Errorf("backup %s is not the file before setup", k)
					}
					delete(restored, k)
				}
			}
			sameTree(t, "after --remove", restored, before)
			if again := run(t, o); len(again) != 0 {
				t.Errorf("second --remove changed %s", again[0].Path)
			}
		})
	}
}

// A second setup with another binary and database replaces mnemon's
// entries in place: no duplicate hook, other hooks untouched.
func TestSetupAgainReplacesInPlace(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, readTree(t, "testdata/claude-code_existing/before"))
	o := caseOptions("claude-code_existing", root)
	run(t, o)
	o.Binary, o.DB = "/usr/local/bin/mnemon", "/data/team memory.db"
	changes := run(t, o)
	if len(changes) != 2 {
		t.Fatalf("changed %d files, want 2", len(changes))
	}
	data, _ := os.ReadFile(filepath.Join(root, ".claude", "settings.json"))
	s := string(data)
	if strings.Count(s, "hook user-prompt") != 1 || strings.Contains(s, "/opt/mnemon") {
		t.Errorf("hooks not replaced in place:\n%s", s)
	}
	if !strings.Contains(s, `/usr/local/bin/mnemon hook stop --agent claude-code --db '/data/team memory.db'`) {
		t.Errorf("the database path is not shell-quoted:\n%s", s)
	}
	if !strings.Contains(s, "~/bin/log-prompt.sh") || !strings.Contains(s, "~/bin/check-bash.sh") {
		t.Errorf("the user's hooks are gone:\n%s", s)
	}
	bak, _ := os.ReadFile(filepath.Join(root, ".claude", "settings.json"+BackupSuffix))
	orig, _ := os.ReadFile("testdata/claude-code_existing/before/.claude/settings.json")
	if string(bak) != string(orig) {
		t.Error("the backup was overwritten by the second setup")
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name, file, content, target, code string
	}{
		{"comments", ".gemini/settings.json", "{\n  // my settings\n  \"theme\": \"x\"\n}\n", "gemini-cli", "config_unparseable"},
		{"not an object", ".cursor/mcp.json", "[1, 2]\n", "cursor", "config_unparseable"},
		{"servers not an object", ".cursor/mcp.json", `{"mcpServers": []}`, "cursor", "config_conflict"},
		{"hooks not an object", ".claude/settings.json", `{"hooks": "none"}`, "claude-code", "config_conflict"},
		{"toml table of the user's", ".codex/config.toml", "[mcp_servers.mnemon]\ncommand = \"mnemon\"\n", "codex", "config_conflict"},
		{"toml dotted key", ".codex/config.toml", "mcp_servers.mnemon.command = \"mnemon\"\n", "codex", "config_conflict"},
		{"toml begin without end", ".codex/config.toml", "model = \"x\"\n" + tomlBegin + "\n", "codex", "config_unparseable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{c.file: c.content})
			o := caseOptions(c.target+"_x", root)
			_, err := Plan(o)
			var se *Error
			if !errorsAs(err, &se) || se.Code != c.code {
				t.Fatalf("Plan: %v, want code %s", err, c.code)
			}
			if got := readTree(t, root); len(got) != 1 || got[c.file] != c.content {
				t.Errorf("files changed on a refusal: %v", got)
			}
		})
	}
	if _, err := Plan(Options{Target: "emacs", Home: "/h", Binary: testBinary, DB: testDB}); err == nil || err.(*Error).Code != "unknown_target" {
		t.Errorf("unknown target: %v", err)
	}
	if _, err := Plan(Options{Target: "cursor", Home: "/h", Binary: "mnemon", DB: testDB}); err == nil {
		t.Error("a relative binary path was taken")
	}
}

// Removing from a file that never had mnemon's entries changes nothing,
// even an empty file.
func TestRemoveWithoutSetupChangesNothing(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{".cursor/mcp.json": "{}\n", ".gemini/settings.json": "{\"theme\": \"x\"}"})
	for _, target := range []string{"cursor", "gemini-cli", "codex", "claude-code", "vscode"} {
		o := caseOptions(target+"_x", root)
		o.Remove = true
		if changes := run(t, o); len(changes) != 0 {
			t.Errorf("%s: --remove without setup changed %s", target, changes[0].Path)
		}
	}
	if got := readTree(t, root); len(got) != 2 {
		t.Errorf("files: %v", got)
	}
}

func TestIsMnemonHook(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/opt/mnemon/bin/mnemon hook stop --agent codex": true,
		"'/Users/a b/mnemon' hook user-prompt":           true,
		"mnemon hook session-start":                      true,
		`"/opt/my tools/mnemon" hook stop`:               true,
		"mnemon recall x":                                false,
		"~/bin/log-prompt.sh":                            false,
	} {
		if got := isMnemonHook(cmd); got != want {
			t.Errorf("isMnemonHook(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func errorsAs(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}
