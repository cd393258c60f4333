package httpapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/memory"
)

// storableRange is how a refused time's message states the range.
const storableRange = "the storable range 1900-01-01 to 2200-01-01"

// TestE2ETimeRange sends every time the API takes beyond the storable
// range (year 9999, year 1000, the zero time given explicitly) and within
// it: out of range is a 400 invalid_timestamp naming the field, the value
// and the range, and writes nothing; in range is served.
func TestE2ETimeRange(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	editor := f.e2eRemember(t, map[string]any{"text": "I prefer vim.", "subject": "user", "key": "prefers:editor", "value": "vim"})
	f.e2eRemember(t, map[string]any{"text": "Bob works at Initech."})
	// An export to import back with an episode's time changed.
	export := f.e2eDo(t, "GET", "/v1/export", nil)
	if export.status != http.StatusOK {
		t.Fatalf("export: %s", export)
	}
	importWith := func(at string) string {
		var out bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(export.body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			if ep, ok := rec["episode"].(map[string]any); ok {
				ep["occurred_at"] = at
			}
			line, _ := json.Marshal(rec)
			out.Write(append(line, '\n'))
		}
		return out.String()
	}

	type request struct {
		method, path string
		body         any
		hdr          []string
	}
	imports := 0
	fields := []struct {
		field string // as the message names it
		ok    int    // the status of a time in range
		req   func(at string) request
	}{
		// With wait, so extraction is over before the next request.
		{"events[0].occurred_at", http.StatusOK, func(at string) request {
			return request{"POST", "/v1/episodes?wait=true", map[string]any{"session_id": "s", "events": []any{
				map[string]any{"kind": "user_message", "content": "I moved to Oslo.", "occurred_at": at}}}, nil}
		}},
		{"observed_at", http.StatusCreated, func(at string) request {
			return request{"POST", "/v1/memories", map[string]any{"text": "I prefer emacs.", "subject": "user",
				"key": "prefers:editor", "value": "emacs", "observed_at": at}, nil}
		}},
		{"valid_from", http.StatusCreated, func(at string) request {
			return request{"POST", "/v1/memories", map[string]any{"text": "I drink tea.", "subject": "user",
				"key": "drinks", "value": "tea", "valid_from": at}, nil}
		}},
		{"valid_to", http.StatusCreated, func(at string) request {
			return request{"POST", "/v1/memories", map[string]any{"text": "I drink coffee.", "subject": "user",
				"key": "drinks", "value": "coffee", "valid_to": at}, nil}
		}},
		{"as_of", http.StatusOK, func(at string) request {
			return request{"POST", "/v1/memories/retrieve", map[string]any{"query": "which editor?", "as_of": at}, nil}
		}},
		{"known_at", http.StatusOK, func(at string) request {
			return request{"POST", "/v1/memories/retrieve", map[string]any{"query": "which editor?", "known_at": at}, nil}
		}},
		{"as_of", http.StatusOK, func(at string) request {
			return request{"GET", "/v1/graph/neighborhood?entity=bob&as_of=" + url.QueryEscape(at), nil, nil}
		}},
		{"occurred_at", http.StatusOK, func(at string) request {
			imports++
			return request{"POST", "/v1/import", importWith(at),
				[]string{"Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "imported-" + strconv.Itoa(imports)}}
		}},
	}
	values := []struct {
		name, at string
		ok       bool
	}{
		{"year 9999", "9999-12-31T00:00:00Z", false},
		{"year 1000", "1000-01-01T00:00:00Z", false},
		{"zero time", "0001-01-01T00:00:00Z", false},
		{"just past the end", "2200-01-01T00:00:00.000000001Z", false},
		{"valid", "2024-03-01T09:30:00Z", true},
	}
	nss := []string{memory.DefaultNamespace, "imported-1", "imported-2", "imported-3", "imported-4", "imported-5"}
	for _, fc := range fields {
		for _, v := range values {
			r := fc.req(v.at)
			t.Run(r.method+" "+strings.SplitN(r.path, "?", 2)[0]+" "+fc.field+"/"+v.name, func(t *testing.T) {
				before := f.e2eState(t, nss...)
				res := f.e2eDo(t, r.method, r.path, r.body, r.hdr...)
				if v.ok {
					if res.status != fc.ok {
						t.Fatalf("status %d, want %d: %s", res.status, fc.ok, res.body)
					}
					return
				}
				p := e2eProblem(t, res, http.StatusBadRequest, httpapi.CodeInvalidTimestamp)
				for _, want := range []string{fc.field + " " + v.at, storableRange} {
					if !strings.Contains(p.Detail, want) {
						t.Errorf("detail %q does not say %q", p.Detail, want)
					}
				}
				if after := f.e2eState(t, nss...); after != before {
					t.Errorf("a refused time changed the store:\n%s\n%s", before, after)
				}
			})
		}
	}
	// The zero time was refused, not taken as now: it superseded nothing.
	var shown struct {
		Versions []memory.Version `json:"versions"`
	}
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories/"+editor.MemoryID, nil), http.StatusOK, &shown)
	for _, v := range shown.Versions {
		if v.Value == "emacs" && v.ObservedAt.Year() != 2024 {
			t.Errorf("a refused observed_at stored a version: %+v", v)
		}
	}
}

// TestE2EAsOfRetrievalExplained retrieves as of times in the storable
// range, its two ends included, and explains and judges each retrieval
// afterwards: its trace was stored.
func TestE2EAsOfRetrievalExplained(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	f.e2eRemember(t, map[string]any{"text": "I live in Lisbon.", "subject": "user", "key": "lives_in", "value": "Lisbon",
		"valid_from": "1900-01-01T00:00:00Z"})
	const knownAt = "2200-01-01T00:00:00Z" // record time: everything held
	for _, at := range []string{"2025-06-01T12:00:00Z", "1900-01-01T00:00:00Z", "2200-01-01T00:00:00Z"} {
		var ret e2eRetrieveResp
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "where do I live?", "as_of": at, "known_at": knownAt}),
			http.StatusOK, &ret)
		if len(ret.Items) == 0 {
			t.Fatalf("as_of %s: nothing served", at)
		}
		f.eng.FlushTraces()
		var trace memory.Trace
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/retrievals/"+ret.RetrievalID, nil), http.StatusOK, &trace)
		if trace.ID != ret.RetrievalID || trace.AsOf == nil || trace.AsOf.Format(time.RFC3339) != at ||
			trace.KnownAt == nil || trace.KnownAt.Format(time.RFC3339) != knownAt {
			t.Errorf("as_of %s: trace %+v", at, trace)
		}
		if res := f.e2eDo(t, "GET", "/v1/memories/"+ret.RetrievalID+"/explain", nil); res.status != http.StatusOK {
			t.Errorf("as_of %s: explain: %s", at, res)
		}
		if res := f.e2eDo(t, "POST", "/v1/retrievals/"+ret.RetrievalID+"/feedback", map[string]any{"outcome": "unused"}); res.status != http.StatusOK {
			t.Errorf("as_of %s: feedback: %s", at, res)
		}
	}
}
