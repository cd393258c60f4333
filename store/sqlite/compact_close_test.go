package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// slackStore writes 3,000 episodes of ~600 bytes each in random id order
// (the keyed trees' leaves fill partly, as under a real load) and then
// deletes two in three (the rows' pages keep the holes): a file with
// plenty of space a rewrite gives back. It returns the path and the
// surviving episodes' dump.
func slackStore(t *testing.T, opts Options) (string, string) {
	t.Helper()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	var eps []*memory.Episode
	for i := 0; i < 3000; i++ {
		// A multiplicative hash of i: ids arrive out of key order.
		id := fmt.Sprintf("ep-%08x", uint32(i)*2654435761)
		eps = append(eps, &memory.Episode{ID: id, Kind: "user_message", Speaker: "user",
			Content:    fmt.Sprintf("note %d about the garden shed and what went in it %0500d", i, i),
			OccurredAt: at.Add(time.Duration(i) * time.Second), RecordedAt: at, ContentHash: fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15)})
	}
	if err := s.InTx(ctx, func(tx memory.Executor) error {
		return tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: eps})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM episodes WHERE occurred_at % 3 <> 0`); err != nil {
		t.Fatal(err)
	}
	var dump string
	if err := s.writer.QueryRowContext(ctx, episodesDump).Scan(&dump); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path, dump
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Errorf("%s-wal is left after Close", path)
	}
	return fi.Size()
}

// reopenDump opens path, reads the episodes' dump and the integrity check,
// and closes it with opts (no write: Close never compacts).
func reopenDump(t *testing.T, path string, opts Options) string {
	t.Helper()
	s, err := Open(t.Context(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var dump, check string
	if err := s.writer.QueryRowContext(t.Context(), episodesDump).Scan(&dump); err != nil {
		t.Fatal(err)
	}
	if err := s.writer.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q %v", check, err)
	}
	return dump
}

// Close compacts a file it wrote to when allowed and worth it, and leaves
// it alone otherwise; every episode reads back the same either way.
func TestCompactOnClose(t *testing.T) {
	t.Parallel()
	plain, wantDump := slackStore(t, Options{})
	plainSize := fileSize(t, plain)
	if got := reopenDump(t, plain, Options{}); got != wantDump {
		t.Fatal("episodes differ after a plain close")
	}

	compacted, dump := slackStore(t, Options{CompactOnClose: 64 << 20})
	if dump != wantDump {
		t.Fatal("the two stores were written differently")
	}
	size := fileSize(t, compacted)
	// Two in three rows are gone: the packed file is well under the
	// plain one (which only the free pages of whole emptied leaves
	// could shrink, and nothing here frees them).
	if size*3/2 > plainSize {
		t.Errorf("compacted file %d bytes, plain %d: not compacted", size, plainSize)
	}
	if got := reopenDump(t, compacted, Options{CompactOnClose: 64 << 20}); got != wantDump {
		t.Error("episodes differ after compacting")
	}
	// Opened, read and closed without a write: not measured again.
	if again := fileSize(t, compacted); again != size {
		t.Errorf("a close without writes changed the file: %d -> %d bytes", size, again)
	}

	// A limit below the file's size: left as it is.
	small, _ := slackStore(t, Options{CompactOnClose: plainSize / 2})
	if got := fileSize(t, small); got != plainSize {
		t.Errorf("a file over the limit was compacted: %d bytes, plain %d", got, plainSize)
	}
}

// A file with nothing to give back is not rewritten: a compacted store
// written a little and closed again keeps its pages where they were.
func TestCompactOnCloseNotWorthIt(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	opts := Options{CompactOnClose: 64 << 20}
	path, _ := slackStore(t, opts)
	s, err := Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	f, gain, err := compactGain(ctx, s.writer)
	if err != nil {
		t.Fatal(err)
	}
	if worthCompacting(f, gain, opts.CompactOnClose) {
		t.Errorf("just compacted, yet %d of %d bytes to gain", gain, f.Bytes())
	}
	// A write, so Close measures; the measure says no.
	if err := s.InTx(ctx, func(tx memory.Executor) error {
		return tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{{ID: "ep-late",
			Kind: "user_message", Speaker: "user", Content: "one more", OccurredAt: time.Unix(1, 0), RecordedAt: time.Unix(1, 0)}}})
	}); err != nil {
		t.Fatal(err)
	}
	var before []byte
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(pageno || ':' || name, ',') FROM dbstat`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(context.WithoutCancel(ctx), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var after []byte
	if err := s2.writer.QueryRowContext(ctx, `SELECT group_concat(pageno || ':' || name, ',') FROM dbstat`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Error("a store with nothing to gain was rewritten at close")
	}
}

func TestWorthCompacting(t *testing.T) {
	t.Parallel()
	mb := int64(1 << 20)
	file := FileSpace{PageSize: 4096, Pages: 16 * mb / 4096}
	for _, c := range []struct {
		name        string
		gain, limit int64
		want        bool
	}{
		{"a twentieth back", file.Bytes() / 20, 64 * mb, true},
		{"just 2 %", (file.Bytes() + compactMinShare - 1) / compactMinShare, 64 * mb, true},
		{"under 2 %", file.Bytes() / compactMinShare, 64 * mb, false},
		{"nothing", 0, 64 * mb, false},
		{"off", file.Bytes() / 2, 0, false},
		{"file over the limit", file.Bytes() / 2, 15 * mb, false},
		{"file at the limit", file.Bytes() / 2, 16 * mb, true},
	} {
		if got := worthCompacting(file, c.gain, c.limit); got != c.want {
			t.Errorf("%s: worthCompacting(%d of %d, limit %d) = %v", c.name, c.gain, file.Bytes(), c.limit, got)
		}
	}
	tiny := FileSpace{PageSize: 4096, Pages: 10}
	if worthCompacting(tiny, tiny.Bytes()/2, 64*mb) {
		t.Error("a 40 KB file with 20 KB to gain is not worth a rewrite (under compactMinBytes)")
	}
}
