package sqlite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemon-dev/mnemon/memory"
)

// purgedEpisode is what consolidation leaves of a captured turn: mnemon's
// id and hash forms, the metadata naming its summary.
func purgedEpisode(i int, at time.Time) *memory.Episode {
	sum := sha256.Sum256([]byte{byte(i)})
	return &memory.Episode{
		ID:        "ep_" + strings.ToLower(ulid.Make().String()),
		Namespace: "ns", Scope: memory.Scope{UserID: "u-1", SessionID: "session-7"},
		Kind: memory.EpisodeUserMessage, Speaker: "user",
		Metadata:    map[string]string{"purged_into": "mem_01jd0000000000000000000000", "forgotten_at": "2024-05-01T09:00:00Z", "purged_at": "2024-05-02T09:00:00Z"},
		OccurredAt:  at,
		RecordedAt:  at.Add(1500 * time.Microsecond),
		ContentHash: hex.EncodeToString(sum[:]),
	}
}

func TestArchiveRoundTrip(t *testing.T) {
	base := time.Date(2024, 1, 2, 9, 0, 0, 123, time.UTC)
	odd := purgedEpisode(9, base.Add(-time.Hour)) // earlier than the one before it: a negative delta
	odd.ID, odd.ContentHash, odd.Speaker, odd.Metadata = "imported-episode-1", "sha256:not-hex", "Ada Lovelace ✓", nil
	zero := purgedEpisode(10, time.Time{})
	zero.RecordedAt, zero.ContentHash = time.Time{}, ""
	upper := purgedEpisode(11, base)
	upper.ID = "ep_" + strings.ToUpper(upper.ID[3:]) // not the form mnemon writes: kept verbatim
	empty := purgedEpisode(12, base)
	empty.Metadata = map[string]string{}
	for _, c := range []struct {
		name string
		eps  []*memory.Episode
	}{
		{"one", []*memory.Episode{purgedEpisode(0, base)}},
		{"a session", func() []*memory.Episode {
			var eps []*memory.Episode
			for i := range 20 {
				eps = append(eps, purgedEpisode(i, base.Add(time.Duration(i)*30*time.Second)))
			}
			return eps
		}()},
		{"ids, hashes and times mnemon does not write", []*memory.Episode{purgedEpisode(1, base), odd, zero, upper, empty}},
		// Ids made together count up; out of order, or after an id mnemon
		// did not write, each is stored whole.
		{"ids counting down", func() []*memory.Episode {
			var eps []*memory.Episode
			for i := range 5 {
				eps = append([]*memory.Episode{purgedEpisode(i, base)}, eps...)
			}
			return append(eps, odd, purgedEpisode(6, base))
		}()},
		{"format 1's episodes", format1Episodes()},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := encodeArchive(c.eps)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeArchive("ns", "session-7", b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.eps) {
				for i := range got {
					if !reflect.DeepEqual(got[i], c.eps[i]) {
						t.Errorf("episode %d:\n got %+v\nwant %+v", i, got[i], c.eps[i])
					}
				}
				t.Fatalf("round trip changed the episodes")
			}
			if c.name == "a session" {
				// The point of the archive: a purged turn in under 60
				// bytes (32 of hash, a few of id counted up from the one
				// before, times and an index to its labels), not a row
				// and four index entries (~600).
				per := float64(len(b)) / float64(len(c.eps))
				t.Logf("%d bytes for %d episodes: %.0f per episode", len(b), len(c.eps), per)
				if per > 60 {
					t.Errorf("%.0f bytes per archived episode, want at most 60", per)
				}
			}
		})
	}
}

func TestArchiveRefuses(t *testing.T) {
	live := purgedEpisode(0, time.Now())
	live.Content = "still here"
	if _, err := encodeArchive([]*memory.Episode{live}); err == nil || !strings.Contains(err.Error(), "only purged") {
		t.Errorf("encoding an episode with text: %v, want a refusal", err)
	}
	good, err := encodeArchive([]*memory.Episode{purgedEpisode(0, time.Now()), purgedEpisode(1, time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"unknown format", append([]byte{9}, good[1:]...), "unknown archive format 9"},
		{"truncated", good[:len(good)-5], "truncated"},
		{"trailing bytes", append(append([]byte{}, good...), 0), "trailing bytes"},
		{"huge count", []byte{archiveFormat, 0xff, 0xff, 0xff, 0xff, 0x0f}, "count past the end"},
		{"string index out of range", corrupt(func(b []byte, labels int) { b[labels] = 100 }), "string index out of range"},
		{"labels index out of range", corrupt(func(b []byte, labels int) {
			// Past the one entry of labels (six one-byte string indexes)
			// and the episode count.
			b[labels+7] = 100
		}), "labels index out of range"},
		{"bad id tag", corrupt(func(b []byte, labels int) { b[labels+8] = 7 }), "bad id tag 7"},
		{"an id counted up from nothing", corrupt(func(b []byte, labels int) { b[labels+8] = tagNext }), "bad id tag 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeArchive("ns", "s", c.b)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("decode: %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// corrupt encodes one episode and lets change alter it, given the offset
// of the first string index of its labels table.
func corrupt(change func(b []byte, labels int)) []byte {
	b, err := encodeArchive([]*memory.Episode{purgedEpisode(0, time.Now())})
	if err != nil {
		panic(err)
	}
	r := archiveReader{b: b}
	r.byte()
	for range r.count() {
		r.bytes(int(r.uvarint()))
	}
	r.count()
	change(b, r.off)
	return b
}

// Chunks written in format 1 still read, and are rewritten as format 2
// when their session archives another episode.
func TestArchiveReadsFormat1(t *testing.T) {
	b, err := os.ReadFile("testdata/archive-format1.bin")
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != archiveFormat1 {
		t.Fatalf("fixture format %d", b[0])
	}
	got, err := decodeArchive("ns", "session-7", b)
	if err != nil {
		t.Fatal(err)
	}
	if want := format1Episodes(); !reflect.DeepEqual(got, want) {
		t.Fatalf("format 1 read as\n%+v\nwant\n%+v", got, want)
	}
	again, err := encodeArchive(got)
	if err != nil {
		t.Fatal(err)
	}
	if again[0] != archiveFormat || len(again) >= len(b) {
		t.Errorf("rewritten as format %d in %d bytes (format 1: %d)", again[0], len(again), len(b))
	}
}

// format1Episodes are the episodes testdata/archive-format1.bin holds, as
// mnemon 0.x (archive format 1) wrote them: a session's turns with
// mnemon's ids and hashes, and one imported episode with neither.
func format1Episodes() []*memory.Episode {
	base := time.Date(2024, 1, 2, 9, 0, 0, 0, time.UTC)
	ids := []string{"ep_01hkbz3f000000000000000001", "ep_01hkbz3f000000000000000fff", "ep_01hkbz4m8g7k2p9w0x3y5z6a7b", "imported-7"}
	var eps []*memory.Episode
	for i, id := range ids {
		sum := sha256.Sum256([]byte{byte(i)})
		ep := &memory.Episode{
			ID: id, Namespace: "ns", Scope: memory.Scope{UserID: "u-1", SessionID: "session-7"},
			Kind: memory.EpisodeUserMessage, Speaker: "user",
			Metadata:    map[string]string{"purged_into": "mem_01jd0000000000000000000000"},
			OccurredAt:  base.Add(time.Duration(i) * 30 * time.Second),
			RecordedAt:  base.Add(time.Duration(i)*30*time.Second + 1500*time.Microsecond),
			ContentHash: hex.EncodeToString(sum[:]),
		}
		if i%2 == 1 {
			ep.Kind, ep.Speaker = memory.EpisodeAgentMessage, "assistant"
		}
		if id == "imported-7" {
			ep.ContentHash, ep.Metadata = "sha256:not-hex", nil
		}
		eps = append(eps, ep)
	}
	return eps
}

// A database purged before the archive existed keeps its purged episodes
// as rows with empty text; migrating it packs them into their sessions'
// archives (chunks of archiveChunk), leaving live episodes alone, and
// every read returns them as before.
func TestMigrationArchivesPurgedRows(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAtSchema(t, path, 11) // the schema before the archive
	base := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	insert := func(ns, id, session, content string, i int) {
		t.Helper()
		meta := `{"purged_into":"mem_1"}`
		if content != "" {
			meta = "null"
		}
		at := base.Add(time.Duration(i) * time.Second).UnixNano()
		if _, err := old.ExecContext(ctx, `INSERT INTO episodes VALUES (?, ?, '', 'u', '', ?, 'user_message', 'user', ?, ?, ?, ?, ?)`,
			ns, id, session, content, meta, at, at+1000, fmt.Sprintf("%064x", i)); err != nil {
			t.Fatal(err)
		}
	}
	const purged = archiveChunk + 44
	for i := range purged {
		insert("ns", fmt.Sprintf("e-%03d", i), "s-1", "", i)
	}
	insert("ns", "e-live", "s-1", "still here", purged)
	insert("ns", "e-lone", "s-2", "", purged+1)
	insert("other", "e-000", "s-1", "", 0)
	s := migrateOld(t, old, path)
	var rows, chunks int
	if err := s.writer.QueryRowContext(ctx, "SELECT count(*) FROM episodes").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if err := s.writer.QueryRowContext(ctx, "SELECT count(*) FROM episode_archive").Scan(&chunks); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || chunks != 4 {
		t.Errorf("after migrating: %d episode rows (want the live one), %d chunks (want 2 for s-1, 1 for s-2, 1 in other)", rows, chunks)
	}
	got, err := s.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "ns", SessionID: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != purged+1 || got[0].ID != "e-000" || got[purged-1].ID != fmt.Sprintf("e-%03d", purged-1) || got[purged].Content != "still here" {
		t.Fatalf("s-1 after migrating: %d episodes", len(got))
	}
	ep, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "ns", ID: "e-123"})
	if err != nil || ep.Content != "" || ep.Metadata["purged_into"] != "mem_1" || ep.ContentHash != fmt.Sprintf("%064x", 123) ||
		!ep.OccurredAt.Equal(base.Add(123*time.Second)) || ep.Scope.UserID != "u" {
		t.Errorf("a migrated episode: %+v %v", ep, err)
	}
	st, err := s.Stats(ctx, memory.StatsParams{Namespace: "ns"})
	if err != nil || st.Episodes != purged+2 {
		t.Errorf("stats after migrating: %+v %v", st, err)
	}
}

// Reads outside a transaction while purges commit: ListEpisodes' two reads
// (live rows, then the archive) and ScanEpisodes must never return an
// episode twice, nor miss one.
func TestEpisodeReadsDuringPurges(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "r.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 400
	var eps []*memory.Episode
	for i := range n {
		ep := purgedEpisode(i, base.Add(time.Duration(i)*time.Second))
		ep.ID = fmt.Sprintf("e-%04d", i)
		ep.Content = "text"
		eps = append(eps, ep)
	}
	if err := s.InTx(ctx, func(tx memory.Executor) error {
		return tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "ns", Episodes: eps})
	}); err != nil {
		t.Fatal(err)
	}
	var done atomic.Bool
	go func() {
		defer done.Store(true)
		for _, ep := range eps {
			if err := s.PurgeEpisodeText(ctx, memory.PurgeEpisodeParams{Namespace: "ns", EpisodeID: ep.ID, Metadata: map[string]string{"purged_into": "m"}}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	dups := 0
	for !done.Load() {
		got, err := s.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "ns", SessionID: "session-7"})
		if err != nil {
			t.Fatal(err)
		}
		scanned := 0
		if err := s.ScanEpisodes(ctx, memory.ScanParams{Namespace: "ns"}, func(*memory.Episode) error { scanned++; return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != n || scanned != n {
			dups++
			if dups == 1 {
				t.Logf("ListEpisodes returned %d episodes, ScanEpisodes %d; want %d", len(got), scanned, n)
			}
		}
	}
	if dups > 0 {
		t.Errorf("%d lists returned the wrong number of episodes", dups)
	}
}

// FuzzDecodeArchive: no input makes the decoder panic, and what it accepts
// survives a round trip through the current format.
func FuzzDecodeArchive(f *testing.F) {
	if b, err := os.ReadFile("testdata/archive-format1.bin"); err == nil {
		f.Add(b)
	}
	base := time.Date(2024, 1, 2, 9, 0, 0, 0, time.UTC)
	for _, eps := range [][]*memory.Episode{{purgedEpisode(0, base)}, {purgedEpisode(1, base), purgedEpisode(2, base.Add(time.Second))}} {
		b, err := encodeArchive(eps)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		eps, err := decodeArchive("ns", "s", b)
		if err != nil || len(eps) == 0 {
			return
		}
		for _, ep := range eps {
			if ep.Content != "" {
				t.Fatalf("decoded text %q", ep.Content)
			}
		}
		again, err := encodeArchive(eps)
		if err != nil {
			// Metadata decoded from JSON re-encodes; nothing else can fail.
			t.Fatalf("re-encoding what decoded: %v", err)
		}
		back, err := decodeArchive("ns", "s", again)
		if err != nil || !reflect.DeepEqual(back, eps) {
			t.Fatalf("round trip of a decoded chunk: %v\n%+v\n%+v", err, back, eps)
		}
	})
}
