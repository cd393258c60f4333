package sqlite

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

const testHash = "fbd404e60883e9de378307b3ab1b59aa6330dd23757b58d3a4ca6d1f9fcce5d3"

// Every content hash and span list reads back as written, in whichever
// form it was stored, and the compact forms are the ones stored when they
// fit.
func TestCompactColumnsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "c.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	hashes := []struct {
		id, hash, typ string
	}{
		{"e-hex", testHash, "blob"},
		{"e-upper", strings.ToUpper(testHash), "text"}, // not the engine's form: kept as text
		{"e-short", "abc", "text"},
		{"e-empty", "", "text"},
		{"e-odd", testHash[:63] + "g", "text"},
	}
	var eps []*memory.Episode
	for _, h := range hashes {
		eps = append(eps, &memory.Episode{ID: h.id, Kind: "user_message", Speaker: "user", Content: "text of " + h.id,
			OccurredAt: at, RecordedAt: at, ContentHash: h.hash})
	}
	spanCases := []struct {
		id      string
		ids     []string
		spans   []memory.Span
		compact bool
	}{
		{"v-one", []string{"e-hex"}, []memory.Span{{EpisodeID: "e-hex", Start: 0, End: 104}}, true},
		{"v-many", []string{"e-hex", "e-short", "e-hex"}, []memory.Span{
			{EpisodeID: "e-short", Start: 3, End: 9}, {EpisodeID: "e-hex", Start: 12, End: 40}, {EpisodeID: "e-short", Start: 0, End: 0}}, true},
		{"v-outside", []string{"e-hex"}, []memory.Span{{EpisodeID: "e-other", Start: 1, End: 2}}, false},
		{"v-negative", []string{"e-hex"}, []memory.Span{{EpisodeID: "e-hex", Start: -1, End: 2}}, false},
		{"v-nil", []string{"e-hex"}, nil, false},
		{"v-empty", []string{"e-hex"}, []memory.Span{}, false},
		{"v-noids", nil, []memory.Span{{EpisodeID: "e-hex", Start: 1, End: 2}}, false},
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: eps}); err != nil {
			return err
		}
		for i, c := range spanCases {
			m := &memory.Memory{Namespace: "n", ID: "m-" + c.id, Kind: memory.KindSemantic, Subject: "user", Key: fmt.Sprint("k", i), CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
			v := &memory.Version{Namespace: "n", ID: c.id, MemoryID: m.ID, Seq: 1, Kind: m.Kind, Type: memory.TypeFact, Subject: "user", Key: m.Key,
				Content: "c", Status: memory.StatusActive, Operation: memory.OpAdd, ObservedAt: at, RecordedAt: at, ValidFrom: at, UpdatedAt: at,
				EvidenceEpisodeIDs: c.ids, EvidenceSpans: c.spans}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hashes {
		ep, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "n", ID: h.id})
		if err != nil || ep.ContentHash != h.hash {
			t.Errorf("%s: hash %q, %v; want %q", h.id, ep.ContentHash, err, h.hash)
		}
		var typ string
		if err := s.writer.QueryRowContext(ctx, `SELECT typeof(content_hash) FROM episodes WHERE id = ?`, h.id).Scan(&typ); err != nil || typ != h.typ {
			t.Errorf("%s: hash stored as %s, %v; want %s", h.id, typ, err, h.typ)
		}
		if h.hash == "" {
			continue
		}
		found, err := s.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "n", ContentHash: h.hash})
		if err != nil || len(found) != 1 || found[0].ID != h.id {
			t.Errorf("%s: by hash %v, %v", h.id, found, err)
		}
	}
	// A hash sharing the first 8 bytes with a stored one finds nothing.
	if found, err := s.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "n", ContentHash: testHash[:60] + "0000"}); err != nil || len(found) != 0 {
		t.Errorf("near hash: %v, %v", found, err)
	}
	for _, c := range spanCases {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: c.id})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v.EvidenceSpans, c.spans) || !reflect.DeepEqual(v.EvidenceEpisodeIDs, c.ids) {
			t.Errorf("%s: spans %#v ids %#v; want %#v %#v", c.id, v.EvidenceSpans, v.EvidenceEpisodeIDs, c.spans, c.ids)
		}
		var raw string
		if err := s.writer.QueryRowContext(ctx, `SELECT evidence_spans FROM versions WHERE id = ?`, c.id).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if got := strings.HasPrefix(raw, "~"); got != c.compact {
			t.Errorf("%s: stored %q, compact %v, want %v", c.id, raw, got, c.compact)
		}
	}
}

// A store written at schema 17 (rows as main wrote them: hex hashes, JSON
// spans) reads the same after migration 0019, with the compact forms
// where they fit.
func TestMigrationCompactsRows(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAtSchema(t, path, 17)
	version := func(id, ids, spans string) string {
		return `('n', '` + id + `', 'm-1', ` + fmt.Sprint(len(id)) + `, '', '', '', '', 'semantic', 'fact', 'user', 'k', '', 'c', 'normal',
			 0.8, 0.5, 0.6, 0, 0, 'active', 'ADD', '', 1, 1, 1, NULL, 1, '` + ids + `', '` + spans + `', 'note', '', '', 'emb', 4, 'remember', 1, '', NULL, NULL, NULL)`
	}
	execAll(t, old,
		`INSERT INTO episodes VALUES ('n', 'e-1', '', '', '', 's', 'user_message', 'user', 'one', 'null', 1, 1, '`+testHash+`'),
			('n', 'e-2', '', '', '', 's', 'user_message', 'user', 'two', '{"a":"b"}', 2, 2, 'imported'),
			('n', 'e-3', '', '', '', '', 'user_message', 'user', '', 'null', 3, 3, '`+strings.ToUpper(testHash)+`')`,
		`INSERT INTO memories VALUES ('n', 'm-1', '', '', '', '', 'semantic', 'user', 'k', 1, 1)`,
		`INSERT INTO versions VALUES `+strings.Join([]string{
			version("v-a", `["e-1"]`, `[{"episode_id":"e-1","start":0,"end":104}]`),
			version("v-bb", `["e-1","e-2"]`, `[{"episode_id":"e-2","start":5,"end":7},{"episode_id":"e-1","start":1,"end":3}]`),
			version("v-ccc", `["e-1"]`, `[{"episode_id":"e-9","start":0,"end":1}]`),
			version("v-dddd", `["e-1"]`, `null`),
			version("v-eeeee", `null`, `[]`),
			version("v-ffffff", `["e-1"]`, `[{"episode_id":"e-1","start":0,"end":1.5}]`),
		}, ", "),
		`INSERT INTO admissions VALUES ('n', 'a-1', 'e-1', '', '', 'accept', '["episode"]', '', '', 'episode', 1, 1)`,
	)
	s := migrateOld(t, old, path)
	eps, err := s.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "n"})
	if err != nil || len(eps) != 3 {
		t.Fatalf("episodes: %v, %v", eps, err)
	}
	for i, want := range []string{testHash, "imported", strings.ToUpper(testHash)} {
		if eps[i].ContentHash != want {
			t.Errorf("%s: hash %q, want %q", eps[i].ID, eps[i].ContentHash, want)
		}
	}
	if !reflect.DeepEqual(eps[1].Metadata, map[string]string{"a": "b"}) || eps[1].Content != "two" || eps[1].Scope.SessionID != "s" {
		t.Errorf("e-2 after migrating: %+v", eps[1])
	}
	if found, err := s.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "n", ContentHash: testHash, OccurredAt: time.Unix(0, 1)}); err != nil || len(found) != 1 {
		t.Errorf("by hash after migrating: %v, %v", found, err)
	}
	wantSpans := map[string]struct {
		spans   []memory.Span
		compact bool
	}{
		"v-a":      {[]memory.Span{{EpisodeID: "e-1", End: 104}}, true},
		"v-bb":     {[]memory.Span{{EpisodeID: "e-2", Start: 5, End: 7}, {EpisodeID: "e-1", Start: 1, End: 3}}, true},
		"v-ccc":    {[]memory.Span{{EpisodeID: "e-9", End: 1}}, false},
		"v-dddd":   {nil, false},
		"v-eeeee":  {[]memory.Span{}, false},
		"v-ffffff": {nil, false}, // not a whole number: stays JSON (and fails to decode as before)
	}
	for id, w := range wantSpans {
		var raw string
		if err := s.writer.QueryRowContext(ctx, `SELECT evidence_spans FROM versions WHERE id = ?`, id).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(raw, "~") != w.compact {
			t.Errorf("%s: stored %q after migrating, compact want %v", id, raw, w.compact)
		}
		if id == "v-ffffff" {
			continue
		}
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: id})
		if err != nil || !reflect.DeepEqual(v.EvidenceSpans, w.spans) {
			t.Errorf("%s: spans %#v, %v; want %#v", id, v.EvidenceSpans, err, w.spans)
		}
	}
	// The trigger made again still copies an episode's text into the
	// admission that quoted it before the episode goes.
	adm, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n"})
	if err != nil || len(adm) != 1 || adm[0].Content != "one" {
		t.Fatalf("admission after migrating: %+v, %v", adm, err)
	}
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM episodes WHERE id = 'e-1'`); err != nil {
		t.Fatal(err)
	}
	if adm, err = s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n"}); err != nil || adm[0].Content != "one" {
		t.Errorf("admission after its episode went: %+v, %v", adm, err)
	}
}

// The indexes migration 0019 shortened no longer order rows of equal time
// by id; the queries sort those ties themselves, across page boundaries
// too.
func TestTiesKeepIDOrder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "ties.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	// Inserted out of id order, all at one instant.
	ids := []string{"c", "a", "e", "b", "d"}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		var eps []*memory.Episode
		var adms []*memory.Admission
		for _, id := range ids {
			eps = append(eps, &memory.Episode{ID: "e-" + id, Kind: "user_message", Speaker: "user", Content: id,
				OccurredAt: at, RecordedAt: at, ContentHash: testHash, Scope: memory.Scope{SessionID: "s"}})
			adms = append(adms, &memory.Admission{ID: "a-" + id, EpisodeID: "e-x", MemoryID: "m-1", VersionID: "v-" + id,
				Decision: "accept", Operation: memory.OpAdd, Extractor: "note", CreatedAt: at})
		}
		if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: eps}); err != nil {
			return err
		}
		if err := tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "n", Admissions: adms}); err != nil {
			return err
		}
		m := &memory.Memory{Namespace: "n", ID: "m-1", Kind: memory.KindSemantic, Subject: "user", Key: "k", CreatedAt: at, UpdatedAt: at}
		if err := tx.CreateMemory(ctx, m); err != nil {
			return err
		}
		for i, id := range ids {
			v := &memory.Version{Namespace: "n", ID: "v-" + id, MemoryID: "m-1", Seq: i + 1, Kind: m.Kind, Type: memory.TypeFact,
				Subject: "user", Key: "k", Content: id, Status: memory.StatusActive, Operation: memory.OpAdd,
				ObservedAt: at, RecordedAt: at, ValidFrom: at, UpdatedAt: at}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	asc := []string{"a", "b", "c", "d", "e"}
	desc := []string{"e", "d", "c", "b", "a"}
	check := func(what string, got []string, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	for _, p := range []memory.ListEpisodesParams{{Namespace: "n"}, {Namespace: "n", SessionID: "s"}, {Namespace: "n", Limit: 3}} {
		eps, err := s.ListEpisodes(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ep := range eps {
			got = append(got, strings.TrimPrefix(ep.ID, "e-"))
		}
		want := asc
		if p.Limit > 0 {
			want = asc[:p.Limit]
		}
		check(fmt.Sprintf("episodes %+v", p), got, want)
	}
	for _, p := range []memory.ListAdmissionsParams{{Namespace: "n"}, {Namespace: "n", MemoryID: "m-1"}, {Namespace: "n", EpisodeID: "e-x"}, {Namespace: "n", Limit: 2}} {
		adms, err := s.ListAdmissions(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range adms {
			got = append(got, strings.TrimPrefix(a.ID, "a-"))
		}
		want := desc
		if p.Limit > 0 {
			want = desc[:p.Limit]
		}
		check(fmt.Sprintf("admissions %+v", p), got, want)
	}
	var got []string
	var after *memory.VersionCursor
	for range 3 {
		page, err := s.PageVersions(ctx, memory.PageVersionsParams{Namespace: "n", Limit: 2, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range page {
			got = append(got, strings.TrimPrefix(v.ID, "v-"))
		}
		if len(page) == 0 {
			break
		}
		last := page[len(page)-1]
		after = &memory.VersionCursor{RecordedAt: last.RecordedAt, ID: last.ID}
	}
	check("versions, pages of 2", got, desc)
}
