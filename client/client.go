// Package client is a Go client for mnemon's HTTP API (/v1): a typed
// method for every endpoint, context on every call, retries with backoff
// for idempotent calls only, and errors typed from the server's
// problem+json codes.
//
//	c, err := client.New("http://127.0.0.1:7077", client.Options{APIKey: os.Getenv("MNEMON_API_KEY")})
//	...
//	res, err := c.Retrieve(ctx, client.RetrieveRequest{Query: "which package manager does Atlas use?"})
//	if res.Hint != "" { /* nothing remembered yet: no items */ }
//
// Agent wraps an existing agent loop with memory in two calls: PreTask
// before the task, PostTask after it.
//
// The package depends on the standard library only: its request and
// response types mirror the server's OpenAPI document instead of importing
// the server's packages.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Options configure a Client. The zero value talks to an open (keyless)
// server on loopback in the default namespace.
type Options struct {
	// APIKey is sent as Authorization: Bearer. A key is bound to a
	// namespace: with a key, leave Namespace empty or name the key's own;
	// the server refuses another (ErrForbidden).
	APIKey string
	// Namespace is sent as X-Mnemon-Namespace, which a server without
	// keys (open mode, loopback only) uses to pick the namespace.
	Namespace string
	// HTTPClient sends the requests (default: a client of its own with no
	// overall timeout; bound each call with its context).
	HTTPClient *http.Client
	// Retry is the backoff for idempotent calls (GET, DELETE).
	Retry RetryPolicy
	// UserAgent is sent as User-Agent (default "mnemon-go-client").
	UserAgent string
	// Now is the clock that dates events sent without a time (default
	// time.Now).
	Now func() time.Time
}

// RetryPolicy is how idempotent calls (GET and DELETE) are retried when
// the server could not be reached or answered 429, 502, 503 or 504.
// Calls that write (every POST: capture, remember, retrieve, feedback,
// lifecycle, consolidate, promote, import) are sent once:
// retrying one could store the same events twice.
type RetryPolicy struct {
	// MaxAttempts counts the first try (default 4; 1 turns retries off).
	MaxAttempts int
	// MinBackoff is the wait before the first retry (default 100 ms); it
	// doubles each time, up to MaxBackoff (default 2 s), with jitter. A
	// longer Retry-After from the server is honoured.
	MinBackoff time.Duration
	MaxBackoff time.Duration
}

func (p *RetryPolicy) defaults() {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 4
	}
	if p.MinBackoff <= 0 {
		p.MinBackoff = 100 * time.Millisecond
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = 2 * time.Second
	}
	if p.MaxBackoff < p.MinBackoff {
		p.MaxBackoff = p.MinBackoff
	}
}

// backoff is the wait before retry n (1-based): exponential, capped, with
// the upper half jittered so that many clients do not retry in step.
func (p *RetryPolicy) backoff(n int) time.Duration {
	d := p.MinBackoff
	for i := 1; i < n && d < p.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, p.MaxBackoff)
	half := d / 2
	return half + rand.N(half+1)
}

// Client calls one mnemon server. It is safe for concurrent use.
type Client struct {
	base string // scheme://host[/prefix], no trailing slash
	opts Options
	hc   *http.Client
}

// New returns a client for the server at baseURL (such as
// "http://127.0.0.1:7077").
func New(baseURL string, opts Options) (*Client, error) {
	base := strings.TrimRight(baseURL, "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("mnemon: base URL %q: want http(s)://host[:port]", baseURL)
	}
	opts.Retry.defaults()
	if opts.UserAgent == "" {
		opts.UserAgent = "mnemon-go-client"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{base: base, opts: opts, hc: hc}, nil
}

// WithNamespace returns a client like c that names another namespace (for
// an open server; with an API key the key's namespace applies). Both share
// the HTTP client and its connections.
func (c *Client) WithNamespace(ns string) *Client {
	d := *c
	d.opts.Namespace = ns
	return &d
}

// call is one API request.
type call struct {
	method string
	path   string // escaped
	query  url.Values
	json   any       // a JSON body, or
	raw    io.Reader // a body sent as is (never retried)
	ctype  string    // the raw body's content type
	retry  bool      // idempotent: may be sent again
}

func (cl *call) op() string { return cl.method + " " + cl.path }

// do sends cl and decodes a JSON answer into out (when not nil).
func (c *Client) do(ctx context.Context, cl call, out any) error {
	res, err := c.send(ctx, cl)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		return nil
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return fmt.Errorf("mnemon: %s: read the answer: %w", cl.op(), err)
	}
	return nil
}

// send sends cl, retrying an idempotent call on transient failures, and
// returns a successful response (its body for the caller to close) or the
// error: an *Error for an error status, otherwise what the transport said.
func (c *Client) send(ctx context.Context, cl call) (*http.Response, error) {
	var body []byte
	if cl.json != nil {
		var err error
		if body, err = json.Marshal(cl.json); err != nil {
			return nil, fmt.Errorf("mnemon: %s: encode the request: %w", cl.op(), err)
		}
	}
	attempts := 1
	if cl.retry && cl.raw == nil {
		attempts = c.opts.Retry.MaxAttempts
	}
	for n := 1; ; n++ {
		res, err := c.once(ctx, cl, body)
		if err == nil {
			return res, nil
		}
		if n >= attempts || !retryable(err) || ctx.Err() != nil {
			return nil, err
		}
		wait := c.opts.Retry.backoff(n)
		var e *Error
		if errors.As(err, &e) && e.RetryAfter > wait {
			wait = e.RetryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, err // the retry could not finish in time
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
	}
}

// once sends one attempt.
func (c *Client) once(ctx context.Context, cl call, body []byte) (*http.Response, error) {
	target := c.base + cl.path
	if len(cl.query) > 0 {
		target += "?" + cl.query.Encode()
	}
	var rd io.Reader
	switch {
	case cl.raw != nil:
		rd = cl.raw
	case body != nil:
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, target, rd)
	if err != nil {
		return nil, fmt.Errorf("mnemon: %s: %w", cl.op(), err)
	}
	h := req.Header
	switch {
	case cl.raw != nil && cl.ctype != "":
		h.Set("Content-Type", cl.ctype)
	case body != nil:
		h.Set("Content-Type", "application/json")
	}
	h.Set("Accept", "application/json, application/problem+json")
	h.Set("User-Agent", c.opts.UserAgent)
	if c.opts.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	if c.opts.Namespace != "" {
		h.Set("X-Mnemon-Namespace", c.opts.Namespace)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("mnemon: %s: %w", cl.op(), ctx.Err())
		}
		return nil, &transportError{op: cl.op(), err: err}
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return res, nil
	}
	defer res.Body.Close()
	return nil, readError(cl.op(), res)
}

// readError turns an error answer into an *Error.
func readError(op string, res *http.Response) *Error {
	e := &Error{Op: op, Status: res.StatusCode, Title: http.StatusText(res.StatusCode)}
	if s := res.Header.Get("Retry-After"); s != "" {
		if secs, err := strconv.Atoi(s); err == nil && secs >= 0 {
			e.RetryAfter = time.Duration(secs) * time.Second
		}
	}
	data, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20)) // so the connection can be reused
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	var p problem
	if (mt == "application/problem+json" || mt == "application/json") && json.Unmarshal(data, &p) == nil && p.Code != "" {
		e.Code, e.Detail, e.Type, e.RequestID = Code(p.Code), p.Detail, p.Type, p.RequestID
		if p.Title != "" {
			e.Title = p.Title
		}
		return e
	}
	// Not a problem document (a proxy's page, a readiness report): keep
	// the start of it for the person reading the error.
	e.Detail = strings.TrimSpace(string(data))
	if len(e.Detail) > 200 {
		e.Detail = e.Detail[:200] + "..."
	}
	e.RequestID = res.Header.Get("X-Request-Id")
	return e
}

// retryable reports whether err is worth another try of an idempotent
// call: no answer at all, or an answer that says "later".
func retryable(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusGatewayTimeout:
		return true
	case http.StatusServiceUnavailable:
		return e.Code != ErrStoreCorrupt // a damaged store stays damaged
	}
	return false
}

// pathf builds an API path, escaping each argument as one path segment.
func pathf(format string, ids ...string) string {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = url.PathEscape(id)
	}
	return fmt.Sprintf(format, args...)
}
