package engine

import (
	"context"
	"testing"
	"time"
)

func TestCaptureGate(t *testing.T) {
	var g captureGate
	ctx := context.Background()

	began := time.Now()
	g.wait(ctx, time.Minute)
	if time.Since(began) > time.Second {
		t.Fatal("wait blocked with no capture in flight")
	}

	// A capture in flight holds background writers until it leaves.
	g.enter()
	released := make(chan struct{})
	go func() {
		g.wait(ctx, time.Minute)
		close(released)
	}()
	select {
	case <-released:
		t.Fatal("wait returned while a capture was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	g.leave()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("wait did not return after the capture left")
	}

	// And no longer than max: captures must not starve extraction.
	g.enter()
	defer g.leave()
	began = time.Now()
	g.wait(ctx, 20*time.Millisecond)
	if d := time.Since(began); d < 20*time.Millisecond || d > 5*time.Second {
		t.Fatalf("wait with a capture in flight took %v, want about 20ms", d)
	}
}
