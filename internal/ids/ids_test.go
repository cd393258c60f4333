package ids

import (
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// TestNewSortsByCreation issues ids from many goroutines at once, with no
// lock of the test's own around New, and checks that they sort in the order
// New issued them: the order it saw them under its lock (the issued hook).
// Reading the clock before the lock, as ulid.Make does, fails it: a caller
// that read an earlier millisecond but took the lock second got an id below
// the one issued before it.
func TestNewSortsByCreation(t *testing.T) {
	const goroutines, each = 16, 2000
	var order []string // appended under gen's lock
	issued = func(id ulid.ULID) { order = append(order, id.String()) }
	defer func() { issued = nil }()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := 0; i < each; i++ {
				New(Memory)
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(order) != goroutines*each {
		t.Fatalf("issued %d ids, want %d", len(order), goroutines*each)
	}
	for i := 1; i < len(order); i++ {
		if order[i] <= order[i-1] {
			t.Fatalf("id #%d %s issued after %s sorts before (or equal to) it", i, order[i], order[i-1])
		}
	}
}

// TestNewConcurrentUnique races New without outside locking (the race
// detector checks its own), and the ids of each goroutine still sort in the
// order that goroutine got them.
func TestNewConcurrentUnique(t *testing.T) {
	const goroutines, each = 8, 1000
	out := make([][]string, goroutines)
	var wg sync.WaitGroup
	for g := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				out[g] = append(out[g], New(Episode))
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, ids := range out {
		if !sort.StringsAreSorted(ids) {
			t.Fatal("one goroutine's ids do not sort in the order it got them")
		}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("id %s issued twice", id)
			}
			seen[id] = true
		}
	}
}

// TestNewClockStepsBack: a wall clock that steps back does not make an id
// sort before the ones already issued.
func TestNewClockStepsBack(t *testing.T) {
	gen.Lock()
	lastMS := gen.lastMS
	gen.Unlock()
	defer func(old func() time.Time) {
		now = old
		gen.Lock()
		gen.lastMS = lastMS // later tests see the real clock again
		gen.Unlock()
	}(now)
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	now = func() time.Time { return at }
	a := New(Memory)
	at = at.Add(-time.Hour)
	b := New(Memory)
	at = at.Add(2 * time.Hour)
	c := New(Memory)
	if !(a < b && b < c) {
		t.Fatalf("ids out of order across a clock step back: %s %s %s", a, b, c)
	}
}

func TestHasPrefix(t *testing.T) {
	id := New(Retrieval)
	if !HasPrefix(id, Retrieval) || HasPrefix(id, Memory) || HasPrefix("retx", Retrieval) {
		t.Fatalf("HasPrefix wrong for %s", id)
	}
}
