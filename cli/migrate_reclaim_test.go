package cli

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// mnemon migrate on a SQLite file gives free pages back when a quarter of
// the file is free, says so, and leaves what was remembered as it was; run
// again, it has nothing to give back.
func TestMigrateReclaimsFreePages(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "m.db")
	mustRun(t, db, "remember", "The nightly export job writes to the cold bucket.")
	exported := mustRun(t, db, "export")

	// Pages freed the way a large delete or a rebuilt table frees them.
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE scratch (b BLOB)`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500) INSERT INTO scratch SELECT randomblob(2000) FROM n`,
		`DROP TABLE scratch`} {
		if _, err := raw.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	var rep migrateReport
	out := mustRun(t, db, "migrate", "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Backend != "sqlite" {
		t.Fatalf("migrate --json: %v %s", err, out)
	}
	if rep.FileBytesBefore < 5<<20 || rep.FileBytesAfter*4 > rep.FileBytesBefore {
		t.Errorf("migrate --json: file %d -> %d bytes; want the 5 MB freed given back", rep.FileBytesBefore, rep.FileBytesAfter)
	}
	out = mustRun(t, db, "migrate")
	if strings.Contains(out, "given back") {
		t.Errorf("migrate again: %q; nothing was free", out)
	}
	if got := mustRun(t, db, "export"); stripExportHeader(got) != stripExportHeader(exported) {
		t.Errorf("export after migrate differs:\n%s\nbefore:\n%s", got, exported)
	}
}

// stripExportHeader drops the export's first line (it says when it was made).
func stripExportHeader(s string) string {
	_, rest, _ := strings.Cut(s, "\n")
	return rest
}
