package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// TestSpreadChannelsSameResults checks that a retrieval whose semantic
// channel runs in a goroutine of its own (a core to spare) and one that
// runs every channel in its own goroutine (a busy server) return the same
// items, context and trace, for queries of stored words, of words no
// memory holds (the semantic channel then looks further down) and mixes,
// at several limits; and that retrievals run eight at once, whichever way
// each of them went, return what they return one at a time.
func TestSpreadChannelsSameResults(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 3, 9, 8, 0, 0, 0, time.UTC)
	// Not parallel: it sets spreadChannels.
	st := sqlitetest.Open(t, sqlite.Options{})
	e, err := New(Config{Store: st, Clock: clock.NewManual(at.Add(900 * time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r := rand.New(rand.NewPCG(11, 12))
	things := []string{"the kiosk firmware", "our tram ticket app", "the greenhouse sensors", "the choir rota sheet", "the ferry timetable feed", "the bakery's till"}
	happened := []string{"stalled before", "froze during", "came back after", "got rewritten ahead of", "misbehaved around"}
	when := []string{"the spring fair", "the tax deadline", "a power cut", "the firmware swap", "the regatta", "inventory night"}
	for i := range 240 {
		text := fmt.Sprintf("%s %s %s", things[r.IntN(len(things))], happened[r.IntN(len(happened))], when[r.IntN(len(when))])
		if i%9 == 0 {
			text = fmt.Sprintf("I like %s before %s", []string{"oolong", "cocoa", "nano", "kakoune"}[r.IntN(4)], when[r.IntN(len(when))])
		}
		if _, err := e.Remember(ctx, RememberParams{Namespace: "ns", Text: text, ObservedAt: at.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{
		"ferry timetable", "greenhouse sensors froze", "tram app", "regatta", "what stalled before the tax deadline?",
		"cocoa", "choir rota", "bakery till power cut",
		// No word of these is stored.
		"submarine", "violin lessons", "parking permit", "glacier",
	}
	run := func(q string, limit int) retrievalOutcome {
		return retrieveOutcome(t, e, RetrieveParams{Namespace: "ns", Query: q, Limit: limit})
	}
	defer func() { spreadChannels = nil }()
	on, off := true, false
	want := map[string]retrievalOutcome{}
	nonEmpty := 0
	for _, q := range queries {
		for _, limit := range []int{1, 5, 10} {
			spreadChannels = &on
			a := run(q, limit)
			spreadChannels = &off
			b := run(q, limit)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%q limit %d: the channels run apart and together differ:\n%+v\n%+v", q, limit, a, b)
			}
			if len(a.Items) > 0 {
				nonEmpty++
			}
			want[fmt.Sprint(q, limit)] = a
		}
	}
	if nonEmpty < len(queries) {
		t.Fatalf("only %d of %d retrievals found anything: the comparison says little", nonEmpty, 3*len(queries))
	}
	// Eight at once, each deciding by the load it sees.
	spreadChannels = nil
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(queries))
	for w := range 8 {
		wg.Go(func() {
			for i := range queries {
				q := queries[(i+w)%len(queries)]
				limit := []int{1, 5, 10}[(i+w)%3]
				if got := run(q, limit); !reflect.DeepEqual(got, want[fmt.Sprint(q, limit)]) {
					errs <- fmt.Sprintf("%q limit %d under load differs", q, limit)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}

// TestCoreToSpare checks the load rule: the semantic channel gets a
// goroutine of its own while twice the retrievals in flight fit in
// GOMAXPROCS, and not past that.
func TestCoreToSpare(t *testing.T) {
	e := &Engine{}
	procs := runtime.GOMAXPROCS(0)
	for n := 1; n <= procs+2; n++ {
		e.retrieving.Store(int32(n))
		if got, want := e.coreToSpare(), 2*n <= procs; got != want {
			t.Errorf("%d retrievals in flight, GOMAXPROCS %d: coreToSpare %v, want %v", n, procs, got, want)
		}
	}
	e.retrieving.Store(1)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	if e.coreToSpare() {
		t.Error("one core: a goroutine for the semantic channel has no core to run on")
	}
}
