package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// One method per endpoint of the API, in the order of the server's route
// table (httpapi/routes.go). A new endpoint is one more method here: a
// call{} naming its method, path and whether it is idempotent, and its
// request and response types in types.go.

// Capture stores raw events as episodes (POST /v1/episodes); extraction
// runs as a background job whose id the answer carries (see GetJob,
// WaitJob), or has finished already when req.Wait is set. Events without
// a time are dated now. Never retried: a capture sent twice is stored
// twice.
func (c *Client) Capture(ctx context.Context, req CaptureRequest) (*CaptureResponse, error) {
	now := c.opts.Now().UTC()
	events := make([]Event, len(req.Events))
	for i, ev := range req.Events {
		if ev.OccurredAt.IsZero() {
			ev.OccurredAt = now
		}
		events[i] = ev
	}
	req.Events = events
	var q url.Values
	if req.Wait {
		q = url.Values{"wait": {"true"}}
	}
	return doJSON[CaptureResponse](ctx, c, call{method: http.MethodPost, path: "/v1/episodes", query: q, json: req})
}

// Remember stores a statement or a structured fact now (POST
// /v1/memories). Never retried.
func (c *Client) Remember(ctx context.Context, req RememberRequest) (*RememberResponse, error) {
	return doJSON[RememberResponse](ctx, c, call{method: http.MethodPost, path: "/v1/memories", json: req})
}

// Retrieve returns the memories that matter for a task, packed into a
// token budget (POST /v1/memories/retrieve). A namespace that holds
// nothing yet answers no items, with Hint set and no RetrievalID (older
// servers answered ErrNamespaceNotFound). Not retried: every retrieval
// stores its trace.
func (c *Client) Retrieve(ctx context.Context, req RetrieveRequest) (*RetrieveResponse, error) {
	return doJSON[RetrieveResponse](ctx, c, call{method: http.MethodPost, path: "/v1/memories/retrieve", json: req})
}

// Respond answers a question with the server's chat model from the
// memories retrieved for it (POST /v1/agent/respond). A server without a
// chat model answers ErrModelNotConfigured. It is sent once: an answer
// costs model tokens.
func (c *Client) Respond(ctx context.Context, req RespondRequest) (*RespondResponse, error) {
	return doJSON[RespondResponse](ctx, c, call{method: http.MethodPost, path: "/v1/agent/respond", json: req})
}

// ListMemories lists distilled memories (semantic and procedural), current
// first (GET /v1/memories).
func (c *Client) ListMemories(ctx context.Context, opts ListOptions) (*MemoryList, error) {
	q := url.Values{}
	if opts.IncludeHistory {
		q.Set("include_history", "true")
	}
	if opts.Subject != "" {
		q.Set("subject", opts.Subject)
	}
	if opts.Limit != 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	return doJSON[MemoryList](ctx, c, call{method: http.MethodGet, path: "/v1/memories", query: q, retry: true})
}

// GetMemory returns a memory with every version, its admission log and the
// episodes it cites (GET /v1/memories/{id}); id is a memory id (mem_...)
// or one of its versions (ver_..., or mem_...@v2). An episode id (ep_...)
// returns the episode and the decisions about it.
func (c *Client) GetMemory(ctx context.Context, id string) (*MemoryView, error) {
	if err := needID("GetMemory", id); err != nil {
		return nil, err
	}
	return doJSON[MemoryView](ctx, c, call{method: http.MethodGet, path: pathf("/v1/memories/%s", id), retry: true})
}

// Forget takes a memory out of retrieval for good, with the episodes it
// came from (DELETE /v1/memories/{id}). Forgetting twice changes nothing
// the second time, so it is retried like a read.
func (c *Client) Forget(ctx context.Context, id string) (*ForgetResponse, error) {
	if err := needID("Forget", id); err != nil {
		return nil, err
	}
	return doJSON[ForgetResponse](ctx, c, call{method: http.MethodDelete, path: pathf("/v1/memories/%s", id), retry: true})
}

// GetTrace returns the trace of a retrieval: every candidate, its channels
// and terms (GET /v1/retrievals/{id}).
func (c *Client) GetTrace(ctx context.Context, retrievalID string) (*Trace, error) {
	if err := needID("GetTrace", retrievalID); err != nil {
		return nil, err
	}
	return doJSON[Trace](ctx, c, call{method: http.MethodGet, path: pathf("/v1/retrievals/%s", retrievalID), retry: true})
}

// Feedback says how the items of a retrieval served the task: helpful,
// unused or harmful (POST /v1/retrievals/{id}/feedback). It moves
// usefulness and trust only; the server ignores a judgement it already
// holds (Duplicates). Never retried, like every POST.
func (c *Client) Feedback(ctx context.Context, retrievalID string, req FeedbackRequest) (*FeedbackResult, error) {
	if err := needID("Feedback", retrievalID); err != nil {
		return nil, err
	}
	return doJSON[FeedbackResult](ctx, c, call{method: http.MethodPost, path: pathf("/v1/retrievals/%s/feedback", retrievalID), json: req})
}

// Explain says why a memory is held (evidence, admission reasons,
// operations, the superseded-by chain, the feedback that moved it) for a
// memory or version id, or why each candidate ranked for a retrieval id
// (GET /v1/memories/{id}/explain).
func (c *Client) Explain(ctx context.Context, id string) (*Explanation, error) {
	if err := needID("Explain", id); err != nil {
		return nil, err
	}
	return doJSON[Explanation](ctx, c, call{method: http.MethodGet, path: pathf("/v1/memories/%s/explain", id), retry: true})
}

// RunLifecycle runs the lifecycle policy now: expiry, usefulness decay,
// contests and, with req.Dedupe, duplicate merging (POST
// /v1/lifecycle/run). Never retried.
func (c *Client) RunLifecycle(ctx context.Context, req LifecycleRunRequest) (*LifecycleRunResponse, error) {
	return doJSON[LifecycleRunResponse](ctx, c, call{method: http.MethodPost, path: "/v1/lifecycle/run", json: req})
}

// Consolidate summarises a session into a summary memory citing its
// episodes (once it is 7 days old, or now with req.Force) and forgets
// the summarised episodes whose retention fell low (POST
// /v1/sessions/{id}/consolidate). Never retried.
func (c *Client) Consolidate(ctx context.Context, sessionID string, req ConsolidateRequest) (*ConsolidateResponse, error) {
	if err := needID("Consolidate", sessionID); err != nil {
		return nil, err
	}
	return doJSON[ConsolidateResponse](ctx, c, call{method: http.MethodPost, path: pathf("/v1/sessions/%s/consolidate", sessionID), json: req})
}

// Neighborhood returns an entity's neighbourhood in the knowledge graph:
// the claims 1 or 2 hops from it, with their validity (GET
// /v1/graph/neighborhood).
func (c *Client) Neighborhood(ctx context.Context, opts GraphOptions) (*GraphResponse, error) {
	if strings.TrimSpace(opts.Entity) == "" {
		return nil, fmt.Errorf("mnemon: Neighborhood: the entity is empty")
	}
	q := url.Values{"entity": {opts.Entity}}
	if opts.Hops != 0 {
		q.Set("hops", strconv.Itoa(opts.Hops))
	}
	if !opts.AsOf.IsZero() {
		q.Set("as_of", opts.AsOf.UTC().Format(time.RFC3339Nano))
	}
	if opts.IncludeHistory {
		q.Set("include_history", "true")
	}
	if opts.Limit != 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	for name, v := range map[string]string{"agent_id": opts.AgentID, "user_id": opts.UserID, "project_id": opts.ProjectID, "session_id": opts.SessionID} {
		if v != "" {
			q.Set(name, v)
		}
	}
	return doJSON[GraphResponse](ctx, c, call{method: http.MethodGet, path: "/v1/graph/neighborhood", query: q, retry: true})
}

// ListProcedures lists the live procedures (procedural memories) with
// their steps, sessions, last use and stale flag (GET /v1/procedures).
func (c *Client) ListProcedures(ctx context.Context) (*ProcedureList, error) {
	return doJSON[ProcedureList](ctx, c, call{method: http.MethodGet, path: "/v1/procedures", retry: true})
}

// PromoteProcedures distils procedures from 3 or more successful sessions
// per task type, counts failing sessions that used one and flags those
// unused for 90 days (POST /v1/procedures/promote). The server treats it
// as idempotent, but like every POST it is not retried.
func (c *Client) PromoteProcedures(ctx context.Context) (*ProcedureReport, error) {
	return doJSON[ProcedureReport](ctx, c, call{method: http.MethodPost, path: "/v1/procedures/promote"})
}

// GetJob returns a background job's state (GET /v1/jobs/{id}).
func (c *Client) GetJob(ctx context.Context, id string) (*Job, error) {
	if err := needID("GetJob", id); err != nil {
		return nil, err
	}
	return doJSON[Job](ctx, c, call{method: http.MethodGet, path: pathf("/v1/jobs/%s", id), retry: true})
}

// WaitJob polls a job every interval (default 200 ms) until it has
// finished, and returns it; a failed job is returned, not an error. Bound
// the wait with ctx.
func (c *Client) WaitJob(ctx context.Context, id string, interval time.Duration) (*Job, error) {
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		job, err := c.GetJob(ctx, id)
		if err != nil || job.Finished() {
			return job, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("mnemon: wait for job %s: %w", id, ctx.Err())
		case <-t.C:
		}
	}
}

// Export writes the namespace to w as JSON lines (GET /v1/export; lossless,
// re-importable into any namespace) and returns the bytes written. It is
// retried only while nothing has been written: a stream cut short is an
// error (its trailer line is missing) that the caller handles.
func (c *Client) Export(ctx context.Context, w io.Writer) (int64, error) {
	cl := call{method: http.MethodGet, path: "/v1/export", retry: true}
	res, err := c.send(ctx, cl)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	n, err := io.Copy(w, res.Body)
	if err != nil {
		return n, fmt.Errorf("mnemon: %s: %w", cl.op(), err)
	}
	return n, nil
}

// Import loads an export (JSON lines) into this namespace, which must be
// empty (POST /v1/import). Never retried: r can be read only once.
func (c *Client) Import(ctx context.Context, r io.Reader) (*ImportResponse, error) {
	return doJSON[ImportResponse](ctx, c, call{method: http.MethodPost, path: "/v1/import", raw: r, ctype: "application/x-ndjson"})
}

// Health reports liveness (GET /healthz). Probes are not retried: they
// answer for the present.
func (c *Client) Health(ctx context.Context) (*Health, error) {
	return doJSON[Health](ctx, c, call{method: http.MethodGet, path: "/healthz"})
}

// Ready reports readiness (GET /readyz): the store answers and the workers
// run. A server that is not ready answers an *Error with status 503 whose
// Detail holds its report.
func (c *Client) Ready(ctx context.Context) (*Health, error) {
	return doJSON[Health](ctx, c, call{method: http.MethodGet, path: "/readyz"})
}

// Metrics returns the Prometheus metrics in text format (GET /metrics;
// needs an admin key).
func (c *Client) Metrics(ctx context.Context) (string, error) {
	b, err := c.raw(ctx, call{method: http.MethodGet, path: "/metrics", retry: true})
	return string(b), err
}

// OpenAPI returns the server's OpenAPI 3.1 document (GET /openapi.json).
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	return c.raw(ctx, call{method: http.MethodGet, path: "/openapi.json", retry: true})
}

// raw sends cl and returns the whole body.
func (c *Client) raw(ctx context.Context, cl call) ([]byte, error) {
	res, err := c.send(ctx, cl)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("mnemon: %s: %w", cl.op(), err)
	}
	return b, nil
}

// doJSON sends cl and decodes its JSON answer.
func doJSON[T any](ctx context.Context, c *Client, cl call) (*T, error) {
	var out T
	if err := c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// needID refuses an empty id before it becomes a request for another path.
func needID(method, id string) error {
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("mnemon: %s: the id is empty", method)
	}
	return nil
}
