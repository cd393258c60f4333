// Package sqlitetest gives tests an already migrated SQLite file.
//
// Opening a new file runs every schema migration, which under -race costs
// more than many tests' own work. The first call in a test binary migrates
// one template file (through sqlite.Open, the same code a new file takes);
// every later call copies its bytes into the test's own temp directory, so
// each test still gets a real file of its own, at the current schema, that
// sqlite.Open finds up to date.
//
// Tests that check migrating itself (a new file, an old schema, a foreign
// file) must keep opening a fresh path with sqlite.Open.
package sqlitetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mnemon-dev/mnemon/store/sqlite"
)

var (
	once    sync.Once
	tmpl    []byte
	tmplErr error
)

// template migrates one new file and returns its bytes. The store's Close
// checkpoints the WAL into the main file; a WAL left behind is an error
// rather than a silently incomplete copy.
func template() ([]byte, error) {
	once.Do(func() {
		dir, err := os.MkdirTemp("", "sqlitetest-")
		if err != nil {
			tmplErr = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "template.db")
		st, err := sqlite.Open(context.Background(), path, sqlite.Options{Synchronous: "NORMAL"})
		if err != nil {
			tmplErr = err
			return
		}
		if err := st.Close(); err != nil {
			tmplErr = err
			return
		}
		if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
			tmplErr = fmt.Errorf("sqlitetest: template left a %d-byte WAL after Close", fi.Size())
			return
		}
		tmpl, tmplErr = os.ReadFile(path)
	})
	return tmpl, tmplErr
}

// CopyTo writes a migrated, empty database file at path (creating its
// directory); path must not exist yet.
func CopyTo(t testing.TB, path string) {
	t.Helper()
	b, err := template()
	if err != nil {
		t.Fatalf("sqlitetest: migrate template: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatalf("sqlitetest: %v", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// Path returns the path of a migrated, empty database file of the test's
// own, named mnemon.db in a new temp directory.
func Path(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mnemon.db")
	CopyTo(t, path)
	return path
}

// Open opens a migrated, empty database file of the test's own with opts,
// closed when the test ends. An empty opts.Synchronous means NORMAL: tests
// that do not check durability need not fsync every commit (tests that do
// pass "FULL").
func Open(t testing.TB, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	return OpenAt(t, Path(t), opts)
}

// OpenAt opens the file at path with opts (Synchronous defaulting to
// NORMAL as in Open), closed when the test ends. The file is made from the
// template first when it does not exist yet.
func OpenAt(t testing.TB, path string, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		CopyTo(t, path)
	}
	if opts.Synchronous == "" {
		opts.Synchronous = "NORMAL"
	}
	st, err := sqlite.Open(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}
