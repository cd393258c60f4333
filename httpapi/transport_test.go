package httpapi_test

// Transport edges and messages: what a client sees at the HTTP layer, on a
// real server on loopback over a real database.

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/memory"
)

// TestE2EMessages checks that type errors name the field and the value as
// a client wrote them, and that the import conflict gives advice an HTTP
// client can follow.
func TestE2EMessages(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	f.e2eRemember(t, map[string]any{"text": "I live in Lima."})
	at := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	capture := func(meta string) string {
		return `{"session_id":"s","events":[{"kind":"user_message","content":"Hi.","occurred_at":"` + at + `","metadata":` + meta + `}]}`
	}
	for _, tc := range []struct {
		name, path, body, detail string
	}{
		{"fraction for an integer", "/v1/memories/retrieve", `{"query":"home","limit":1.5}`, "field limit must be an integer, not 1.5"},
		{"huge integer", "/v1/memories/retrieve", `{"query":"home","limit":1e30}`, "field limit must be an integer, not 1e30 (out of range)"},
		{"word for an integer", "/v1/memories/retrieve", `{"query":"home","token_budget":"ten"}`, "field token_budget must be an integer, not a string"},
		{"word for a number", "/v1/memories", `{"text":"I like figs.","confidence":"high"}`, "field confidence must be a number, not a string"},
		{"number for a string", "/v1/memories", `{"text":3}`, "field text must be a string, not a number"},
		{"bool for a string", "/v1/memories", `{"text":true}`, "field text must be a string, not true or false"},
		{"nested object in metadata", "/v1/episodes", capture(`{"source":"chat","team":{"name":"x"}}`), "field events.metadata.team must be a string, not an object"},
		{"array in metadata", "/v1/episodes", capture(`{"tags":["a"]}`), "field events.metadata.tags must be a string, not an array"},
		{"number in metadata", "/v1/episodes", capture(`{"n":3}`), "field events.metadata.n must be a string, not a number"},
		{"metadata not an object", "/v1/episodes", capture(`["a"]`), "field events.metadata must be an object, not an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.e2eState(t, memory.DefaultNamespace)
			p := e2eProblem(t, f.e2eDo(t, "POST", tc.path, tc.body), http.StatusBadRequest, "invalid_request")
			if p.Detail != tc.detail {
				t.Errorf("detail %q, want %q", p.Detail, tc.detail)
			}
			if after := f.e2eState(t, memory.DefaultNamespace); after != before {
				t.Errorf("state changed:\n%s\n%s", before, after)
			}
		})
	}

	t.Run("string metadata is kept", func(t *testing.T) {
		var c e2eCaptureResp
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/episodes?wait=true", capture(`{"source":"chat","empty":null}`)), http.StatusOK, &c)
		ep, err := f.store.GetEpisode(t.Context(), memory.GetParams{Namespace: memory.DefaultNamespace, ID: c.EpisodeIDs[0]})
		if err != nil {
			t.Fatal(err)
		}
		if ep.Metadata["source"] != "chat" || ep.Metadata["empty"] != "" {
			t.Errorf("metadata %v", ep.Metadata)
		}
	})

	t.Run("import conflict names the HTTP way out", func(t *testing.T) {
		export := f.e2eDo(t, "GET", "/v1/export", nil).body
		ndjson := []string{"Content-Type", "application/x-ndjson"}
		p := e2eProblem(t, f.e2eDo(t, "POST", "/v1/import", export, ndjson...), http.StatusConflict, "conflict")
		for _, want := range []string{`namespace "default" already holds`, "nothing was imported", "X-Mnemon-Namespace"} {
			if !strings.Contains(p.Detail, want) {
				t.Errorf("detail %q lacks %q", p.Detail, want)
			}
		}
		if strings.Contains(p.Detail, "--") || strings.Contains(p.Detail, "conflict:") {
			t.Errorf("detail %q shows a CLI flag or the sentinel", p.Detail)
		}
		// The advice works: the same export goes into a new namespace.
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/import", export, append(ndjson, "X-Mnemon-Namespace", "copy")...), http.StatusOK, nil)

		admin, _ := f.e2eKey(t, "copy", memory.RoleAdmin)
		p = e2eProblem(t, f.e2eDo(t, "POST", "/v1/import", export, append(ndjson, "Authorization", "Bearer "+admin)...), http.StatusConflict, "conflict")
		if !strings.Contains(p.Detail, "admin key") || strings.Contains(p.Detail, "X-Mnemon-Namespace") {
			t.Errorf("with a key, detail %q", p.Detail)
		}
	})
}

// TestE2EUnknownQueryParameters checks that /v1 refuses a query parameter
// it does not take, as it refuses an unknown body field, and writes
// nothing.
func TestE2EUnknownQueryParameters(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	seed := f.e2eRemember(t, map[string]any{"text": "I live in Quito."})
	at := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	capture := map[string]any{"session_id": "s", "events": []any{map[string]any{"kind": "user_message", "content": "I like pears.", "occurred_at": at}}}
	for _, tc := range []struct {
		name, method, path string
		body               any
		detail             string
	}{
		{"misspelt limit", "GET", "/v1/memories?limt=5", nil, `unknown query parameter "limt" (GET /v1/memories takes include_history, subject, limit)`},
		{"misspelt wait", "POST", "/v1/episodes?wiat=true", capture, `unknown query parameter "wiat" (POST /v1/episodes takes wait)`},
		{"a body route", "POST", "/v1/memories?text=hi", map[string]any{"text": "I like plums."}, `unknown query parameter "text" (POST /v1/memories takes none)`},
		{"retrieve", "POST", "/v1/memories/retrieve?debug=1", map[string]any{"query": "home"}, `unknown query parameter "debug"`},
		{"a path route", "GET", "/v1/memories/" + seed.MemoryID + "?verbose", nil, `unknown query parameter "verbose"`},
		{"known and unknown", "GET", "/v1/graph/neighborhood?entity=user&depth=2", nil, `unknown query parameter "depth"`},
		{"twice", "GET", "/v1/memories?limit=1&limit=2", nil, `query parameter "limit" is given 2 times; give it once`},
		{"bad encoding", "GET", "/v1/memories?limit=%zz", nil, "the query string is not valid URL encoding"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.e2eState(t, memory.DefaultNamespace)
			p := e2eProblem(t, f.e2eDo(t, tc.method, tc.path, tc.body), http.StatusBadRequest, "invalid_request")
			if !strings.HasPrefix(p.Detail, tc.detail) {
				t.Errorf("detail %q, want it to start %q", p.Detail, tc.detail)
			}
			if after := f.e2eState(t, memory.DefaultNamespace); after != before {
				t.Errorf("state changed:\n%s\n%s", before, after)
			}
		})
	}
	t.Run("known parameters are taken", func(t *testing.T) {
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories?limit=1&include_history=true&subject=user", nil), http.StatusOK, nil)
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/graph/neighborhood?entity=user&hops=2", nil), http.StatusOK, nil)
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/episodes?wait=true", capture), http.StatusOK, nil)
	})
	t.Run("probes take anything", func(t *testing.T) {
		for _, p := range []string{"/healthz?probe=1", "/readyz?x", "/openapi.json?v=2"} {
			e2eJSON(t, f.e2eDo(t, "GET", p, nil), http.StatusOK, nil)
		}
	})
	t.Run("an unknown route is still a 404", func(t *testing.T) {
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/nope?x=1", nil), http.StatusNotFound, "not_found")
	})
}

// TestE2EKeyNamespaceHeader checks that a key bound to one namespace,
// sent with X-Mnemon-Namespace naming another, is refused instead of
// being answered from its own namespace; naming its own is fine.
func TestE2EKeyNamespaceHeader(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	raw, _ := f.e2eKey(t, "alpha", memory.RoleAdmin)
	auth := []string{"Authorization", "Bearer " + raw}
	f.e2eRemember(t, map[string]any{"text": "I live in Cusco."}, auth...)
	for _, tc := range []struct {
		name, header string
		status       int
	}{
		{"own namespace", "alpha", http.StatusOK},
		{"own namespace with spaces", " alpha ", http.StatusOK},
		{"another namespace", "beta", http.StatusForbidden},
		{"the default namespace", "default", http.StatusForbidden},
		{"an invalid namespace", "../alpha", http.StatusForbidden},
		{"another case", "Alpha", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, req := range []struct {
				method, path string
				body         any
			}{
				{"GET", "/v1/memories", nil},
				{"POST", "/v1/memories", map[string]any{"text": "I like kiwis."}},
				{"POST", "/v1/memories/retrieve", map[string]any{"query": "where do I live?"}},
			} {
				before := f.e2eState(t, "alpha", "beta", memory.DefaultNamespace)
				r := f.e2eDo(t, req.method, req.path, req.body, append(auth, "X-Mnemon-Namespace", tc.header)...)
				if tc.status == http.StatusOK {
					if r.status >= 300 {
						t.Errorf("%s %s: %s", req.method, req.path, r)
					}
					continue
				}
				p := e2eProblem(t, r, tc.status, "forbidden")
				if want := `this key acts in namespace "alpha" only`; !strings.Contains(p.Detail, want) {
					t.Errorf("detail %q lacks %q", p.Detail, want)
				}
				if after := f.e2eState(t, "alpha", "beta", memory.DefaultNamespace); after != before {
					t.Errorf("%s %s wrote:\n%s\n%s", req.method, req.path, before, after)
				}
			}
		})
	}
}

// TestE2ETransportProblems checks the answers net/http would otherwise
// give itself, as text or HTML: headers too large and paths the mux
// would redirect. Each is a problem, with the request id, and writes
// nothing.
func TestE2ETransportProblems(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	seed := f.e2eRemember(t, map[string]any{"text": "I live in Sucre."})

	t.Run("headers too large", func(t *testing.T) {
		before := f.e2eState(t, memory.DefaultNamespace)
		big := strings.Repeat("x", 100<<10)
		for _, req := range []struct{ method, path string }{
			{"GET", "/v1/memories"}, {"POST", "/v1/memories"}, {"GET", "/healthz"}, {"GET", "/v1/nope"},
		} {
			r := f.e2eDo(t, req.method, req.path, `{"text":"I like dates."}`, "X-Padding", big)
			p := e2eProblem(t, r, http.StatusRequestHeaderFieldsTooLarge, "headers_too_large")
			if !strings.Contains(p.Detail, "64 KiB") {
				t.Errorf("detail %q does not say the limit", p.Detail)
			}
		}
		// A long query string counts too.
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories?subject="+big, nil), http.StatusRequestHeaderFieldsTooLarge, "headers_too_large")
		if after := f.e2eState(t, memory.DefaultNamespace); after != before {
			t.Errorf("state changed:\n%s\n%s", before, after)
		}
		// Just under the limit is served.
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories", nil, "X-Padding", strings.Repeat("x", 60<<10)), http.StatusOK, nil)
	})

	t.Run("paths the mux would redirect", func(t *testing.T) {
		for _, tc := range []struct{ method, path, clean string }{
			{"GET", "/v1/../v1/memories", "/v1/memories"},
			{"GET", "/v1/./memories", "/v1/memories"},
			{"GET", "/v1//memories", "/v1/memories"},
			{"GET", "//v1/memories", "/v1/memories"},
			{"GET", "/v1/memories/.", "/v1/memories"},
			{"GET", "/v1/memories/" + seed.MemoryID + "/..", "/v1/memories"},
			{"POST", "/v1/../v1/memories", "/v1/memories"},
			{"DELETE", "/v1/memories/x/../" + seed.MemoryID, "/v1/memories/" + seed.MemoryID},
			{"GET", "/../../etc/passwd", "/etc/passwd"},
		} {
			t.Run(tc.method+" "+tc.path, func(t *testing.T) {
				before := f.e2eState(t, memory.DefaultNamespace)
				var body any
				if tc.method == "POST" {
					body = map[string]any{"text": "I like limes."}
				}
				r := f.e2eDo(t, tc.method, tc.path, body)
				p := e2eProblem(t, r, http.StatusNotFound, "not_found")
				if r.header.Get("Location") != "" {
					t.Errorf("a redirect to %q", r.header.Get("Location"))
				}
				if !strings.Contains(p.Detail, "did you mean "+tc.clean+"?") {
					t.Errorf("detail %q does not name %s", p.Detail, tc.clean)
				}
				if after := f.e2eState(t, memory.DefaultNamespace); after != before {
					t.Errorf("state changed:\n%s\n%s", before, after)
				}
			})
		}
		// The memory is still there: the DELETE above did nothing.
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories/"+seed.MemoryID, nil), http.StatusOK, nil)
	})

	t.Run("unknown routes and methods", func(t *testing.T) {
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories/", nil), http.StatusNotFound, "not_found")
		e2eProblem(t, f.e2eDo(t, "OPTIONS", "/v1/memories", nil), http.StatusMethodNotAllowed, "method_not_allowed")
	})
}

// TestE2EOpenModeRateLimit checks the rate limit of open mode: none when
// turned off (serve's default on loopback) while keys stay limited, and
// when on, a 429 that speaks of the client, as there is no key.
func TestE2EOpenModeRateLimit(t *testing.T) {
	t.Parallel()
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		f := e2eOpen(t, e2eOptions{limits: httpapi.Limits{RatePerSecond: 0.001, RateBurst: 2, OpenRatePerSecond: -1}})
		f.e2eRemember(t, map[string]any{"text": "I live in Tarija."})
		for i := range 300 {
			if r := f.e2eDo(t, "GET", "/v1/memories?limit=1", nil); r.status != http.StatusOK {
				t.Fatalf("request %d in open mode: %s", i+1, r)
			}
		}
		// A key is still limited: the key mode's rate is 0.001/s here.
		raw, _ := f.e2eKey(t, memory.DefaultNamespace, memory.RoleReader)
		var r *e2eResp
		for range 3 {
			r = f.e2eDo(t, "GET", "/v1/memories?limit=1", nil, "Authorization", "Bearer "+raw)
		}
		p := e2eProblem(t, r, http.StatusTooManyRequests, "rate_limited")
		if !strings.Contains(p.Detail, "for this key") {
			t.Errorf("detail %q", p.Detail)
		}
	})
	t.Run("on", func(t *testing.T) {
		t.Parallel()
		f := e2eOpen(t, e2eOptions{limits: httpapi.Limits{RatePerSecond: 1e6, RateBurst: 2, OpenRatePerSecond: 0.001}})
		var r *e2eResp
		for range 3 {
			r = f.e2eDo(t, "GET", "/v1/memories", nil)
		}
		p := e2eProblem(t, r, http.StatusTooManyRequests, "rate_limited")
		if !strings.Contains(p.Detail, "for this client") || strings.Contains(p.Detail, "key") {
			t.Errorf("open mode's 429 says %q", p.Detail)
		}
	})
}

// TestE2EJobIDsAreOpaque checks that a capture's job id tells nothing of
// how many jobs the server ran: it is found by that id only, not by
// River's number for it, and only in its namespace.
func TestE2EJobIDsAreOpaque(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	at := time.Now().Add(-time.Minute)
	first := f.e2eCapture(t, "s1", []map[string]any{e2eEvent("user_message", "I live in Potosi.", at)})
	second := f.e2eCapture(t, "s2", []map[string]any{e2eEvent("user_message", "I drive a red van.", at)})
	opaque := regexp.MustCompile(`^job_[0-9a-hjkmnp-tv-z]{26}$`)
	for _, id := range []string{first.JobID, second.JobID} {
		if !opaque.MatchString(id) {
			t.Fatalf("job id %q is not opaque", id)
		}
		var job struct {
			ID    string `json:"id"`
			State string `json:"state"`
		}
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/jobs/"+id, nil), http.StatusOK, &job)
		if job.ID != id || job.State != "succeeded" {
			t.Errorf("GET /v1/jobs/%s: %+v", id, job)
		}
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/jobs/"+id, nil, "X-Mnemon-Namespace", "other"), http.StatusNotFound, "not_found")
		var n int64
		if err := f.store.WriterDB().QueryRowContext(t.Context(), "SELECT id FROM river_job WHERE json_extract(args, '$.public_id') = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/jobs/job_"+strconv.FormatInt(n, 10), nil), http.StatusNotFound, "not_found")
	}
	if first.JobID == second.JobID {
		t.Fatalf("two captures' jobs share id %s", first.JobID)
	}
	p := e2eProblem(t, f.e2eDo(t, "GET", "/v1/jobs/job_01jv4n3s8m6d0c9x2qf7a5k1e", nil), http.StatusBadRequest, "invalid_request")
	if !strings.Contains(p.Detail, "job ids look like job_") {
		t.Errorf("detail %q", p.Detail)
	}
	e2eProblem(t, f.e2eDo(t, "GET", "/v1/jobs/job_01jv4n3s8m6d0c9x2qf7a5k1ew", nil), http.StatusNotFound, "not_found")
}
