package engine_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedCached returns a copy of the benchmark's seeded file kept in dir,
// seeding it first if it is not there. Seeding 100k memories through
// extraction takes minutes on a loaded machine, and comparing two builds
// takes several runs of each over the same corpus. The file is named after
// the benchmark and its size: empty dir after changing a corpus or the
// store's format.
func seedCached(b *testing.B, dir string, n int, statement benchCorpus) string {
	b.Helper()
	name := strings.NewReplacer("/", "_", " ", "_").Replace(b.Name())
	kept := filepath.Join(dir, name+".db")
	if _, err := os.Stat(kept); err != nil {
		fresh := seedFresh(b, n, statement)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		copyFile(b, fresh, kept+".tmp")
		if err := os.Rename(kept+".tmp", kept); err != nil {
			b.Fatal(err)
		}
		return fresh
	}
	path := filepath.Join(b.TempDir(), "open.db")
	copyFile(b, kept, path)
	return path
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	if _, err := os.Stat(from + "-wal"); err == nil {
		b.Fatalf("%s has a WAL left after closing: copy it too", from)
	}
	src, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
}
