package sqlite

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// Only the exact text mnemon writes is compacted, it reads back as that
// text, and compact forms sort as their texts do.
func TestCompactIDShapes(t *testing.T) {
	t.Parallel()
	var made []string
	for _, p := range []string{ids.Version, ids.Memory, ids.Episode, ids.Admission, ids.Retrieval, ids.Key, ids.Feedback, ids.Job} {
		for range 3 {
			made = append(made, ids.New(p))
		}
	}
	made = append(made, "mem_00000000000000000000000000", "ver_07"+strings.Repeat("z", 24)) // the largest that has room
	var forms [][]byte
	for _, id := range made {
		b, ok := appendID(nil, id)
		if !ok || len(b) != idBlobLen {
			t.Fatalf("%s: not compacted (%x)", id, b)
		}
		if back, ok := idText(b); !ok || back != id {
			t.Errorf("%s reads back as %q", id, back)
		}
		forms = append(forms, b)
	}
	sorted := slices.Clone(made)
	slices.Sort(sorted)
	slices.SortFunc(forms, bytes.Compare)
	for i, b := range forms {
		if got, _ := idText(b); got != sorted[i] {
			t.Fatalf("compact order differs from text order at %d: %s, want %s", i, got, sorted[i])
		}
	}
	id := ids.New(ids.Memory)
	for _, other := range []string{
		"", "mem_", "m-1", "mem-" + id[4:], "MEM_" + id[4:], // no known prefix
		"mem_" + strings.ToUpper(id[4:]), // upper case reads back lower
		"mem_8zzzzzzzzzzzzzzzzzzzzzzzzz", // beyond 128 bits
		"mem_" + id[4:29], id + "0",      // length
		"mem_0123456789abcdefghjkmnpqri", // i, l, o, u are not digits
		"mem_0123456789abcdefghjkmnpqrl",
		"mem_0123456789abcdefghjkmnpqru",
		"mem_0123456789abcdefghjkmnpqr_",
		"ep__" + id[4:29],
	} {
		if b, ok := appendID(nil, other); ok {
			t.Errorf("%q compacted to %x", other, b)
		}
		if got := idArg(other); got != other {
			t.Errorf("idArg(%q) = %v, want the text", other, got)
		}
	}
	for _, b := range [][]byte{nil, make([]byte, 17), append([]byte{9 << 3}, make([]byte, 15)...), make([]byte, 16), make([]byte, 15)} {
		if s, ok := idText(b); ok {
			t.Errorf("idText(%x) = %q", b, s)
		}
	}
}

// idColumns are the columns migration 0022 stores compactly, per table;
// "evidence_episode_ids" is a list.
var idColumns = map[string][]string{
	"memories":   {"id"},
	"versions":   {"id", "memory_id", "superseded_by", "same_as", "evidence_episode_ids"},
	"admissions": {"id", "episode_id", "memory_id", "version_id"},
	"episodes":   {"id"},
	"changes":    {"version_id"},
}

// rowsOf reads a table's rows, every column, in a stable order.
func rowsOf(t *testing.T, db *sql.DB, table string) [][]any {
	t.Helper()
	order := "namespace, id"
	if table == "changes" {
		order = "namespace, seq"
	}
	rows, err := db.Query(`SELECT * FROM ` + table + ` ORDER BY ` + order)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// asText is a compactly stored value as schema 21 stored it.
func asText(t *testing.T, col string, v any) any {
	t.Helper()
	b, ok := v.([]byte)
	if !ok {
		return v
	}
	if col == "evidence_episode_ids" {
		list, ok := splitIDs(b)
		if !ok {
			t.Fatalf("evidence list %x", b)
		}
		j, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		return string(j)
	}
	s, ok := idText(b)
	if !ok {
		t.Fatalf("%s: %x is no id", col, b)
	}
	return s
}

// A store written at schema 21 (every id as text) and migrated holds, row
// for row and byte for byte, what this code writes for the same records:
// ids of mnemon's shape as 16 bytes, imported and user-given ids as the
// text they were, evidence lists packed only when every id packs. The
// reads give every id back, lookups by either kind of id find their rows,
// and the triggers and tail indexes remade by the migration work.
func TestMigrationCompactIDs(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)

	// The records: ids as mnemon makes them, and others.
	epA, epB, epImported := ids.New(ids.Episode), ids.New(ids.Episode), "ep_IMPORTED-from-elsewhere"
	memA, memB, memUser := ids.New(ids.Memory), ids.New(ids.Memory), "my-own-memory"
	verA1, verA2, verB, verUser := ids.New(ids.Version), ids.New(ids.Version), ids.New(ids.Version), "ver_"+strings.ToUpper(ids.New(ids.Version)[4:])
	const text = "The release train leaves on thursday mornings, so freeze the branch wednesday night"
	vec := []byte{9, 8, 7, 6}
	version := func(id, mem string, seq int, evidence []string, content string) *memory.Version {
		return &memory.Version{ID: id, MemoryID: mem, Namespace: "n", Seq: seq, Kind: memory.KindSemantic, Type: memory.TypeFact,
			Subject: "team", Key: "release:" + mem, Value: content, Content: content, Criticality: memory.CriticalityNormal,
			Status: memory.StatusActive, Operation: memory.OpAdd, RecordedAt: now.Add(time.Duration(seq) * time.Second),
			ValidFrom: now, UpdatedAt: now, EvidenceEpisodeIDs: evidence, Embedding: vec}
	}
	write := func(s *Store) {
		t.Helper()
		err := s.InTx(ctx, func(tx memory.Executor) error {
			if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{
				{ID: epA, Kind: memory.EpisodeUserMessage, Speaker: "user", Content: text, OccurredAt: now, RecordedAt: now, ContentHash: "h1"},
				{ID: epB, Kind: memory.EpisodeUserMessage, Speaker: "user", Content: "short one", OccurredAt: now, RecordedAt: now, ContentHash: "h2"},
				{ID: epImported, Kind: memory.EpisodeUserMessage, Speaker: "user", Content: "imported text", OccurredAt: now, RecordedAt: now, ContentHash: "h3"},
			}}); err != nil {
				return err
			}
			for _, id := range []string{memA, memB, memUser} {
				if err := tx.CreateMemory(ctx, &memory.Memory{ID: id, Namespace: "n", Kind: memory.KindSemantic, Subject: "team",
					Key: "release:" + id, CreatedAt: now, UpdatedAt: now}); err != nil {
					return err
				}
			}
			for _, v := range []*memory.Version{
				version(verA1, memA, 1, []string{epA}, text),                        // its episode's text (shared bit 8)
				version(verB, memB, 1, []string{epA, epB}, text),                    // the same text and vector: shares verA1's row
				version(verUser, memUser, 1, []string{epImported}, "imported fact"), // a list with an imported id
				version(verA2, memA, 2, nil, "the train now leaves on fridays"),
			} {
				if err := tx.CreateVersion(ctx, v); err != nil {
					return err
				}
			}
			v := version(verA1, memA, 1, []string{epA}, text)
			v.Status, v.Operation, v.SupersededBy = memory.StatusSuperseded, memory.OpSupersede, verA2
			if err := tx.UpdateVersionState(ctx, v); err != nil {
				return err
			}
			return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "n", Admissions: []*memory.Admission{
				{ID: ids.New(ids.Admission), EpisodeID: epA, MemoryID: memA, VersionID: verA1, Decision: memory.AdmitAccept,
					Operation: memory.OpAdd, Content: text, Extractor: "episode", CreatedAt: now},
				{ID: "adm-user", EpisodeID: epImported, MemoryID: memUser, VersionID: verUser, Decision: memory.AdmitAccept,
					Operation: memory.OpAdd, Content: "imported fact", Extractor: "rules", CreatedAt: now.Add(time.Second)},
				{ID: ids.New(ids.Admission), EpisodeID: epB, Decision: memory.AdmitReject, Content: "nothing kept",
					Extractor: "rules", CreatedAt: now.Add(2 * time.Second)},
			}})
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	// The store as this code writes it.
	fresh, err := Open(ctx, filepath.Join(dir, "fresh.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	write(fresh)

	// The same rows at schema 21: every compact value as its text.
	path := filepath.Join(dir, "old.db")
	old := openAtSchema(t, path, 21)
	for table, cols := range idColumns {
		rows, err := fresh.reader.Query(`SELECT * FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		names, _ := rows.Columns()
		rows.Close()
		for _, r := range rowsOf(t, fresh.reader, table) {
			beforeSaidOnce(t, fresh.reader, table, names, r)
			for i, name := range names {
				if slices.Contains(cols, name) {
					r[i] = asText(t, name, r[i])
				}
			}
			names, r := withoutLaterColumns(names, r)
			marks := strings.TrimSuffix(strings.Repeat("?, ", len(r)), ", ")
			if _, err := old.Exec(`INSERT INTO `+table+` (`+strings.Join(names, ", ")+`) VALUES (`+marks+`)`, r...); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
		}
	}
	s := migrateOld(t, old, path)

	for table := range idColumns {
		if got, want := rowsOf(t, s.reader, table), rowsOf(t, fresh.reader, table); !reflect.DeepEqual(got, want) {
			t.Errorf("%s migrated:\n%v\nwritten by this code:\n%v", table, got, want)
		}
	}
	// By id: a text id sorts before every compact one (SQLite's order of
	// types), then verA1, verA2, verB as they were made.
	var kinds string
	if err := s.reader.QueryRow(`SELECT group_concat(typeof(id) || length(id), ',') FROM
		(SELECT id FROM versions ORDER BY id)`).Scan(&kinds); err != nil || kinds != "text30,blob16,blob16,blob16" {
		t.Errorf("stored version ids: %s, %v", kinds, err)
	}
	var lists string
	if err := s.reader.QueryRow(`SELECT group_concat(typeof(evidence_episode_ids) || length(evidence_episode_ids), ',') FROM
		(SELECT evidence_episode_ids FROM versions ORDER BY id)`).Scan(&lists); err != nil || lists != "text30,blob16,text4,blob32" {
		t.Errorf("stored evidence lists: %s, %v", lists, err)
	}

	// Every read gives the ids back.
	for _, st := range []*Store{s, fresh} {
		v, err := st.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: verA1})
		if err != nil || v.MemoryID != memA || v.SupersededBy != verA2 || !slices.Equal(v.EvidenceEpisodeIDs, []string{epA}) || v.Content != text {
			t.Fatalf("%s: %+v, %v", verA1, v, err)
		}
		v, err = st.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: verB})
		if err != nil || !slices.Equal(v.EvidenceEpisodeIDs, []string{epA, epB}) || v.Content != text || !bytes.Equal(v.Embedding, vec) {
			t.Fatalf("%s: %+v, %v", verB, v, err)
		}
		v, err = st.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: verUser})
		if err != nil || v.MemoryID != memUser || !slices.Equal(v.EvidenceEpisodeIDs, []string{epImported}) {
			t.Fatalf("%s: %+v, %v", verUser, v, err)
		}
		if _, err := st.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: strings.ToLower(verUser)}); err == nil {
			t.Errorf("%s found by its lower-case twin", verUser)
		}
		vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: "n", IDs: []string{verUser, verA2, "ver_missing"}})
		if err != nil || len(vs) != 2 || vs[0].ID != verUser || vs[1].ID != verA2 {
			t.Errorf("versions by ids: %d, %v", len(vs), err)
		}
		vs, err = st.ListVersions(ctx, memory.ListVersionsParams{Namespace: "n", MemoryID: memA})
		if err != nil || len(vs) != 2 || vs[0].ID != verA1 || vs[1].ID != verA2 {
			t.Errorf("versions of %s: %d, %v", memA, len(vs), err)
		}
		page, err := st.PageVersions(ctx, memory.PageVersionsParams{Namespace: "n", Limit: 2})
		if err != nil || len(page) != 2 {
			t.Fatalf("first page: %d, %v", len(page), err)
		}
		rest, err := st.PageVersions(ctx, memory.PageVersionsParams{Namespace: "n", Limit: 10, After: &memory.VersionCursor{RecordedAt: page[1].RecordedAt, ID: page[1].ID}})
		if err != nil || len(rest) != 2 || rest[0].ID == page[1].ID {
			t.Errorf("second page after %s: %d, %v", page[1].ID, len(rest), err)
		}
		for _, m := range []string{memA, memUser} {
			if got, err := st.GetMemory(ctx, memory.GetParams{Namespace: "n", ID: m}); err != nil || got.ID != m {
				t.Errorf("memory %s: %+v, %v", m, got, err)
			}
		}
		eps, err := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "n", IDs: []string{epImported, epB}})
		if err != nil || len(eps) != 2 {
			t.Errorf("episodes by ids: %d, %v", len(eps), err)
		}
		for _, c := range []struct {
			p    memory.ListAdmissionsParams
			want string
		}{
			{memory.ListAdmissionsParams{MemoryID: memA}, verA1},
			{memory.ListAdmissionsParams{MemoryID: memUser}, verUser},
			{memory.ListAdmissionsParams{EpisodeID: epImported}, verUser},
			{memory.ListAdmissionsParams{EpisodeID: epB}, ""},
		} {
			c.p.Namespace = "n"
			as, err := st.ListAdmissions(ctx, c.p)
			if err != nil || len(as) != 1 || as[0].VersionID != c.want {
				t.Errorf("admissions of %+v: %+v, %v", c.p, as, err)
			}
		}
		cs, err := st.ListChanges(ctx, memory.ListChangesParams{Namespace: "n"})
		var got []string
		for _, c := range cs {
			got = append(got, c.VersionID)
		}
		if err != nil || !slices.Equal(got, []string{verA1, verB, verUser, verA2, verA1}) {
			t.Errorf("changes: %v, %v", got, err)
		}
	}

	// The remade triggers: verA1's episode goes, its text is copied into
	// verA1 and from there into verB, which shared verA1's row; then verA1
	// goes. The deletes find rows by id.
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM episodes WHERE namespace = 'n' AND id = ?`, idArg(epA)); err != nil {
		t.Fatal(err)
	}
	var own int
	if err := s.reader.QueryRow(`SELECT count(*) FROM versions WHERE content = ? AND shared & 8 = 0`, text).Scan(&own); err != nil || own != 2 {
		t.Errorf("versions holding the text after its episode went: %d, %v", own, err)
	}
	if deleted, err := s.DeleteMemories(ctx, memory.DeleteMemoriesParams{Namespace: "n", VersionIDs: []string{verA1}, Now: now}); err != nil || !slices.Equal(deleted, []string{verA1}) {
		t.Fatalf("deleting %s: %v, %v", verA1, deleted, err)
	}
	if _, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: verA1}); err == nil {
		t.Errorf("%s still there", verA1)
	}
	v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: verB})
	if err != nil || v.Content != text || !bytes.Equal(v.Embedding, vec) {
		t.Errorf("%s after the version it shared went: %+v, %v", verB, v, err)
	}
	as, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n", MemoryID: memA})
	if err != nil || len(as) != 0 {
		t.Errorf("admissions of %s after its version went: %d, %v", memA, len(as), err)
	}
	deleted, err := s.DeleteMemories(ctx, memory.DeleteMemoriesParams{Namespace: "n", MemoryIDs: []string{memUser}, Now: now})
	if err != nil || !slices.Equal(deleted, []string{verUser}) {
		t.Errorf("deleting %s: %v, %v", memUser, deleted, err)
	}
	if as, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n", EpisodeID: epImported}); err != nil || len(as) != 0 {
		t.Errorf("admissions of %s after its memory went: %d, %v", epImported, len(as), err)
	}
	if fk := rowsOfPragma(t, s.reader, "PRAGMA foreign_key_check"); fk != "" {
		t.Errorf("foreign key check: %s", fk)
	}
}

// rowsOfPragma is a pragma's rows, printed.
func rowsOfPragma(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(vals...))
	}
	return strings.Join(out, "\n")
}
