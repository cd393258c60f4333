package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/httpapi/wireconv"
	"github.com/mnemon-dev/mnemon/memory"
)

// route is one endpoint: what the mux serves and what the OpenAPI document
// describes, from the same table.
type route struct {
	Method  string
	Path    string
	Role    memory.Role // the least role allowed
	Summary string
	// Request and Response are zero values of the body types (nil: none).
	Request  any
	Response any
	Status   int     // success status
	Params   []Param // path and query parameters
	// ContentType of a non-JSON success body (export: NDJSON).
	ContentType string

	handle  func(w http.ResponseWriter, r *request) error
	public  bool // no authentication (health, metrics, the document)
	quiet   bool // logged at debug level (probes, scrapes)
	long    bool // may wait for background work
	bigBody bool // takes an import

	optionalBody bool // the JSON body may be left out (consolidate)
}

// Param is a path or query parameter.
type Param struct {
	Name     string
	In       string // path or query
	Type     string // string, integer, boolean
	Required bool
	Doc      string
}

func (rt *route) name() string {
	if rt.Method == "" {
		return "unmatched"
	}
	return rt.Method + " " + rt.Path
}

// routes is the API.
func (s *Server) routes() []*route {
	idParam := func(doc string) Param { return Param{Name: "id", In: "path", Type: "string", Required: true, Doc: doc} }
	return []*route{
		{Method: "POST", Path: "/v1/episodes", Role: memory.RoleWriter, Status: http.StatusAccepted,
			Summary: "Capture raw events as episodes; extraction runs as a background job.",
			Request: wire.CaptureRequest{}, Response: wire.CaptureResponse{},
			Params: []Param{{Name: "wait", In: "query", Type: "boolean", Doc: "Answer only once extraction has finished."}},
			handle: s.capture, long: true},
		{Method: "POST", Path: "/v1/memories", Role: memory.RoleWriter, Status: http.StatusCreated,
			Summary: "Remember a statement or a structured fact now.",
			Request: wire.RememberRequest{}, Response: wire.RememberResponse{}, handle: s.remember},
		{Method: "POST", Path: "/v1/memories/retrieve", Role: memory.RoleReader, Status: http.StatusOK,
			Summary: "Retrieve the memories that matter for a task, packed into a token budget.",
			Request: wire.RetrieveRequest{}, Response: wire.RetrieveResponse{}, handle: s.retrieve},
		{Method: "POST", Path: "/v1/agent/respond", Role: memory.RoleReader, Status: http.StatusOK,
			Summary: "Answer a question with the configured chat model from the memories retrieved for it; the answer's cited items are marked used in the retrieval's trace. 503 model_not_configured without a chat model.",
			Request: wire.RespondRequest{}, Response: wire.RespondResponse{}, handle: s.respond, long: true},
		{Method: "GET", Path: "/v1/memories", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "List distilled memories (semantic and procedural), current first.",
			Response: wire.MemoryList{}, handle: s.listMemories,
			Params: []Param{
				{Name: "include_history", In: "query", Type: "boolean", Doc: "Also superseded, expired and contested-away versions."},
				{Name: "subject", In: "query", Type: "string", Doc: "Only memories about this subject."},
				{Name: "limit", In: "query", Type: "integer", Doc: "At most this many (1-1000; 0 or absent: the default, 100)."},
			}},
		{Method: "GET", Path: "/v1/memories/{id}", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "A memory with every version, its admission log and the episodes it cites; or an episode with the decisions about it.",
			Response: wire.MemoryView{}, Params: []Param{idParam("Any id `mnemon show` takes: a memory (mem_...), one of its versions (ver_..., or mem_...@v2 as remember reports it) or an episode (ep_...).")}, handle: s.getMemory},
		{Method: "DELETE", Path: "/v1/memories/{id}", Role: memory.RoleWriter, Status: http.StatusOK,
			Summary:  "Forget a memory: every version leaves retrieval, with the episodes it came from.",
			Response: wire.ForgetResult{}, Params: []Param{idParam("A memory id (mem_...).")}, handle: s.forget},
		{Method: "POST", Path: "/v1/sessions/{id}/consolidate", Role: memory.RoleWriter, Status: http.StatusOK,
			Summary: "Consolidate a session: summarise it (once 7 days old) into a summary memory citing its episodes; forget and purge its summarised episodes whose retention fell below 0.05.",
			Request: wire.ConsolidateRequest{}, Response: wire.ConsolidateResponse{}, Params: []Param{idParam("A session id.")}, handle: s.consolidateSession, optionalBody: true},
		{Method: "GET", Path: "/v1/retrievals/{id}", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "The trace of a retrieval: every candidate, its channels and terms.",
			Response: wire.Trace{}, Params: []Param{idParam("A retrieval id (ret_...).")}, handle: s.getTrace},
		{Method: "GET", Path: "/v1/graph/neighborhood", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "An entity's neighbourhood in the knowledge graph: the claims 1 or 2 hops from it, with validity.",
			Response: wire.GraphResponse{}, Params: graphParams, handle: s.graphNeighborhood},
		{Method: "POST", Path: "/v1/retrievals/{id}/feedback", Role: memory.RoleWriter, Status: http.StatusOK,
			Summary: "Say how a retrieval's items served the task: helpful, unused or harmful. Moves usefulness and trust only; repeating a judgement changes nothing.",
			Request: wire.FeedbackRequest{}, Response: wire.FeedbackResult{}, Params: []Param{idParam("A retrieval id (ret_...).")}, handle: s.feedback},
		{Method: "GET", Path: "/v1/memories/{id}/explain", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "Why a memory is held (evidence, admission reasons, operations, the superseded-by chain) and how feedback moved its usefulness and trust; for a retrieval id, why each candidate ranked.",
			Response: wire.Explanation{}, Params: []Param{idParam("A memory (mem_...), version (ver_...) or retrieval (ret_...) id.")}, handle: s.explainMemory},
		{Method: "GET", Path: "/v1/procedures", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "List procedures (procedural memories) with their steps, sessions, last use and stale flag.",
			Response: wire.ProcedureList{}, handle: s.listProcedures},
		{Method: "POST", Path: "/v1/procedures/promote", Role: memory.RoleWriter, Status: http.StatusOK,
			Summary: "Distil procedures from 3+ successful sessions per task type (task_result events with metadata task_type and outcome), " +
				"count failing sessions that used one, flag procedures unused for 90 days. Idempotent.",
			Response: wire.ProcedureReport{}, handle: s.promoteProcedures, long: true},
		{Method: "GET", Path: "/v1/jobs/{id}", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "A background job's state: pending, running, succeeded or failed (with its error).",
			Response: wire.Job{}, Params: []Param{idParam("A job id (job_...).")}, handle: s.getJob},
		{Method: "GET", Path: "/v1/versions", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "Page through the namespace's versions, newest first, filtered by kind, type, status, subject, scope, time and text.",
			Response: wire.VersionPage{}, Params: versionParams, handle: s.pageVersions},
		{Method: "GET", Path: "/v1/admissions", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "The admission log, newest first: every candidate memory accepted, deferred, rejected or quarantined, with reasons.",
			Response: wire.AdmissionList{}, handle: s.listAdmissions,
			Params: []Param{
				{Name: "decision", In: "query", Type: "string", Doc: "Only this decision: accept, defer, reject or quarantine."},
				{Name: "limit", In: "query", Type: "integer", Doc: "At most this many (1-500; 0 or absent: the default, 100)."},
			}},
		{Method: "GET", Path: "/v1/jobs", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "The namespace's background jobs, newest first: pending, running, succeeded or failed (with its error).",
			Response: wire.JobList{}, handle: s.listJobs,
			Params: []Param{
				{Name: "state", In: "query", Type: "string", Doc: "Only jobs in this state: pending, running, succeeded or failed."},
				{Name: "limit", In: "query", Type: "integer", Doc: "At most this many (1-500; 0 or absent: the default, 50)."},
			}},
		{Method: "POST", Path: "/v1/jobs/{id}/retry", Role: memory.RoleAdmin, Status: http.StatusOK,
			Summary:  "Run a failed job again now (409 unless it failed).",
			Response: wire.Job{}, Params: []Param{idParam("A job id (job_...).")}, handle: s.retryJob},
		{Method: "GET", Path: "/v1/stats", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "What the namespace holds, versions written per day and retrievals per hour with their p95 latency.",
			Response: wire.Stats{}, handle: s.stats,
			Params: []Param{
				{Name: "days", In: "query", Type: "integer", Doc: "Days of writes to count (1-90; default 30)."},
				{Name: "hours", In: "query", Type: "integer", Doc: "Hours of retrievals to count (1-168; default 24)."},
			}},
		{Method: "GET", Path: "/v1/caller", Role: memory.RoleReader, Status: http.StatusOK,
			Summary:  "Who the presented key is: its namespace, role and every operation it may call.",
			Response: wire.Caller{}, handle: s.callerInfo},
		{Method: "GET", Path: "/v1/namespaces", Role: memory.RoleReader, Status: http.StatusOK,
			Summary: "The namespaces the caller may look at: every one the store holds for an admin key or in open mode, " +
				"the key's own for a reader or writer key. A key still acts in its own namespace only.",
			Response: wire.NamespaceList{}, handle: s.listNamespaces},
		{Method: "GET", Path: "/v1/reports", Role: memory.RoleReader, Status: http.StatusOK,
			Summary: "The last lifecycle, consolidation and procedure report run through this API in the namespace, " +
				"kept in the serving process's memory only (a restart forgets them).",
			Response: wire.Reports{}, handle: s.lastReports},
		{Method: "POST", Path: "/v1/lifecycle/run", Role: memory.RoleAdmin, Status: http.StatusOK,
			Summary: "Run the lifecycle policy now (expiry, usefulness decay, contests; dedupe when asked), as the periodic maintenance does.",
			Request: wire.LifecycleRunRequest{}, Response: wire.LifecycleRunResponse{}, handle: s.lifecycleRun, long: true},
		{Method: "GET", Path: "/v1/export", Role: memory.RoleAdmin, Status: http.StatusOK,
			Summary:     "Export the namespace as JSON lines (lossless; re-importable into any namespace).",
			ContentType: "application/x-ndjson", handle: s.export, long: true},
		{Method: "POST", Path: "/v1/import", Role: memory.RoleAdmin, Status: http.StatusOK,
			Summary:     "Import an export (JSON lines) into this namespace, which must be empty.",
			ContentType: "application/x-ndjson", Response: wire.ExportStats{}, handle: s.importNS, long: true, bigBody: true},
		{Method: "GET", Path: "/healthz", Status: http.StatusOK, Summary: "Liveness: the process serves requests.",
			Response: wire.Health{}, handle: s.healthz, public: true, quiet: true},
		{Method: "GET", Path: "/readyz", Status: http.StatusOK, Summary: "Readiness: the store answers and the workers run.",
			Response: wire.Health{}, handle: s.readyz, public: true, quiet: true},
		{Method: "GET", Path: "/metrics", Role: memory.RoleAdmin, Status: http.StatusOK, Summary: "Prometheus metrics.",
			ContentType: "text/plain", handle: s.serveMetrics, quiet: true},
		{Method: "GET", Path: "/openapi.json", Status: http.StatusOK, Summary: "This API's OpenAPI 3.1 document.",
			ContentType: "application/json", handle: s.serveOpenAPI, public: true, quiet: true},
	}
}

// checkQuery refuses, as a body's unknown fields are refused, a query
// parameter the route does not take, one given twice, and a query string
// that cannot be read: a misspelt ?limt=5 must not be silently ignored.
// Only /v1 is checked: probes, /metrics and /mcp are called by tools that
// may add parameters of their own.
func (rt *route) checkQuery(r *http.Request) error {
	if r.URL.RawQuery == "" || !strings.HasPrefix(rt.Path, "/v1/") {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return problemf(http.StatusBadRequest, CodeInvalidRequest, "the query string is not valid URL encoding")
	}
	names := slices.Sorted(maps.Keys(q))
	for _, name := range names {
		known := false
		for _, p := range rt.Params {
			known = known || (p.In == "query" && p.Name == name)
		}
		switch {
		case !known:
			return problemf(http.StatusBadRequest, CodeInvalidRequest, "unknown query parameter "+quote(name)+rt.takes()+"; see /openapi.json")
		case len(q[name]) > 1:
			return problemf(http.StatusBadRequest, CodeInvalidRequest, "query parameter "+quote(name)+" is given "+strconv.Itoa(len(q[name]))+" times; give it once")
		}
	}
	return nil
}

// takes lists the route's query parameters for a refusal's detail.
func (rt *route) takes() string {
	var names []string
	for _, p := range rt.Params {
		if p.In == "query" {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return " (" + rt.name() + " takes none)"
	}
	return " (" + rt.name() + " takes " + strings.Join(names, ", ") + ")"
}

func (s *Server) notFound(w http.ResponseWriter, r *request) error {
	if clean := cleanPath(r.URL.Path); clean != r.URL.Path {
		return problemf(http.StatusNotFound, CodeNotFound, "no endpoint "+r.URL.Path+
			": a path has no \".\" or \"..\" segments and no empty ones (\"//\"); did you mean "+clean+"?")
	}
	var allow []string
	for _, rt := range s.table {
		if pathMatches(rt.Path, r.URL.EscapedPath()) {
			allow = append(allow, rt.Method)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		return problemf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, r.Method+" is not served on "+r.URL.Path)
	}
	return problemf(http.StatusNotFound, CodeNotFound, "no endpoint "+r.URL.Path+"; see /openapi.json")
}

// pathMatches reports whether path fits a route pattern, a {name} segment
// matching any one non-empty segment, as the mux matches them.
func pathMatches(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if xs[i] == "" {
				return false
			}
		} else if p != xs[i] {
			return false
		}
	}
	return true
}

// knownNamespace refuses reads of a namespace that holds nothing, instead
// of answering as if it were an empty memory.
func (s *Server) knownNamespace(r *request) error {
	ok, err := s.cfg.Engine.HasNamespace(r.Context(), r.caller.ns)
	if err != nil {
		return err
	}
	if !ok {
		return problemf(http.StatusNotFound, CodeNamespaceNotFound, "namespace "+quote(r.caller.ns)+" holds nothing yet; capture or remember first")
	}
	return nil
}

func scopeOf(agent, user, project, session string) memory.Scope {
	return memory.Scope{AgentID: agent, UserID: user, ProjectID: project, SessionID: session}
}

func (s *Server) capture(w http.ResponseWriter, r *request) error {
	var body wire.CaptureRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	wait, err := boolParam(r, "wait")
	if err != nil {
		return err
	}
	if len(body.Events) == 0 {
		return problemf(http.StatusBadRequest, CodeInvalidRequest, "events is empty: send at least one")
	}
	if len(body.Events) > s.limits.MaxEvents {
		return problemf(http.StatusRequestEntityTooLarge, CodeTooManyEvents,
			strconv.Itoa(len(body.Events))+" events in one capture; the limit is "+strconv.Itoa(s.limits.MaxEvents))
	}
	p := engine.CaptureParams{Namespace: r.caller.ns, Scope: scopeOf(body.AgentID, body.UserID, body.ProjectID, body.SessionID)}
	p.Events = make([]engine.Event, len(body.Events))
	for i, ev := range body.Events {
		p.Events[i] = engine.Event{Kind: memory.EpisodeKind(ev.Kind), Content: ev.Content, Speaker: ev.Speaker, Metadata: ev.Metadata}
		if ev.OccurredAt == "" {
			// Left out: it happened when it arrived (the engine stamps
			// the zero time with its clock), as the CLI's capture does.
			continue
		}
		at, err := timeField("events["+strconv.Itoa(i)+"].occurred_at", ev.OccurredAt)
		if err != nil {
			return err
		}
		if err := s.notFuture("events["+strconv.Itoa(i)+"].occurred_at", *at); err != nil {
			return err
		}
		p.Events[i].OccurredAt = *at
	}
	ack, err := s.cfg.Engine.CaptureDeferred(r.Context(), p, s.cfg.Queue.Enqueue)
	if err != nil {
		return err
	}
	res := wire.CaptureResponse{EpisodeIDs: ack.EpisodeIDs, JobID: ack.JobID}
	if wait {
		ctx, cancel := context.WithTimeout(r.Context(), s.limits.WaitTimeout)
		defer cancel()
		job, err := s.cfg.Queue.Wait(ctx, r.caller.ns, ack.JobID)
		if err != nil {
			return err
		}
		res.JobState = job.State
		return writeJSON(w, http.StatusOK, res)
	}
	return writeJSON(w, http.StatusAccepted, res)
}

func (s *Server) remember(w http.ResponseWriter, r *request) error {
	var body wire.RememberRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	p := engine.RememberParams{
		Namespace: r.caller.ns, Scope: scopeOf(body.AgentID, body.UserID, body.ProjectID, body.SessionID),
		Text: body.Text, Speaker: body.Speaker,
		Type: memory.Type(body.Type), Subject: body.Subject, Key: body.Key, Value: body.Value,
		Criticality: memory.Criticality(body.Criticality),
	}
	if body.Confidence != nil {
		p.Confidence = *body.Confidence
		if p.Confidence == 0 {
			return problemf(http.StatusBadRequest, CodeInvalidRequest, "confidence 0 stores nothing; use a number above 0 and at most 1")
		}
	}
	observed, err := timeField("observed_at", body.ObservedAt)
	if err != nil {
		return err
	}
	if observed != nil {
		if err := s.notFuture("observed_at", *observed); err != nil {
			return err
		}
		p.ObservedAt = *observed
	}
	if p.ValidFrom, err = timeField("valid_from", body.ValidFrom); err != nil {
		return err
	}
	if p.ValidTo, err = timeField("valid_to", body.ValidTo); err != nil {
		return err
	}
	res, err := s.cfg.Engine.Remember(r.Context(), p)
	if err != nil {
		return err
	}
	out := wire.RememberResponse{EpisodeID: res.EpisodeID, Outcomes: make([]wire.Outcome, len(res.Outcomes)), Reasons: []string{}}
	for i, o := range res.Outcomes {
		out.Outcomes[i] = wire.Outcome{EpisodeID: o.EpisodeID, Decision: string(o.Decision), Operation: string(o.Operation),
			Reasons: o.Reasons, MemoryID: o.MemoryID, VersionID: o.VersionID, Content: o.Content}
	}
	if len(res.Outcomes) > 0 {
		first := res.Outcomes[0]
		for _, o := range res.Outcomes {
			if o.Decision == memory.AdmitAccept && o.MemoryID != "" && !o.ChangeStated() {
				first = o
				break
			}
		}
		out.MemoryID, out.Operation, out.Decision, out.Reasons = first.MemoryID, string(first.Operation), string(first.Decision), first.Reasons
		out.Version = wireconv.Version(first.Version)
	} else {
		out.Decision = string(memory.AdmitReject)
		out.Reasons = []string{"nothing_to_remember"}
	}
	return writeJSON(w, http.StatusCreated, out)
}

// versionList converts versions for a list the document promises is
// never null: no versions is [].
func versionList(vs []*memory.Version) []*wire.Version {
	if vs == nil {
		return []*wire.Version{}
	}
	return wireconv.Versions(vs)
}

func (s *Server) retrieve(w http.ResponseWriter, r *request) error {
	var body wire.RetrieveRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	if len(body.Query) > s.limits.MaxQueryBytes {
		return problemf(http.StatusBadRequest, CodeQueryTooLong,
			"query is "+strconv.Itoa(len(body.Query))+" bytes; the limit is "+strconv.Itoa(s.limits.MaxQueryBytes))
	}
	asOf, err := timeField("as_of", body.AsOf)
	if err != nil {
		return err
	}
	knownAt, err := timeField("known_at", body.KnownAt)
	if err != nil {
		return err
	}
	turns, err := contextTurns(body.ContextTurns)
	if err != nil {
		return err
	}
	res, err := s.cfg.Engine.Retrieve(r.Context(), engine.RetrieveParams{
		Namespace: r.caller.ns, Query: body.Query, Limit: body.Limit, TokenBudget: body.TokenBudget,
		TaskType: body.TaskType, Scope: scopeOf(body.AgentID, body.UserID, body.ProjectID, body.SessionID),
		SessionOnly: body.SessionOnly, AsOf: asOf, KnownAt: knownAt, IncludeHistory: body.IncludeHistory, Context: turns,
	})
	if err != nil {
		return err
	}
	out := wire.RetrieveResponse{RetrievalID: res.RetrievalID, Context: res.Context, TokensUsed: res.TokensUsed,
		Items: make([]wire.RetrieveItem, len(res.Items)), Notes: res.Notes}
	if res.NamespaceEmpty {
		// An agent's first call, before anything was stored, succeeds.
		out.Hint = "namespace " + quote(r.caller.ns) + " holds nothing yet; capture or remember first"
		return writeJSON(w, http.StatusOK, out)
	}
	s.metrics.observeRetrieval(res)
	out.Items = retrieveItems(res.Items)
	return writeRetrieve(w, &out)
}

// retrieveItems are a retrieval's items on the wire.
func retrieveItems(items []engine.Item) []wire.RetrieveItem {
	out := make([]wire.RetrieveItem, len(items))
	for i, it := range items {
		chans := make(map[string]wire.ChannelHit, len(it.Channels))
		for name, h := range it.Channels {
			chans[name] = wire.ChannelHit{Rank: h.Rank, Score: h.Score}
		}
		eps := it.EpisodeIDs
		if eps == nil {
			eps = []string{}
		}
		out[i] = wire.RetrieveItem{MemoryID: it.MemoryID, VersionID: it.VersionID, Kind: string(it.Kind), Type: string(it.Type),
			Content: it.Content, Score: it.Score, Tokens: it.Tokens, Trust: it.Trust, Uncertainty: it.Uncertainty, Action: string(it.Action), EpisodeIDs: eps,
			Channels: chans, Explanation: it.Explanation}
	}
	return out
}

// respond answers with the chat model (engine.Respond): nothing is
// written unless the model answered usably.
func (s *Server) respond(w http.ResponseWriter, r *request) error {
	var body wire.RespondRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	if len(body.Query) > s.limits.MaxQueryBytes {
		return problemf(http.StatusBadRequest, CodeQueryTooLong,
			"query is "+strconv.Itoa(len(body.Query))+" bytes; the limit is "+strconv.Itoa(s.limits.MaxQueryBytes))
	}
	turns, err := contextTurns(body.ContextTurns)
	if err != nil {
		return err
	}
	ans, err := s.cfg.Engine.Respond(r.Context(), engine.RespondParams{
		RetrieveParams: engine.RetrieveParams{
			Namespace: r.caller.ns, Query: body.Query, Limit: body.Limit, TokenBudget: body.TokenBudget,
			TaskType: body.TaskType, Scope: scopeOf(body.AgentID, body.UserID, body.ProjectID, body.SessionID), Context: turns,
		},
		MaxTokens: body.MaxTokens,
	})
	if err != nil {
		return err
	}
	res := ans.Retrieval
	if !res.NamespaceEmpty {
		s.metrics.observeRetrieval(res)
	}
	out := wire.RespondResponse{Answer: ans.Answer, RetrievalID: res.RetrievalID, Used: make([]wire.RespondUse, len(ans.Used)),
		Context: res.Context, TokensUsed: res.TokensUsed, Items: retrieveItems(res.Items), Model: ans.Model,
		Usage: wire.ModelUsage{PromptTokens: ans.TokensIn, CompletionTokens: ans.TokensOut}, Notes: ans.Notes}
	for i, it := range ans.Used {
		out.Used[i] = wire.RespondUse{MemoryID: it.MemoryID, VersionID: it.VersionID, Content: it.Content}
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) listMemories(w http.ResponseWriter, r *request) error {
	history, err := boolParam(r, "include_history")
	if err != nil {
		return err
	}
	limit, err := limitParam(r, 1000, 100)
	if err != nil {
		return err
	}
	if err := s.knownNamespace(r); err != nil {
		return err
	}
	vs, err := s.cfg.Engine.Facts(r.Context(), engine.FactsParams{Namespace: r.caller.ns, IncludeHistory: history,
		Subject: r.URL.Query().Get("subject"), Limit: limit})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, wire.MemoryList{Memories: versionList(vs)})
}

func (s *Server) getMemory(w http.ResponseWriter, r *request) error {
	view, err := s.cfg.Engine.Show(r.Context(), r.caller.ns, r.PathValue("id"))
	if err != nil {
		return err
	}
	out := wireconv.MemoryView(view)
	out.Versions = versionList(view.Versions)
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) forget(w http.ResponseWriter, r *request) error {
	res, err := s.cfg.Engine.Forget(r.Context(), r.caller.ns, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, wireconv.ForgetResult(res))
}

func (s *Server) getTrace(w http.ResponseWriter, r *request) error {
	tr, err := s.cfg.Engine.Trace(r.Context(), r.caller.ns, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, wireconv.Trace(tr))
}

func (s *Server) getJob(w http.ResponseWriter, r *request) error {
	job, err := s.cfg.Queue.Get(r.Context(), r.caller.ns, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, wireconv.Job(job))
}

func (s *Server) export(w http.ResponseWriter, r *request) error {
	if err := s.knownNamespace(r); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="mnemon-`+r.caller.ns+`.jsonl"`)
	// Once the first line is out the status is sent: a later failure can
	// only cut the stream short, which the missing trailer line shows.
	_, err := s.cfg.Engine.Export(r.Context(), r.caller.ns, w)
	return err
}

func (s *Server) importNS(w http.ResponseWriter, r *request) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.Contains(ct, "ndjson") && !strings.Contains(ct, "jsonl") &&
		!strings.Contains(ct, "json") && !strings.HasPrefix(ct, "text/plain") && !strings.HasPrefix(ct, "application/octet-stream") {
		return problemf(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "send the export as application/x-ndjson")
	}
	body := &limitWatch{r: r.Body}
	stats, err := s.cfg.Engine.Import(r.Context(), r.caller.ns, body)
	if err != nil {
		if body.over {
			// The importer may fail on the line the limit cut short
			// before it sees the reader's error: the limit is the cause.
			return problemf(http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the import is larger than this server accepts")
		}
		if e := publicError(err); e.code == CodeConflict {
			// The advice is the transport's: how an HTTP client names
			// another namespace.
			how := "name one in the X-Mnemon-Namespace header"
			if r.caller.keyID != "" {
				how = "use an admin key bound to one"
			}
			return problemf(http.StatusConflict, CodeConflict, e.detail+"; nothing was imported; import into an empty namespace: "+how)
		}
		return jsonLimit(err)
	}
	return writeJSON(w, http.StatusOK, wireconv.ExportStats(stats))
}

// limitWatch remembers whether a body ran into its size limit.
type limitWatch struct {
	r    io.Reader
	over bool
}

func (l *limitWatch) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		l.over = true
	}
	return n, err
}

// jsonLimit turns a body cut off by the size limit into its problem.
func jsonLimit(err error) error {
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return problemf(http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the import is larger than this server accepts")
	}
	return err
}

func (s *Server) healthz(w http.ResponseWriter, _ *request) error {
	return writeJSON(w, http.StatusOK, wire.Health{Status: "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *request) error {
	checks := map[string]string{}
	ok := true
	if _, err := s.cfg.Keys.CountActiveAPIKeys(r.Context()); err != nil {
		checks["store"], ok = "unavailable", false
	} else {
		checks["store"] = "ok"
	}
	// A store that can tell (the SQLite store) says whether writes fail
	// for lack of space; checking also clears it once there is room.
	if sf, can := s.cfg.Keys.(interface{ StorageFull(context.Context) error }); can {
		if err := sf.StorageFull(r.Context()); errors.Is(err, memory.ErrStorageFull) {
			checks["storage"], ok = "full: writes fail for lack of disk space", false
		} else {
			checks["storage"] = "ok"
		}
	}
	if s.cfg.Ready != nil {
		if err := s.cfg.Ready(r.Context()); err != nil {
			checks["workers"], ok = err.Error(), false
		} else {
			checks["workers"] = "ok"
		}
	}
	if bound := s.cfg.MaxIndexLag; bound > 0 {
		switch ns, lag, err := s.cfg.Engine.IndexLag(r.Context(), bound); {
		case err != nil:
			checks["index"], ok = "unknown: the change log cannot be read", false
		case ns != "":
			checks["index"], ok = fmt.Sprintf("behind: the index of namespace %q has missed committed changes for %s (max_index_lag %s)",
				ns, lag.Round(time.Millisecond), bound), false
		default:
			checks["index"] = "ok"
		}
	}
	if !ok {
		return writeJSON(w, http.StatusServiceUnavailable, wire.Health{Status: "unavailable", Checks: checks})
	}
	return writeJSON(w, http.StatusOK, wire.Health{Status: "ok", Checks: checks})
}

// notFuture refuses, as an invalid timestamp, a time further ahead than
// the engine allows for clock skew (the engine refuses it too, but only as
// invalid input).
func (s *Server) notFuture(field string, t time.Time) error {
	now := s.cfg.Clock.Now()
	if t.After(now.Add(engine.ClockSkew)) {
		return problemf(http.StatusBadRequest, CodeInvalidTimestamp, field+" "+t.Format(time.RFC3339)+
			" is in the future (now "+now.UTC().Format(time.RFC3339)+"); send the time it happened")
	}
	return nil
}

// limitParam reads the limit query parameter by the rule every limit and
// token budget follows (API, MCP and CLI alike): absent or 0 takes the
// default (def, which may be 0 to leave it to the engine), 1 to max are
// taken as they are, anything else is refused.
func limitParam(r *request, max, def int) (int, error) {
	v := r.URL.Query().Get("limit")
	n, err := strconv.Atoi(v)
	switch {
	case v == "":
		return def, nil
	case err != nil || n < 0 || n > max:
		return 0, problemf(http.StatusBadRequest, CodeInvalidRequest,
			"limit "+quote(v)+": use a number from 1 to "+strconv.Itoa(max)+", or 0 for the default")
	case n == 0:
		return def, nil
	}
	return n, nil
}

func boolParam(r *request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, problemf(http.StatusBadRequest, CodeInvalidRequest, name+" "+quote(v)+": use true or false")
	}
	return b, nil
}

// contextTurns maps the API's context_turns (absent: the default; 0: none;
// 1-3) to RetrieveParams.Context (0: the default; NoContext: none).
func contextTurns(n *int) (int, error) {
	switch {
	case n == nil:
		return 0, nil
	case *n == 0:
		return engine.NoContext, nil
	case *n < 0 || *n > engine.MaxContext:
		return 0, memory.Invalidf("context_turns %d: use 0 to %d", *n, engine.MaxContext)
	}
	return *n, nil
}
