package sqlite

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// A version whose evidence list mixes an id of mnemon's shape (first) with
// an imported one is stored as JSON, not packed. Its first id is of
// mnemon's shape, so the episode row holds it compactly: the reads that
// put back a text shared with that episode (bit 8) must look it up in its
// stored form, not as the JSON's text.
func TestMixedEvidenceListSharedText(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	s, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const text = "we keep the staging cluster up on weekends now, ping ops before touching it"
	epMade, epImported := ids.New(ids.Episode), "ep-from-another-tool-7"
	mem, ver := ids.New(ids.Memory), ids.New(ids.Version)
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{
			{ID: epMade, Kind: memory.EpisodeUserMessage, Speaker: "user", Content: text, OccurredAt: now, RecordedAt: now, ContentHash: "h1"},
			{ID: epImported, Kind: memory.EpisodeUserMessage, Speaker: "user", Content: "older note", OccurredAt: now, RecordedAt: now, ContentHash: "h2"},
		}}); err != nil {
			return err
		}
		if err := tx.CreateMemory(ctx, &memory.Memory{ID: mem, Namespace: "n", Kind: memory.KindSemantic, Subject: "ops",
			Key: "staging", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		return tx.CreateVersion(ctx, &memory.Version{ID: ver, MemoryID: mem, Namespace: "n", Seq: 1, Kind: memory.KindSemantic,
			Type: memory.TypeFact, Subject: "ops", Key: "staging", Value: text, Content: text, Criticality: memory.CriticalityNormal,
			Status: memory.StatusActive, Operation: memory.OpAdd, RecordedAt: now, ValidFrom: now, UpdatedAt: now,
			EvidenceEpisodeIDs: []string{epMade, epImported}})
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: ver})
		if err != nil || v.Content != text || !slices.Equal(v.EvidenceEpisodeIDs, []string{epMade, epImported}) {
			t.Errorf("%s: get: content %q, evidence %v, %v", when, v.Content, v.EvidenceEpisodeIDs, err)
		}
		var streamed string
		if err := s.ScanVersions(ctx, memory.ScanParams{Namespace: "n"}, func(v *memory.Version) error { streamed = v.Content; return nil }); err != nil || streamed != text {
			t.Errorf("%s: scan: content %q, %v", when, streamed, err)
		}
	}
	check("written")
	// The episode goes: the trigger copies its text into the version first.
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM episodes WHERE namespace = 'n' AND id = ?`, idArg(epMade)); err != nil {
		t.Fatal(err)
	}
	check("after its episode was deleted")
}

// A store migrated by 0022 alone may hold what the code before
// firstIDFindable wrote: a version with a mixed JSON list whose first id
// is of mnemon's shape, sharing that episode's text (bit 8), and another
// version sharing its row (bit 2). Both read an empty content; migration
// 0025 gives the first its own copy of the text, which the second reads.
func TestMigrationOwnTextMixedEvidence(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	const text = "the on-call phone goes to whoever closed the last incident, not round robin"
	epMade, epImported := ids.New(ids.Episode), "ep-from-another-tool-9"
	memA, memB, verA, verB := ids.New(ids.Memory), ids.New(ids.Memory), ids.New(ids.Version), ids.New(ids.Version)
	vec := []byte{1, 2, 3, 4}

	fresh, err := Open(ctx, filepath.Join(dir, "fresh.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	err = fresh.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{
			{ID: epMade, Kind: memory.EpisodeUserMessage, Speaker: "user", Content: text, OccurredAt: now, RecordedAt: now, ContentHash: "h1"},
			{ID: epImported, Kind: memory.EpisodeUserMessage, Speaker: "user", Content: "older note", OccurredAt: now, RecordedAt: now, ContentHash: "h2"},
		}}); err != nil {
			return err
		}
		for i, m := range []string{memA, memB} {
			if err := tx.CreateMemory(ctx, &memory.Memory{ID: m, Namespace: "n", Kind: memory.KindSemantic, Subject: "ops",
				Key: "oncall" + m, CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
			if err := tx.CreateVersion(ctx, &memory.Version{ID: []string{verA, verB}[i], MemoryID: m, Namespace: "n", Seq: 1, Kind: memory.KindSemantic,
				Type: memory.TypeFact, Subject: "ops", Key: "oncall" + m, Value: text, Content: text, Criticality: memory.CriticalityNormal,
				Status: memory.StatusActive, Operation: memory.OpAdd, RecordedAt: now, ValidFrom: now, UpdatedAt: now,
				EvidenceEpisodeIDs: []string{epMade, epImported}, Embedding: vec}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// What the code before the fix wrote for verA: the episode's text by
	// reference. verB shares verA's row.
	execAll(t, fresh.writer, `DROP TRIGGER versions_unshare_on_embedding`)
	if _, err := fresh.writer.Exec(`UPDATE versions SET content = '', shared = coalesce(shared, 0) | 8 WHERE id = ?`, idArg(verA)); err != nil {
		t.Fatal(err)
	}
	var sharing int
	if err := fresh.reader.QueryRow(`SELECT count(*) FROM versions WHERE id = ? AND shared & 2 AND same_as = ?`, idArg(verB), idArg(verA)).Scan(&sharing); err != nil || sharing != 1 {
		t.Fatalf("%s does not share %s's row: %d, %v", verB, verA, sharing, err)
	}

	path := filepath.Join(dir, "old.db")
	old := openAtSchema(t, path, 22)
	for table := range idColumns {
		rows, err := fresh.reader.Query(`SELECT * FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		names, _ := rows.Columns()
		rows.Close()
		for _, r := range rowsOf(t, fresh.reader, table) {
			names, r := withoutLaterColumns(names, r)
			marks := strings.TrimSuffix(strings.Repeat("?, ", len(r)), ", ")
			if _, err := old.Exec(`INSERT INTO `+table+` (`+strings.Join(names, ", ")+`) VALUES (`+marks+`)`, r...); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
		}
	}
	s := migrateOld(t, old, path)
	for _, id := range []string{verA, verB} {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: id})
		if err != nil || v.Content != text || !slices.Equal(v.EvidenceEpisodeIDs, []string{epMade, epImported}) {
			t.Errorf("%s migrated: content %q, evidence %v, %v", id, v.Content, v.EvidenceEpisodeIDs, err)
		}
	}
	// The remade trigger still copies the owner's text into its sharer.
	if deleted, err := s.DeleteMemories(ctx, memory.DeleteMemoriesParams{Namespace: "n", VersionIDs: []string{verA}, Now: now}); err != nil || len(deleted) != 1 {
		t.Fatalf("deleting %s: %v, %v", verA, deleted, err)
	}
	if v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: verB}); err != nil || v.Content != text || !bytes.Equal(v.Embedding, vec) {
		t.Errorf("%s after %s went: %+v, %v", verB, verA, v, err)
	}
}
