package sqlite

import (
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// rawShare is how one version row is stored: its text-sharing bits (1, 2), the version
// it shares, and whether its text and vector are stored in the row.
type rawShare struct {
	shared      int64
	sameAs      string
	value, text bool
	vector      bool
}

func readRawShare(t *testing.T, db *sql.DB, ns, id string) rawShare {
	t.Helper()
	var r rawShare
	var shared sql.NullInt64
	var sameAs sql.NullString
	if err := db.QueryRow(`SELECT shared & 3, same_as, value <> '', content <> '', embedding IS NOT NULL
		FROM versions WHERE namespace = ? AND id = ?`, ns, id).Scan(&shared, &sameAs, &r.value, &r.text, &r.vector); err != nil {
		t.Fatalf("raw %s/%s: %v", ns, id, err)
	}
	r.shared, r.sameAs = shared.Int64, sameAs.String
	return r
}

// A remember's rows, written the way the engine writes them (one
// transaction): the episode's version shares the note's text and vector,
// the note's value is its content, the admission quotes the episode by
// reference. A version of the same text in another namespace shares
// nothing across the boundary.
func TestSharedTextStoredOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const text = "The reviewer in warsaw reviews profiling changes every wednesday using cargo"
	vec := []byte{1, 2, 3, 4}
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	version := func(ns, id, mem string, kind memory.Kind, value string) *memory.Version {
		return &memory.Version{ID: id, MemoryID: mem, Namespace: ns, Seq: 1, Kind: kind, Type: memory.TypeFact,
			Subject: "user", Key: "k:" + id, Value: value, Content: text, Criticality: memory.CriticalityNormal,
			Status: memory.StatusActive, Operation: memory.OpAdd, RecordedAt: now, ValidFrom: now, UpdatedAt: now,
			Embedding: vec}
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "a", Episodes: []*memory.Episode{{
			ID: "e-1", Kind: memory.EpisodeUserMessage, Speaker: "user", Content: text, OccurredAt: now, RecordedAt: now, ContentHash: "h"}}}); err != nil {
			return err
		}
		for _, m := range []struct{ ns, id string }{{"a", "m-note"}, {"a", "m-ep"}, {"b", "m-note"}} {
			if err := tx.CreateMemory(ctx, &memory.Memory{ID: m.id, Namespace: m.ns, Kind: memory.KindSemantic, Subject: "user",
				Key: "k:" + m.id, CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
		}
		for _, v := range []*memory.Version{
			version("a", "v-note", "m-note", memory.KindSemantic, text),
			version("a", "v-ep", "m-ep", memory.KindEpisodic, ""),
			version("b", "v-note", "m-note", memory.KindSemantic, text),
		} {
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "a", Admissions: []*memory.Admission{
			{ID: "a-1", EpisodeID: "e-1", Decision: memory.AdmitAccept, Content: text, Extractor: "episode", CreatedAt: now},
			{ID: "a-2", EpisodeID: "e-1", Decision: memory.AdmitAccept, Content: "a fact", Extractor: "rules", CreatedAt: now},
		}})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ns, id string
		want   rawShare
	}{
		{"a", "v-note", rawShare{shared: 1, text: true, vector: true}},
		{"a", "v-ep", rawShare{shared: 2, sameAs: "v-note"}},
		{"b", "v-note", rawShare{shared: 1, text: true, vector: true}},
	} {
		if got := readRawShare(t, s.writer, c.ns, c.id); got != c.want {
			t.Errorf("%s/%s stored as %+v, want %+v", c.ns, c.id, got, c.want)
		}
	}
	var refs []int64
	rows, err := s.writer.QueryContext(ctx, `SELECT coalesce(content_ref, 0) FROM admissions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	rows.Close()
	if !slices.Equal(refs, []int64{1, 0}) {
		t.Errorf("admissions' content_ref = %v, want [1 0] (the episode's text by reference, the fact's own)", refs)
	}
	for _, id := range []string{"v-note", "v-ep"} {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "a", ID: id})
		if err != nil || v.Content != text || string(v.Embedding) != string(vec) {
			t.Errorf("%s reads %+v, %v", id, v, err)
		}
	}
}

// A store made before migration 0017 (schema 15, rows as main wrote
// them) reads the same after it, with its repeated text stored once.
func TestMigrationSharesText(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAtSchema(t, path, 15)
	const text = "Fixed a flaky bug in the exporter where searching broke under vim"
	execAll(t, old,
		`INSERT INTO episodes VALUES ('n', 'e-1', '', '', '', '', 'user_message', 'user', '`+text+`', 'null', 1, 1, 'h')`,
		`INSERT INTO memories VALUES ('n', 'm-note', '', '', '', '', 'semantic', 'user', 'note:x', 1, 1),
			('n', 'm-ep', '', '', '', '', 'episodic', 'user', 'episode:e-1', 1, 1),
			('n', 'm-other', '', '', '', '', 'episodic', 'user', 'episode:e-2', 1, 1)`,
		`INSERT INTO versions VALUES
			('n', 'v-note', 'm-note', 1, '', '', '', '', 'semantic', 'fact', 'user', 'note:x', '`+text+`', '`+text+`', 'normal',
			 0.8, 0.5, 0.6, 0, 0, 'active', 'ADD', '', 1, 1, 1, NULL, 1, '["e-1"]', 'null', 'note', '', '', 'emb', 4, 'remember', 12, '', x'01020304'),
			('n', 'v-ep', 'm-ep', 1, '', '', '', '', 'episodic', 'event', 'user', 'episode:e-1', '', '`+text+`', 'normal',
			 1.0, 0.5, 0.7, 0, 0, 'active', 'ADD', '', 1, 1, 1, NULL, 1, '["e-1"]', 'null', 'episode', '', '', 'emb', 4, 'episode', 12, 'fix flaki', x'01020304'),
			('n', 'v-other', 'm-other', 1, '', '', '', '', 'episodic', 'event', 'user', 'episode:e-2', '', '`+text+`', 'normal',
			 1.0, 0.5, 0.7, 0, 0, 'active', 'ADD', '', 1, 1, 1, NULL, 1, '["e-2"]', 'null', 'episode', '', '', 'emb', 4, 'episode', 12, '', x'09')`,
		`INSERT INTO admissions VALUES ('n', 'a-1', 'e-1', '', '', 'accept', '["episode"]', '', '`+text+`', 'episode', 1),
			('n', 'a-2', 'e-1', 'm-note', 'v-note', 'accept', 'null', 'ADD', 'other', 'note', 1)`,
	)
	s := migrateOld(t, old, path)
	for _, c := range []struct {
		id   string
		want rawShare
	}{
		{"v-note", rawShare{shared: 1, vector: true}}, // its text is its episode's (migration 0020)
		{"v-ep", rawShare{shared: 2, sameAs: "v-note"}},
		{"v-other", rawShare{text: true, vector: true}}, // a different vector: stored in full
	} {
		if got := readRawShare(t, s.writer, "n", c.id); got != c.want {
			t.Errorf("%s stored as %+v after migrating, want %+v", c.id, got, c.want)
		}
	}
	for _, c := range []struct{ id, value, search, vec string }{
		{"v-note", text, "", "\x01\x02\x03\x04"}, {"v-ep", "", "fix flaki", "\x01\x02\x03\x04"}, {"v-other", "", "", "\x09"},
	} {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: c.id})
		if err != nil || v.Content != text || v.Value != c.value || v.SearchText != c.search || string(v.Embedding) != c.vec {
			t.Errorf("%s after migrating: %+v, %v", c.id, v, err)
		}
	}
	adm, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n"})
	if err != nil || len(adm) != 2 {
		t.Fatalf("admissions after migrating: %v, %v", adm, err)
	}
	for _, a := range adm {
		want := map[string]string{"a-1": text, "a-2": "other"}[a.ID]
		if a.Content != want {
			t.Errorf("admission %s content %q, want %q", a.ID, a.Content, want)
		}
	}
	var ref sql.NullInt64
	if err := s.writer.QueryRowContext(ctx, `SELECT content_ref FROM admissions WHERE id = 'a-1'`).Scan(&ref); err != nil || ref.Int64 != 1 {
		t.Errorf("a-1 content_ref %v, %v; want 1", ref, err)
	}
}

// An admission written in its episode's transaction skips the read of the
// episode when the executor already knows the episode's text; written in a
// later transaction it reads the episode. Both store the same row: the
// text by reference when it is the episode's, as given otherwise (another
// text, an empty one, an episode too short to be remembered by the
// executor, an episode of another transaction).
func TestAdmissionStoredAlikeInOrAfterItsEpisodesTx(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "adm.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const long = "the standup moved to half past nine because the berlin folks asked for it"
	now := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	cases := []struct {
		name, episode, content string
		ref                    int64
	}{
		{"its episode's text", long, long, 1},
		{"another text", long, "standup at nine thirty", 0},
		{"no text", long, "", 0},
		{"a short episode's text", "ok see you then", "ok see you then", 1},
	}
	for _, mode := range []string{"same", "later"} {
		for i, c := range cases {
			ep := &memory.Episode{ID: mode + "-e" + string(rune('0'+i)), Namespace: "n", Kind: memory.EpisodeUserMessage,
				Speaker: "user", Content: c.episode, OccurredAt: now, RecordedAt: now, ContentHash: "h"}
			adm := &memory.Admission{ID: mode + "-a" + string(rune('0'+i)), EpisodeID: ep.ID, Decision: memory.AdmitAccept,
				Operation: memory.OpAdd, Content: c.content, Extractor: "rules", CreatedAt: now}
			write := func(tx memory.Executor) error {
				return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "n", Admissions: []*memory.Admission{adm}})
			}
			err := s.InTx(ctx, func(tx memory.Executor) error {
				if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{ep}}); err != nil {
					return err
				}
				if mode == "same" {
					return write(tx)
				}
				return nil
			})
			if err == nil && mode == "later" {
				err = s.InTx(ctx, write)
			}
			if err != nil {
				t.Fatalf("%s, %s: %v", mode, c.name, err)
			}
			var stored string
			var ref sql.NullInt64
			if err := s.writer.QueryRowContext(ctx, `SELECT content, content_ref FROM admissions WHERE namespace = 'n' AND id = ?`,
				idArg(adm.ID)).Scan(&stored, &ref); err != nil {
				t.Fatalf("%s, %s: %v", mode, c.name, err)
			}
			wantStored := c.content
			if c.ref == 1 {
				wantStored = ""
			}
			if stored != wantStored || ref.Int64 != c.ref {
				t.Errorf("%s, %s: stored %q, content_ref %v; want %q, %d", mode, c.name, stored, ref, wantStored, c.ref)
			}
			got, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n", EpisodeID: ep.ID})
			if err != nil || len(got) != 1 || got[0].Content != c.content {
				t.Errorf("%s, %s: read back %+v, %v; want the content %q", mode, c.name, got, err, c.content)
			}
		}
	}
}
