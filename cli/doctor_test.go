package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// TestDoctor: a missing database is a warning (exit 0) and is not
// created; a healthy one passes every check; a file that is not a
// database fails (exit 1) and says so.
func TestDoctor(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "mnemon.db")
	code, out, errs := runCLI(t, db, "", "doctor")
	if code != 0 || !strings.Contains(out, "warn  database") || !strings.Contains(out, "first write creates it") {
		t.Fatalf("missing database: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("doctor created the database: %v", err)
	}

	if code, _, errs := runCLI(t, db, "", "remember", "I live in Lisbon."); code != 0 {
		t.Fatalf("remember: %s", errs)
	}
	code, out, errs = runCLI(t, db, "", "doctor", "--json")
	if code != 0 {
		t.Fatalf("healthy database: exit %d\n%s%s", code, out, errs)
	}
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, c := range rep.Checks {
		got[c.Name] = c.Status
	}
	for _, name := range []string{"database", "integrity", "wal", "disk", "index", "embeddings", "backlog"} {
		if got[name] != checkOK {
			t.Errorf("check %s: %q, want ok (%+v)", name, got[name], rep.Checks)
		}
	}
	if !rep.Healthy || rep.Database != db {
		t.Errorf("report: %+v", rep)
	}

	bad := filepath.Join(dir, "not-a-db.db")
	if err := os.WriteFile(bad, []byte(strings.Repeat("this is not SQLite\n", 400)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, bad, "", "doctor")
	if code != 1 || !strings.Contains(out, "fail  database") {
		t.Fatalf("a file that is not a database: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runCLI(t, db, "", "doctor", "extra"); code != 2 || !strings.Contains(errs, "no arguments") {
		t.Fatalf("doctor with an argument: exit %d %s", code, errs)
	}
}

// TestDoctorStaleEmbeddings: memories written with another embedder are a
// warning that says who re-embeds them.
func TestDoctorStaleEmbeddings(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "mnemon.db")
	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	old, err := engine.New(engine.Config{Store: st, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Remember(ctx, engine.RememberParams{Namespace: "default", Text: "I live in Lisbon."}); err != nil {
		t.Fatal(err)
	}
	old.Close()
	st.Close()
	code, out, errs := runCLI(t, db, "", "doctor")
	if code != 0 || !strings.Contains(out, "warn  embeddings") || !strings.Contains(out, "re-embeds them") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}
