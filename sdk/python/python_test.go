// Package python holds mnemon's Python client (see README.md here). This Go
// test runs it under the repository's one test command: it checks that the
// generated module matches docs/openapi.json and runs the client's unittest
// suites against a real `mnemon serve`.
package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPythonClient(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the Python client's tests need Python 3.9 or newer")
	}
	if err := exec.Command(python, "-c", "import sys; sys.exit(sys.version_info < (3, 9))").Run(); err != nil {
		t.Skip("python3 is older than 3.9, which the Python client needs")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot build the mnemon binary the tests start")
	}

	check := exec.Command(python, "scripts/gen.py", "--check")
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("generated module is stale: %v\n%s", err, out)
	}

	// The type hints are checked where mypy is installed (configuration in
	// pyproject.toml: strict, for Python 3.9), as a module of this python3
	// or as a program of its own (Debian's mypy package, which .ci/run
	// installs: it checks for the configured Python version whichever
	// interpreter runs it); it is not a requirement.
	if typecheck := mypyCommand(python); typecheck != nil {
		out, err := typecheck.CombinedOutput()
		if err != nil {
			t.Fatalf("mypy: %v\n%s", err, out)
		}
		t.Logf("%s: %s", strings.Join(typecheck.Args, " "), strings.TrimSpace(string(out)))
	} else {
		t.Log("mypy is not installed (python3 -m mypy, or mypy on PATH): type hints not checked")
	}

	bin := filepath.Join(t.TempDir(), "mnemon")
	build := exec.Command(goBin, "build", "-o", bin, "./cmd/mnemon")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	run := exec.Command(python, "-m", "unittest", "discover", "-s", "tests")
	// MNEMON_API_KEY from the caller's shell would change what the tests
	// send; they set it themselves where they need it.
	run.Env = append(withoutVar(os.Environ(), "MNEMON_API_KEY"), "MNEMON_BIN="+bin, "PYTHONDONTWRITEBYTECODE=1")
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest: %v\n%s", err, out)
	}
	t.Logf("python3 -m unittest:\n%s", out)
}

// withoutVar is env less the variable name.
func withoutVar(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) > len(name) && kv[:len(name)+1] == name+"=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// mypyCommand is mypy run on the package and its tests: this python3's
// module, else a mypy program on PATH; nil when there is neither.
func mypyCommand(python string) *exec.Cmd {
	if exec.Command(python, "-m", "mypy", "--version").Run() == nil {
		return exec.Command(python, "-m", "mypy", "mnemon", "tests")
	}
	if p, err := exec.LookPath("mypy"); err == nil {
		return exec.Command(p, "mnemon", "tests")
	}
	return nil
}
