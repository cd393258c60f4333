// Package testutil holds small helpers shared by tests of several packages.
package testutil

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
)

// SyncBuffer is a bytes.Buffer that a running server may write (its log)
// while a test reads it.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// FindShared walks up from the working directory (a test's package
// directory) to the shared data folder that sits beside the repository
// and returns the path of rel inside it, or false when it is absent (as on
// a user's machine: the data is not shipped with mnemon).
func FindShared(rel string) (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(dir, "shared", rel)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
