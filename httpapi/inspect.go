package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/httpapi/wireconv"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
)

// The inspector's reads (the web UI at /ui/ calls them; so may anyone):
// versions a page at a time, the admission log, jobs, activity and who the
// caller is.

// versionParams documents the query of GET /v1/versions. The names are
// no language's keywords: the SDKs turn them into parameters.
var versionParams = []Param{
	{Name: "kind", In: "query", Type: "string", Doc: "Only these kinds, comma-separated: episodic, semantic, procedural."},
	{Name: "type", In: "query", Type: "string", Doc: "Only these types, comma-separated: fact, preference, decision, constraint, goal, lesson, procedure, summary."},
	{Name: "status", In: "query", Type: "string", Doc: "Only these statuses, comma-separated: candidate, active, contested, superseded, expired, deleted, quarantined. Absent: every status."},
	{Name: "subject", In: "query", Type: "string", Doc: "Only versions about this subject (exactly)."},
	{Name: "agent_id", In: "query", Type: "string", Doc: "Only versions scoped to this agent."},
	{Name: "user_id", In: "query", Type: "string", Doc: "Only versions scoped to this user."},
	{Name: "project_id", In: "query", Type: "string", Doc: "Only versions scoped to this project."},
	{Name: "session_id", In: "query", Type: "string", Doc: "Only versions said in this session."},
	{Name: "since", In: "query", Type: "string", Doc: "Only versions recorded at or after this time (RFC 3339)."},
	{Name: "until", In: "query", Type: "string", Doc: "Only versions recorded before this time (RFC 3339)."},
	{Name: "q", In: "query", Type: "string", Doc: "Only versions whose content contains this text (case-insensitive)."},
	{Name: "cursor", In: "query", Type: "string", Doc: "The next_cursor of the previous page."},
	{Name: "limit", In: "query", Type: "integer", Doc: "Versions per page (1-500; 0 or absent: the default, 50)."},
}

func (s *Server) pageVersions(w http.ResponseWriter, r *request) error {
	q := r.URL.Query()
	p := engine.PageParams{Cursor: q.Get("cursor")}
	p.Namespace = r.caller.ns
	p.Subject = q.Get("subject")
	p.Scope = scopeOf(q.Get("agent_id"), q.Get("user_id"), q.Get("project_id"), q.Get("session_id"))
	p.Text = q.Get("q")
	p.Kinds = listParam[memory.Kind](q.Get("kind"))
	p.Types = listParam[memory.Type](q.Get("type"))
	p.Statuses = listParam[memory.Status](q.Get("status"))
	var err error
	if p.Limit, err = limitParam(r, engine.MaxPage, 50); err != nil {
		return err
	}
	since, err := timeField("since", q.Get("since"))
	if err != nil {
		return err
	}
	until, err := timeField("until", q.Get("until"))
	if err != nil {
		return err
	}
	if since != nil {
		p.Since = *since
	}
	if until != nil {
		p.Until = *until
	}
	if err := s.knownNamespace(r); err != nil {
		return err
	}
	page, err := s.cfg.Engine.PageVersions(r.Context(), p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, wire.VersionPage{Versions: versionList(page.Versions), NextCursor: page.NextCursor})
}

// listParam splits a comma-separated list; empty items are dropped.
func listParam[T ~string](v string) []T {
	var out []T
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, T(s))
		}
	}
	return out
}

func (s *Server) listAdmissions(w http.ResponseWriter, r *request) error {
	limit, err := limitParam(r, engine.MaxPage, 100)
	if err != nil {
		return err
	}
	if err := s.knownNamespace(r); err != nil {
		return err
	}
	as, err := s.cfg.Engine.Admissions(r.Context(), engine.AdmissionsParams{Namespace: r.caller.ns,
		Decision: memory.AdmissionDecision(r.URL.Query().Get("decision")), Limit: limit})
	if err != nil {
		return err
	}
	out := wire.AdmissionList{Admissions: make([]*wire.Admission, len(as))}
	for i, a := range as {
		out.Admissions[i] = wireconv.Admission(a)
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) listJobs(w http.ResponseWriter, r *request) error {
	limit, err := limitParam(r, engine.MaxPage, 50)
	if err != nil {
		return err
	}
	p := jobs.ListParams{Namespace: r.caller.ns, Limit: limit}
	if st := r.URL.Query().Get("state"); st != "" {
		p.States = []string{st}
	}
	js, err := s.cfg.Queue.List(r.Context(), p)
	if err != nil {
		return err
	}
	out := wire.JobList{Jobs: make([]*wire.Job, len(js))}
	for i, j := range js {
		out.Jobs[i] = wireconv.Job(j)
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) retryJob(w http.ResponseWriter, r *request) error {
	job, err := s.cfg.Queue.Retry(r.Context(), r.caller.ns, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, wireconv.Job(job))
}

func (s *Server) stats(w http.ResponseWriter, r *request) error {
	days, err := intParam(r, "days", "use 1 to 90")
	if err != nil {
		return err
	}
	hours, err := intParam(r, "hours", "use 1 to 168")
	if err != nil {
		return err
	}
	if days == 0 {
		days = 30
	}
	if hours == 0 {
		hours = 24
	}
	if err := s.knownNamespace(r); err != nil {
		return err
	}
	a, err := s.cfg.Engine.Activity(r.Context(), engine.ActivityParams{Namespace: r.caller.ns, Days: days, Hours: hours, Now: s.cfg.Clock.Now()})
	if err != nil {
		return err
	}
	out := wire.Stats{Namespace: a.Namespace, Episodes: a.Episodes, Memories: a.Memories, Versions: map[string]int{},
		Admissions: a.Admissions, Traces: a.Traces, Indexed: a.Indexed, P95Ms: float64(a.P95Micros) / 1000, Truncated: a.Truncated,
		Writes: make([]wire.Bucket, len(a.Writes)), Retrievals: make([]wire.Bucket, len(a.Retrievals))}
	for st, n := range a.Versions {
		out.Versions[string(st)] = n
	}
	for i, b := range a.Writes {
		out.Writes[i] = wire.Bucket{Start: b.Start, Count: b.Count}
	}
	for i, b := range a.Retrievals {
		out.Retrievals[i] = wire.Bucket{Start: b.Start, Count: b.Count, P95Ms: float64(b.P95Micros) / 1000}
	}
	return writeJSON(w, http.StatusOK, out)
}

// callerInfo says who the key is and what it may call, so a client (the
// inspector) offers only the actions the key may take.
func (s *Server) callerInfo(w http.ResponseWriter, r *request) error {
	open := r.caller.keyID == ""
	out := wire.Caller{Namespace: r.caller.ns, Role: string(r.caller.role), KeyID: r.caller.keyID, OpenMode: open, Allowed: []string{}}
	for _, rt := range s.table {
		if !rt.public && r.caller.role.Allows(rt.Role) {
			out.Allowed = append(out.Allowed, rt.name())
		}
	}
	return writeJSON(w, http.StatusOK, out)
}

// listNamespaces names the namespaces the caller may look at. Every key is
// bound to one namespace; an admin key is an operator's (it already sees
// every namespace's name in /metrics), so it gets the whole list, to pick a
// namespace whose key to use. Reader and writer keys learn nothing about
// other tenants. In open mode any namespace may be named per request.
func (s *Server) listNamespaces(w http.ResponseWriter, r *request) error {
	open := r.caller.keyID == ""
	out := wire.NamespaceList{Namespaces: []string{r.caller.ns}, Current: r.caller.ns}
	if open || r.caller.role.Allows(memory.RoleAdmin) {
		nss, err := s.cfg.Engine.Namespaces(r.Context())
		if err != nil {
			return err
		}
		if !slices.Contains(nss, r.caller.ns) {
			nss = append(nss, r.caller.ns)
			slices.Sort(nss)
		}
		out.Namespaces, out.All = nss, true
	}
	return writeJSON(w, http.StatusOK, out)
}
