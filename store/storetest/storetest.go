// Package storetest is the conformance suite every memory.Store backend must
// pass. A backend's test calls Run with a function that opens a fresh, empty
// store; the suite then checks every method of memory.Store and
// memory.Executor, on the Store itself and inside InTx, against the
// contracts written in package memory: exact round trips, ordering,
// filters, sentinel errors, namespace isolation, transactions and Close.
//
// Where package memory leaves a detail open, the suite pins it down, so
// every backend answers alike:
//
//   - Namespaces are checked with memory.ValidateNamespace (ErrInvalid). A
//     row passed in Create*Params must carry the params' namespace or none
//     (it then takes the params'); another namespace is ErrInvalid. Empty
//     ids and nil rows are ErrInvalid.
//   - Ids are unique per namespace: the same id in two namespaces is two
//     rows, and neither namespace learns of the other.
//   - A version's seq is unique within its memory (ErrConflict), and a
//     version of a memory missing from its namespace is ErrNotFound.
//   - A multi-row create writes all its rows or none, even inside InTx.
//   - Values come back as written: nil and empty slices and maps stay
//     apart, a nil time pointer stays nil and a zero time stays zero, every
//     time comes back in UTC and keeps at least microseconds.
//   - Lists: episodes by occurred_at then id, versions by recorded_at then
//     id, admissions and traces newest first; ListTraces' Since is
//     inclusive; Limit 0 means no limit; a list filter with no values is
//     no filter.
//   - Stats.Versions is a non-nil map holding only statuses that occur.
//   - Namespaces is sorted bytewise.
//   - API keys (KeyStore) are not per namespace: ids and hashes are unique
//     across the store (ErrConflict), APIKeyByHash finds a key in any
//     namespace, revoked or not, and a hash not shaped like one (64
//     lowercase hex digits) is simply not found. Keys make no namespace
//     appear in Namespaces. RevokeAPIKey keeps the first revocation time;
//     a zero time is ErrInvalid.
//   - Close may be called twice; the second returns nil. Every other call
//     after Close fails.
//
// The suite uses only the memory package, so what passes here behaves the
// same to the engine whichever backend it runs on.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// Opener returns a new, empty store for one test. It must arrange for the
// store to be closed when the test ends (t.Cleanup); the suite may close it
// earlier, so a second Close must return nil.
type Opener func(t *testing.T) memory.Store

// Run runs the conformance suite. Subtests run in parallel, each on its own
// store.
func Run(t *testing.T, open Opener) {
	s := suite{open: open}
	groups := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"Episodes", s.episodes},
		{"Memories", s.memories},
		{"Versions", s.versions},
		{"StreamVersions", s.streamVersions},
		{"SlotHead", s.slotHead},
		{"Admissions", s.admissions},
		{"SharedText", s.sharedText},
		{"Traces", s.traces},
		{"Stats", s.stats},
		{"Namespaces", s.namespaces},
		{"APIKeys", s.keys},
		{"ExtractionBacklog", s.backlog},
		{"ChangeLog", s.changes},
		{"History", s.history},
		{"Feedback", s.feedback},
		{"Consolidation", s.consolidation},
		{"Procedures", s.procedures},
		{"NamespaceIsolation", s.isolation},
		{"InvalidInput", s.invalidInput},
		{"Times", s.times},
		{"Values", s.values},
		{"InTx", s.inTx},
		{"Concurrency", s.concurrency},
		{"Context", s.context},
		{"Close", s.close},
	}
	for _, g := range groups {
		t.Run(g.name, g.run)
	}
}

type suite struct{ open Opener }

// mode runs a piece of test either straight on the store or inside InTx,
// so both the Store's own methods and the transaction's executor are held
// to the same contract.
type mode struct {
	name string
	do   func(ctx context.Context, s memory.Store, fn func(memory.Executor) error) error
}

func modes() []mode {
	return []mode{
		{"Store", func(_ context.Context, s memory.Store, fn func(memory.Executor) error) error { return fn(s) }},
		{"InTx", func(ctx context.Context, s memory.Store, fn func(memory.Executor) error) error {
			return s.InTx(ctx, fn)
		}},
	}
}

// eachMode runs body as one parallel subtest per mode, each with a fresh
// store.
func (s suite) eachMode(t *testing.T, body func(t *testing.T, ctx context.Context, st memory.Store, m mode)) {
	for _, m := range modes() {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			body(t, t.Context(), s.open(t), m)
		})
	}
}

// fresh returns a new store for a parallel subtest.
func (s suite) fresh(t *testing.T) (context.Context, memory.Store) {
	t.Helper()
	t.Parallel()
	return t.Context(), s.open(t)
}

// ---- assertions -------------------------------------------------------------

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantErr fails unless err wraps target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want one wrapping %q", what, err, target)
	}
}

// diff compares two structs of the same type field by field. Times compare
// with Equal (the instant, not the representation) and the stored one must
// come back in UTC; everything else compares with reflect.DeepEqual, so nil
// and empty slices and maps are told apart.
func diff(want, got any) []string {
	wv, gv := reflect.ValueOf(want).Elem(), reflect.ValueOf(got).Elem()
	typ := wv.Type()
	var out []string
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		w, g := wv.Field(i).Interface(), gv.Field(i).Interface()
		switch wt := w.(type) {
		case time.Time:
			out = append(out, diffTime(name, wt, g.(time.Time))...)
		case *time.Time:
			gt := g.(*time.Time)
			switch {
			case wt == nil && gt == nil:
			case wt == nil || gt == nil:
				out = append(out, fmt.Sprintf("%s: got %v, want %v", name, fmtTimePtr(gt), fmtTimePtr(wt)))
			default:
				out = append(out, diffTime(name, *wt, *gt)...)
			}
		default:
			if !reflect.DeepEqual(w, g) {
				out = append(out, fmt.Sprintf("%s: got %#v, want %#v", name, g, w))
			}
		}
	}
	return out
}

func diffTime(name string, want, got time.Time) []string {
	if !want.Equal(got) {
		return []string{fmt.Sprintf("%s: got %s, want %s", name, got.Format(time.RFC3339Nano), want.Format(time.RFC3339Nano))}
	}
	if got.Location() != time.UTC {
		return []string{fmt.Sprintf("%s: got location %v, want UTC", name, got.Location())}
	}
	return nil
}

func fmtTimePtr(t *time.Time) string {
	if t == nil {
		return "nil"
	}
	return t.Format(time.RFC3339Nano)
}

// same fails the test if got differs from want in any field.
func same[T any](t *testing.T, what string, want, got *T) {
	t.Helper()
	if want == nil {
		t.Errorf("%s: unexpected row %+v", what, got)
		return
	}
	if got == nil {
		t.Errorf("%s: got nil", what)
		return
	}
	if d := diff(want, got); len(d) > 0 {
		t.Errorf("%s differs:\n  %s", what, strings.Join(d, "\n  "))
	}
}

// ids extracts identifiers for order checks.
func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

func wantIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got ids %v, want %v", what, got, want)
	}
}

func episodeID(e *memory.Episode) string     { return e.ID }
func memoryID(m *memory.Memory) string       { return m.ID }
func versionID(v *memory.Version) string     { return v.ID }
func admissionID(a *memory.Admission) string { return a.ID }
func traceID(tr *memory.Trace) string        { return tr.ID }

// collectScan gathers what a Scan method hands its callback.
func collectScan[T any](scan func(context.Context, memory.ScanParams, func(T) error) error, ctx context.Context, ns string) ([]T, error) {
	var out []T
	err := scan(ctx, memory.ScanParams{Namespace: ns}, func(v T) error {
		out = append(out, v)
		return nil
	})
	return out, err
}

// checkScanStops checks that a Scan method stops at fn's first error and
// returns that error.
func checkScanStops[T any](t *testing.T, what string, scan func(context.Context, memory.ScanParams, func(T) error) error, ctx context.Context, ns string) {
	t.Helper()
	stop := errors.New("stop here")
	calls := 0
	err := scan(ctx, memory.ScanParams{Namespace: ns}, func(T) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) {
		t.Errorf("%s: got %v, want fn's error", what, err)
	}
	if calls != 1 {
		t.Errorf("%s: fn called %d times after returning an error, want 1", what, calls)
	}
}
