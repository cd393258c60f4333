package sqlite_test

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the raw driver, to forge files mnemon must refuse

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
	"github.com/mnemon-dev/mnemon/store/storetest"
)

// schemaVersion is the number of embedded migrations.
const schemaVersion = 29

// openTemp opens a migrated, empty file of the test's own: a copy of the
// test binary's template (sqlitetest), since migrating a new file costs
// more than most tests. Tests of creating and migrating files open new
// paths with sqlite.Open.
func openTemp(t testing.TB, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	return openAt(t, sqlitetest.Path(t), opts)
}

func openAt(t testing.TB, path string, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) memory.Store {
		path := sqlitetest.Path(t)
		// Runs after the store's Close (cleanups run last first): the
		// suite writes in the default namespace through every method, and
		// each of those rows must hold it as '' (nscode.go); a statement
		// that binds a namespace unmarked would store the name.
		t.Cleanup(func() { checkNoDefaultNamespace(t, path) })
		return openAt(t, path, sqlite.Options{})
	})
}

// checkNoDefaultNamespace fails t if a table of the file at path holds the
// default namespace by its name.
func checkNoDefaultNamespace(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables := sqlite.NamespaceTables(t, db)
	if len(tables) < 16 {
		t.Fatalf("%d tables with a namespace column: %v", len(tables), tables)
	}
	for _, table := range tables {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM "`+table+`" WHERE namespace = ?`, memory.DefaultNamespace).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			t.Errorf("%s: %d rows hold the default namespace by its name, not as ''", table, n)
		}
	}
}

// rawExec runs statements on a file through the bare driver, outside mnemon.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestOpenRefusesBadFiles(t *testing.T) {
	t.Parallel()
	// A real mnemon file, to cut and to tamper with.
	good := sqlitetest.Path(t)
	s, err := sqlite.Open(t.Context(), good, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	goodBytes, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name   string
		make   func(t *testing.T, path string)
		want   error
		substr []string
	}{
		{
			name: "RandomBytes",
			make: func(t *testing.T, path string) { writeFile(t, path, rand.Text()+rand.Text()+strings.Repeat("x", 4000)) },
			want: memory.ErrCorrupt, substr: []string{"not a SQLite database", "move it aside"},
		},
		{
			name: "TruncatedHeader",
			make: func(t *testing.T, path string) { writeFile(t, path, string(goodBytes[:60])) },
			want: memory.ErrCorrupt, substr: []string{"shorter than a SQLite header"},
		},
		{
			name: "GoodHeaderGarbageAfter",
			make: func(t *testing.T, path string) {
				b := append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xff}, 8192)...)
				writeFile(t, path, string(b))
			},
			want: memory.ErrCorrupt, substr: []string{"SQLite cannot read it"},
		},
		{
			name: "OtherApplicationTables",
			make: func(t *testing.T, path string) {
				rawExec(t, path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes (body) VALUES ('hi')")
			},
			want: memory.ErrCorrupt, substr: []string{"not a mnemon database", "another application"},
		},
		{
			name: "OtherApplicationID",
			make: func(t *testing.T, path string) {
				rawExec(t, path, "PRAGMA application_id = 1234", "CREATE TABLE t (x)")
			},
			want: memory.ErrCorrupt, substr: []string{"application_id 0x4d2"},
		},
		{
			name: "SchemaTooNew",
			make: func(t *testing.T, path string) {
				writeFile(t, path, string(goodBytes))
				rawExec(t, path, "PRAGMA user_version = 99")
			},
			want: memory.ErrSchemaTooNew, substr: []string{"schema version 99", fmt.Sprintf("knows up to %d", schemaVersion), "upgrade mnemon"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "bad.db")
			c.make(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := sqlite.Open(t.Context(), path, sqlite.Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, c.want) {
				t.Errorf("got %v, want an error wrapping %q", err, c.want)
			}
			for _, sub := range append(c.substr, path) {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q does not mention %q", err, sub)
				}
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Error("a refused file was modified")
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestOpenNewAndEmptyFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Missing parent directories are created; the file is private.
	nested := filepath.Join(dir, "a", "b", "mnemon.db")
	s := openAt(t, nested, sqlite.Options{})
	if s.Path() != nested {
		t.Errorf("Path() = %q, want %q", s.Path(), nested)
	}
	st, err := os.Stat(nested)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
		t.Errorf("new database file mode %v, want 0600", perm)
	}
	// An existing empty file is a new database.
	empty := filepath.Join(dir, "empty.db")
	writeFile(t, empty, "")
	openAt(t, empty, sqlite.Options{})
	// Characters that mean something in a URI reach the file system intact.
	odd := filepath.Join(dir, "odd ?#%&= name.db")
	openAt(t, odd, sqlite.Options{})
	if _, err := os.Stat(odd); err != nil {
		t.Errorf("file with an odd name: %v", err)
	}
	// A directory is not a database.
	if _, err := sqlite.Open(t.Context(), dir, sqlite.Options{}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("Open of a directory: %v", err)
	}
}

// TestOpenReadOnlyAndExisting opens files the way the commands that do
// not store do: nothing is created, initialised or migrated, and a
// read-only store leaves the file byte for byte as it was, with no -wal or
// -shm beside it.
func TestOpenReadOnlyAndExisting(t *testing.T) {
	t.Parallel()
	good := sqlitetest.Path(t)
	s, err := sqlite.Open(t.Context(), good, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateEpisodes(t.Context(), memory.CreateEpisodesParams{Namespace: "default", Episodes: []*memory.Episode{{
		ID: "ep_01m8qeea91c3d3mf3kfe00zzzz", Namespace: "default", Kind: memory.EpisodeUserMessage, Content: "I live in Lisbon.",
		OccurredAt: time.Unix(1e9, 0).UTC(), RecordedAt: time.Unix(1e9, 0).UTC(), ContentHash: "sha256:a",
	}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	goodBytes, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name   string
		make   func(t *testing.T, path string)
		opts   sqlite.Options
		want   error
		substr string
	}{
		{"MissingReadOnly", func(*testing.T, string) {}, sqlite.Options{ReadOnly: true}, os.ErrNotExist, ""},
		{"MissingExisting", func(*testing.T, string) {}, sqlite.Options{Existing: true}, os.ErrNotExist, ""},
		{"EmptyFileReadOnly", func(t *testing.T, p string) { writeFile(t, p, "") }, sqlite.Options{ReadOnly: true}, memory.ErrCorrupt, "the file is empty (0 bytes)"},
		{"EmptyFileExisting", func(t *testing.T, p string) { writeFile(t, p, "") }, sqlite.Options{Existing: true}, memory.ErrCorrupt, "the file is empty (0 bytes)"},
		{"EmptySQLiteReadOnly", func(t *testing.T, p string) { rawExec(t, p, "CREATE TABLE t (x)", "DROP TABLE t") },
			sqlite.Options{ReadOnly: true}, memory.ErrCorrupt, "empty SQLite database"},
		{"EmptySQLiteExisting", func(t *testing.T, p string) { rawExec(t, p, "CREATE TABLE t (x)", "DROP TABLE t") },
			sqlite.Options{Existing: true}, memory.ErrCorrupt, "empty SQLite database"},
		{"OlderSchemaReadOnly", func(t *testing.T, p string) {
			writeFile(t, p, string(goodBytes))
			rawExec(t, p, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion-1))
		}, sqlite.Options{ReadOnly: true}, memory.ErrSchemaTooOld, fmt.Sprintf("schema version %d and this mnemon reads version %d", schemaVersion-1, schemaVersion)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "m.db")
			if c.name[:7] != "Missing" {
				if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			c.make(t, path)
			before, _ := os.ReadFile(path)
			s, err := sqlite.Open(t.Context(), path, c.opts)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.substr) {
				t.Errorf("got %v, want an error wrapping %q saying %q", err, c.want, c.substr)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Error("the file was modified")
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
			if want := 1; c.name[:7] == "Missing" {
				if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the directory was created: %v", left)
				}
			} else if len(left) != want {
				t.Errorf("files left: %v", left)
			}
		})
	}

	// A good file reads; nothing writes; the file is left as it was.
	ro, err := sqlite.Open(t.Context(), good, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := ro.Stats(t.Context(), memory.StatsParams{Namespace: "default"}); err != nil || st.Episodes != 1 {
		t.Errorf("stats %+v, %v", st, err)
	}
	if _, err := ro.WriterDB().Exec("CREATE TABLE t (x)"); err == nil {
		t.Error("a read-only store wrote")
	}
	if err := ro.CreateEpisodes(t.Context(), memory.CreateEpisodesParams{Namespace: "default", Episodes: []*memory.Episode{{
		ID: "ep_01m8qeea91c3d3mf3kfe00zzzy", Namespace: "default", Kind: memory.EpisodeUserMessage, Content: "I live in Porto.",
		OccurredAt: time.Unix(1e9, 0).UTC(), RecordedAt: time.Unix(1e9, 0).UTC(), ContentHash: "sha256:b",
	}}}); !errors.Is(err, memory.ErrReadOnly) {
		t.Errorf("a read-only store's CreateEpisodes: %v, want store_read_only", err)
	}
	var pe *memory.Error
	called := false
	err = ro.InTx(t.Context(), func(memory.Executor) error { called = true; return nil })
	if !errors.As(err, &pe) || pe.Code != memory.CodeStoreReadOnly || called || !ro.ReadOnly() {
		t.Errorf("a read-only store's InTx: %v (fn called: %v), want store_read_only before BEGIN", err, called)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(good); !bytes.Equal(goodBytes, after) {
		t.Error("reading changed the file")
	}
	if left, _ := filepath.Glob(good + "-*"); len(left) != 0 {
		t.Errorf("reading left %v", left)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	for _, bad := range []sqlite.Options{
		{Synchronous: "OFF"},
		{Synchronous: "sometimes"},
		{BusyTimeout: -time.Second},
		{Readers: -1},
		{WALLimit: -1},
	} {
		_, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "x.db"), bad)
		if !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("Open with %+v: %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := sqlite.Open(t.Context(), "", sqlite.Options{}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("Open with an empty path: %v", err)
	}
	openTemp(t, sqlite.Options{Synchronous: "normal", BusyTimeout: time.Second, Readers: 2})
}

func TestReopenKeepsData(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mnemon.db")
	ctx := t.Context()
	m := &memory.Memory{ID: "m-1", Namespace: "ns", Subject: "user", Key: "k", CreatedAt: time.Unix(1, 0).UTC(), UpdatedAt: time.Unix(2, 0).UTC()}
	for i := range 3 {
		s, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if i == 0 {
			if err := s.CreateMemory(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.GetMemory(ctx, memory.GetParams{Namespace: "ns", ID: "m-1"})
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if got.Key != "k" {
			t.Errorf("open %d: got %+v", i, got)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, userVersion, appID int
	var journal string
	for q, dst := range map[string]any{
		"SELECT count(*) FROM schema_migrations": &n,
		"PRAGMA user_version":                    &userVersion,
		"PRAGMA application_id":                  &appID,
		"PRAGMA journal_mode":                    &journal,
	} {
		if err := db.QueryRow(q).Scan(dst); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if n != schemaVersion || userVersion != schemaVersion || appID != sqlite.ApplicationID || journal != "wal" {
		t.Errorf("migrations %d, user_version %d, application_id %#x, journal %s", n, userVersion, appID, journal)
	}
}

// Two processes (here, two stores) opening the same new file at once: one
// migrates, the other waits for it and finds the schema done.
func TestConcurrentOpen(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mnemon.db")
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			s, err := sqlite.Open(t.Context(), path, sqlite.Options{})
			if err != nil {
				errs <- err
				return
			}
			errs <- s.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM schema_migrations").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != schemaVersion {
		t.Errorf("schema_migrations has %d rows after concurrent opens, want %d", n, schemaVersion)
	}
}

func TestIntegrityCheck(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := sqlitetest.Path(t)
	s, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &memory.Memory{ID: "m-1", Namespace: "ns", Subject: "user", Key: "k"}
	if err := s.CreateMemory(ctx, m); err != nil {
		t.Fatal(err)
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		for i := range 2000 {
			v := &memory.Version{
				ID: fmt.Sprintf("v-%05d", i), MemoryID: "m-1", Namespace: "ns", Seq: i + 1,
				Content: strings.Repeat("padding so the table spans many pages ", 4),
			}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatalf("healthy file: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// Smash pages in the middle of the file, past the header and schema.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 64*4096 {
		t.Fatalf("file only %d bytes", len(b))
	}
	copy(b[len(b)/2:], bytes.Repeat([]byte{0xa5}, 3*4096))
	writeFile(t, path, string(b))

	s, err = sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		// Refusing at open is fine too, as long as it says corrupt.
		if !errors.Is(err, memory.ErrCorrupt) {
			t.Fatalf("open of a damaged file: %v", err)
		}
		t.Logf("refused at open: %v", err)
		return
	}
	defer s.Close()
	if err := s.IntegrityCheck(ctx); !errors.Is(err, memory.ErrCorrupt) {
		t.Errorf("IntegrityCheck of a damaged file: %v, want ErrCorrupt", err)
	}
	err = s.ScanVersions(ctx, memory.ScanParams{Namespace: "ns"}, func(*memory.Version) error { return nil })
	if !errors.Is(err, memory.ErrCorrupt) {
		t.Errorf("ScanVersions of a damaged file: %v, want ErrCorrupt", err)
	}
}

// SQLite text may hold NUL bytes (PostgreSQL's cannot, so the shared suite
// leaves them out); both read paths must keep them.
func TestNULBytes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTemp(t, sqlite.Options{})
	nul := "before\x00after"
	m := &memory.Memory{ID: "m-1", Namespace: "ns", Subject: nul, Key: nul}
	v := &memory.Version{ID: "v-1", MemoryID: "m-1", Namespace: "ns", Seq: 1, Content: nul, EvidenceEpisodeIDs: []string{nul}}
	if err := s.CreateMemory(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateVersion(ctx, v); err != nil {
		t.Fatal(err)
	}
	check := func(path string, got *memory.Version) {
		if got.Content != nul || len(got.EvidenceEpisodeIDs) != 1 || got.EvidenceEpisodeIDs[0] != nul {
			t.Errorf("%s: content %q, evidence %q", path, got.Content, got.EvidenceEpisodeIDs)
		}
	}
	err := s.ScanVersions(ctx, memory.ScanParams{Namespace: "ns"}, func(got *memory.Version) error {
		check("fast scan", got)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetVersion(ctx, memory.GetParams{Namespace: "ns", ID: "v-1"})
	if err != nil {
		t.Fatal(err)
	}
	check("database/sql", got)
	if _, err := s.FindMemory(ctx, memory.FindMemoryParams{Namespace: "ns", Subject: nul, Key: nul}); err != nil {
		t.Errorf("FindMemory by a subject with a NUL byte: %v", err)
	}
}

// TestWALTruncatedPastLimit: once the write-ahead log passes WALLimit, the
// background checkpointer copies it whole and empties the file, where a
// PASSIVE checkpoint alone leaves it at its largest for good.
func TestWALTruncatedPastLimit(t *testing.T) {
	t.Parallel()
	const limit = 256 << 10
	path := sqlitetest.Path(t)
	s := openAt(t, path, sqlite.Options{Synchronous: "NORMAL", WALLimit: limit})
	ctx := t.Context()
	walSize := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	text := strings.Repeat("a long enough line of text to fill pages; ", 25)
	n := 0
	for deadline := time.Now().Add(20 * time.Second); walSize() <= limit; n++ {
		if time.Now().After(deadline) {
			t.Fatalf("the WAL never passed %d bytes after %d writes", limit, n)
		}
		eps := make([]*memory.Episode, 20)
		for i := range eps {
			eps[i] = &memory.Episode{ID: fmt.Sprintf("ep-%d-%d", n, i), Namespace: "ns", Kind: memory.EpisodeUserMessage,
				Content: text, OccurredAt: time.Unix(int64(n), 0).UTC(), RecordedAt: time.Unix(int64(n), 0).UTC(), ContentHash: fmt.Sprint(n, i)}
		}
		if err := s.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "ns", Episodes: eps}); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); walSize() > limit; {
		if time.Now().After(deadline) {
			t.Fatalf("the WAL is still %d bytes, limit %d", walSize(), limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, err := s.Stats(ctx, memory.StatsParams{Namespace: "ns"})
	if err != nil || st.Episodes != 20*n {
		t.Fatalf("after the truncation: %+v, %v; want %d episodes", st, err, 20*n)
	}
}

// TestDataBytes: the data a database holds is read through the WAL while
// a Store has it open (the writes are not checkpointed yet) and grows with
// what is written; a missing file is an error, not an empty database.
func TestDataBytes(t *testing.T) {
	ctx := t.Context()
	path := sqlitetest.Path(t)
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	empty, err := sqlite.DataBytes(ctx, path)
	if err != nil || empty <= 0 {
		t.Fatalf("empty database: %d %v", empty, err)
	}
	big := strings.Repeat("lorem ipsum ", 2000)
	var eps []*memory.Episode
	for i := range 50 {
		eps = append(eps, &memory.Episode{ID: fmt.Sprintf("e-%d", i), Namespace: "ns", Kind: memory.EpisodeUserMessage,
			Content: big, ContentHash: fmt.Sprintf("h-%d", i), OccurredAt: time.Unix(int64(i), 0).UTC(), RecordedAt: time.Unix(int64(i), 0).UTC()})
	}
	if err := st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "ns", Episodes: eps}); err != nil {
		t.Fatal(err)
	}
	full, err := sqlite.DataBytes(ctx, path)
	if err != nil || full < empty+50*int64(len(big)) {
		t.Fatalf("after %d bytes of episodes: %d (empty %d) %v", 50*len(big), full, empty, err)
	}
	if _, err := sqlite.DataBytes(ctx, filepath.Join(t.TempDir(), "missing", "x.db")); err == nil {
		t.Error("a missing database measured")
	}
}

// A store left open by an old process refuses to write once a newer
// mnemon has migrated the file under it, and writes nothing.
func TestWriteRefusedAfterUpgradeUnderneath(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.InTx(ctx, func(memory.Executor) error { return nil }); err != nil {
		t.Fatalf("write before the upgrade: %v", err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var v int
	if err := raw.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	// What a newer mnemon's migration leaves in the header.
	if _, err := raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		t.Fatal(err)
	}
	ran := false
	err = s.InTx(ctx, func(memory.Executor) error { ran = true; return nil })
	if !errors.Is(err, memory.ErrSchemaTooNew) || ran {
		t.Fatalf("write after the upgrade: ran %v, err %v; want ErrSchemaTooNew before anything runs", ran, err)
	}
	if !strings.Contains(err.Error(), "restart this process") {
		t.Errorf("the error does not say what to do: %v", err)
	}
}
