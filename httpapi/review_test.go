package httpapi_test

import (
	"fmt"
	"testing"
)

// Request methods are chosen by clients, anonymous ones included: the
// latency histogram must not grow a series for every method a client
// makes up, or anyone who can reach the port grows the server's memory
// and every scrape without bound.
func TestMetricsMethodLabelBounded(t *testing.T) {
	f := e2eOpen(t, e2eOptions{})
	for i := range 50 {
		f.e2eDo(t, fmt.Sprintf("M%d", i), "/v1/nowhere", nil)
		f.e2eDo(t, fmt.Sprintf("X%d", i), "/v1/memories", nil)
	}
	mfs, err := f.api.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{}
	for _, mf := range mfs {
		if mf.GetName() != "mnemon_http_request_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "method" {
					methods[l.GetValue()] = true
				}
			}
		}
	}
	if len(methods) > 10 {
		t.Errorf("%d method labels after 100 made-up methods: %v", len(methods), methods)
	}
	if !methods["OTHER"] {
		t.Errorf("made-up methods are not counted as OTHER: %v", methods)
	}
}
