package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The package's own tests cannot import sqlitetest (it imports this
// package), so they keep a template of their own: one file migrated per
// test binary, copied for each test that needs a new, empty store.
var internalTemplate struct {
	once sync.Once
	b    []byte
	err  error
}

// templatePath returns the path of a migrated, empty file of the test's
// own, named name in a new temp directory. Tests of migrating itself open
// a new path instead.
func templatePath(t testing.TB, name string) string {
	t.Helper()
	it := &internalTemplate
	it.once.Do(func() {
		dir, err := os.MkdirTemp("", "sqlite-internal-")
		if err != nil {
			it.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "template.db")
		s, err := Open(context.Background(), path, Options{Synchronous: "NORMAL"})
		if err != nil {
			it.err = err
			return
		}
		if it.err = s.Close(); it.err != nil {
			return
		}
		it.b, it.err = os.ReadFile(path)
	})
	if it.err != nil {
		t.Fatalf("migrate template: %v", it.err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, it.b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
