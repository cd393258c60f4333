package engine

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// An index loaded from the store knows each turn's shape as the index of
// the process that wrote it does: ranking must not change with a restart.
func TestLoadedIndexKeepsTurnShapes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shape.db")
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	open := func() (*Engine, memory.Store) {
		st, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(Config{Store: st, Clock: clock.NewManual(at.Add(time.Hour))})
		if err != nil {
			t.Fatal(err)
		}
		return e, st
	}
	turns := []string{
		"ok nice",
		"can you sort out the invoice template?",
		"my cousin Teodor repairs bikes in Graz",
		"I ride to the office most days",
		"the team moved the wiki off Confluence now",
		"never book me on a red-eye",
		"rent went up to 1,140",
	}
	e, st := open()
	evs := make([]Event, len(turns))
	for i, text := range turns {
		evs[i] = Event{Kind: memory.EpisodeUserMessage, Content: text, OccurredAt: at.Add(time.Duration(i) * time.Minute)}
	}
	if _, err := e.Capture(ctx, CaptureParams{Namespace: "shapes", Events: evs}); err != nil {
		t.Fatal(err)
	}
	written := shapesOf(t, e)
	e.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	e, st = open()
	defer st.Close()
	defer e.Close()
	loaded := shapesOf(t, e)
	if len(loaded) != len(turns) {
		t.Fatalf("loaded %d turns, want %d", len(loaded), len(turns))
	}
	marked := 0
	for text, want := range written {
		if loaded[text] != want {
			t.Errorf("%q: shape %010b after loading, %010b as written", text, loaded[text], want)
		}
		if want != 0 {
			marked++
		}
	}
	if marked == 0 {
		t.Fatal("no turn has a shape: the test compares nothing")
	}
}

// shapesOf returns the shape of every indexed turn of the namespace
// "shapes", by its text.
func shapesOf(t *testing.T, e *Engine) map[string]turnShape {
	t.Helper()
	st, err := e.namespace(context.Background(), "shapes")
	if err != nil {
		t.Fatal(err)
	}
	st.RLock()
	defer st.RUnlock()
	out := make(map[string]turnShape)
	for _, id := range st.EpisodesLocked() {
		if en, ok := st.EntryLocked(id); ok {
			out[en.V.Content] = en.Shape
		}
	}
	return out
}
