// Package enginetest opens an engine on a real SQLite file for tests in
// other packages: the set-up and clean-up each of them wrote out before.
package enginetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// Open opens the SQLite file at path with opts and an engine with cfg on
// it (cfg.Store is set here); both close when the test ends, the engine
// first.
func Open(t testing.TB, path string, opts sqlite.Options, cfg engine.Config) (*sqlite.Store, *engine.Engine) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = st
	eng, err := engine.New(cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		eng.Close()
		st.Close()
	})
	return st, eng
}

// Temp is Open on a fresh file in the test's temporary directory with
// synchronous=NORMAL (nothing a test writes must survive a power cut) and
// the engine's defaults.
func Temp(t testing.TB) *engine.Engine {
	t.Helper()
	_, eng := Open(t, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{Synchronous: "NORMAL"}, engine.Config{})
	return eng
}
