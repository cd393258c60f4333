package sqlite

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// Migration 0024 on a store as 0023 left it: the memories keep every value
// byte for byte in a WITHOUT ROWID table, their versions still find them
// (the foreign key holds and is still enforced), and gets by id, by slot
// and the scan in id order read the same. The versions' scores become
// whole thousandths where that is exact, and read back the same.
func TestMigrationMemoriesWithoutRowid(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAtSchema(t, path, 23)
	made := ids.New(ids.Memory)
	blob, ok := appendID(nil, made)
	if !ok {
		t.Fatalf("%s: not compacted", made)
	}
	versionScored := func(ns, id, mem string, seq int, scores string) string {
		return fmt.Sprintf(`(%s, '%s', %s, %d, '', '', '', '', 'semantic', 'fact', 'user', 'k', 'v', 'c', 'normal',
			%s, 0, 0, 'active', 'ADD', '', 1, 1, 1, NULL, 1, 'null', 'null', 'note', '', '', 'emb', 4, 'remember', 3, '', NULL, NULL, NULL)`,
			ns, id, mem, seq, scores)
	}
	version := func(ns, id, mem string) string { return versionScored(ns, id, mem, 1, "0.8, 0.5, 0.6") }
	execAll(t, old,
		fmt.Sprintf(`INSERT INTO memories VALUES
			('n', x'%x', 'agent', 'u', 'p', 's', 'semantic', 'user', 'editor', 5, 6),
			('n', 'm-imported', '', '', '', '', 'semantic', 'user', 'shell', 3, 4),
			('n', 'm-lonely', '', '', '', '', 'procedural', 'user', 'no versions', 1, 1),
			('other', 'm-imported', '', '', '', '', 'semantic', 'user', 'shell', 7, 8)`, blob),
		`INSERT INTO versions VALUES `+strings.Join([]string{
			version("'n'", "v-1", fmt.Sprintf("x'%x'", blob)),
			version("'n'", "v-2", "'m-imported'"),
			version("'other'", "v-1", "'m-imported'"),
			versionScored("'n'", "v-3", "'m-imported'", 2, "0.70675, 0.25, 1.0"),
		}, ", "),
	)
	const dump = `SELECT group_concat(quote(namespace) || quote(id) || quote(agent_id) || quote(user_id) || quote(project_id) ||
		quote(session_id) || quote(kind) || quote(subject) || quote("key") || created_at || '/' || ` + memoryUpdatedAt + `, ';')
		FROM (SELECT * FROM memories ORDER BY namespace, id)`
	var before, after string
	if err := old.QueryRowContext(ctx, dump).Scan(&before); err != nil {
		t.Fatal(err)
	}
	s := migrateOld(t, old, path)
	if err := s.writer.QueryRowContext(ctx, dump).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("memories after migrating:\n  %s\nbefore:\n  %s", after, before)
	}

	var schema string
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(name || ':' || coalesce(sql, ''), ';') FROM sqlite_schema WHERE tbl_name = 'memories'`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(schema, "WITHOUT ROWID") || strings.Contains(schema, "autoindex") || !strings.Contains(schema, "memories_slot") ||
		strings.Contains(schema, "copy") {
		t.Errorf("memories after migrating: %s", schema)
	}
	var versionsRef string
	if err := s.writer.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE name = 'versions'`).Scan(&versionsRef); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(versionsRef, `REFERENCES "memories" (namespace, id)`) {
		t.Errorf("versions' foreign key after migrating: %s", versionsRef)
	}
	rows, err := s.writer.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Error("foreign_key_check reports a violation after migrating")
	}
	rows.Close()

	for _, c := range []struct{ ns, id, key string }{{"n", made, "editor"}, {"n", "m-imported", "shell"}, {"other", "m-imported", "shell"}} {
		m, err := s.GetMemory(ctx, memory.GetParams{Namespace: c.ns, ID: c.id})
		if err != nil || m.Key != c.key {
			t.Errorf("get %s/%s: %+v, %v", c.ns, c.id, m, err)
		}
	}
	m, err := s.FindMemory(ctx, memory.FindMemoryParams{Namespace: "n",
		Scope: memory.Scope{AgentID: "agent", UserID: "u", ProjectID: "p", SessionID: "s"}, Subject: "user", Key: "editor"})
	if err != nil || m.ID != made || m.CreatedAt.UnixNano() != 5 || m.UpdatedAt.UnixNano() != 6 {
		t.Errorf("find by slot: %+v, %v", m, err)
	}
	var scanned []string
	if err := s.ScanMemories(ctx, memory.ScanParams{Namespace: "n"}, func(m *memory.Memory) error {
		scanned = append(scanned, m.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Text ids sort before compact ones (SQLite orders TEXT before BLOB).
	if want := []string{"m-imported", "m-lonely", made}; fmt.Sprint(scanned) != fmt.Sprint(want) {
		t.Errorf("scan: %v, want %v", scanned, want)
	}

	// The scores: whole thousandths where exact (shared bits 32, 64, 128),
	// reading back the same; usefulness 0.5 is still "settled". updated_at
	// equal to recorded_at is stored 0 (bit 512).
	for _, c := range []struct {
		id                string
		c, u, tr          float64
		rawC, rawU, rawTr float64
		bits              int64
	}{
		{"v-1", 0.8, 0.5, 0.6, 800, 0, 600, 224 | 512}, // 512: updated_at is recorded_at, stored 0
		{"v-3", 0.70675, 0.25, 1, 0.70675, -250, 1, 64 | 512},
	} {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: c.id})
		if err != nil || v.Confidence != c.c || v.Usefulness != c.u || v.Trust != c.tr || v.UpdatedAt.UnixNano() != 1 {
			t.Errorf("%s after migrating: %+v, %v", c.id, v, err)
		}
		var rawC, rawU, rawTr float64
		var bits int64
		if err := s.writer.QueryRowContext(ctx, `SELECT confidence, usefulness, trust, coalesce(shared, 0) & 736 FROM versions
			WHERE namespace = 'n' AND id = ? AND updated_at = 0`, c.id).Scan(&rawC, &rawU, &rawTr, &bits); err != nil {
			t.Fatal(err)
		}
		if rawC != c.rawC || rawU != c.rawU || rawTr != c.rawTr || bits != c.bits {
			t.Errorf("%s stored as %v %v %v, bits %d", c.id, rawC, rawU, rawTr, bits)
		}
	}
	unsettled, err := s.ListUnsettledVersions(ctx, memory.ScanParams{Namespace: "n"})
	if err != nil || len(unsettled) != 1 || unsettled[0].ID != "v-3" {
		t.Errorf("unsettled after migrating: %v, %v", unsettled, err)
	}

	// The foreign key is still enforced both ways.
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM memories WHERE namespace = 'n' AND id = 'm-imported'`); err == nil {
		t.Error("a memory with versions was deleted")
	}
	if _, err := s.writer.ExecContext(ctx, `INSERT INTO versions VALUES `+version("'n'", "v-9", "'m-missing'")); err == nil {
		t.Error("a version of a missing memory was written")
	}
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM memories WHERE namespace = 'n' AND id = 'm-lonely'`); err != nil {
		t.Errorf("a memory without versions: %v", err)
	}
}
