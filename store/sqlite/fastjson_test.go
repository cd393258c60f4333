package sqlite

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	ids := [][]string{
		{}, {"ep_1"}, {"ep_1", "ep_2", "ep_3"},
		{`quote"d`, `back\slash`, "<html>&", "tab\there", "ünïcødé ✓", "nul\x00byte", ""},
	}
	for _, want := range ids {
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if err := decodeJSON(string(b), &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %q, want %q", b, got, want)
		}
	}
	spans := [][]memory.Span{
		{}, {{EpisodeID: "ep_1", Start: 0, End: 40}},
		{{EpisodeID: "a", Start: -3, End: 123456789012}, {EpisodeID: `q"uote`, Start: 7, End: 0}},
	}
	for _, want := range spans {
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var got []memory.Span
		if err := decodeJSON(string(b), &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", b, got, want)
		}
	}
	for _, bad := range []string{"", "[", `["a"`, `["a",]`, `[1]`, `{"a":1}`, `[{"episode_id":"a","start":01,"end":2}]`} {
		var s []string
		var sp []memory.Span
		if decodeJSON(bad, &s) == nil && decodeJSON(bad, &sp) == nil {
			t.Errorf("%q decoded without error", bad)
		}
	}
}

// FuzzDecodeJSON holds the hand-written parsers to encoding/json: whenever
// they accept an input, they must produce what encoding/json produces.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`[]`, `["a","b"]`, `["\u00e9"]`, `[{"episode_id":"e","start":1,"end":2}]`,
		`[{"episode_id":"e","start":-0,"end":2}]`, `[{"episode_id":"e","start":1e3,"end":2}]`,
		"[\"\xff\"]", `[ "a" ]`, `["a"] `, `[{"episode_id":"e","end":2,"start":1}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, ok := parseStrings(s); ok {
			var want []string
			if err := json.Unmarshal([]byte(s), &want); err != nil {
				t.Fatalf("parseStrings accepted %q, encoding/json: %v", s, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("parseStrings(%q) = %q, encoding/json %q", s, got, want)
			}
		}
		if got, ok := parseSpans(s); ok {
			var want []memory.Span
			if err := json.Unmarshal([]byte(s), &want); err != nil {
				t.Fatalf("parseSpans accepted %q, encoding/json: %v", s, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("parseSpans(%q) = %+v, encoding/json %+v", s, got, want)
			}
		}
	})
}

// fakeRow serves fixed values, to drive the decoder into type errors.
type fakeRow []any

func (r fakeRow) kind(i int) colKind                { return (&sqlRow{vals: r}).kind(i) }
func (r fakeRow) int64At(i int) int64               { return r[i].(int64) }
func (r fakeRow) float64At(i int) float64           { return r[i].(float64) }
func (r fakeRow) textAt(i int) string               { return r[i].(string) }
func (r fakeRow) symAt(i int, syms *symbols) string { return syms.internString(r[i].(string)) }
func (r fakeRow) blobAt(i int) []byte               { return r[i].([]byte) }
func (r fakeRow) name(i int) string                 { return "c" + string(rune('0'+i)) }

func TestDecoderReportsTypeErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		row  fakeRow
		read func(d *decoder)
	}{
		{"TextAsInt", fakeRow{"x"}, func(d *decoder) { d.int() }},
		{"IntAsText", fakeRow{int64(1)}, func(d *decoder) { d.str() }},
		{"NullAsText", fakeRow{nil}, func(d *decoder) { d.str() }},
		{"TextAsBlob", fakeRow{"x"}, func(d *decoder) { d.blob() }},
		{"TextAsReal", fakeRow{"x"}, func(d *decoder) { d.float() }},
		{"BadJSON", fakeRow{"[1,"}, func(d *decoder) { var v []string; d.json(&v) }},
		{"PastTheEnd", fakeRow{"x"}, func(d *decoder) { d.str(); d.str() }},
	}
	for _, c := range cases {
		var d decoder
		d.reset(c.row, len(c.row))
		c.read(&d)
		if d.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	var d decoder
	d.reset(fakeRow{int64(zeroTimeNanos), nil, 2.5, int64(3), []byte{1}}, 5)
	if tm, tp, f, n, b := d.time(), d.timePtr(), d.float(), d.float(), d.blob(); d.err != nil || !tm.IsZero() || tp != nil || f != 2.5 || n != 3 || len(b) != 1 {
		t.Errorf("good row: %v %v %v %v %v %v", tm, tp, f, n, b, d.err)
	}
}
