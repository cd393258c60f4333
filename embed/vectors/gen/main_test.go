package main

import (
	"bytes"
	"os"
	"testing"
)

// TestReproducible regenerates the table from the npm tarball and compares it
// byte for byte with the committed one. It needs the tarball in the user
// cache (go run ./embed/vectors/gen fetches it there), so it is skipped
// when the tarball is missing, in -short mode and under -race; it takes
// ~15 s.
func TestReproducible(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow: parses a 300 MB JSON file (over a minute under -race); run go test ./embed/vectors/gen without -race")
	}
	tgz, err := cachedTarball(false)
	if err != nil {
		t.Skipf("npm tarball not cached (%v): run go run ./embed/vectors/gen once", err)
	}
	got, stats, err := Generate(tgz, 100_000, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(stats)
	want, err := os.ReadFile("../words.bin")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("embed/vectors/words.bin differs from what gen makes: run go run ./embed/vectors/gen and commit it")
	}
}
