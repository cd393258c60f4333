package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/memory"
)

// The inspector's reads: GET /v1/versions walks a namespace page by page,
// newest first, with no gap and no repeat, filtered server-side; bad
// filters and cursors are refused; /v1/caller tells a reader from an admin;
// retrying a job needs an admin.
func TestInspectorRoutes(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	admin, _ := f.e2eKey(t, "acme", memory.RoleAdmin)
	reader, _ := f.e2eKey(t, "acme", memory.RoleReader)
	as := func(key string) []string { return []string{"Authorization", "Bearer " + key} }
	var want []string // memory ids, oldest first
	for i := range 7 {
		rr := f.e2eRemember(t, map[string]any{"text": fmt.Sprintf("Fact number %d.", i), "key": fmt.Sprintf("fact:%d", i),
			"value": fmt.Sprint(i), "type": "fact", "subject": "team"}, as(admin)...)
		want = append(want, rr.MemoryID)
	}
	slices.Reverse(want)

	var walked []string
	cursor, pages := "", 0
	for {
		var page wire.VersionPage
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/versions?kind=semantic&subject=team&limit=3&cursor="+cursor, nil, as(reader)...), http.StatusOK, &page)
		for _, v := range page.Versions {
			walked = append(walked, v.MemoryID)
		}
		pages++
		if page.NextCursor == "" || pages > 5 {
			break
		}
		cursor = page.NextCursor
	}
	if !slices.Equal(walked, want) || pages != 3 {
		t.Errorf("walked %v in %d pages, want %v in 3", walked, pages, want)
	}
	var found wire.VersionPage
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/versions?q=NUMBER%203&status=active&kind=semantic", nil, as(reader)...), http.StatusOK, &found)
	if len(found.Versions) != 1 || found.Versions[0].MemoryID != want[3] {
		t.Errorf("q=NUMBER 3: %+v", found.Versions)
	}
	for _, bad := range []string{"status=alive", "kind=semantics", "cursor=nope", "limit=501", "since=yesterday",
		"since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z"} {
		r := f.e2eDo(t, "GET", "/v1/versions?"+bad, nil, as(reader)...)
		if r.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", bad, r.status, r.body)
		}
	}

	var rc, ac wire.Caller
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/caller", nil, as(reader)...), http.StatusOK, &rc)
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/caller", nil, as(admin)...), http.StatusOK, &ac)
	if rc.Role != "reader" || rc.Namespace != "acme" || rc.OpenMode || slices.Contains(rc.Allowed, "DELETE /v1/memories/{id}") ||
		!slices.Contains(rc.Allowed, "GET /v1/versions") {
		t.Errorf("reader caller: %+v", rc)
	}
	if ac.Role != "admin" || !slices.Contains(ac.Allowed, "DELETE /v1/memories/{id}") || !slices.Contains(ac.Allowed, "POST /v1/jobs/{id}/retry") {
		t.Errorf("admin caller: %+v", ac)
	}
	e2eProblem(t, f.e2eDo(t, "POST", "/v1/jobs/job_1/retry", nil, as(reader)...), http.StatusForbidden, "forbidden")
	e2eProblem(t, f.e2eDo(t, "POST", "/v1/jobs/job_999999/retry", nil, as(admin)...), http.StatusNotFound, "not_found")

	var adm wire.AdmissionList
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/admissions?decision=accept&limit=3", nil, as(reader)...), http.StatusOK, &adm)
	if len(adm.Admissions) != 3 || !slices.ContainsFunc(adm.Admissions, func(a *wire.Admission) bool { return a.MemoryID == want[0] }) {
		t.Errorf("admissions: %d, without the newest memory %s", len(adm.Admissions), want[0])
	}
	for _, a := range adm.Admissions {
		if a.Decision != "accept" {
			t.Errorf("decision=accept listed %s", a.Decision)
		}
	}
	var st wire.Stats
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/stats?days=2&hours=3", nil, as(reader)...), http.StatusOK, &st)
	written := 0
	for _, b := range st.Writes {
		written += b.Count
	}
	if len(st.Writes) != 2 || len(st.Retrievals) != 3 || written < 7 || st.Memories < 7 {
		t.Errorf("stats: %+v", st)
	}
}

// GET /v1/namespaces: an admin key and open mode list every namespace the
// store holds (and their own, even empty); reader and writer keys see only
// their own.
func TestListNamespaces(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	as := func(key string) []string { return []string{"Authorization", "Bearer " + key} }
	acmeAdmin, _ := f.e2eKey(t, "acme", memory.RoleAdmin)
	acmeReader, _ := f.e2eKey(t, "acme", memory.RoleReader)
	betaWriter, _ := f.e2eKey(t, "beta", memory.RoleWriter)
	gammaAdmin, _ := f.e2eKey(t, "gamma", memory.RoleAdmin)
	f.e2eRemember(t, map[string]any{"text": "I prefer tea."}, as(acmeAdmin)...)
	f.e2eRemember(t, map[string]any{"text": "I prefer coffee."}, as(betaWriter)...)
	for _, tc := range []struct {
		name, key string
		want      []string
		all       bool
	}{
		{"admin", acmeAdmin, []string{"acme", "beta"}, true},
		{"reader", acmeReader, []string{"acme"}, false},
		{"writer", betaWriter, []string{"beta"}, false},
		{"admin of an empty namespace", gammaAdmin, []string{"acme", "beta", "gamma"}, true},
	} {
		var got wire.NamespaceList
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/namespaces", nil, as(tc.key)...), http.StatusOK, &got)
		if !slices.Equal(got.Namespaces, tc.want) || got.All != tc.all {
			t.Errorf("%s: %+v, want %v (all %v)", tc.name, got, tc.want, tc.all)
		}
	}
	e2eProblem(t, f.e2eDo(t, "GET", "/v1/namespaces", nil), http.StatusUnauthorized, "unauthenticated")

	open := e2eOpen(t, e2eOptions{})
	for _, ns := range []string{"zeta", "alpha"} {
		open.e2eRemember(t, map[string]any{"text": "I prefer tea."}, "X-Mnemon-Namespace", ns)
	}
	var got wire.NamespaceList
	e2eJSON(t, open.e2eDo(t, "GET", "/v1/namespaces", nil, "X-Mnemon-Namespace", "alpha"), http.StatusOK, &got)
	if !slices.Equal(got.Namespaces, []string{"alpha", "zeta"}) || !got.All || got.Current != "alpha" {
		t.Errorf("open mode: %+v", got)
	}
}

// GET /v1/reports: the last lifecycle, consolidation and procedure reports
// run through the API, per namespace, in this process.
func TestLastReports(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	as := func(key string) []string { return []string{"Authorization", "Bearer " + key} }
	admin, _ := f.e2eKey(t, "acme", memory.RoleAdmin)
	reader, _ := f.e2eKey(t, "acme", memory.RoleReader)
	other, _ := f.e2eKey(t, "beta", memory.RoleAdmin)
	f.e2eRemember(t, map[string]any{"text": "I prefer tea."}, as(admin)...)
	f.e2eRemember(t, map[string]any{"text": "I prefer coffee."}, as(other)...)

	var none wire.Reports
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/reports", nil, as(reader)...), http.StatusOK, &none)
	if none.Lifecycle != nil || none.Consolidation != nil || none.Procedures != nil {
		t.Errorf("before any run: %+v", none)
	}
	var lc wire.LifecycleRunResponse
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/lifecycle/run", map[string]any{"dedupe": true}, as(admin)...), http.StatusOK, &lc)
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/procedures/promote", nil, as(admin)...), http.StatusOK, nil)
	var got wire.Reports
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/reports", nil, as(reader)...), http.StatusOK, &got)
	if got.Lifecycle == nil || got.Lifecycle.At.IsZero() || got.Lifecycle.DryRun || got.Lifecycle.Report.Dedupe == nil ||
		got.Procedures == nil || got.Consolidation != nil {
		t.Fatalf("after lifecycle and promote: %+v", got)
	}
	if got.Lifecycle.Report.Lifecycle.Expired != lc.Lifecycle.Expired {
		t.Errorf("kept lifecycle report %+v, the run answered %+v", got.Lifecycle.Report, lc)
	}
	var beta wire.Reports
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/reports", nil, as(other)...), http.StatusOK, &beta)
	if beta.Lifecycle != nil || beta.Procedures != nil {
		t.Errorf("another namespace sees acme's reports: %+v", beta)
	}
}
