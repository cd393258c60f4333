package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// heldTx is a Transactor whose write transactions wait for release before
// they start: a trace batch stays "on its way to disk" as long as the test
// wants.
type heldTx struct {
	memory.Transactor
	entered chan struct{} // a write transaction is waiting
	release chan struct{} // closed: let them through
}

func (h *heldTx) InTx(ctx context.Context, fn func(memory.Executor) error) error {
	select {
	case h.entered <- struct{}{}:
	default:
	}
	<-h.release
	return h.Transactor.InTx(ctx, fn)
}

// TestTraceWriterGuarantee checks what the trace writer promises: a trace is
// readable (Get, in its own namespace only) from the moment it is added,
// including while its batch is being committed; once the commit is done it
// is read from the store and no longer held; the writer commits a batch
// without being asked (no Flush); Close writes what is queued; a trace
// added after Close is written before Add returns.
func TestTraceWriterGuarantee(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := sqlitetest.Open(t, sqlite.Options{})
	at := time.Date(2026, 4, 2, 10, 0, 0, 0, time.UTC)
	e, err := New(Config{Store: st, Clock: clock.NewManual(at.Add(time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Remember(ctx, RememberParams{Namespace: "ns", Text: "The tide tables for the harbour mouth are pinned by the door.", ObservedAt: at}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Retrieve(ctx, RetrieveParams{Namespace: "ns", Query: "tide tables", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	e.FlushTraces()
	base, err := e.Trace(ctx, "ns", res.RetrievalID)
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() *memory.Trace {
		c := *base
		c.ID = ids.New(ids.Retrieval)
		return &c
	}
	stored := func(id string) bool {
		_, err := st.GetTrace(ctx, memory.GetParams{Namespace: "ns", ID: id})
		if err != nil && !errors.Is(err, memory.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	// Held in the commit: readable from the writer, not yet from the store.
	held := &heldTx{Transactor: st, entered: make(chan struct{}, 1), release: make(chan struct{})}
	w := newTraceWriter(held, log)
	tr := fresh()
	w.Add(tr)
	if got, ok := w.Get("ns", tr.ID); !ok || got == tr || !reflect.DeepEqual(got, tr) {
		t.Fatal("a trace just added is not readable as a copy")
	}
	<-held.entered // the writer took the batch without a Flush
	if got, ok := w.Get("ns", tr.ID); !ok || got == tr || !reflect.DeepEqual(got, tr) {
		t.Fatal("a trace being committed is not readable as a copy")
	}
	if _, ok := w.Get("other", tr.ID); ok {
		t.Fatal("a pending trace is readable from another namespace")
	}
	if stored(tr.ID) {
		t.Fatal("the held commit reached the store")
	}
	close(held.release)
	w.Flush() // waits for the commit under way
	if _, ok := w.Get("ns", tr.ID); ok {
		t.Fatal("a committed trace is still held in memory")
	}
	if !stored(tr.ID) {
		t.Fatal("the committed trace is not in the store")
	}

	// Close writes what is queued; an Add after it writes at once.
	queued := fresh()
	w.Add(queued)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !stored(queued.ID) {
		t.Fatal("Close did not write the queued trace")
	}
	late := fresh()
	w.Add(late)
	if !stored(late.ID) {
		t.Fatal("a trace added after Close was not written before Add returned")
	}
}

// TestTraceBufsReused checks that reusing a written trace's memory for the
// next retrievals changes nothing anyone was handed: a trace read at once
// (from the writer, a copy) and the same trace read back from the store
// after many more retrievals are equal, item for item, and so is every
// later retrieval's trace to the one the store keeps.
func TestTraceBufsReused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := sqlitetest.Open(t, sqlite.Options{})
	at := time.Date(2026, 5, 11, 9, 0, 0, 0, time.UTC)
	e, err := New(Config{Store: st, Clock: clock.NewManual(at.Add(24 * time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	notes := []string{
		"the greenhouse vents stick when it rains, prop them with the wedge",
		"Ines swapped the boiler filter on tuesday, next one due in march",
		"we keep the spare greenhouse key under the blue pot",
		"the boiler makes a knocking noise if the pressure drops under one bar",
		"Ines thinks the wedge for the vents is in the shed",
		"rain gauge reads high since the fox knocked it over",
	}
	for i, n := range notes {
		if _, err := e.Remember(ctx, RememberParams{Namespace: "home", Text: n, ObservedAt: at.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"greenhouse vents", "boiler", "where is the key", "what did Ines do", "rain", "wedge shed", "pressure"}
	atOnce := map[string]*memory.Trace{}
	var order []string
	for round := range 6 {
		for _, q := range queries {
			res, err := e.Retrieve(ctx, RetrieveParams{Namespace: "home", Query: q, Limit: 1 + round%3})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := e.Trace(ctx, "home", res.RetrievalID)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Items) == 0 {
				t.Fatalf("%q: a trace without candidates", q)
			}
			atOnce[res.RetrievalID] = tr
			order = append(order, res.RetrievalID)
		}
		if round%2 == 1 {
			e.FlushTraces() // written: the next rounds reuse their memory
		}
	}
	// A query nothing matches has a trace of no candidates: its items are
	// an empty list, not none, however its memory came.
	if got := new(traceBufs).traceItems(0); got == nil {
		t.Fatal("a fresh trace's items of no candidates are nil")
	}
	res, err := e.Retrieve(ctx, RetrieveParams{Namespace: "home", Query: "xylophone quasar"})
	if err != nil {
		t.Fatal(err)
	}
	if tr, err := e.Trace(ctx, "home", res.RetrievalID); err != nil || tr.Items == nil || len(tr.Items) != 0 {
		t.Fatalf("the trace of a query nothing matches: %v %#v", err, tr)
	}
	e.FlushTraces()
	for _, id := range order {
		stored, err := st.GetTrace(ctx, memory.GetParams{Namespace: "home", ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(stored.Items, atOnce[id].Items) {
			t.Fatalf("trace %s changed after it was read:\n now %+v\nthen %+v", id, stored.Items, atOnce[id].Items)
		}
	}
}
