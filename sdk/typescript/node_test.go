// Package typescript holds mnemon's TypeScript client (see README.md here).
// This Go test runs it under the repository's one test command: it checks
// that the generated types match docs/openapi.json and runs the client's
// tests (Node's own test runner) against a real `mnemon serve`.
package typescript

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript client's tests need Node.js 18 or newer")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot build the mnemon binary the tests start")
	}
	bin := filepath.Join(t.TempDir(), "mnemon")
	build := exec.Command(goBin, "build", "-o", bin, "./cmd/mnemon")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	check := exec.Command(node, "scripts/gen.mjs", "--check")
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("generated types are stale: %v\n%s", err, out)
	}

	tests, err := filepath.Glob(filepath.Join("test", "*.test.mjs"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no test files under test/: %v", err)
	}
	run := exec.Command(node, append([]string{"--test", "--test-reporter=dot"}, tests...)...)
	run.Env = append(os.Environ(), "MNEMON_BIN="+bin)
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("node --test:\n%s", out)
}
