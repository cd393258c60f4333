package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// mnemon graph end to end: claims of remembered facts, two hops, history,
// JSON, and wrong calls refused with exit 2.
func TestGraphCommand(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	for _, s := range []string{"Bob uses pnpm.", "Bob works at Acme.", "I live in Berlin."} {
		mustRun(t, db, "remember", s)
	}
	mustRun(t, db, "remember", "I moved to Paris.")

	out := mustRun(t, db, "graph", "PNPM", "--hops", "2")
	for _, want := range []string{"bob      uses package manager  pnpm", "works at", "acme", "2 claims, 2 entities within 2 hop(s) of pnpm"} {
		if !strings.Contains(out, want) {
			t.Fatalf("graph pnpm --hops 2: no %q in\n%s", want, out)
		}
	}
	if out := mustRun(t, db, "graph", "pnpm"); strings.Contains(out, "acme") {
		t.Fatalf("one hop reaches acme:\n%s", out)
	}
	if out := mustRun(t, db, "graph", "user"); strings.Contains(out, "berlin") || !strings.Contains(out, "paris") {
		t.Fatalf("current claims of user:\n%s", out)
	}
	if out := mustRun(t, db, "graph", "user", "--history"); !strings.Contains(out, "superseded") || !strings.Contains(out, "berlin") {
		t.Fatalf("history of user:\n%s", out)
	}
	if out := mustRun(t, db, "graph", "nobody"); !strings.Contains(out, "no claims about nobody") {
		t.Fatalf("unknown entity:\n%s", out)
	}
	var res struct {
		Entity string `json:"entity"`
		Claims []struct {
			Subject, Relation, Object, Status, MemoryID string
		} `json:"claims"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, db, "graph", "acme", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Entity != "acme" || len(res.Claims) != 1 || res.Claims[0].Subject != "bob" || res.Claims[0].Relation != "works at" {
		t.Fatalf("graph acme --json: %+v", res)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"graph"}, "needs an ENTITY"},
		{[]string{"graph", "bob", "--hops", "3"}, "--hops 3: use 1 or 2"},
		{[]string{"graph", "bob", "-k", "-1"}, "-k -1: use 1 to 500, or 0 for the default (50)"},
		{[]string{"graph", "bob", "--as-of", "someday"}, "as-of"},
	} {
		code, _, errs := runCLI(t, db, "", tc.args...)
		oneLine(t, code, errs, 2, tc.want)
	}
}
