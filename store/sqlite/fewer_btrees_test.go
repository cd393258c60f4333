package sqlite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// Migration 0021 on a store as 0020 left it: the change log keeps its
// numbers (and hands out the next per namespace), the admissions' narrowed
// indexes still find exactly an episode's and a memory's rows (ids whose
// last 8 characters collide included), sessions are still found, and the
// remade episode trigger still gives an admission its text back.
func TestMigrationFewerBTrees(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAtSchema(t, path, 20)
	sum := sha256.Sum256([]byte("the first text"))
	hash := hex.EncodeToString(sum[:])
	execAll(t, old,
		// e-d holds its text's SHA-256 (shortened by the migration); e-e
		// another text's (kept whole).
		fmt.Sprintf(`INSERT INTO episodes VALUES
			('n', 'e-d', '', '', '', '', 'user_message', 'user', 'the first text', 'null', 4, 4, x'%[1]s'),
			('n', 'e-e', '', '', '', '', 'user_message', 'user', 'not that text', 'null', 5, 5, x'%[1]s')`, hash),
		// Kinds and metadata: coded, kept as text (task_result), JSON kept.
		`INSERT INTO episodes VALUES
			('n', 'e-t', '', '', '', 's2', 'task_result', 'agent', 'done', '{"outcome":"success"}', 7, 7, 'h7'),
			('n', 'e-o', '', '', '', '', 'observation', 'tool', 'seen', '{}', 8, 8, 'h8')`,
		// e-a-tail0001 and e-b-tail0001 end alike: one index key.
		`INSERT INTO episodes VALUES
			('n', 'e-a-tail0001', '', '', '', 's1', 'user_message', 'user', 'the first text', 'null', 1, 1, 'h1'),
			('n', 'e-b-tail0001', '', '', '', 's1', 'user_message', 'user', 'the second text', 'null', 2, 2, 'h2'),
			('n', 'e-c', '', '', '', '', 'user_message', 'user', 'no session', 'null', 3, 3, 'h3'),
			('other', 'e-a-tail0001', '', '', '', 's1', 'user_message', 'user', 'another tenant', 'null', 1, 1, 'h1')`,
		`INSERT INTO admissions VALUES
			('n', 'a-1', 'e-a-tail0001', 'm-x-tail0002', 'v-1', 'accept', 'null', 'ADD', '', 'note', 1, 1, NULL),
			('n', 'a-2', 'e-b-tail0001', 'm-y-tail0002', 'v-2', 'accept', 'null', 'ADD', 'fact two', 'note', 2, NULL, NULL),
			('n', 'a-3', 'e-b-tail0001', '', '', 'reject', 'null', '', 'rejected', 'note', 3, NULL, NULL),
			('other', 'a-1', 'e-a-tail0001', 'm-x-tail0002', 'v-1', 'accept', 'null', 'ADD', 'other', 'note', 1, NULL, NULL)`,
		// Sequence numbers were rowids, shared by the namespaces.
		`INSERT INTO changes (seq, namespace, version_id, updated_at) VALUES
			(1, 'n', 'v-1', 1), (2, 'other', 'v-1', 1), (3, 'n', 'v-2', 2), (4, 'other', 'v-9', 4)`,
	)
	s := migrateOld(t, old, path)

	var schema string
	if err := s.reader.QueryRowContext(ctx, `SELECT group_concat(sql, ';') FROM sqlite_schema WHERE tbl_name = 'changes'`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(schema, "WITHOUT ROWID") || strings.Contains(schema, "changes_by_namespace") {
		t.Errorf("changes after migrating: %s", schema)
	}

	seqs := func(ns string) []int64 {
		t.Helper()
		cs, err := s.ListChanges(ctx, memory.ListChangesParams{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, c := range cs {
			out = append(out, c.Seq)
		}
		return out
	}
	if got := seqs("n"); len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Errorf("n's changes after migrating: %v, want [1 3]", got)
	}
	if _, err := s.writer.ExecContext(ctx, qInsertChange, "n", "v-3", 5); err != nil {
		t.Fatal(err)
	}
	if got := seqs("n"); len(got) != 3 || got[2] != 4 {
		t.Errorf("n's changes after a write: %v, want [1 3 4]", got)
	}
	if got := seqs("other"); len(got) != 2 || got[0] != 2 || got[1] != 4 {
		t.Errorf("other's changes: %v, want [2 4]", got)
	}

	ids := func(p memory.ListAdmissionsParams) string {
		t.Helper()
		p.Namespace = "n"
		as, err := s.ListAdmissions(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range as {
			out = append(out, a.ID)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		p    memory.ListAdmissionsParams
		want string
	}{
		{memory.ListAdmissionsParams{EpisodeID: "e-a-tail0001"}, "a-1"},
		{memory.ListAdmissionsParams{EpisodeID: "e-b-tail0001"}, "a-2,a-3"},
		{memory.ListAdmissionsParams{MemoryID: "m-x-tail0002"}, "a-1"},
		{memory.ListAdmissionsParams{MemoryID: "m-y-tail0002"}, "a-2"},
		{memory.ListAdmissionsParams{MemoryID: "m-z-tail0002"}, ""},
	} {
		if got := ids(c.p); got != c.want {
			t.Errorf("admissions of %+v: %q, want %q", c.p, got, c.want)
		}
	}

	sess, err := s.GetSession(ctx, memory.GetParams{Namespace: "n", ID: "s1"})
	if err != nil || sess.Episodes != 2 {
		t.Errorf("session s1: %+v, %v; want 2 episodes", sess, err)
	}
	eps, err := s.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "n", SessionID: "s1"})
	if err != nil || len(eps) != 2 || eps[0].ID != "e-a-tail0001" || eps[1].ID != "e-b-tail0001" {
		t.Errorf("episodes of s1: %d, %v", len(eps), err)
	}

	var lens string
	if err := s.reader.QueryRowContext(ctx, `SELECT group_concat(length(content_hash), ',') FROM
		(SELECT content_hash FROM episodes WHERE namespace = 'n' AND id IN ('e-d', 'e-e') ORDER BY id)`).Scan(&lens); err != nil || lens != "8,32" {
		t.Errorf("stored hashes of e-d, e-e: %s bytes, %v; want 8,32", lens, err)
	}
	eps, err = s.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "n", ContentHash: hash})
	if err != nil || len(eps) != 2 || eps[0].ID != "e-d" || eps[1].ID != "e-e" || eps[0].ContentHash != hash || eps[1].ContentHash != hash {
		t.Errorf("episodes by hash: %d, %v", len(eps), err)
	}
	// A new episode of the same text: 8 bytes stored, the whole hash read.
	if err := s.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{{
		ID: "e-f", Namespace: "n", Kind: memory.EpisodeUserMessage, Content: "the first text", ContentHash: hash,
		OccurredAt: time.Unix(6, 0), RecordedAt: time.Unix(6, 0)}}}); err != nil {
		t.Fatal(err)
	}
	if ep, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "n", ID: "e-f"}); err != nil || ep.ContentHash != hash {
		t.Errorf("e-f: %+v, %v", ep, err)
	}
	eps, err = s.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "n", ContentHash: hash, OccurredAt: time.Unix(6, 0)})
	if err != nil || len(eps) != 1 || eps[0].ID != "e-f" {
		t.Errorf("episodes by hash and time: %d, %v", len(eps), err)
	}

	var kinds string
	if err := s.reader.QueryRowContext(ctx, `SELECT group_concat(hex(kind) || ':' || metadata, ',') FROM
		(SELECT kind, metadata FROM episodes WHERE namespace = 'n' AND id IN ('e-d', 'e-t', 'e-o') ORDER BY id)`).Scan(&kinds); err != nil ||
		kinds != `01:,06:{},7461736B5F726573756C74:{"outcome":"success"}` {
		t.Errorf("stored kinds and metadata of e-d, e-o, e-t: %s, %v", kinds, err)
	}
	for id, want := range map[string]memory.EpisodeKind{"e-d": memory.EpisodeUserMessage, "e-t": memory.EpisodeTaskResult, "e-o": memory.EpisodeObservation, "e-f": memory.EpisodeUserMessage} {
		ep, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "n", ID: id})
		if err != nil || ep.Kind != want || (id == "e-t") != (ep.Metadata["outcome"] == "success") || id != "e-t" && len(ep.Metadata) != 0 {
			t.Errorf("%s: %+v, %v; want kind %s", id, ep, err, want)
		}
	}
	if tr, err := s.ListTaskResults(ctx, memory.ListTaskResultsParams{Namespace: "n"}); err != nil || len(tr) != 1 || tr[0].ID != "e-t" {
		t.Errorf("task results: %d, %v", len(tr), err)
	}

	// a-1 referred to its episode's text; the episode goes, the text stays.
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM episodes WHERE namespace = 'n' AND id = 'e-a-tail0001'`); err != nil {
		t.Fatal(err)
	}
	as, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n", EpisodeID: "e-a-tail0001"})
	if err != nil || len(as) != 1 || as[0].Content != "the first text" {
		t.Errorf("a-1 after its episode went: %+v, %v", as, err)
	}
	var ref *int64
	if err := s.reader.QueryRowContext(ctx, `SELECT content_ref FROM admissions WHERE namespace = 'n' AND id = 'a-1'`).Scan(&ref); err != nil || ref != nil {
		t.Errorf("a-1's content_ref after its episode went: %v, %v", ref, err)
	}
}
