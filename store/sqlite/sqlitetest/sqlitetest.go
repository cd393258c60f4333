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

// Template is a migrated database file made once per test binary, on first
// use, and copied for every test that asks for one.
type Template struct {
	prepare func(context.Context, *sqlite.Store) error
	once    sync.Once
	b       []byte
	err     error
}

// NewTemplate returns a template that, after the store's own migrations,
// runs prepare (when not nil) on the open store: another schema the tests
// need in the same file, such as River's job tables. Keep it in a package
// variable so the work is done once per test binary.
func NewTemplate(prepare func(context.Context, *sqlite.Store) error) *Template {
	return &Template{prepare: prepare}
}

// plain is the template of CopyTo, Path, Open and OpenAt: the store's
// schema alone.
var plain = NewTemplate(nil)

// bytes migrates one new file and returns its bytes. The store's Close
// checkpoints the WAL into the main file; a WAL left behind is an error
// rather than a silently incomplete copy.
func (tp *Template) bytes() ([]byte, error) {
	tp.once.Do(func() {
		dir, err := os.MkdirTemp("", "sqlitetest-")
		if err != nil {
			tp.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "template.db")
		ctx := context.Background()
		st, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
		if err != nil {
			tp.err = err
			return
		}
		if tp.prepare != nil {
			if err := tp.prepare(ctx, st); err != nil {
				_ = st.Close()
				tp.err = err
				return
			}
		}
		if err := st.Close(); err != nil {
			tp.err = err
			return
		}
		if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
			tp.err = fmt.Errorf("sqlitetest: template left a %d-byte WAL after Close", fi.Size())
			return
		}
		tp.b, tp.err = os.ReadFile(path)
	})
	return tp.b, tp.err
}

// CopyTo writes a migrated, empty database file at path (creating its
// directory); path must not exist yet.
func CopyTo(t testing.TB, path string) {
	t.Helper()
	plain.CopyTo(t, path)
}

// CopyTo writes a copy of the template at path (creating its directory);
// path must not exist yet.
func (tp *Template) CopyTo(t testing.TB, path string) {
	t.Helper()
	if err := tp.WriteFile(path); err != nil {
		t.Fatal(err)
	}
}

// WriteFile writes a copy of the template at path (creating its directory),
// as CopyTo does, for code a test hooks in that has no testing.TB (a
// command's own temp files); path must not exist yet.
func (tp *Template) WriteFile(path string) error {
	b, err := tp.bytes()
	if err != nil {
		return fmt.Errorf("sqlitetest: migrate template: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("sqlitetest: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Path returns the path of a migrated, empty database file of the test's
// own, named mnemon.db in a new temp directory.
func Path(t testing.TB) string {
	t.Helper()
	return plain.Path(t)
}

// Path returns the path of a copy of the template of the test's own, named
// mnemon.db in a new temp directory.
func (tp *Template) Path(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mnemon.db")
	tp.CopyTo(t, path)
	return path
}

// Open opens a migrated, empty database file of the test's own with opts,
// closed when the test ends. An empty opts.Synchronous means NORMAL: tests
// that do not check durability need not fsync every commit (tests that do
// pass "FULL").
func Open(t testing.TB, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	return plain.OpenAt(t, plain.Path(t), opts)
}

// Open opens a copy of the template of the test's own, as the function
// Open does.
func (tp *Template) Open(t testing.TB, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	return tp.OpenAt(t, tp.Path(t), opts)
}

// OpenAt opens the file at path with opts (Synchronous defaulting to
// NORMAL as in Open), closed when the test ends. The file is made from the
// template first when it does not exist yet.
func OpenAt(t testing.TB, path string, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	return plain.OpenAt(t, path, opts)
}

// OpenAt opens the file at path as the function OpenAt does, made from
// this template when it does not exist yet.
func (tp *Template) OpenAt(t testing.TB, path string, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		tp.CopyTo(t, path)
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
