package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/client"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/memory"
)

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newClient(t *testing.T, base string, opts client.Options) *client.Client {
	t.Helper()
	c, err := client.New(base, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEndToEnd drives every endpoint through the client, in the order an
// agent and an operator would use them.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	ns := fresh("e2e")
	c := newClient(t, serverURL, client.Options{Namespace: ns})

	h, err := c.Health(ctx)
	if err != nil || h.Status != "ok" {
		t.Fatalf("health %+v, %v", h, err)
	}
	r, err := c.Ready(ctx)
	if err != nil || r.Status != "ok" || r.Checks["store"] != "ok" {
		t.Fatalf("ready %+v, %v", r, err)
	}

	rem, err := c.Remember(ctx, client.RememberRequest{Text: "I prefer vim", Key: "prefers:editor", Subject: "user",
		Value: "vim", Type: "preference", Confidence: 0.8, UserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	if rem.Decision != "accept" || rem.Operation != "ADD" || !strings.HasPrefix(rem.MemoryID, "mem_") || rem.Version == nil ||
		rem.Version.Value != "vim" || rem.Version.Confidence != 0.8 || rem.Version.Scope.UserID != "u1" || rem.Version.RecordedAt.IsZero() {
		t.Fatalf("remember: %+v %+v", rem, rem.Version)
	}

	capt, err := c.Capture(ctx, client.CaptureRequest{SessionID: "s1", UserID: "u1", Events: []client.Event{
		{Kind: client.KindUserMessage, Content: "Atlas uses pnpm for its packages."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(capt.EpisodeIDs) != 1 || !strings.HasPrefix(capt.JobID, "job_") || capt.JobState != "" {
		t.Fatalf("capture: %+v", capt)
	}
	job, err := c.WaitJob(ctx, capt.JobID, 10*time.Millisecond)
	if err != nil || job.State != client.JobSucceeded || job.FinishedAt.IsZero() || job.Namespace != ns {
		t.Fatalf("job %+v, %v", job, err)
	}
	if j2, err := c.GetJob(ctx, capt.JobID); err != nil || j2.ID != job.ID {
		t.Fatalf("get job %+v, %v", j2, err)
	}

	res, err := c.Retrieve(ctx, client.RetrieveRequest{Query: "which editor do I prefer?", UserID: "u1", TokenBudget: 500, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.RetrievalID, "ret_") || len(res.Items) == 0 || res.Items[0].MemoryID != rem.MemoryID ||
		len(res.Items[0].Channels) == 0 || res.Items[0].Explanation == "" || !strings.Contains(res.Context, "vim") {
		t.Fatalf("retrieve: %+v", res)
	}
	tr, err := c.GetTrace(ctx, res.RetrievalID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.ID != res.RetrievalID || tr.Query != "which editor do I prefer?" || tr.TokenBudget != 500 || len(tr.Items) == 0 ||
		tr.Items[0].MemoryID != rem.MemoryID || !tr.Items[0].Packed || tr.Scope.UserID != "u1" {
		t.Fatalf("trace: %+v", tr)
	}

	list, err := c.ListMemories(ctx, client.ListOptions{})
	if err != nil || len(list.Memories) != 2 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	list, err = c.ListMemories(ctx, client.ListOptions{Subject: "user", Limit: 1})
	if err != nil || len(list.Memories) != 1 || list.Memories[0].Subject != "user" {
		t.Fatalf("list subject: %+v, %v", list, err)
	}

	for _, id := range []string{rem.MemoryID, rem.Version.ID} {
		view, err := c.GetMemory(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if view.Memory.ID != rem.MemoryID || len(view.Versions) != 1 || len(view.Admissions) == 0 || len(view.Episodes) != 1 {
			t.Fatalf("get %s: %+v", id, view)
		}
	}

	gone, err := c.Forget(ctx, rem.MemoryID)
	if err != nil || gone.MemoryID != rem.MemoryID || !slices.Equal(gone.Versions, []string{rem.Version.ID}) {
		t.Fatalf("forget: %+v, %v", gone, err)
	}
	view, err := c.GetMemory(ctx, rem.MemoryID)
	if err != nil || view.Versions[0].Status != "deleted" {
		t.Fatalf("after forget: %+v, %v", view, err)
	}
	if list, err := c.ListMemories(ctx, client.ListOptions{IncludeHistory: true}); err != nil || len(list.Memories) != 1 || list.Memories[0].ID == rem.Version.ID {
		t.Fatalf("list after forget: %+v, %v", list, err)
	}

	var dump bytes.Buffer
	n, err := c.Export(ctx, &dump)
	if err != nil || n == 0 || int64(dump.Len()) != n {
		t.Fatalf("export %d bytes, %v", n, err)
	}
	into := c.WithNamespace(fresh("e2e-copy"))
	stats, err := into.Import(ctx, bytes.NewReader(dump.Bytes()))
	if err != nil || stats.Memories < 2 || stats.Episodes != 2 || stats.Traces != 1 {
		t.Fatalf("import: %+v, %v", stats, err)
	}
	_, err = into.Import(ctx, bytes.NewReader(dump.Bytes()))
	if !errors.Is(err, client.ErrConflict) {
		t.Fatalf("second import: %v, want conflict", err)
	}
	if copied, err := into.GetMemory(ctx, rem.MemoryID); err != nil || copied.Versions[0].Status != "deleted" {
		t.Fatalf("imported memory: %+v, %v", copied, err)
	}

	doc, err := c.OpenAPI(ctx)
	if err != nil || !json.Valid(doc) || !bytes.Contains(doc, []byte(`"/v1/memories/retrieve"`)) {
		t.Fatalf("openapi: %d bytes, %v", len(doc), err)
	}
	m, err := c.Metrics(ctx)
	if err != nil || !strings.Contains(m, "# TYPE") {
		t.Fatalf("metrics: %.200s, %v", m, err)
	}
}

// TestErrors checks that each refusal arrives as an *Error with its stable
// code, and that a bad call is refused before it is sent.
func TestErrors(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	c := newClient(t, serverURL, client.Options{Namespace: fresh("errors")})
	if _, err := c.Remember(ctx, client.RememberRequest{Text: "Atlas uses pnpm"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		call   func() error
		status int
		code   client.Code
	}{
		{"unknown memory", func() error { _, err := c.GetMemory(ctx, "mem_01HZZZZZZZZZZZZZZZZZZZZZZZ"); return err }, 404, client.ErrNotFound},
		{"unknown job", func() error { _, err := c.GetJob(ctx, "job_999999"); return err }, 404, client.ErrNotFound},
		{"unknown retrieval", func() error { _, err := c.GetTrace(ctx, "ret_nope"); return err }, 404, client.ErrNotFound},
		// The test server configures no chat model.
		{"respond without a chat model", func() error {
			_, err := c.Respond(ctx, client.RespondRequest{Query: "which package manager?"})
			return err
		}, 503, client.ErrModelNotConfigured},
		{"empty namespace", func() error {
			_, err := c.WithNamespace(fresh("errors-empty")).ListMemories(ctx, client.ListOptions{})
			return err
		}, 404, client.ErrNamespaceNotFound},
		{"bad namespace", func() error {
			_, err := c.WithNamespace("no spaces allowed").ListMemories(ctx, client.ListOptions{})
			return err
		}, 400, client.ErrInvalidNamespace},
		{"capture with a session id over 256 bytes", func() error {
			_, err := c.Capture(ctx, client.CaptureRequest{SessionID: strings.Repeat("s", 257), Events: []client.Event{{Kind: client.KindUserMessage, Content: "hi there"}}})
			return err
		}, 400, client.ErrInvalidRequest},
		{"capture without events", func() error { _, err := c.Capture(ctx, client.CaptureRequest{SessionID: "s"}); return err }, 400, client.ErrInvalidRequest},
		{"future timestamp", func() error {
			_, err := c.Capture(ctx, client.CaptureRequest{SessionID: "s", Events: []client.Event{
				{Kind: client.KindUserMessage, Content: "hi there", OccurredAt: time.Now().Add(24 * time.Hour)}}})
			return err
		}, 400, client.ErrInvalidTimestamp},
		{"query too long", func() error {
			_, err := c.Retrieve(ctx, client.RetrieveRequest{Query: strings.Repeat("a", 5000)})
			return err
		}, 400, client.ErrQueryTooLong},
		{"list limit", func() error { _, err := c.ListMemories(ctx, client.ListOptions{Limit: 5000}); return err }, 400, client.ErrInvalidRequest},
		{"import of a bad line", func() error { _, err := c.Import(ctx, strings.NewReader("{}\n")); return err }, 400, client.ErrInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var e *client.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *client.Error", err, err)
			}
			if e.Status != tt.status || e.Code != tt.code || !errors.Is(err, tt.code) || client.StatusOf(err) != tt.status {
				t.Fatalf("got %d %s, want %d %s: %v", e.Status, e.Code, tt.status, tt.code, err)
			}
			if e.Detail == "" || e.RequestID == "" || e.Title == "" || !strings.HasSuffix(e.Type, string(tt.code)) {
				t.Fatalf("incomplete problem: %+v", e)
			}
			if errors.Is(err, client.ErrConflict) && tt.code != client.ErrConflict {
				t.Fatal("errors.Is matched another code")
			}
		})
	}

	// An empty id never becomes a request for another path.
	for name, call := range map[string]func() error{
		"GetMemory": func() error { _, err := c.GetMemory(ctx, ""); return err },
		"Forget":    func() error { _, err := c.Forget(ctx, " "); return err },
		"GetTrace":  func() error { _, err := c.GetTrace(ctx, ""); return err },
		"GetJob":    func() error { _, err := c.GetJob(ctx, ""); return err },
	} {
		if err := call(); err == nil || client.StatusOf(err) != 0 || !strings.Contains(err.Error(), "id is empty") {
			t.Errorf("%s with an empty id: %v", name, err)
		}
	}
	// An id with a slash stays one path segment.
	if _, err := c.GetMemory(ctx, "mem_a/../../healthz"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("id with slashes: %v", err)
	}

	for _, bad := range []string{"", "127.0.0.1:1", "ftp://x", "http://", "http://h/?q=1"} {
		if _, err := client.New(bad, client.Options{}); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
}

// TestRetrieveEmptyNamespace: an agent's first retrieval, before anything
// was stored, succeeds with no items, a hint and no retrieval id.
func TestRetrieveEmptyNamespace(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	c := newClient(t, serverURL, client.Options{Namespace: fresh("first-call")})
	res, err := c.Retrieve(ctx, client.RetrieveRequest{Query: "which package manager does Atlas use?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.RetrievalID != "" || len(res.Items) != 0 || res.Context != "" || !strings.Contains(res.Hint, "holds nothing yet") {
		t.Errorf("first retrieval: %+v", res)
	}
}

// TestAPIKeys checks authentication: a key's namespace and role decide,
// and a client naming another namespace than its key's is refused.
func TestAPIKeys(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	srv := newServer(t, true)
	writer := srv.key(t, "team-a", memory.RoleWriter)
	reader := srv.key(t, "team-a", memory.RoleReader)

	other := newClient(t, srv.URL, client.Options{APIKey: writer, Namespace: "team-b"})
	if _, err := other.Remember(ctx, client.RememberRequest{Text: "Atlas uses pnpm"}); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a team-a key naming team-b: %v", err)
	}
	w := newClient(t, srv.URL, client.Options{APIKey: writer, Namespace: "team-a"})
	rem, err := w.Remember(ctx, client.RememberRequest{Text: "Atlas uses pnpm"})
	if err != nil {
		t.Fatal(err)
	}
	if rem.Version.Namespace != "team-a" {
		t.Fatalf("namespace %q, want the key's team-a", rem.Version.Namespace)
	}
	r := newClient(t, srv.URL, client.Options{APIKey: reader})
	if _, err := r.GetMemory(ctx, rem.MemoryID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Remember(ctx, client.RememberRequest{Text: "Atlas uses npm"}); !errors.Is(err, client.ErrForbidden) || client.StatusOf(err) != 403 {
		t.Fatalf("reader remember: %v", err)
	}
	if _, err := r.Export(ctx, &bytes.Buffer{}); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("reader export: %v", err)
	}
	none := newClient(t, srv.URL, client.Options{Namespace: "team-a"})
	if _, err := none.ListMemories(ctx, client.ListOptions{}); !errors.Is(err, client.ErrUnauthenticated) || client.StatusOf(err) != 401 {
		t.Fatalf("no key: %v", err)
	}
	bad := newClient(t, srv.URL, client.Options{APIKey: "mnm_not_a_key"})
	if _, err := bad.ListMemories(ctx, client.ListOptions{}); !errors.Is(err, client.ErrUnauthenticated) {
		t.Fatalf("bad key: %v", err)
	}
	// Probes need no key.
	if _, err := none.Health(ctx); err != nil {
		t.Fatal(err)
	}
}

// faultProxy stands in front of a real server and fails requests while
// fail says so: with a status and problem code, or by dropping the
// connection (status 0).
type faultProxy struct {
	*httptest.Server
	mu    sync.Mutex
	fail  func(r *http.Request, n int) (status int, code string)
	count map[string]int // requests seen, by "METHOD path"
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	p := &faultProxy{count: map[string]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		key := r.Method + " " + r.URL.Path
		p.count[key]++
		n, fail := p.count[key], p.fail
		p.mu.Unlock()
		if fail != nil {
			switch status, code := fail(r, n); {
			case status == 0 && code == "drop":
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			case status != 0:
				w.Header().Set("Content-Type", "application/problem+json")
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(status)
				_ = json.NewEncoder(w).Encode(map[string]any{"type": "https://mnemon.dev/problems/" + code,
					"title": http.StatusText(status), "status": status, "code": code, "detail": "injected"})
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *faultProxy) setFail(f func(r *http.Request, n int) (int, string)) {
	p.mu.Lock()
	p.fail = f
	p.count = map[string]int{}
	p.mu.Unlock()
}

func (p *faultProxy) seen(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count[key]
}

// TestRetries checks that idempotent calls are retried through transient
// failures and that writes are sent exactly once.
func TestRetries(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	p := newFaultProxy(t, serverURL)
	fast := client.RetryPolicy{MaxAttempts: 4, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
	c := newClient(t, p.URL, client.Options{Namespace: fresh("retries"), Retry: fast})
	rem, err := c.Remember(ctx, client.RememberRequest{Text: "Atlas uses pnpm"})
	if err != nil {
		t.Fatal(err)
	}
	firstN := func(k int, status int, code string) func(*http.Request, int) (int, string) {
		return func(_ *http.Request, n int) (int, string) {
			if n <= k {
				return status, code
			}
			return 0, ""
		}
	}
	tests := []struct {
		name     string
		fail     func(*http.Request, int) (int, string)
		call     func(c *client.Client) error
		key      string
		attempts int
		code     client.Code // "" : success
	}{
		{"GET through 503s", firstN(3, 503, "unavailable"), func(c *client.Client) error { _, err := c.GetMemory(ctx, rem.MemoryID); return err },
			"GET /v1/memories/" + rem.MemoryID, 4, ""},
		{"GET through 429 and 502", firstN(2, 429, "rate_limited"), func(c *client.Client) error { _, err := c.ListMemories(ctx, client.ListOptions{}); return err },
			"GET /v1/memories", 3, ""},
		{"GET through dropped connections", firstN(2, 0, "drop"), func(c *client.Client) error { _, err := c.GetMemory(ctx, rem.MemoryID); return err },
			"GET /v1/memories/" + rem.MemoryID, 3, ""},
		{"GET gives up after MaxAttempts", firstN(100, 503, "unavailable"), func(c *client.Client) error { _, err := c.GetMemory(ctx, rem.MemoryID); return err },
			"GET /v1/memories/" + rem.MemoryID, 4, client.ErrUnavailable},
		{"export through a 503", firstN(1, 503, "unavailable"), func(c *client.Client) error { _, err := c.Export(ctx, &bytes.Buffer{}); return err },
			"GET /v1/export", 2, ""},
		{"a damaged store is not retried", firstN(100, 503, "store_corrupt"), func(c *client.Client) error { _, err := c.GetMemory(ctx, rem.MemoryID); return err },
			"GET /v1/memories/" + rem.MemoryID, 1, client.ErrStoreCorrupt},
		{"a 404 is not retried", nil, func(c *client.Client) error { _, err := c.GetJob(ctx, "job_999999"); return err },
			"GET /v1/jobs/job_999999", 1, client.ErrNotFound},
		{"remember is sent once", firstN(100, 503, "unavailable"), func(c *client.Client) error {
			_, err := c.Remember(ctx, client.RememberRequest{Text: "Atlas uses npm"})
			return err
		}, "POST /v1/memories", 1, client.ErrUnavailable},
		{"remember is sent once on a dropped connection", firstN(100, 0, "drop"), func(c *client.Client) error {
			_, err := c.Remember(ctx, client.RememberRequest{Text: "Atlas uses npm"})
			return err
		}, "POST /v1/memories", 1, "transport"},
		{"capture is sent once", firstN(100, 503, "unavailable"), func(c *client.Client) error {
			_, err := c.Capture(ctx, client.CaptureRequest{SessionID: "s", Events: []client.Event{{Kind: client.KindUserMessage, Content: "I use Go"}}})
			return err
		}, "POST /v1/episodes", 1, client.ErrUnavailable},
		{"retrieve is sent once", firstN(100, 429, "rate_limited"), func(c *client.Client) error {
			_, err := c.Retrieve(ctx, client.RetrieveRequest{Query: "Atlas"})
			return err
		}, "POST /v1/memories/retrieve", 1, client.ErrRateLimited},
		{"DELETE through a 503", firstN(1, 503, "unavailable"), func(c *client.Client) error { _, err := c.Forget(ctx, rem.MemoryID); return err },
			"DELETE /v1/memories/" + rem.MemoryID, 2, ""},
		{"probes are not retried", firstN(100, 503, "unavailable"), func(c *client.Client) error { _, err := c.Ready(ctx); return err },
			"GET /readyz", 1, client.ErrUnavailable},
	}
	for _, tt := range tests { // sequential: they share the proxy
		p.setFail(tt.fail)
		err := tt.call(c)
		switch {
		case tt.code == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.code == "transport":
			if err == nil || client.StatusOf(err) != 0 {
				t.Errorf("%s: %v, want a transport error", tt.name, err)
			}
		case tt.code != "" && !errors.Is(err, tt.code):
			t.Errorf("%s: %v, want %s", tt.name, err, tt.code)
		}
		if got := p.seen(tt.key); got != tt.attempts {
			t.Errorf("%s: %d attempts, want %d", tt.name, got, tt.attempts)
		}
	}

	// MaxAttempts 1 turns retries off.
	p.setFail(firstN(1, 503, "unavailable"))
	once := newClient(t, p.URL, client.Options{Namespace: fresh("retries"), Retry: client.RetryPolicy{MaxAttempts: 1}})
	if _, err := once.ListMemories(ctx, client.ListOptions{}); !errors.Is(err, client.ErrUnavailable) || p.seen("GET /v1/memories") != 1 {
		t.Errorf("MaxAttempts 1: %v after %d attempts", err, p.seen("GET /v1/memories"))
	}

	// A deadline shorter than the backoff ends the call at once, with the
	// server's error rather than a bare deadline.
	p.setFail(firstN(100, 503, "unavailable"))
	slow := newClient(t, p.URL, client.Options{Namespace: fresh("retries"), Retry: client.RetryPolicy{MinBackoff: time.Hour, MaxBackoff: time.Hour}})
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	began := time.Now()
	if _, err := slow.ListMemories(short, client.ListOptions{}); !errors.Is(err, client.ErrUnavailable) || time.Since(began) > time.Second {
		t.Errorf("deadline: %v after %s", err, time.Since(began))
	}
	p.setFail(nil)

	// A server that is not there: a transport error after every attempt.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	gone := newClient(t, "http://"+addr, client.Options{Retry: fast})
	if _, err := gone.ListMemories(ctx, client.ListOptions{}); err == nil || client.StatusOf(err) != 0 || !strings.Contains(err.Error(), "GET /v1/memories") {
		t.Errorf("no server: %v", err)
	}
}

// TestAgent checks the two-call wrapper: what PreTask returns, what
// PostTask stores, and the feedback hook.
func TestAgent(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	c := newClient(t, serverURL, client.Options{Namespace: fresh("agent")})
	var fbCalls []string
	var fbResult client.TaskResult
	a := &client.Agent{Client: c, Scope: client.Scope{AgentID: "coder", ProjectID: "atlas"}, TokenBudget: 300,
		Feedback: func(_ context.Context, id string, r client.TaskResult) error {
			fbCalls, fbResult = append(fbCalls, id), r
			return nil
		}}

	if _, err := a.PostTask(ctx, client.TaskResult{}); err == nil {
		t.Fatal("PostTask without PreTask accepted")
	}
	if err := a.Record(client.Event{Kind: client.KindToolCall, Content: "ls"}); err == nil {
		t.Fatal("Record without PreTask accepted")
	}

	// A namespace that holds nothing: an empty pack, no retrieval, no
	// feedback; the session is still captured.
	pack, err := a.PreTask(ctx, "Set up the Atlas repository")
	if err != nil {
		t.Fatal(err)
	}
	if pack.Context != "" || pack.RetrievalID != "" || !strings.HasPrefix(pack.SessionID, "ses_") {
		t.Fatalf("first pack: %+v", pack)
	}
	if _, err := a.PreTask(ctx, "another"); err == nil {
		t.Fatal("second PreTask while a task runs accepted")
	}
	if err := a.Record(client.Event{Kind: client.KindToolCall, Content: "pnpm install", Speaker: "agent"}); err != nil {
		t.Fatal(err)
	}
	first, err := a.PostTask(ctx, client.TaskResult{Output: "Atlas uses pnpm; installed its packages.", Succeeded: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Capture.EpisodeIDs) != 3 || first.SessionID != pack.SessionID || len(fbCalls) != 0 {
		t.Fatalf("first post: %+v, feedback %v", first, fbCalls)
	}
	if _, err := c.WaitJob(ctx, first.Capture.JobID, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}

	// Now memory knows something: the pack carries it, and the feedback
	// hook hears about the retrieval.
	long := "Add zod to Atlas. " + strings.Repeat("Context line. ", 400) // > 4096 bytes
	pack, err = a.PreTask(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pack.RetrievalID, "ret_") || !strings.Contains(pack.Context, "pnpm") || len(pack.Items) == 0 {
		t.Fatalf("second pack: %+v", pack)
	}
	second, err := a.PostTask(ctx, client.TaskResult{Output: "Ran pnpm add zod.", Succeeded: false, Severity: 0.5,
		UsedMemoryIDs: []string{pack.Items[0].MemoryID}, Metadata: map[string]string{"exit": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if second.RetrievalID != pack.RetrievalID || !slices.Equal(fbCalls, []string{pack.RetrievalID}) ||
		fbResult.Severity != 0.5 || fbResult.UsedMemoryIDs[0] != pack.Items[0].MemoryID {
		t.Fatalf("second post: %+v, feedback %v %+v", second, fbCalls, fbResult)
	}

	// The session log holds the whole prompt and the result with its
	// outcome and retrieval id.
	var dump bytes.Buffer
	if _, err := c.Export(ctx, &dump); err != nil {
		t.Fatal(err)
	}
	var sawPrompt, sawResult bool
	for line := range strings.SplitSeq(dump.String(), "\n") {
		if strings.Contains(line, `"task_result"`) && strings.Contains(line, `"outcome":"failure"`) &&
			strings.Contains(line, `"retrieval_id":"`+pack.RetrievalID+`"`) && strings.Contains(line, `"exit":"1"`) {
			sawResult = true
		}
		if strings.Contains(line, `"user_message"`) && strings.Contains(line, strings.Repeat("Context line. ", 399)) {
			sawPrompt = true
		}
	}
	if !sawPrompt || !sawResult {
		t.Fatalf("export lacks the prompt (%v) or the result (%v)", sawPrompt, sawResult)
	}

	// A failed feedback does not undo the capture: the task has ended.
	a.Feedback = func(context.Context, string, client.TaskResult) error { return errors.New("rating service down") }
	if _, err := a.PreTask(ctx, "Add zod to Atlas"); err != nil {
		t.Fatal(err)
	}
	res, err := a.PostTask(ctx, client.TaskResult{Output: "done", Succeeded: true})
	if err == nil || res == nil || len(res.Capture.EpisodeIDs) != 2 || !strings.Contains(err.Error(), "rating service down") {
		t.Fatalf("feedback failure: %+v, %v", res, err)
	}
	if _, err := a.PreTask(ctx, "next task"); err != nil {
		t.Fatalf("after a failed feedback the task should have ended: %v", err)
	}
}

// TestAgentCaptureFails checks that a PostTask whose capture fails keeps
// the task open, so that it can be sent again.
func TestAgentCaptureFails(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	p := newFaultProxy(t, serverURL)
	a := &client.Agent{Client: newClient(t, p.URL, client.Options{Namespace: fresh("agent-fails")})}
	if _, err := a.PreTask(ctx, "Deploy Atlas"); err != nil {
		t.Fatal(err)
	}
	p.setFail(func(r *http.Request, _ int) (int, string) {
		if r.URL.Path == "/v1/episodes" {
			return 503, "unavailable"
		}
		return 0, ""
	})
	if _, err := a.PostTask(ctx, client.TaskResult{Output: "deployed", Succeeded: true}); !errors.Is(err, client.ErrUnavailable) {
		t.Fatalf("PostTask through a failing capture: %v", err)
	}
	p.setFail(nil)
	res, err := a.PostTask(ctx, client.TaskResult{Output: "deployed", Succeeded: true})
	if err != nil || len(res.Capture.EpisodeIDs) != 2 {
		t.Fatalf("PostTask again: %+v, %v", res, err)
	}
}

// readOpenAPI loads the committed OpenAPI document.
func readOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile("../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestCodesMatchOpenAPI keeps the client's Code constants in step with the
// problem codes the server's OpenAPI document lists.
func TestCodesMatchOpenAPI(t *testing.T) {
	t.Parallel()
	problem := readOpenAPI(t)["components"].(map[string]any)["schemas"].(map[string]any)["Problem"].(map[string]any)
	enum, _ := problem["properties"].(map[string]any)["code"].(map[string]any)["enum"].([]any)
	constants := map[client.Code]bool{}
	for _, c := range []client.Code{
		client.ErrMalformedJSON, client.ErrInvalidRequest, client.ErrInvalidTimestamp, client.ErrInvalidNamespace,
		client.ErrUnsupportedMediaType, client.ErrBodyTooLarge, client.ErrHeadersTooLarge, client.ErrTooManyEvents,
		client.ErrQueryTooLong, client.ErrRateLimited, client.ErrUnauthenticated, client.ErrForbidden, client.ErrNotFound,
		client.ErrNamespaceNotFound, client.ErrMethodNotAllowed, client.ErrConflict, client.ErrTimeout,
		client.ErrStoreCorrupt, client.ErrStorageFull, client.ErrStoreReadOnly, client.ErrModelUnavailable, client.ErrModelBadReply,
		client.ErrModelNotConfigured, client.ErrInternal, client.ErrInvalidSession,
		client.ErrSessionNotFound, client.ErrInvalidOutcome, client.ErrInvalidSeverity, client.ErrInvalidSource,
		client.ErrRetrievalNotFound, client.ErrNotInRetrieval,
	} {
		constants[c] = true
	}
	if len(enum) == 0 {
		t.Fatal("the OpenAPI document lists no problem codes")
	}
	for _, v := range enum {
		if code, _ := v.(string); !constants[client.Code(code)] {
			t.Errorf("the server answers %q; the client has no constant for it", v)
		}
	}
}

// TestTypesMatchOpenAPI keeps the client's types in step with the schemas
// of the server's OpenAPI document: the same JSON members, no more, no
// fewer.
func TestTypesMatchOpenAPI(t *testing.T) {
	t.Parallel()
	schemas := readOpenAPI(t)["components"].(map[string]any)["schemas"].(map[string]any)
	types := map[string]any{
		"Admission": client.Admission{}, "CaptureRequest": client.CaptureRequest{}, "CaptureResponse": client.CaptureResponse{},
		"ChannelHit": client.ChannelHit{}, "Episode": client.Episode{}, "EventInput": client.Event{},
		"ExportStats": client.ImportResponse{}, "ForgetResult": client.ForgetResponse{}, "Health": client.Health{},
		"Job": client.Job{}, "Memory": client.Memory{}, "MemoryList": client.MemoryList{}, "MemoryView": client.MemoryView{},
		"Outcome": client.Outcome{}, "Provenance": client.Provenance{}, "RememberRequest": client.RememberRequest{},
		"RememberResponse": client.RememberResponse{}, "RetrieveItem": client.RetrieveItem{},
		"RetrieveRequest": client.RetrieveRequest{}, "RetrieveResponse": client.RetrieveResponse{}, "Scope": client.Scope{},
		"Span": client.Span{}, "Trace": client.Trace{}, "TraceItem": client.TraceItem{}, "Version": client.Version{},
		"FeedbackRequest": client.FeedbackRequest{}, "FeedbackResult": client.FeedbackResult{}, "Feedback": client.FeedbackRecord{},
		"Explanation": client.Explanation{}, "MemoryExplanation": client.MemoryExplanation{},
		"VersionExplanation": client.VersionExplanation{}, "RetrievalExplanation": client.RetrievalExplanation{},
		"RankedItem": client.RankedItem{}, "LifecycleRunRequest": client.LifecycleRunRequest{},
		"LifecycleRunResponse": client.LifecycleRunResponse{}, "LifecycleReport": client.LifecycleReport{},
		"DedupeReport": client.DedupeReport{}, "LifecycleChange": client.LifecycleChange{},
		"ConsolidateRequest": client.ConsolidateRequest{}, "ConsolidateResponse": client.ConsolidateResponse{},
		"SessionOutcome": client.SessionOutcome{}, "ForgottenEpisode": client.ForgottenEpisode{},
		"GraphResponse": client.GraphResponse{}, "GraphEntity": client.GraphEntity{}, "GraphClaim": client.GraphClaim{},
		"ProcedureList": client.ProcedureList{}, "Procedure": client.Procedure{}, "ProcedureReport": client.ProcedureReport{},
		"ProcedureChange": client.ProcedureChange{}, "ProcedureFailure": client.ProcedureFailure{}, "TaskTally": client.TaskTally{},
		"VersionPage": client.VersionPage{}, "AdmissionList": client.AdmissionList{}, "JobList": client.JobList{},
		"Stats": client.Stats{}, "Bucket": client.Bucket{}, "Caller": client.Caller{}, "NamespaceList": client.NamespaceList{}, "Reports": client.Reports{}, "LifecycleRun": client.LifecycleRun{}, "ConsolidationRun": client.ConsolidationRun{}, "ProcedureRun": client.ProcedureRun{},
		"RespondRequest": client.RespondRequest{}, "RespondResponse": client.RespondResponse{}, "RespondUse": client.RespondUse{},
		"ModelUsage": client.ModelUsage{}, "ModelCalls": client.ModelCalls{},
	}
	mirrored := map[string]bool{"Problem": true} // decoded by the client's own unexported type
	for name, schema := range schemas {
		v, ok := types[name]
		if !ok {
			if !mirrored[name] {
				t.Errorf("schema %s has no client type: add one to types.go and to this test", name)
			}
			continue
		}
		var want []string
		for prop := range schema.(map[string]any)["properties"].(map[string]any) {
			want = append(want, prop)
		}
		got := jsonFields(reflect.TypeOf(v))
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: client fields %v, document %v", name, got, want)
		}
	}
}

// TestTypesMatchWire checks each client type against the server's wire
// type (package wire, which the server writes and reads): the same JSON
// members, each optional (omitempty or omitzero) on both sides or on
// neither, so what the client sends is what the server reads and what it
// decodes is what the server writes. The client keeps its own types for
// their Go shape (time.Time rather than RFC 3339 strings in requests, a
// zero time for an absent one in responses); the JSON is the contract.
func TestTypesMatchWire(t *testing.T) {
	t.Parallel()
	pairs := []struct{ client, wire any }{
		{client.CaptureRequest{}, wire.CaptureRequest{}}, {client.Event{}, wire.EventInput{}},
		{client.CaptureResponse{}, wire.CaptureResponse{}}, {client.RememberRequest{}, wire.RememberRequest{}},
		{client.RememberResponse{}, wire.RememberResponse{}}, {client.Outcome{}, wire.Outcome{}},
		{client.RetrieveRequest{}, wire.RetrieveRequest{}}, {client.RetrieveResponse{}, wire.RetrieveResponse{}},
		{client.RetrieveItem{}, wire.RetrieveItem{}}, {client.ChannelHit{}, wire.ChannelHit{}},
		{client.RespondRequest{}, wire.RespondRequest{}}, {client.RespondResponse{}, wire.RespondResponse{}},
		{client.RespondUse{}, wire.RespondUse{}}, {client.ModelUsage{}, wire.ModelUsage{}}, {client.ModelCalls{}, wire.ModelCalls{}},
		{client.MemoryList{}, wire.MemoryList{}}, {client.Version{}, wire.Version{}}, {client.Scope{}, wire.Scope{}},
		{client.Span{}, wire.Span{}}, {client.Provenance{}, wire.Provenance{}}, {client.MemoryView{}, wire.MemoryView{}},
		{client.Memory{}, wire.Memory{}}, {client.Admission{}, wire.Admission{}}, {client.Episode{}, wire.Episode{}},
		{client.ForgetResponse{}, wire.ForgetResult{}}, {client.Trace{}, wire.Trace{}}, {client.TraceItem{}, wire.TraceItem{}},
		{client.Job{}, wire.Job{}}, {client.ImportResponse{}, wire.ExportStats{}}, {client.Health{}, wire.Health{}},
		{client.FeedbackRequest{}, wire.FeedbackRequest{}}, {client.FeedbackResult{}, wire.FeedbackResult{}},
		{client.FeedbackRecord{}, wire.Feedback{}}, {client.Explanation{}, wire.Explanation{}},
		{client.MemoryExplanation{}, wire.MemoryExplanation{}}, {client.VersionExplanation{}, wire.VersionExplanation{}},
		{client.RetrievalExplanation{}, wire.RetrievalExplanation{}}, {client.RankedItem{}, wire.RankedItem{}},
		{client.LifecycleRunRequest{}, wire.LifecycleRunRequest{}}, {client.LifecycleRunResponse{}, wire.LifecycleRunResponse{}},
		{client.LifecycleReport{}, wire.LifecycleReport{}}, {client.DedupeReport{}, wire.DedupeReport{}},
		{client.LifecycleChange{}, wire.LifecycleChange{}}, {client.ConsolidateRequest{}, wire.ConsolidateRequest{}},
		{client.ConsolidateResponse{}, wire.ConsolidateResponse{}}, {client.SessionOutcome{}, wire.SessionOutcome{}},
		{client.ForgottenEpisode{}, wire.ForgottenEpisode{}}, {client.GraphResponse{}, wire.GraphResponse{}},
		{client.GraphEntity{}, wire.GraphEntity{}}, {client.GraphClaim{}, wire.GraphClaim{}},
		{client.ProcedureList{}, wire.ProcedureList{}}, {client.Procedure{}, wire.Procedure{}},
		{client.ProcedureReport{}, wire.ProcedureReport{}}, {client.ProcedureChange{}, wire.ProcedureChange{}},
		{client.ProcedureFailure{}, wire.ProcedureFailure{}}, {client.TaskTally{}, wire.TaskTally{}},
		{client.VersionPage{}, wire.VersionPage{}}, {client.AdmissionList{}, wire.AdmissionList{}}, {client.JobList{}, wire.JobList{}},
		{client.Stats{}, wire.Stats{}}, {client.Bucket{}, wire.Bucket{}}, {client.Caller{}, wire.Caller{}}, {client.NamespaceList{}, wire.NamespaceList{}}, {client.Reports{}, wire.Reports{}}, {client.LifecycleRun{}, wire.LifecycleRun{}}, {client.ConsolidationRun{}, wire.ConsolidationRun{}}, {client.ProcedureRun{}, wire.ProcedureRun{}},
	}
	for _, p := range pairs {
		ct, wt := reflect.TypeOf(p.client), reflect.TypeOf(p.wire)
		got, want := jsonMembers(ct), jsonMembers(wt)
		if !maps.Equal(got, want) {
			t.Errorf("client.%s has members %v; wire.%s (what the server uses) has %v", ct.Name(), got, wt.Name(), want)
		}
	}
}

// jsonMembers maps each JSON member of a struct to whether it is optional
// (left out when empty).
func jsonMembers(rt reflect.Type) map[string]bool {
	out := map[string]bool{}
	for f := range rt.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
	}
	return out
}

func jsonFields(rt reflect.Type) []string {
	var out []string
	for f := range rt.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// TestEveryEndpointHasAMethod fails when the server gains an endpoint the
// client cannot call: add the method to api.go and its row here.
func TestEveryEndpointHasAMethod(t *testing.T) {
	t.Parallel()
	methods := map[string]string{
		"POST /v1/episodes":                  "Capture",
		"POST /v1/memories":                  "Remember",
		"POST /v1/memories/retrieve":         "Retrieve",
		"GET /v1/memories":                   "ListMemories",
		"GET /v1/memories/{id}":              "GetMemory",
		"DELETE /v1/memories/{id}":           "Forget",
		"GET /v1/retrievals/{id}":            "GetTrace",
		"GET /v1/jobs/{id}":                  "GetJob",
		"GET /v1/export":                     "Export",
		"POST /v1/import":                    "Import",
		"GET /healthz":                       "Health",
		"GET /readyz":                        "Ready",
		"GET /metrics":                       "Metrics",
		"GET /openapi.json":                  "OpenAPI",
		"POST /v1/retrievals/{id}/feedback":  "Feedback",
		"GET /v1/memories/{id}/explain":      "Explain",
		"POST /v1/lifecycle/run":             "RunLifecycle",
		"POST /v1/sessions/{id}/consolidate": "Consolidate",
		"GET /v1/graph/neighborhood":         "Neighborhood",
		"GET /v1/procedures":                 "ListProcedures",
		"POST /v1/procedures/promote":        "PromoteProcedures",
		"GET /v1/versions":                   "ListVersions",
		"GET /v1/admissions":                 "ListAdmissions",
		"GET /v1/jobs":                       "ListJobs",
		"POST /v1/jobs/{id}/retry":           "RetryJob",
		"GET /v1/stats":                      "Stats",
		"GET /v1/caller":                     "Caller",
		"GET /v1/namespaces":                 "Namespaces",
		"GET /v1/reports":                    "Reports",
		"POST /v1/agent/respond":             "Respond",
	}
	ct := reflect.TypeOf(&client.Client{})
	for path, ops := range readOpenAPI(t)["paths"].(map[string]any) {
		for method := range ops.(map[string]any) {
			if method == "parameters" {
				continue
			}
			ep := strings.ToUpper(method) + " " + path
			name, ok := methods[ep]
			if !ok {
				t.Errorf("%s has no client method", ep)
				continue
			}
			if _, ok := ct.MethodByName(name); !ok {
				t.Errorf("%s: client.Client has no method %s", ep, name)
			}
		}
	}
}
