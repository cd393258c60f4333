package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

func TestNamespaceArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		q    string
		args []any
		want []any
	}{
		{"SELECT 1 WHERE namespace = /*ns*/? AND id = ?", []any{"default", "default"}, []any{"", "default"}},
		{"SELECT 1 WHERE namespace = /*ns*/? AND id = ?", []any{"work", "x"}, []any{"work", "x"}},
		{"SELECT 1 WHERE a = ? AND namespace = /*ns*/?", []any{"default", "default"}, []any{"default", ""}},
		{"INSERT INTO t (namespace, seq) VALUES (?1, (SELECT max(seq) FROM t WHERE namespace = /*ns*/?1))", []any{"default"}, []any{""}},
		{"SELECT ?2 WHERE namespace = /*ns*/?3", []any{"default", "default", "default"}, []any{"default", "default", ""}},
		{"SELECT 1 WHERE namespace = ?", []any{"default"}, []any{"default"}},
		{"SELECT 1 WHERE namespace = /*ns*/? OR n = /*ns*/?", []any{"default", "default"}, []any{"", ""}},
		{"SELECT 1 WHERE namespace = /*ns*/?", []any{}, []any{}}, // too few: the driver reports it
	} {
		got := bindNamespaces(c.q, slices.Clone(c.args))
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s %q: %q, want %q", c.q, c.args, got, c.want)
		}
		// Bound twice (a caller running the same slice again): the same.
		if again := bindNamespaces(c.q, got); fmt.Sprint(again) != fmt.Sprint(c.want) {
			t.Errorf("%s %q bound twice: %q, want %q", c.q, c.args, again, c.want)
		}
	}
	for _, ns := range []string{"default", "n", "Default", "default2"} {
		if got := nsName(nsArg(ns)); got != ns {
			t.Errorf("nsName(nsArg(%q)) = %q", ns, got)
		}
	}
	if nsArg("default") != "" || nsName("") != "default" {
		t.Error("the default namespace is not stored as ''")
	}
}

// No statement in this package compares a namespace column to a parameter
// without the marker that binds it in its stored form. (Inserts are held
// to it by TestConformance, which writes the default namespace through
// every method and then finds no row that holds its name.)
func TestNamespaceParamsMarked(t *testing.T) {
	t.Parallel()
	unmarked := regexp.MustCompile(`(?i)namespace\s*(=|==|<>|!=|<=|>=|<|>|\bIN\b\s*\(|\bIS\b)\s*\?`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range unmarked.FindAllIndex(src, -1) {
			line := 1 + strings.Count(string(src[:m[0]]), "\n")
			t.Errorf("%s:%d: %q binds a namespace without %s", f, line, src[m[0]:m[1]], nsMark)
		}
	}
}

// defaultNamespaceStore writes an episode, a memory with two versions
// (the first superseded), admissions and a trace into the default
// namespace and into "n", under the same ids.
func defaultNamespaceStore(t *testing.T, path string) *Store {
	t.Helper()
	ctx := t.Context()
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, ns := range []string{memory.DefaultNamespace, "n"} {
		err := s.InTx(ctx, func(tx memory.Executor) error {
			text := "the bike lock code is in the drawer (" + ns + ")"
			if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{
				{ID: "e-1", Kind: "user_message", Speaker: "user", Content: text, OccurredAt: at, RecordedAt: at}}}); err != nil {
				return err
			}
			m := &memory.Memory{Namespace: ns, ID: "m-1", Kind: memory.KindSemantic, Subject: "user", Key: "bike_lock", CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
			for seq, id := range []string{"v-1", "v-2"} {
				v := &memory.Version{Namespace: ns, ID: id, MemoryID: m.ID, Seq: seq + 1, Kind: m.Kind, Type: memory.TypeFact,
					Subject: "user", Key: m.Key, Content: text, Status: memory.StatusActive, Operation: memory.OpAdd,
					ObservedAt: at, RecordedAt: at, ValidFrom: at, UpdatedAt: at, EvidenceEpisodeIDs: []string{"e-1"}}
				if err := tx.CreateVersion(ctx, v); err != nil {
					return err
				}
				if seq == 0 {
					v.Status, v.Operation, v.SupersededBy = memory.StatusSuperseded, memory.OpSupersede, "v-2"
					if err := tx.UpdateVersionState(ctx, v); err != nil {
						return err
					}
				}
			}
			if err := tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{
				{ID: "a-1", EpisodeID: "e-1", MemoryID: "m-1", VersionID: "v-2", Decision: memory.AdmitAccept,
					Operation: memory.OpAdd, Content: text, Extractor: "rules", CreatedAt: at}}}); err != nil {
				return err
			}
			return tx.CreateTrace(ctx, &memory.Trace{Namespace: ns, ID: "r-1", Query: "bike lock", CreatedAt: at,
				Items: memory.TraceItems{{MemoryID: "m-1", VersionID: "v-2", Rank: 1, Final: 0.5}}})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// dumpNamespaces is every row of both namespaces as the store reads them.
func dumpNamespaces(t *testing.T, s *Store) string {
	t.Helper()
	ctx := t.Context()
	var b strings.Builder
	for _, ns := range []string{memory.DefaultNamespace, "n"} {
		p := memory.ScanParams{Namespace: ns}
		check := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		check(s.ScanEpisodes(ctx, p, func(e *memory.Episode) error { fmt.Fprintf(&b, "%+v\n", *e); return nil }))
		check(s.ScanMemories(ctx, p, func(m *memory.Memory) error { fmt.Fprintf(&b, "%+v\n", *m); return nil }))
		check(s.ScanVersions(ctx, p, func(v *memory.Version) error { fmt.Fprintf(&b, "%+v\n", *v); return nil }))
		check(s.ScanAdmissions(ctx, p, func(a *memory.Admission) error { fmt.Fprintf(&b, "%+v\n", *a); return nil }))
		check(s.ScanTraces(ctx, p, func(tr *memory.Trace) error { fmt.Fprintf(&b, "%+v %+v\n", *tr, tr.Items); return nil }))
	}
	return b.String()
}

// namespaceCounts is, per table, how many rows hold each stored namespace.
func namespaceCounts(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"episodes", "memories", "versions", "admissions", "changes", "traces"} {
		rows, err := db.QueryContext(t.Context(), `SELECT namespace, count(*) FROM `+table+` GROUP BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var ns string
			var n int
			if err := rows.Scan(&ns, &n); err != nil {
				t.Fatal(err)
			}
			out[table+"/"+ns] = n
		}
		rows.Close()
	}
	return out
}

// The default namespace is stored as the empty text, every other as it is; each reads
// back under its name, and neither sees the other's rows.
func TestDefaultNamespaceStoredEmpty(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := defaultNamespaceStore(t, filepath.Join(t.TempDir(), "m.db"))
	defer s.Close()
	got := namespaceCounts(t, s.writer)
	for _, table := range []string{"episodes", "memories", "admissions", "traces"} {
		if got[table+"/"] != 1 || got[table+"/n"] != 1 || got[table+"/default"] != 0 {
			t.Errorf("%s: stored namespaces %v", table, got)
		}
	}
	if got["versions/"] != 2 || got["versions/n"] != 2 || got["changes/"] == 0 || got["changes/default"] != 0 {
		t.Errorf("stored namespaces %v", got)
	}
	nss, err := s.Namespaces(ctx)
	if err != nil || !slices.Equal(nss, []string{"default", "n"}) {
		t.Errorf("Namespaces: %v %v", nss, err)
	}
	for _, ns := range []string{memory.DefaultNamespace, "n"} {
		ep, err := s.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: "e-1"})
		if err != nil || ep.Namespace != ns || !strings.HasSuffix(ep.Content, "("+ns+")") {
			t.Errorf("%s: episode %+v %v", ns, ep, err)
		}
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: "v-1"})
		if err != nil || v.Namespace != ns || v.SupersededBy != "v-2" || !strings.HasSuffix(v.Content, "("+ns+")") {
			t.Errorf("%s: version %+v %v", ns, v, err)
		}
		tr, err := s.GetTrace(ctx, memory.GetParams{Namespace: ns, ID: "r-1"})
		if err != nil || tr.Namespace != ns {
			t.Errorf("%s: trace %+v %v", ns, tr, err)
		}
	}
	// '' itself is no namespace: refused, not read as the default.
	if _, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "", ID: "e-1"}); err == nil {
		t.Error("the empty namespace read the default namespace's episode")
	}
	// Deleting in one namespace leaves the other's rows.
	if err := s.InTx(ctx, func(tx memory.Executor) error {
		return tx.(*executor).execOneForTest(ctx, qDeleteEpisode, memory.DefaultNamespace, idArg("e-1"))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "n", ID: "e-1"}); err != nil {
		t.Errorf("deleting the default namespace's episode took n's: %v", err)
	}
	if _, err := s.GetEpisode(ctx, memory.GetParams{Namespace: memory.DefaultNamespace, ID: "e-1"}); err == nil {
		t.Error("the default namespace's episode is still there")
	}
}

func (e *executor) execOneForTest(ctx context.Context, q string, args ...any) error {
	return execOne(ctx, e, q, args...)
}

// Migration 0029: a file that holds the default namespace by its name
// stores it as the empty text afterwards, every row reading back the same; other
// namespaces, the foreign keys and the file's integrity as they were.
func TestMigrationDefaultNamespace(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.db")
	s := defaultNamespaceStore(t, path)
	want := dumpNamespaces(t, s)
	wantCounts := namespaceCounts(t, s.writer)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The file as schema 28 held it.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tables := namespaceTables(t, db)
	execAll(t, db, "PRAGMA foreign_keys = OFF")
	for _, table := range tables {
		execAll(t, db, `UPDATE `+table+` SET namespace = 'default' WHERE namespace = ''`)
	}
	execAll(t, db, "DELETE FROM schema_migrations WHERE version = 29", "PRAGMA user_version = 28")
	old := namespaceCounts(t, db)
	if old["episodes/default"] != 1 || old["versions/default"] != 2 || old["episodes/"] != 0 {
		t.Fatalf("the schema-28 file: %v", old)
	}
	s2 := migrateOld(t, db, path)
	if got := namespaceCounts(t, s2.writer); fmt.Sprint(got) != fmt.Sprint(wantCounts) {
		t.Errorf("stored namespaces after migrating %v, want %v", got, wantCounts)
	}
	if got := dumpNamespaces(t, s2); got != want {
		t.Errorf("rows after migrating:\n%s\nwant:\n%s", got, want)
	}
	var check string
	if err := s2.writer.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q %v", check, err)
	}
	var fk int
	if err := s2.writer.QueryRowContext(t.Context(), "SELECT count(*) FROM pragma_foreign_key_check").Scan(&fk); err != nil || fk != 0 {
		t.Errorf("foreign_key_check: %d rows, %v", fk, err)
	}
}

// What a statement pays for its namespace marks: the version insert (the
// longest a remember runs, one mark) with the default namespace and with
// another, and a statement without a mark.
func BenchmarkBindNamespaces(b *testing.B) {
	args := make([]any, strings.Count(qInsertVersion, "?"))
	for _, ns := range []string{memory.DefaultNamespace, "work"} {
		args[0] = ns
		b.Run(ns, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				args[0] = ns
				_ = bindNamespaces(qInsertVersion, args)
			}
		})
	}
	b.Run("unmarked", func(b *testing.B) {
		for b.Loop() {
			_ = bindNamespaces(qPruneChangesForBench, args)
		}
	})
}

const qPruneChangesForBench = `DELETE FROM changes WHERE seq <= ?`

// namespaceTables returns the tables of db with a namespace column.
func namespaceTables(t testing.TB, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT m.name FROM sqlite_schema m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND p.name = 'namespace'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return tables
}
