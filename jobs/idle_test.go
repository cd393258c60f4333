package jobs

import (
	"context"
	"testing"
)

// TestFetchGate: a poll fetches at once when a job may be there (first
// poll, after a wake, while a fetch lately found jobs), and otherwise
// waits in the gate until woken; a stopping queue releases it without a
// fetch.
func TestFetchGate(t *testing.T) {
	ctx := context.Background()
	g := newFetchGate()
	if !g.wait(ctx) {
		t.Fatal("the first poll did not fetch")
	}
	g.fetched(true)
	if !g.wait(ctx) {
		t.Fatal("a poll after a fetch that found jobs did not fetch")
	}

	g = newFetchGate()
	g.fetched(false)
	got := make(chan bool, 1)
	go func() { got <- g.wait(ctx) }()
	select {
	case ok := <-got:
		t.Fatalf("an idle poll returned %v before anything happened", ok)
	default:
	}
	g.wake()
	if !<-got {
		t.Fatal("a woken poll did not fetch")
	}
	if !g.wait(ctx) {
		t.Fatal("a poll soon after a wake did not fetch")
	}

	g = newFetchGate()
	g.fetched(false)
	go func() { got <- g.wait(ctx) }()
	g.close()
	if <-got {
		t.Fatal("a poll released by a stopping queue fetched")
	}
	g = newFetchGate()
	g.fetched(false)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if g.wait(cctx) {
		t.Fatal("a poll with its context done fetched")
	}
}
