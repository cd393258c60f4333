package cli

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
	t.Parallel()
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
	for _, name := range []string{"database", "backend", "integrity", "wal", "disk", "index", "lag", "embeddings", "backlog"} {
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

// damagePage overwrites the root page of a table or index of a closed
// database with garbage, as a failing disk would.
func damagePage(t *testing.T, src, dst, object string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", src)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var page, size int
	if err := raw.QueryRow("SELECT rootpage FROM sqlite_schema WHERE name = ?", object).Scan(&page); err != nil {
		t.Fatalf("%s: %v", object, err)
	}
	if err := raw.QueryRow("PRAGMA page_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	for i := (page - 1) * size; i < page*size; i++ {
		b[i] = byte(i*7 + 3)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDoctorDamagedFile: doctor's advice about a damaged file works. When
// export can still read every namespace, doctor says to export and
// import, and doing so gives a sound database; when it cannot, doctor
// says so plainly, and export says it wrote nothing.
func TestDoctorDamagedFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := migratedDB(t, filepath.Join(dir, "good.db"))
	mustRun(t, good, "remember", "I live in Lisbon. My favorite editor is Vim.")
	mustRun(t, good, "--namespace", "bob", "remember", "I prefer tea.")

	// A damaged index export does not read: the data is all there. (Not
	// memories_slot: since memories have no rowid (0024) it covers the
	// scans of memories that export and the index load make.)
	index := filepath.Join(dir, "index.db")
	damagePage(t, good, index, "admissions_by_memory")
	code, out, _ := runCLI(t, index, "", "doctor")
	if code != 1 || !regexp.MustCompile(`fail  integrity +the file is damaged \(`).MatchString(out) ||
		!strings.Contains(out, "every namespace still exports whole (bob, default)") {
		t.Fatalf("doctor on a damaged index: exit %d\n%s", code, out)
	}
	fresh := filepath.Join(dir, "new.db")
	for _, ns := range []string{"bob", "default"} {
		file := filepath.Join(dir, ns+".jsonl")
		mustRun(t, index, "--namespace", ns, "export", "--out", file)
		mustRun(t, fresh, "--namespace", ns, "import", file)
	}
	if code, out, _ := runCLI(t, fresh, "", "doctor"); code != 0 {
		t.Fatalf("doctor on the database rebuilt by the advice: exit %d\n%s", code, out)
	}
	if out := mustRun(t, fresh, "facts"); !strings.Contains(out, "Lisbon") || !strings.Contains(out, "Vim") {
		t.Fatalf("rebuilt database lacks facts:\n%s", out)
	}
	if out := mustRun(t, fresh, "--namespace", "bob", "facts"); !strings.Contains(out, "tea") {
		t.Fatalf("rebuilt database lacks bob's facts:\n%s", out)
	}

	// A damaged table cannot be exported whole: doctor says so and what
	// to do instead; export writes nothing and says so.
	table := filepath.Join(dir, "table.db")
	damagePage(t, good, table, "versions")
	code, out, _ = runCLI(t, table, "", "doctor")
	if code != 1 || !strings.Contains(out, "'mnemon export' cannot read it whole") || !strings.Contains(out, "restore from a backup") ||
		!strings.Contains(out, "sqlite3 "+table+" .recover") || strings.Contains(out, "still exports") {
		t.Fatalf("doctor on a damaged table: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "sqlite:") || strings.Contains(out, "warm:") {
		t.Errorf("doctor shows internal operation names:\n%s", out)
	}
	dump := filepath.Join(dir, "dump.jsonl")
	code, _, errs := runCLI(t, table, "", "export", "--out", dump)
	oneLine(t, code, errs, 1, "export: the database is damaged (")
	if !strings.Contains(errs, "nothing was written to "+dump) || strings.Contains(errs, "sqlite:") {
		t.Fatalf("export of a damaged table: %s", errs)
	}
	if _, err := os.Stat(dump); !os.IsNotExist(err) {
		t.Fatalf("export left %s: %v", dump, err)
	}
	code, _, errs = runCLI(t, table, "", "export")
	oneLine(t, code, errs, 1, "what it wrote is incomplete: do not import it")
}

// TestDoctorStaleEmbeddings: memories written with another embedder are a
// warning that says who re-embeds them.
func TestDoctorStaleEmbeddings(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := migratedDB(t, filepath.Join(t.TempDir(), "mnemon.db"))
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

// TestDoctorConfig: with --config, doctor checks the settings serve and
// worker would read: a deprecated field is a warning naming the field that
// replaces it, a config serve would refuse is a failure, a sound one is
// ok; without --config and with sound variables there is no config line.
func TestDoctorConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "mnemon.db")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		code int
		want string // the config line; "" for none
	}{
		{"no config", nil, nil, 0, ""},
		{"sound", []string{"--config", write("ok.json", `{"request_timeout": "10s", "job_timeout": "2m"}`)}, nil, 0, "ok config"},
		{"deprecated", []string{"--config", write("old.json", `{"request_timeout_seconds": 10}`)}, nil, 0,
			`warn config config field request_timeout_seconds is deprecated: write "request_timeout": "10s" (a duration) instead`},
		{"both spellings", []string{"--config", write("both.json", `{"request_timeout": "10s", "request_timeout_seconds": 10}`)}, nil, 1,
			"fail config request_timeout and request_timeout_seconds are both set"},
		{"bad variable", nil, map[string]string{"MNEMON_JOB_TIMEOUT": "forever"}, 1, `fail config MNEMON_JOB_TIMEOUT="forever": not a duration`},
	} {
		vars := map[string]string{"MNEMON_DB": db}
		for k, v := range c.env {
			vars[k] = v
		}
		code, out, errs := runEnv(t, t.Context(), vars, "", append([]string{"doctor"}, c.args...)...)
		if code != c.code {
			t.Fatalf("%s: exit %d, want %d\n%s%s", c.name, code, c.code, out, errs)
		}
		lines := strings.Join(strings.Fields(out), " ") // the columns' widths vary
		if c.want == "" && strings.Contains(out, "config") || c.want != "" && !strings.Contains(lines, c.want) {
			t.Fatalf("%s: want config line %q:\n%s", c.name, c.want, out)
		}
	}
}
