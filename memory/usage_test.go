package memory

import (
	"reflect"
	"testing"
)

// TestTraceDiagnosticsEncoding: a trace without notes or model usage
// encodes to nothing (the stores write NULL); one with either round-trips;
// an empty column (NULL, a row written before the column) decodes to
// neither; a damaged one is an error.
func TestTraceDiagnosticsEncoding(t *testing.T) {
	t.Parallel()
	usage := []ModelUsage{{Model: "m", Endpoint: "embeddings", Calls: 1, Errors: 1, DurationMicros: 300000}}
	for _, c := range []struct {
		name   string
		tr     Trace
		stored bool
		want   string
	}{
		{"neither", Trace{}, false, ""},
		{"empty slices", Trace{Notes: []string{}, Models: []ModelUsage{}}, false, ""},
		{"notes", Trace{Notes: []string{"models.reranked: x"}}, true, `{"notes":["models.reranked: x"]}`},
		{"models", Trace{Models: usage}, true, `{"models":[{"model":"m","endpoint":"embeddings","calls":1,"errors":1,"duration_us":300000}]}`},
	} {
		s, ok := c.tr.EncodeDiagnostics()
		if ok != c.stored || s != c.want {
			t.Errorf("%s: encoded %q, %v; want %q, %v", c.name, s, ok, c.want, c.stored)
			continue
		}
		var back Trace
		if err := back.DecodeDiagnostics(s); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if c.stored && (!reflect.DeepEqual(back.Notes, c.tr.Notes) || !reflect.DeepEqual(back.Models, c.tr.Models)) {
			t.Errorf("%s: read back %q %+v", c.name, back.Notes, back.Models)
		}
		if !c.stored && (back.Notes != nil || back.Models != nil) {
			t.Errorf("%s: NULL read back as %q %+v", c.name, back.Notes, back.Models)
		}
	}
	var tr Trace
	if err := tr.DecodeDiagnostics("{not json"); err == nil {
		t.Error("a damaged column decoded")
	}
	if s, ok := EncodeModels(nil); ok || s != "" {
		t.Errorf("no models encoded as %q", s)
	}
	if s, _ := EncodeModels(usage); s == "" {
		t.Error("models encoded as nothing")
	} else if back, err := DecodeModels(s); err != nil || !reflect.DeepEqual(back, usage) {
		t.Errorf("models read back %+v, %v", back, err)
	}
	if ms, err := DecodeModels(""); ms != nil || err != nil {
		t.Errorf("NULL models read back %+v, %v", ms, err)
	}
}
