package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// episodesDump is every episode's identity and text, in one string.
const episodesDump = `SELECT count(*) || ':' || group_concat(namespace || '/' || quote(id) || '/' || content || '/' || occurred_at, ';')
	FROM (SELECT * FROM episodes ORDER BY namespace, occurred_at)`

func space(t *testing.T, db *sql.DB) FileSpace {
	t.Helper()
	f, err := fileSpace(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// An upgrade whose migration rebuilds a table (0022 makes episodes again
// with compact ids) leaves the old copy's pages free; opening the store
// gives them back, and every episode reads as it was.
func TestUpgradeReclaimsRebuiltPages(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAtSchema(t, path, 21)
	// 2,000 episodes of 3 KB: about 6 MB, all of it copied by 0022.
	execAll(t, old, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
		INSERT INTO episodes (namespace, id, agent_id, user_id, project_id, session_id, kind, speaker, content,
			metadata, occurred_at, recorded_at, content_hash)
		SELECT 'n', 'ep-' || i, '', '', '', '', 'u', 'user', 'note ' || i || ' ' || hex(randomblob(1500)), '', i, i, ''
		FROM n`)
	var before string
	if err := old.QueryRowContext(ctx, episodesDump).Scan(&before); err != nil {
		t.Fatal(err)
	}
	was := space(t, old)
	s := migrateOld(t, old, path)
	// Without giving them back the file would hold both copies (about
	// twice was.Pages, half of them free).
	if f := space(t, s.writer); f.FreePages >= reclaimMinPages || f.Pages > was.Pages*5/4 {
		t.Errorf("after the upgrade: %d pages, %d free (%d before): the rebuilt table's old pages were kept", f.Pages, f.FreePages, was.Pages)
	}
	var after string
	if err := s.writer.QueryRowContext(ctx, episodesDump).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("episodes after the upgrade differ (%d bytes against %d)", len(after), len(before))
	}
	var check string
	if err := s.writer.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q %v", check, err)
	}
	ep, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "n", ID: "ep-1999"})
	if err != nil || ep.OccurredAt.UnixNano() != 1999 {
		t.Errorf("get after the upgrade: %+v %v", ep, err)
	}
}

// ReclaimFreePages on an open store: nothing while few pages are free; a
// VACUUM once a quarter of the file is, after which the store reads and
// writes as before.
func TestReclaimFreePages(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ep := &memory.Episode{Namespace: "n", ID: "ep-kept", Kind: memory.EpisodeUserMessage, Speaker: "user",
		Content: "the staging box reboots at noon"}
	ep.OccurredAt = time.Unix(1_800_000_000, 0).UTC()
	if err := s.InTx(ctx, func(tx memory.Executor) error {
		return tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{ep}})
	}); err != nil {
		t.Fatal(err)
	}
	before, after, err := s.ReclaimFreePages(ctx)
	if err != nil || before != after {
		t.Fatalf("a file with nothing free: %+v -> %+v, %v", before, after, err)
	}

	execAll(t, s.writer, `CREATE TABLE scratch (b BLOB)`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO scratch SELECT randomblob(2000) FROM n`,
		`DROP TABLE scratch`)
	before, after, err = s.ReclaimFreePages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before.FreePages < reclaimMinPages || after.FreePages != 0 || after.Pages > before.Pages-before.FreePages {
		t.Errorf("reclaim: %+v -> %+v", before, after)
	}
	got, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "n", ID: "ep-kept"})
	if err != nil || got.Content != ep.Content {
		t.Fatalf("after reclaiming: %+v %v", got, err)
	}
	ep2 := *ep
	ep2.ID, ep2.Content = "ep-after", "the backup window moved to two"
	if err := s.InTx(ctx, func(tx memory.Executor) error {
		return tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{&ep2}})
	}); err != nil {
		t.Fatalf("a write after reclaiming: %v", err)
	}
	if got, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "n", ID: "ep-after"}); err != nil || got.Content != ep2.Content {
		t.Fatalf("read back: %+v %v", got, err)
	}
}
