package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// Close joins every goroutine the engine started: the capture group's
// leader, a Follow loop still running on a context nobody cancels, and the
// trace writer. After the engine and the store are closed, no goroutine of
// theirs is left.
func TestCloseJoinsGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlitetest.Path(t), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := engine.New(engine.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			e.Close()
		}
	}()

	// Started by the caller, ended by Close: this context never ends.
	go e.Follow(context.Background(), 5*time.Millisecond)

	var mu sync.Mutex
	jobs := 0
	enqueue := func(context.Context, memory.Executor, engine.ExtractJob) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		jobs++
		return "job_1", nil
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, err := e.Capture(ctx, engine.CaptureParams{Namespace: "ns", Events: []engine.Event{
		{Kind: memory.EpisodeUserMessage, Content: "I moved to Lisbon last spring.", OccurredAt: at},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CaptureDeferred(ctx, engine.CaptureParams{Namespace: "ns", Events: []engine.Event{
		{Kind: memory.EpisodeUserMessage, Content: "My sister teaches chemistry.", OccurredAt: at.Add(time.Minute)},
	}}, enqueue); err != nil {
		t.Fatal(err)
	}
	res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "ns", Query: "where do I live?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 {
		t.Fatal("the retrieval found nothing")
	}
	// A capture whose caller gave up before its group committed: its
	// leader goes on committing, and Close waits for it.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.CaptureDeferred(gone, engine.CaptureParams{Namespace: "ns", Events: []engine.Event{
		{Kind: memory.EpisodeUserMessage, Content: "Our dog is called Biscuit.", OccurredAt: at.Add(2 * time.Minute)},
	}}, enqueue); err == nil {
		t.Fatal("a capture on a cancelled context was acknowledged")
	}

	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	closed = true
	s, err := st.Stats(ctx, memory.StatsParams{Namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Episodes != 3 {
		t.Errorf("after Close the store holds %d episodes, want 3: the last capture's leader was not waited for", s.Episodes)
	}
	if tr, err := st.GetTrace(ctx, memory.GetParams{Namespace: "ns", ID: res.RetrievalID}); err != nil || tr == nil {
		t.Errorf("the retrieval's trace is not in the store after Close: %v", err)
	}
	// Closed, the engine starts nothing: Follow returns at once.
	e.Follow(context.Background(), time.Millisecond)
}
