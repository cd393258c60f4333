package jobs

import (
	"context"
	"errors"
	"testing"
)

// TestFetchGate: a poll fetches at once when a job may be there (first
// poll, after a wake, while a fetch lately found jobs), and otherwise
// waits in the gate until woken; a stopping queue releases it without a
// fetch.
func TestFetchGate(t *testing.T) {
	ctx := context.Background()
	g := newFetchGate(false)
	if !g.wait(ctx) {
		t.Fatal("the first poll did not fetch")
	}
	g.fetched(true, nil, g.begin())
	if !g.wait(ctx) {
		t.Fatal("a poll after a fetch that found jobs did not fetch")
	}

	g = newFetchGate(false)
	g.fetched(false, nil, g.begin())
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

	g = newFetchGate(false)
	g.fetched(false, nil, g.begin())
	go func() { got <- g.wait(ctx) }()
	g.close()
	if <-got {
		t.Fatal("a poll released by a stopping queue fetched")
	}
	g = newFetchGate(false)
	g.fetched(false, nil, g.begin())
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if g.wait(cctx) {
		t.Fatal("a poll with its context done fetched")
	}
}

// TestSerialFetchGateCools: on a serial gate (SQLite, where a fetch waits
// for the transactions that enqueue), a fetch that began after the last
// wake and found nothing ends the hot spell, so the next poll waits; one
// that began before a wake, or failed, does not, and a gate that is not
// serial stays hot.
func TestSerialFetchGateCools(t *testing.T) {
	ctx := context.Background()
	idle := func(g *fetchGate) bool {
		cctx, cancel := context.WithCancel(ctx)
		cancel() // a poll that would wait returns false at once
		return !g.wait(cctx)
	}
	g := newFetchGate(true)
	g.wake()
	since := g.begin()
	g.fetched(false, nil, since)
	if !idle(g) {
		t.Fatal("an empty fetch begun after the wake left the serial gate hot")
	}

	g = newFetchGate(true)
	since = g.begin()
	g.wake() // enqueued while the fetch ran: it may not have seen the job
	g.fetched(false, nil, since)
	if idle(g) {
		t.Fatal("an empty fetch begun before a wake ended the hot spell")
	}
	since = g.begin()
	g.fetched(false, errors.New("busy"), since)
	if idle(g) {
		t.Fatal("a failed fetch ended the hot spell")
	}
	since = g.begin()
	g.fetched(true, nil, since)
	if idle(g) {
		t.Fatal("a fetch that found jobs ended the hot spell")
	}

	g = newFetchGate(false)
	g.wake()
	g.fetched(false, nil, g.begin())
	if idle(g) {
		t.Fatal("an empty fetch ended the hot spell of a gate that is not serial")
	}
}
