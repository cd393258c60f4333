package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/jobs/jobstest"
	"github.com/mnemon-dev/mnemon/memory"
)

// migratedDB puts a migrated, empty database file at path, River's job
// tables included, and returns path, for tests whose first command would
// create the file anyway: copying a file migrated once per test binary
// costs less than migrating a new one per test (the tests of a new file,
// and of commands that must not create one, keep a missing path).
func migratedDB(t *testing.T, path string) string {
	t.Helper()
	jobstest.CopyTo(t, path)
	return path
}

// runCLI runs one command in-process against db and returns its exit
// status, stdout and stderr.
func runCLI(t *testing.T, db, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "MNEMON_DB" {
				return db
			}
			return ""
		},
	}
	code := Main(context.Background(), args, env)
	return code, out.String(), errb.String()
}

func TestWalkthrough(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	mustRun := func(args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, db, "", args...)
		if code != 0 {
			t.Fatalf("mnemon %v: exit %d: %s", args, code, errs)
		}
		return out
	}
	mustRun("remember", "My favorite editor is Vim. I live in Lisbon.")
	mustRun("remember", "Actually, I switched to Neovim for my editor.")

	out := mustRun("recall", "which editor does the user prefer?", "-k", "1")
	if !strings.Contains(out, "Neovim") || !strings.Contains(out, "why:") || strings.Count(out, "\n1. ") > 1 {
		t.Fatalf("recall output:\n%s", out)
	}

	out = mustRun("facts", "--history")
	for _, want := range []string{"superseded", "Vim", "Neovim", "Lisbon"} {
		if !strings.Contains(out, want) {
			t.Fatalf("facts --history lacks %q:\n%s", want, out)
		}
	}

	out = mustRun("recall", "which editor did the user use before?", "--history")
	if !strings.Contains(out, "Vim") || !strings.Contains(out, "history") {
		t.Fatalf("history recall:\n%s", out)
	}

	out = mustRun("--namespace", "bob", "recall", "editor")
	if strings.Contains(out, "Vim") || strings.Contains(out, "Neovim") || !strings.Contains(out, "nothing found: namespace bob is empty") {
		t.Fatalf("namespace bob sees default's memories:\n%s", out)
	}

	// JSON output is machine-readable and carries the retrieval id.
	out = mustRun("recall", "editor", "--json")
	var res struct {
		RetrievalID string `json:"retrieval_id"`
		Items       []struct {
			MemoryID  string `json:"memory_id"`
			VersionID string `json:"version_id"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.RetrievalID == "" || len(res.Items) == 0 {
		t.Fatalf("recall --json: %v\n%s", err, out)
	}
	out = mustRun("explain", res.RetrievalID)
	if !strings.Contains(out, "candidates") || !strings.Contains(out, res.Items[0].VersionID) {
		t.Fatalf("explain retrieval:\n%s", out)
	}
	out = mustRun("show", res.Items[0].MemoryID)
	if !strings.Contains(out, "admission log") && !strings.Contains(out, "evidence") {
		t.Fatalf("show:\n%s", out)
	}
	out = mustRun("stats", "--json")
	var s struct {
		Episodes int `json:"episodes"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Episodes != 2 {
		t.Fatalf("stats: %v\n%s", err, out)
	}
	out = mustRun("forget", res.Items[0].MemoryID)
	if !strings.Contains(out, "forgot") {
		t.Fatalf("forget: %s", out)
	}
}

func TestCaptureExportImport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))
	events := strings.Join([]string{
		`{"kind":"user_message","content":"I work at Acme.","occurred_at":"2026-01-01T10:00:00Z","session_id":"s1"}`,
		`{"kind":"agent_message","content":"Noted.","occurred_at":"2026-01-01T10:00:01Z","session_id":"s1"}`,
		`{"kind":"user_message","content":"Atlas uses pnpm.","occurred_at":"2026-01-01T10:00:02Z","speaker":"ana","session_id":"s1"}`,
	}, "\n")
	code, out, errs := runCLI(t, db, events, "capture")
	if code != 0 || !strings.Contains(out, "captured 3 episodes") {
		t.Fatalf("capture: %d %s %s", code, out, errs)
	}
	exp := filepath.Join(dir, "export.jsonl")
	if code, _, errs := runCLI(t, db, "", "export", "--out", exp); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	if code, out, errs := runCLI(t, db, "", "--namespace", "copy", "import", exp); code != 0 || !strings.Contains(out, "imported") {
		t.Fatalf("import: %s %s", out, errs)
	}
	code, out, _ = runCLI(t, db, "", "--namespace", "copy", "recall", "where does the user work?")
	if code != 0 || !strings.Contains(out, "Acme") {
		t.Fatalf("recall in imported namespace:\n%s", out)
	}
}

func TestWrongCalls(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "m.db")
	cases := []struct {
		args  []string
		stdin string
		code  int
		want  string
	}{
		{[]string{"frobnicate"}, "", 2, "unknown command"},
		{[]string{"remember"}, "", 2, "one TEXT"},
		{[]string{"recall", "x", "-k", "zero"}, "", 2, "use a whole number"},
		{[]string{"recall", "x", "--as-of", "yesterday"}, "", 2, "not a time"},
		{[]string{"--namespace", "a b", "stats"}, "", 2, "namespace"},
		{[]string{"capture"}, `{"kind":"chat","content":"hi"}`, 2, "line 1"},
		{[]string{"capture"}, "{\"kind\":\"user_message\",\"content\":\"ok\"}\nnot json", 2, "line 2"},
		{[]string{"show", "mem_nope"}, "", 1, "no database at"},
		{[]string{"remember", "x", "--type", "fact"}, "", 2, "need --key"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, errs := runCLI(t, db, c.stdin, c.args...)
			if code != c.code || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line with %q", code, errs, c.code, c.want)
			}
		})
	}
	// Wrong calls, a refused capture among them, wrote nothing: not even
	// the database file. (show on a path with no database is refused too.)
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("wrong calls created the database: %v", err)
	}
}

func TestCorruptFileRefused(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(db, bytes.Repeat([]byte("not a database "), 300), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, db, "", "stats")
	if code != 1 || !strings.Contains(errs, "mnemon") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(db)
	if !bytes.HasPrefix(b, []byte("not a database")) {
		t.Fatal("the foreign file was modified")
	}
}

func FuzzCaptureLine(f *testing.F) {
	f.Add([]byte(`{"kind":"user_message","content":"I live in Lisbon","occurred_at":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"kind":"tool_result","content":"ok","metadata":{"a":"b"},"session_id":"s"}`))
	f.Add([]byte(`{"kind":"user_message","content":""}`))
	f.Add([]byte(`{"kind":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, _, err := parseCaptureLine(b, memory.Scope{})
		if err != nil {
			return
		}
		if !ev.Kind.Valid() || strings.TrimSpace(ev.Content) == "" {
			t.Fatalf("accepted an invalid event: %+v", ev)
		}
	})
}
