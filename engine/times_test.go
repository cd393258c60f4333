package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// TestTimesOutsideStorableRange calls every engine entry point that takes
// a time with one beyond the storable range: each refuses it with an
// invalid_timestamp *memory.Error naming the field (it is also ErrInvalid) before
// writing anything, and the same call with a time in range goes through.
func TestTimesOutsideStorableRange(t *testing.T) {
	t.Parallel()
	e, _, st := newEngine(t)
	ctx := context.Background()
	if _, err := e.Remember(ctx, engine.RememberParams{Text: "Bob works at Initech.", ObservedAt: t0.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	if _, err := e.Export(ctx, memory.DefaultNamespace, &export); err != nil {
		t.Fatal(err)
	}
	// importAt is the export with every episode dated at.
	importAt := func(at time.Time) *bytes.Buffer {
		var out bytes.Buffer
		for _, line := range bytes.Split(bytes.TrimSpace(export.Bytes()), []byte("\n")) {
			var rec map[string]any
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatal(err)
			}
			if ep, ok := rec["episode"].(map[string]any); ok {
				ep["occurred_at"] = at
			}
			b, _ := json.Marshal(rec)
			out.Write(append(b, '\n'))
		}
		return &out
	}
	ptr := func(t time.Time) *time.Time { return &t }
	imports := 0

	calls := []struct {
		field string
		call  func(at time.Time) error
	}{
		{"occurred_at", func(at time.Time) error {
			_, err := e.Capture(ctx, engine.CaptureParams{Events: []engine.Event{{Kind: memory.EpisodeUserMessage, Content: "I moved to Oslo.", OccurredAt: at}}})
			return err
		}},
		{"occurred_at", func(at time.Time) error {
			_, err := e.CaptureDeferred(ctx, engine.CaptureParams{Events: []engine.Event{{Kind: memory.EpisodeUserMessage, Content: "I moved to Rome.", OccurredAt: at}}},
				func(context.Context, memory.Executor, engine.ExtractJob) (string, error) { return "job", nil })
			return err
		}},
		{"observed_at", func(at time.Time) error {
			_, err := e.Remember(ctx, engine.RememberParams{Text: "I prefer emacs.", Key: "prefers:editor", Value: "emacs", ObservedAt: at})
			return err
		}},
		{"valid_from", func(at time.Time) error {
			_, err := e.Remember(ctx, engine.RememberParams{Text: "I drink tea.", Key: "drinks", Value: "tea", ValidFrom: ptr(at)})
			return err
		}},
		{"valid_to", func(at time.Time) error {
			_, err := e.Remember(ctx, engine.RememberParams{Text: "I drink coffee.", Key: "drinks", Value: "coffee", ValidTo: ptr(at)})
			return err
		}},
		{"as_of", func(at time.Time) error {
			_, err := e.Retrieve(ctx, engine.RetrieveParams{Query: "where does Bob work?", AsOf: ptr(at)})
			return err
		}},
		{"known_at", func(at time.Time) error {
			_, err := e.Retrieve(ctx, engine.RetrieveParams{Query: "where does Bob work?", KnownAt: ptr(at)})
			return err
		}},
		{"as_of", func(at time.Time) error {
			_, err := e.Neighborhood(ctx, engine.GraphParams{Entity: "bob", AsOf: ptr(at)})
			return err
		}},
		{"occurred_at", func(at time.Time) error {
			imports++
			_, err := e.Import(ctx, fmt.Sprintf("imported-%d", imports), importAt(at))
			return err
		}},
	}
	bad := []time.Time{
		time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC),
		{}, // the zero time, given: a pointer to it, or an imported episode's
		memory.MinTime.Add(-time.Nanosecond),
		memory.MaxTime.Add(time.Nanosecond),
	}
	// Capture and Remember read a zero time as "now"; only the others can
	// be given the zero time.
	zeroMeansNow := map[int]bool{0: true, 1: true, 2: true}
	stateOf := func() string {
		e.FlushTraces()
		s, err := st.Stats(ctx, memory.StatsParams{Namespace: memory.DefaultNamespace})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%+v", *s)
	}
	for i, c := range calls {
		for _, at := range bad {
			if at.IsZero() && zeroMeansNow[i] {
				continue
			}
			before := stateOf()
			err := c.call(at)
			var pe *memory.Error
			if !errors.As(err, &pe) || !errors.Is(err, memory.ErrInvalid) || pe.Code != memory.CodeInvalidTimestamp {
				t.Errorf("call %d (%s) at %s: err = %v, want an invalid_timestamp *memory.Error", i, c.field, at, err)
				continue
			}
			if shown := at.UTC().Format(time.RFC3339Nano); !strings.Contains(pe.Message, shown) || !strings.HasSuffix(pe.Field, c.field) {
				t.Errorf("call %d at %s: error names field %q in %q, want field %s and time %s", i, at, pe.Field, pe.Message, c.field, shown)
			}
			if after := stateOf(); after != before {
				t.Errorf("call %d (%s) at %s wrote:\n%s\n%s", i, c.field, at, before, after)
			}
		}
		if err := c.call(t0.Add(-24 * time.Hour)); err != nil {
			t.Errorf("call %d (%s) in range: %v", i, c.field, err)
		}
	}
	for i := 1; i < imports; i++ { // the last import was in range
		checkNothingImported(t, st, fmt.Sprintf("imported-%d", i))
	}
}
