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
// nothing yet answers ErrNamespaceNotFound. Not retried: every retrieval
// stores its trace.
func (c *Client) Retrieve(ctx context.Context, req RetrieveRequest) (*RetrieveResponse, error) {
	return doJSON[RetrieveResponse](ctx, c, call{method: http.MethodPost, path: "/v1/memories/retrieve", json: req})
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
// or one of its versions (ver_...).
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
