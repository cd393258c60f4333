package wireconv_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi/wireconv"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
)

// TestConvertersCarryEveryField fills every field of each domain value
// with something not empty and checks the wire value writes the same JSON
// as the domain value's own tags do (the export format and the CLI's
// --json output): a field a converter forgets, or a name or omitempty that
// drifts, shows as a difference. The version's embedding is the one field
// the wire leaves out on purpose.
func TestConvertersCarryEveryField(t *testing.T) {
	cases := []struct {
		name   string
		domain any
		wire   func(any) any
	}{
		{"Version", &memory.Version{}, func(v any) any { return wireconv.Version(v.(*memory.Version)) }},
		{"MemoryView", &engine.MemoryView{}, func(v any) any { return wireconv.MemoryView(v.(*engine.MemoryView)) }},
		{"ForgetResult", &engine.ForgetResult{}, func(v any) any { return wireconv.ForgetResult(v.(*engine.ForgetResult)) }},
		{"Trace", &memory.Trace{}, func(v any) any { return wireconv.Trace(v.(*memory.Trace)) }},
		{"Job", &jobs.Job{}, func(v any) any { return wireconv.Job(v.(*jobs.Job)) }},
		{"ExportStats", &engine.ExportStats{}, func(v any) any { return wireconv.ExportStats(v.(*engine.ExportStats)) }},
		{"FeedbackResult", &engine.FeedbackResult{}, func(v any) any { return wireconv.FeedbackResult(v.(*engine.FeedbackResult)) }},
		{"Explanation", &engine.Explanation{}, func(v any) any { return wireconv.Explanation(v.(*engine.Explanation)) }},
		{"LifecycleReport", &engine.LifecycleReport{}, func(v any) any { return wireconv.LifecycleReport(v.(*engine.LifecycleReport)) }},
		{"DedupeReport", &engine.DedupeReport{}, func(v any) any { return wireconv.DedupeReport(v.(*engine.DedupeReport)) }},
		{"Procedure", &engine.Procedure{}, func(v any) any { return wireconv.Procedure(v.(*engine.Procedure)) }},
		{"ProcedureReport", &engine.ProcedureReport{}, func(v any) any { return wireconv.ProcedureReport(v.(*engine.ProcedureReport)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &filler{}
			f.fill(reflect.ValueOf(c.domain).Elem(), 0)
			want, err := json.Marshal(c.domain)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(c.wire(c.domain))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("wire JSON differs from the domain's:\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

// TestConvertersKeepNilAndEmpty checks a nil value converts to nil and an
// empty list stays an empty list, not null: the JSON tells them apart.
func TestConvertersKeepNilAndEmpty(t *testing.T) {
	if wireconv.Version(nil) != nil || wireconv.Explanation(nil) != nil || wireconv.Versions(nil) != nil {
		t.Error("nil did not stay nil")
	}
	if vs := wireconv.Versions([]*memory.Version{}); vs == nil || len(vs) != 0 {
		t.Errorf("empty versions became %#v", vs)
	}
	tr := wireconv.Trace(&memory.Trace{Items: memory.TraceItems{{Channels: memory.ChannelHits{}, Terms: nil}}})
	b, err := json.Marshal(tr.Items)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(memory.TraceItems{{Channels: memory.ChannelHits{}, Terms: nil}})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(want) {
		t.Errorf("trace items %s, want %s", b, want)
	}
}

// filler sets every field to a distinct value that is not empty.
type filler struct{ n int }

var timeType = reflect.TypeFor[time.Time]()

func (f *filler) next() int { f.n++; return f.n }

func (f *filler) fill(v reflect.Value, depth int) {
	if depth > 6 {
		return
	}
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(time.Date(2026, 1, 1, 0, 0, f.next(), 5000, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.next()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(f.next()))
	case reflect.Float64:
		v.SetFloat(float64(f.next()) + 0.25)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.Type() == reflect.TypeFor[[]byte]() {
				return // the embedding: the wire never carries it
			}
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			f.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 2 {
			k := reflect.New(v.Type().Key()).Elem()
			f.fill(k, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			f.fill(e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth+1)
			}
		}
	}
}
