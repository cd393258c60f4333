package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/store/postgres"
)

// TestPostgresDoctor: doctor opens PostgreSQL read-only. On a schema nobody
// migrated it warns and creates nothing; on a migrated one it reports the
// backend, server and schema version, pgvector's state, the change log's
// position and whether the index it loaded missed any change. A read-only
// command (facts) on the unmigrated schema is refused the same way.
func TestPostgresDoctor(t *testing.T) {
	t.Parallel()
	db := pgSchema(t)

	code, out, errs := runCLI(t, db, "", "doctor")
	noPassword(t, "doctor", out+errs)
	if code != 0 || !strings.Contains(out, "warn  database") || !strings.Contains(out, "run 'mnemon migrate'") {
		t.Fatalf("doctor on an unmigrated schema: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = runCLI(t, db, "", "facts")
	oneLine(t, code, errs, 1, "schema version 0")
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var tables int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("doctor and facts left %d tables (%v): they must not write", tables, err)
	}

	mustRun(t, db, "remember", "My favorite editor is Vim.")
	mustRun(t, db, "--namespace", "other", "remember", "I live in Lisbon.")
	var last int64
	if err := conn.QueryRow(context.Background(), `SELECT max(seq) FROM changes`).Scan(&last); err != nil || last == 0 {
		t.Fatalf("change log: %d %v", last, err)
	}
	var installed bool
	if err := conn.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')`).Scan(&installed); err != nil {
		t.Fatal(err)
	}

	out = mustRun(t, db, "doctor", "--json")
	noPassword(t, "doctor --json", out)
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	got := map[string]doctorCheck{}
	for _, c := range rep.Checks {
		got[c.Name] = c
	}
	wantPgvector := "not"
	if installed {
		wantPgvector = "installed, version"
	}
	for _, tc := range []struct{ check, want string }{
		{"database", fmt.Sprintf("schema version %d", postgres.SchemaVersion())},
		{"backend", "PostgreSQL server 1"}, // 1x.y
		{"backend", fmt.Sprintf("(this mnemon writes %d), opened read-only", postgres.SchemaVersion())},
		{"pgvector", wantPgvector},
		{"changes", fmt.Sprintf("change log at position %d: ", last)},
		{"changes", "held for 2 namespaces"},
		{"lag", "the index holds every committed change"},
		{"lag", "default at "},
		{"lag", "other at "},
	} {
		c := got[tc.check]
		if c.Status != checkOK || !strings.Contains(c.Detail, tc.want) {
			t.Errorf("check %s: %s %q, want ok and %q", tc.check, c.Status, c.Detail, tc.want)
		}
	}
	if !rep.Healthy {
		t.Errorf("not healthy: %+v", rep.Checks)
	}
}
