package postgres

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// FuzzDecodeJSONB holds the hand parser of the evidence lists to
// encoding/json's answers: the same value, or an error from both.
func FuzzDecodeJSONB(f *testing.F) {
	for _, s := range []string{
		`null`, `[]`, `["a"]`, `["ep_1", "ep_2"]`, `[ "a" ,"b" ]`, `["\u00e9"]`, `["a\"b"]`, `["ü✓"]`,
		`[{"end": 81, "start": 0, "episode_id": "ep_1"}]`,
		`[{"episode_id":"a","start":-1,"end":2147483647}, {"end": 0, "start": 0, "episode_id": ""}]`,
		`[{"end": 1, "end": 2, "start": 0, "episode_id": "a"}]`, `[{"End": 1, "start": 0, "episode_id": "a"}]`,
		`[{"end": 01, "start": 0, "episode_id": "a"}]`, `[{"end": 1.5, "start": 0, "episode_id": "a"}]`,
		`[{"end": 1, "start": 0}]`, `[{"end": 1, "start": 0, "episode_id": "a", "x": 1}]`, `[1]`, `{}`, ``, `[`, `nul`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ids, wantIDs []string
		err := decodeJSONB("ids", b, &ids)
		wantErr := json.Unmarshal(b, &wantIDs)
		if (err == nil) != (wantErr == nil) || (err == nil && !reflect.DeepEqual(ids, wantIDs)) {
			t.Errorf("%q as strings: %#v, %v; encoding/json %#v, %v", b, ids, err, wantIDs, wantErr)
		}
		var spans, wantSpans []memory.Span
		err = decodeJSONB("spans", b, &spans)
		wantErr = json.Unmarshal(b, &wantSpans)
		if (err == nil) != (wantErr == nil) || (err == nil && !reflect.DeepEqual(spans, wantSpans)) {
			t.Errorf("%q as spans: %#v, %v; encoding/json %#v, %v", b, spans, err, wantSpans, wantErr)
		}
	})
}

// The hand parser takes the shapes PostgreSQL prints, without falling back.
func TestParseJSONBFastPath(t *testing.T) {
	if v, ok := parseJSONStrings([]byte(`["ep_1", "ep_2"]`)); !ok || !reflect.DeepEqual(v, []string{"ep_1", "ep_2"}) {
		t.Errorf("strings: %v %v", v, ok)
	}
	if v, ok := parseJSONStrings([]byte(`null`)); !ok || v != nil {
		t.Errorf("null strings: %#v %v", v, ok)
	}
	want := []memory.Span{{EpisodeID: "ep_1", Start: 0, End: 81}, {EpisodeID: "ep_2", Start: -3, End: 4}}
	if v, ok := parseJSONSpans([]byte(`[{"end": 81, "start": 0, "episode_id": "ep_1"}, {"end": 4, "start": -3, "episode_id": "ep_2"}]`)); !ok || !reflect.DeepEqual(v, want) {
		t.Errorf("spans: %v %v", v, ok)
	}
	if v, ok := parseJSONSpans([]byte(`[]`)); !ok || v == nil || len(v) != 0 {
		t.Errorf("empty spans: %#v %v", v, ok)
	}
}
