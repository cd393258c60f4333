package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"testing"

	"github.com/mnemon-dev/mnemon/jobs"
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

// A job that fails on the store shows clients that it failed, never the
// store's text (SQL, file paths, driver messages): the job's error is part
// of the API like a problem's detail.
func TestJobErrorHidesInternalText(t *testing.T) {
	f := e2eOpen(t, e2eOptions{})
	_, err := f.store.WriterDB().Exec(`CREATE TRIGGER review_fail BEFORE INSERT ON admissions
		BEGIN SELECT RAISE(ABORT, 'disk error at /work/secret/mnemon.db during insert into admissions'); END`)
	if err != nil {
		t.Fatal(err)
	}
	r := f.e2eDo(t, "POST", "/v1/episodes", map[string]any{"session_id": "s1",
		"events": []map[string]any{e2eEvent("user_message", "I work at Acme Corp as a pilot.", time.Now().Add(-time.Minute))}})
	var c e2eCaptureResp
	e2eJSON(t, r, http.StatusAccepted, &c)
	var job jobs.Job
	e2eEventually(t, 20*time.Second, "the job's first attempt fails", func() bool {
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/jobs/"+c.JobID, nil), http.StatusOK, &job)
		return job.Error != ""
	})
	if e2eLeak.MatchString(job.Error) || strings.Contains(job.Error, "secret") {
		t.Errorf("job error shows internal text: %q", job.Error)
	}
}

// A body with a stray closing bracket after the object is not JSON: it is
// refused like any other malformed body, and nothing is written.
func TestTrailingBracketIsMalformed(t *testing.T) {
	f := e2eOpen(t, e2eOptions{})
	before := f.e2eState(t, "default")
	for _, body := range []string{`{"text":"I prefer tea over coffee."}}`, `{"text":"I prefer tea over coffee."}]`} {
		r := f.e2eDo(t, "POST", "/v1/memories", body)
		e2eProblem(t, r, http.StatusBadRequest, "malformed_json")
	}
	if after := f.e2eState(t, "default"); after != before {
		t.Errorf("a refused body wrote:\n%s\nthen\n%s", before, after)
	}
}
