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
// and the scan in id order read the same.
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
	version := func(ns, id, mem string) string {
		return fmt.Sprintf(`(%s, '%s', %s, 1, '', '', '', '', 'semantic', 'fact', 'user', 'k', 'v', 'c', 'normal',
			0.8, 0.5, 0.6, 0, 0, 'active', 'ADD', '', 1, 1, 1, NULL, 1, 'null', 'null', 'note', '', '', 'emb', 4, 'remember', 3, '', NULL, NULL, NULL)`,
			ns, id, mem)
	}
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
		}, ", "),
	)
	const dump = `SELECT group_concat(quote(namespace) || quote(id) || quote(agent_id) || quote(user_id) || quote(project_id) ||
		quote(session_id) || quote(kind) || quote(subject) || quote("key") || created_at || '/' || updated_at, ';')
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
