package httpapi_test

// End-to-end tests of the HTTP API: a real SQLite file, a real engine, a
// real River queue with workers and the server on loopback, driven by a
// plain HTTP client. Nothing is mocked.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"
	"go.uber.org/goleak"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/internal/apikey"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/internal/testutil"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/jobs/jobstest"
	"github.com/mnemon-dev/mnemon/mcpserver"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// e2eFixture is one server over its own database.
type e2eFixture struct {
	store *sqlite.Store
	eng   *engine.Engine
	queue *jobs.Queue
	api   *httpapi.Server
	srv   *httptest.Server
	logs  *testutil.SyncBuffer
	dir   string
}

// e2eOptions changes a fixture's server configuration. Zero limits take the
// fixture's defaults (generous rates, short caches), not the server's.
type e2eOptions struct {
	limits      httpapi.Limits
	requireKeys bool
	mcp         bool // serve MCP at /mcp
	// clock, when set, is the engine's and the server's clock (the job
	// queue keeps River's).
	clock clock.Clock
	// embedder, when set, replaces the engine's built-in one.
	embedder embed.Embedder
	// chat, when set, is the engine's chat model (agent/respond).
	chat engine.ChatModel
	// readOnly serves a database opened read-only, as serve --read-only
	// does: it is made (and River's tables migrated) read-write first,
	// then reopened read-only with a read-only queue and no workers.
	readOnly bool
}

func e2eOpen(t *testing.T, opts e2eOptions) *e2eFixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "mnemon.db")
	// Both schemas, the store's and River's, migrated once per test binary
	// and copied (a read-only server finds River's tables made, as serve
	// --read-only needs them).
	jobstest.CopyTo(t, path)
	st, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: opts.readOnly})
	if err != nil {
		t.Fatal(err)
	}
	logs := &testutil.SyncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	eng, err := engine.New(engine.Config{Store: st, Clock: opts.clock, Embedder: opts.embedder, Chat: opts.chat})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	workers := 2
	if opts.readOnly {
		workers = 0
	}
	q, err := jobs.Open(ctx, jobs.Config{
		Driver: riversqlite.New(st.WriterDB()), TxOf: sqlite.SQLTx, Engine: eng,
		Workers: workers, PollInterval: 10 * time.Millisecond, ReadOnly: opts.readOnly,
	})
	if err != nil {
		eng.Close()
		st.Close()
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		eng.Close()
		st.Close()
		t.Fatal(err)
	}
	lim := opts.limits
	if lim.RatePerSecond == 0 {
		lim.RatePerSecond, lim.RateBurst = 1e6, 1e6
	}
	if lim.KeyCacheTTL == 0 {
		lim.KeyCacheTTL = 50 * time.Millisecond
	}
	if lim.OpenModeCheckEvery == 0 {
		lim.OpenModeCheckEvery = 20 * time.Millisecond
	}
	if lim.WaitTimeout == 0 {
		lim.WaitTimeout = 20 * time.Second
	}
	var mcpHandler http.Handler
	if opts.mcp {
		mcpHandler = mcpserver.HTTPHandler(eng, mcpserver.Options{Version: "test", Logger: log})
	}
	api, err := httpapi.New(httpapi.Config{
		Engine: eng, Keys: st, Queue: q, Logger: log, Limits: lim, RequireKeys: opts.requireKeys,
		Version: "test", MCP: mcpHandler, Clock: opts.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api) // 127.0.0.1
	t.Cleanup(func() {
		srv.Close()
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := q.Stop(stopCtx); err != nil {
			t.Error(err)
		}
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return &e2eFixture{store: st, eng: eng, queue: q, api: api, srv: srv, logs: logs, dir: dir}
}

// e2eResp is a response read in full.
type e2eResp struct {
	status int
	header http.Header
	body   []byte
}

func (r *e2eResp) String() string {
	return fmt.Sprintf("%d %s", r.status, r.body)
}

// e2eHideLen hides a body's length from net/http, so it is sent chunked.
type e2eHideLen struct{ io.Reader }

// e2eDo sends a request. body is nil, a string or []byte (sent as is), an
// io.Reader (sent chunked) or any other value (sent as JSON). hdr holds
// header name/value pairs; a JSON Content-Type is set unless hdr names one
// (an empty value sends none).
func (f *e2eFixture) e2eDo(t *testing.T, method, path string, body any, hdr ...string) *e2eResp {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	case io.Reader:
		rd = e2eHideLen{b}
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, f.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if len(hdr)%2 != 0 {
		t.Fatalf("odd header list %q", hdr)
	}
	for i := 0; i < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return &e2eResp{status: res.StatusCode, header: res.Header, body: data}
}

// e2eJSON checks the status and the JSON content type and decodes the body
// into v.
func e2eJSON(t *testing.T, r *e2eResp, status int, v any) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("content type %q, want application/json: %s", ct, r.body)
	}
	if v == nil {
		return
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// e2eKeys returns the sorted keys of a JSON object.
func e2eKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %s", raw)
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func e2eSameKeys(t *testing.T, what string, raw json.RawMessage, want ...string) {
	t.Helper()
	got := e2eKeys(t, raw)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s has fields %v, want exactly %v", what, got, want)
	}
}

// e2eLeak matches what a problem must never show a client: Go type names,
// decoder internals, source and temp paths, SQL and driver text.
var e2eLeak = regexp.MustCompile(`json: |\b(httpapi|wire|wireconv|engine|memory|jobs|sqlite|river|http|sql)\.[A-Z*]|\*[a-z]+\.[A-Z]|(?i:go value|go struct|map\[|\[\][a-z*]|\.go\b|/tmp/|/work/|select |insert into|update [a-z_]+ set|constraint failed|sqlite|riverqueue|goroutine|panic|runtime\.|invalid input:)`)

// e2eProblem checks r is the problem status/code: problem+json, a
// request_id equal to X-Request-Id and nothing internal.
func e2eProblem(t *testing.T, r *e2eResp, status int, code string) wire.Problem {
	t.Helper()
	var p wire.Problem
	if r.status != status {
		t.Fatalf("status %d, want %d (%s): %s", r.status, status, code, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q, want application/problem+json: %s", ct, r.body)
	}
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("problem %s: %v", r.body, err)
	}
	if p.Code != code || p.Status != status || p.Type != httpapi.ProblemBase+code || p.Title == "" || p.Detail == "" {
		t.Errorf("problem %+v, want status %d code %s with a title and a detail", p, status, code)
	}
	if id := r.header.Get("X-Request-Id"); id == "" || p.RequestID != id {
		t.Errorf("problem request_id %q, X-Request-Id header %q", p.RequestID, id)
	}
	if e2eLeak.Match(r.body) {
		t.Errorf("problem shows internal text: %s (matched %q)", r.body, e2eLeak.Find(r.body))
	}
	return p
}

// e2eState is everything a request could write, to compare before and
// after a refused one.
func (f *e2eFixture) e2eState(t *testing.T, nss ...string) string {
	t.Helper()
	ctx := context.Background()
	f.eng.FlushTraces()
	var b strings.Builder
	for _, ns := range nss {
		s, err := f.store.Stats(ctx, memory.StatsParams{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%+v\n", *s)
	}
	counts, err := f.queue.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "jobs %v\n", counts)
	keys, err := f.store.ListAPIKeys(ctx, memory.ListAPIKeysParams{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "keys %d\n", len(keys))
	return b.String()
}

// e2eKey creates an API key through the store and returns the raw key and
// its id.
func (f *e2eFixture) e2eKey(t *testing.T, ns string, role memory.Role) (string, string) {
	t.Helper()
	raw, k, err := apikey.Generate(ns, role, "e2e "+ns+" "+string(role), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.CreateAPIKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return raw, k.ID
}

// e2eEventually retries check until it holds or the deadline passes.
func e2eEventually(t *testing.T, within time.Duration, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Request and response bodies as a client sees them.
type (
	e2eCaptureResp struct {
		EpisodeIDs []string `json:"episode_ids"`
		JobID      string   `json:"job_id"`
		JobState   string   `json:"job_state"`
	}
	e2eRememberResp struct {
		EpisodeID string          `json:"episode_id"`
		MemoryID  string          `json:"memory_id"`
		Version   *memory.Version `json:"version"`
		Operation string          `json:"operation"`
		Decision  string          `json:"decision"`
		Reasons   []string        `json:"reasons"`
		Outcomes  []struct {
			Decision  string `json:"decision"`
			Operation string `json:"operation"`
			MemoryID  string `json:"memory_id"`
			VersionID string `json:"version_id"`
		} `json:"outcomes"`
	}
	e2eItem struct {
		MemoryID    string            `json:"memory_id"`
		VersionID   string            `json:"version_id"`
		Kind        string            `json:"kind"`
		Type        string            `json:"type"`
		Content     string            `json:"content"`
		Score       float64           `json:"score"`
		Tokens      int               `json:"tokens"`
		Action      string            `json:"action"`
		EpisodeIDs  []string          `json:"episode_ids"`
		Channels    map[string]e2eHit `json:"channels"`
		Explanation string            `json:"explanation"`
	}
	e2eHit struct {
		Rank  int     `json:"rank"`
		Score float64 `json:"score"`
	}
	e2eRetrieveResp struct {
		RetrievalID string    `json:"retrieval_id"`
		Context     string    `json:"context"`
		TokensUsed  int       `json:"tokens_used"`
		Items       []e2eItem `json:"items"`
		raw         []json.RawMessage
	}
)

func e2eEvent(kind, content string, at time.Time) map[string]any {
	return map[string]any{"kind": kind, "content": content, "occurred_at": at.UTC().Format(time.RFC3339Nano)}
}

// e2eCapture captures events and waits for their extraction.
func (f *e2eFixture) e2eCapture(t *testing.T, session string, events []map[string]any, hdr ...string) e2eCaptureResp {
	t.Helper()
	var c e2eCaptureResp
	r := f.e2eDo(t, "POST", "/v1/episodes?wait=true", map[string]any{"session_id": session, "events": events}, hdr...)
	e2eJSON(t, r, http.StatusOK, &c)
	if c.JobState != jobs.StateSucceeded {
		t.Fatalf("capture with wait: %s", r.body)
	}
	return c
}

func (f *e2eFixture) e2eRemember(t *testing.T, body map[string]any, hdr ...string) e2eRememberResp {
	t.Helper()
	var rr e2eRememberResp
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories", body, hdr...), http.StatusCreated, &rr)
	return rr
}

func (f *e2eFixture) e2eRetrieve(t *testing.T, query string, hdr ...string) e2eRetrieveResp {
	t.Helper()
	var rr e2eRetrieveResp
	r := f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": query, "limit": 10, "token_budget": 800}, hdr...)
	e2eJSON(t, r, http.StatusOK, &rr)
	var raw struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(r.body, &raw); err != nil {
		t.Fatal(err)
	}
	rr.raw = raw.Items
	return rr
}

func e2eContents(items []e2eItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Content
	}
	return out
}

// TestE2EEndpoints walks every endpoint's happy path in open mode and
// checks the exact shapes other tools depend on.
func TestE2EEndpoints(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	now := time.Now().UTC()
	events := []map[string]any{
		e2eEvent("user_message", "I live in Lisbon.", now.Add(-3*time.Minute)),
		e2eEvent("agent_message", "Noted, Lisbon it is.", now.Add(-2*time.Minute)),
		e2eEvent("user_message", "My favourite editor is Helix.", now.Add(-time.Minute)),
	}
	var capture e2eCaptureResp

	t.Run("capture accepts and queues extraction", func(t *testing.T) {
		r := f.e2eDo(t, "POST", "/v1/episodes", map[string]any{"session_id": "s1", "events": events})
		e2eJSON(t, r, http.StatusAccepted, &capture)
		e2eSameKeys(t, "capture response", r.body, "episode_ids", "job_id")
		if len(capture.EpisodeIDs) != len(events) || !strings.HasPrefix(capture.JobID, "job_") {
			t.Fatalf("capture response %s", r.body)
		}
		seen := map[string]bool{}
		for _, id := range capture.EpisodeIDs {
			if !strings.HasPrefix(id, "ep_") || seen[id] {
				t.Fatalf("episode ids %v", capture.EpisodeIDs)
			}
			seen[id] = true
		}
	})

	t.Run("job reports its state until it succeeds", func(t *testing.T) {
		var job jobs.Job
		states := map[string]bool{}
		e2eEventually(t, 20*time.Second, "job succeeds", func() bool {
			r := f.e2eDo(t, "GET", "/v1/jobs/"+capture.JobID, nil)
			e2eJSON(t, r, http.StatusOK, &job)
			states[job.State] = true
			return job.State == jobs.StateSucceeded
		})
		for s := range states {
			if !slices.Contains(jobs.States, s) || s == jobs.StateFailed {
				t.Errorf("job passed through state %q", s)
			}
		}
		if job.ID != capture.JobID || job.Namespace != memory.DefaultNamespace || job.Kind != jobs.KindExtract ||
			job.FinishedAt == nil || job.Attempt != 1 || job.Error != "" {
			t.Errorf("job %+v", job)
		}
	})

	t.Run("a job that cannot run is failed, with its error", func(t *testing.T) {
		// More episodes than one job may carry: the worker refuses the
		// payload for good.
		job := engine.ExtractJob{Namespace: memory.DefaultNamespace}
		for range engine.MaxEvents + 1 {
			job.EpisodeIDs = append(job.EpisodeIDs, capture.EpisodeIDs[0])
		}
		var id string
		err := f.store.InTx(context.Background(), func(tx memory.Executor) error {
			var err error
			id, err = f.queue.Enqueue(context.Background(), tx, job)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		var got jobs.Job
		e2eEventually(t, 20*time.Second, "job fails", func() bool {
			e2eJSON(t, f.e2eDo(t, "GET", "/v1/jobs/"+id, nil), http.StatusOK, &got)
			return got.State != jobs.StatePending && got.State != jobs.StateRunning
		})
		if got.State != jobs.StateFailed || !strings.Contains(got.Error, "episodes in one job") || got.FinishedAt == nil {
			t.Errorf("job %+v", got)
		}
		if strings.Contains(got.Error, "JobCancelError") || e2eLeak.MatchString(got.Error) || strings.HasPrefix(got.Error, "extract: ") {
			t.Errorf("job error shows internal text (the queue's Go type, the engine's prefixes): %q", got.Error)
		}
	})

	t.Run("capture with wait answers after extraction", func(t *testing.T) {
		r := f.e2eDo(t, "POST", "/v1/episodes?wait=true", map[string]any{"session_id": "s1",
			"events": []map[string]any{e2eEvent("user_message", "I work at Acme Corp as a pilot.", now.Add(-30*time.Second))}})
		var c e2eCaptureResp
		e2eJSON(t, r, http.StatusOK, &c)
		e2eSameKeys(t, "capture response with wait", r.body, "episode_ids", "job_id", "job_state")
		if c.JobState != jobs.StateSucceeded || len(c.EpisodeIDs) != 1 {
			t.Fatalf("capture with wait: %s", r.body)
		}
		// No polling: the fact is there the moment the answer is.
		var list wire.MemoryList
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories", nil), http.StatusOK, &list)
		found := false
		for _, v := range list.Memories {
			if strings.Contains(v.Content, "Acme") && slices.Contains(v.EvidenceEpisodeIDs, c.EpisodeIDs[0]) {
				found = true
			}
		}
		if !found {
			t.Fatalf("no memory cites the waited-for episode %s: %+v", c.EpisodeIDs[0], list.Memories)
		}
		rr := f.e2eRetrieve(t, "where does the user work?")
		if len(rr.Items) == 0 || !strings.Contains(rr.Context, "Acme") {
			t.Fatalf("retrieve after wait: %+v", rr)
		}
	})

	var remembered e2eRememberResp
	t.Run("remember returns the version, operation and decision", func(t *testing.T) {
		r := f.e2eDo(t, "POST", "/v1/memories", map[string]any{"text": "I prefer green tea over coffee.", "session_id": "s1"})
		e2eJSON(t, r, http.StatusCreated, &remembered)
		e2eSameKeys(t, "remember response", r.body, "episode_id", "memory_id", "version", "operation", "decision", "reasons", "outcomes")
		v := remembered.Version
		if remembered.Decision != "accept" || remembered.Operation != "ADD" || !strings.HasPrefix(remembered.MemoryID, "mem_") ||
			!strings.HasPrefix(remembered.EpisodeID, "ep_") || v == nil || v.MemoryID != remembered.MemoryID ||
			!strings.HasPrefix(v.ID, "ver_") || v.Seq != 1 || v.Namespace != memory.DefaultNamespace || len(v.Embedding) != 0 ||
			len(remembered.Outcomes) == 0 {
			t.Fatalf("remember: %s", r.body)
		}
		var raw struct {
			Version json.RawMessage `json:"version"`
		}
		_ = json.Unmarshal(r.body, &raw)
		if bytes.Contains(raw.Version, []byte(`"embedding"`)) {
			t.Errorf("the version carries its embedding: %s", raw.Version)
		}

		// A keyed fact, then a new value for the same slot.
		first := f.e2eRemember(t, map[string]any{"text": "My shell is bash.", "key": "uses:shell", "value": "bash", "subject": "user", "type": "preference"})
		second := f.e2eRemember(t, map[string]any{"text": "My shell is zsh now.", "key": "uses:shell", "value": "zsh", "subject": "user", "type": "preference"})
		if first.Operation != "ADD" || second.Operation != "SUPERSEDE" || second.MemoryID != first.MemoryID || second.Version.Seq != 2 {
			t.Errorf("keyed remember: first %+v, second %+v", first, second)
		}
		again := f.e2eRemember(t, map[string]any{"text": "My shell is zsh now.", "key": "uses:shell", "value": "zsh", "subject": "user", "type": "preference"})
		if again.Operation != "REINFORCE" || again.MemoryID != first.MemoryID {
			t.Errorf("the same fact again: %+v", again)
		}
	})

	var retrieval e2eRetrieveResp
	t.Run("retrieve returns items in rank order with their channels", func(t *testing.T) {
		r := f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "what does the user like to drink, tea or coffee?",
			"limit": 5, "token_budget": 500, "session_id": "s1"})
		e2eJSON(t, r, http.StatusOK, &retrieval)
		e2eSameKeys(t, "retrieve response", r.body, "retrieval_id", "context", "tokens_used", "items")
		var raw struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(r.body, &raw)
		if !strings.HasPrefix(retrieval.RetrievalID, "ret_") || len(raw.Items) == 0 || len(raw.Items) > 5 ||
			retrieval.TokensUsed <= 0 || retrieval.TokensUsed > 500 || !strings.Contains(retrieval.Context, "green tea") {
			t.Fatalf("retrieve: %s", r.body)
		}
		sum := 0
		for i, item := range raw.Items {
			e2eSameKeys(t, fmt.Sprintf("item %d", i), item, "memory_id", "version_id", "kind", "type", "content", "score",
				"tokens", "trust", "uncertainty", "action", "episode_ids", "channels", "explanation")
			it := retrieval.Items[i]
			sum += it.Tokens
			var chans map[string]json.RawMessage
			_ = json.Unmarshal(item, &struct {
				Channels *map[string]json.RawMessage `json:"channels"`
			}{&chans})
			if len(chans) == 0 {
				t.Errorf("item %d has no channel: %s", i, item)
			}
			for name, hit := range chans {
				e2eSameKeys(t, "channel "+name, hit, "rank", "score")
				if it.Channels[name].Rank < 1 {
					t.Errorf("item %d channel %s rank %d", i, name, it.Channels[name].Rank)
				}
			}
			if !strings.HasPrefix(it.MemoryID, "mem_") || !strings.HasPrefix(it.VersionID, "ver_") || it.Content == "" ||
				it.Tokens <= 0 || it.Explanation == "" || it.Action == "" || it.Type == "" ||
				!slices.Contains([]string{"episodic", "semantic", "procedural"}, it.Kind) {
				t.Errorf("item %d: %s", i, item)
			}
			if len(it.EpisodeIDs) == 0 {
				t.Errorf("item %d cites no episode: %s", i, item)
			}
			if it.MemoryID == remembered.MemoryID && !slices.Contains(it.EpisodeIDs, remembered.EpisodeID) {
				t.Errorf("the remembered fact cites %v, not its episode %s", it.EpisodeIDs, remembered.EpisodeID)
			}
		}
		if sum > retrieval.TokensUsed {
			t.Errorf("items use %d tokens, tokens_used %d", sum, retrieval.TokensUsed)
		}

		// The trace holds the same items at the same ranks.
		var tr wire.Trace
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/retrievals/"+retrieval.RetrievalID, nil), http.StatusOK, &tr)
		if tr.ID != retrieval.RetrievalID || tr.Query != "what does the user like to drink, tea or coffee?" || tr.Limit != 5 ||
			tr.TokenBudget != 500 || tr.TokensUsed != retrieval.TokensUsed {
			t.Errorf("trace %+v", tr)
		}
		var packed []wire.TraceItem
		for _, it := range tr.Items {
			if it.Packed {
				packed = append(packed, it)
			}
		}
		sort.Slice(packed, func(i, j int) bool { return packed[i].Rank < packed[j].Rank })
		if len(packed) != len(retrieval.Items) {
			t.Fatalf("trace packs %d items, the response %d", len(packed), len(retrieval.Items))
		}
		for i, it := range retrieval.Items {
			if packed[i].VersionID != it.VersionID {
				t.Errorf("item %d is %s, the trace ranks %s there", i, it.VersionID, packed[i].VersionID)
			}
			for name, h := range packed[i].Channels {
				if it.Channels[name].Rank != h.Rank {
					t.Errorf("item %d channel %s rank %d, trace %d", i, name, it.Channels[name].Rank, h.Rank)
				}
			}
		}
	})

	t.Run("list and show memories", func(t *testing.T) {
		r := f.e2eDo(t, "GET", "/v1/memories", nil)
		var list wire.MemoryList
		e2eJSON(t, r, http.StatusOK, &list)
		e2eSameKeys(t, "memory list", r.body, "memories")
		if bytes.Contains(r.body, []byte(`"embedding"`)) {
			t.Errorf("the list sends embeddings: %s", r.body)
		}
		if len(list.Memories) < 3 {
			t.Fatalf("memories: %s", r.body)
		}
		for _, v := range list.Memories {
			if v.Kind == string(memory.KindEpisodic) || !memory.Status(v.Status).Live() {
				t.Errorf("listed %+v", v)
			}
		}
		var hist wire.MemoryList
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories?include_history=true&limit=1000", nil), http.StatusOK, &hist)
		if len(hist.Memories) <= len(list.Memories) {
			t.Errorf("with history %d memories, without %d", len(hist.Memories), len(list.Memories))
		}
		var two wire.MemoryList
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories?limit=2", nil), http.StatusOK, &two)
		if len(two.Memories) != 2 {
			t.Errorf("limit=2 gave %d", len(two.Memories))
		}

		r = f.e2eDo(t, "GET", "/v1/memories/"+remembered.MemoryID, nil)
		var view wire.MemoryView
		e2eJSON(t, r, http.StatusOK, &view)
		e2eSameKeys(t, "memory view", r.body, "memory", "versions", "admissions", "episodes")
		if bytes.Contains(r.body, []byte(`"embedding"`)) {
			t.Errorf("the view sends embeddings: %s", r.body)
		}
		if view.Memory == nil || view.Memory.ID != remembered.MemoryID || len(view.Versions) != 1 ||
			view.Versions[0].ID != remembered.Version.ID ||
			len(view.Episodes) != 1 || view.Episodes[0].ID != remembered.EpisodeID || len(view.Admissions) == 0 {
			t.Errorf("memory view %s", r.body)
		}
		// A version id names its memory too.
		var byVersion wire.MemoryView
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories/"+remembered.Version.ID, nil), http.StatusOK, &byVersion)
		if byVersion.Memory == nil || byVersion.Memory.ID != remembered.MemoryID {
			t.Errorf("memory by version %+v", byVersion.Memory)
		}
	})

	t.Run("export then import into another namespace", func(t *testing.T) {
		r := f.e2eDo(t, "GET", "/v1/export", nil)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/x-ndjson" {
			t.Fatalf("export: %s", r)
		}
		contentOf := map[string]string{}
		var header engine.Record
		lines := bytes.Split(bytes.TrimSpace(r.body), []byte("\n"))
		for i, line := range lines {
			var rec engine.Record
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatalf("export line %d: %v", i+1, err)
			}
			if i == 0 {
				header = rec
			}
			if rec.Episode != nil {
				contentOf[rec.Episode.ID] = rec.Episode.Content
			}
		}
		if header.Record != "header" || header.Namespace != memory.DefaultNamespace {
			t.Errorf("export header %s", lines[0])
		}
		// The capture answered with its episodes in event order.
		for i, id := range capture.EpisodeIDs {
			if contentOf[id] != events[i]["content"] {
				t.Errorf("episode_ids[%d] = %s holds %q, event %d said %q", i, id, contentOf[id], i, events[i]["content"])
			}
		}

		var stats wire.ExportStats
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/import", r.body, "Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "copy"),
			http.StatusOK, &stats)
		src, err := f.store.Stats(context.Background(), memory.StatsParams{Namespace: memory.DefaultNamespace})
		if err != nil {
			t.Fatal(err)
		}
		if stats.Memories != src.Memories || stats.Episodes != src.Episodes || stats.Memories == 0 {
			t.Errorf("import %+v, source %+v", stats, src)
		}
		var a, b wire.MemoryList
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories?include_history=true&limit=1000", nil), http.StatusOK, &a)
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories?include_history=true&limit=1000", nil, "X-Mnemon-Namespace", "copy"), http.StatusOK, &b)
		if len(a.Memories) != len(b.Memories) {
			t.Fatalf("copy holds %d memories, the source %d", len(b.Memories), len(a.Memories))
		}
		for i := range a.Memories {
			va, vb := a.Memories[i], b.Memories[i]
			if va.ID != vb.ID || va.Content != vb.Content || va.Status != vb.Status || vb.Namespace != "copy" {
				t.Errorf("memory %d: source %+v, copy %+v", i, va, vb)
			}
		}
		q := "what does the user like to drink, tea or coffee?"
		ra, rb := f.e2eRetrieve(t, q), f.e2eRetrieve(t, q, "X-Mnemon-Namespace", "copy")
		if !slices.Equal(e2eContents(ra.Items), e2eContents(rb.Items)) {
			t.Errorf("retrieve in the copy %q, in the source %q", e2eContents(rb.Items), e2eContents(ra.Items))
		}
		// The copy's trace is the copy's own: the source does not see it.
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/retrievals/"+rb.RetrievalID, nil), http.StatusNotFound, "not_found")

		// Importing into a namespace that holds something is a conflict
		// and writes nothing.
		before := f.e2eState(t, "copy")
		e2eProblem(t, f.e2eDo(t, "POST", "/v1/import", r.body, "Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "copy"),
			http.StatusConflict, "conflict")
		if after := f.e2eState(t, "copy"); after != before {
			t.Errorf("a refused import wrote:\n%s\n%s", before, after)
		}
	})

	t.Run("delete forgets a memory", func(t *testing.T) {
		r := f.e2eDo(t, "DELETE", "/v1/memories/"+remembered.MemoryID, nil)
		var res wire.ForgetResult
		e2eJSON(t, r, http.StatusOK, &res)
		e2eSameKeys(t, "forget response", r.body, "memory_id", "versions", "episodes")
		if res.MemoryID != remembered.MemoryID || !slices.Equal(res.Versions, []string{remembered.Version.ID}) {
			t.Errorf("forget %s", r.body)
		}
		rr := f.e2eRetrieve(t, "what does the user like to drink, tea or coffee?")
		if strings.Contains(rr.Context, "green tea") {
			t.Errorf("forgotten memory still retrieved: %q", rr.Context)
		}
		var list wire.MemoryList
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories", nil), http.StatusOK, &list)
		for _, v := range list.Memories {
			if v.MemoryID == remembered.MemoryID {
				t.Errorf("forgotten memory listed: %+v", v)
			}
		}
		// Forgetting twice changes nothing.
		var again wire.ForgetResult
		e2eJSON(t, f.e2eDo(t, "DELETE", "/v1/memories/"+remembered.MemoryID, nil), http.StatusOK, &again)
		if len(again.Versions) != 0 {
			t.Errorf("second forget %+v", again)
		}
	})

	t.Run("health, readiness, metrics and the document", func(t *testing.T) {
		var h wire.Health
		e2eJSON(t, f.e2eDo(t, "GET", "/healthz", nil), http.StatusOK, &h)
		if h.Status != "ok" {
			t.Errorf("healthz %+v", h)
		}
		e2eJSON(t, f.e2eDo(t, "GET", "/readyz", nil), http.StatusOK, &h)
		if h.Status != "ok" || h.Checks["store"] != "ok" {
			t.Errorf("readyz %+v", h)
		}
		// An episode waiting for extraction (as a capture leaves it before
		// its job runs) shows in the backlog gauge.
		if err := f.store.QueueExtraction(t.Context(), memory.ExtractionParams{Namespace: "backlogged", EpisodeIDs: []string{"ep_waiting"}}); err != nil {
			t.Fatal(err)
		}
		r := f.e2eDo(t, "GET", "/metrics", nil)
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
			t.Fatalf("metrics: %s", r)
		}
		for _, want := range []string{
			`mnemon_http_request_duration_seconds_bucket{method="POST",route="POST /v1/memories/retrieve",status="200"`,
			`mnemon_http_request_duration_seconds_count{method="POST",route="POST /v1/episodes",status="202"}`,
			`mnemon_retrieval_channel_duration_seconds_bucket{channel=`,
			`mnemon_jobs{state="succeeded"} 2`,
			`mnemon_jobs{state="failed"} 1`,
			`mnemon_jobs{state="pending"} 0`,
			`mnemon_index_documents{namespace="default"}`,
			`mnemon_index_documents{namespace="copy"}`,
			`mnemon_extraction_backlog{namespace="backlogged"} 1`,
		} {
			if !strings.Contains(string(r.body), want) {
				t.Errorf("metrics lack %s", want)
			}
		}
		var doc struct {
			OpenAPI string         `json:"openapi"`
			Paths   map[string]any `json:"paths"`
		}
		e2eJSON(t, f.e2eDo(t, "GET", "/openapi.json", nil), http.StatusOK, &doc)
		if !strings.HasPrefix(doc.OpenAPI, "3.1") || doc.Paths["/v1/memories/retrieve"] == nil {
			t.Errorf("openapi %s with %d paths", doc.OpenAPI, len(doc.Paths))
		}
	})
}

// e2eSeed is what one namespace holds for the matrix: ids a key of another
// namespace must not reach.
type e2eSeed struct {
	memoryID    string
	retrievalID string
	jobID       string
	disposable  map[memory.Role]string // a memory per role to DELETE
}

// TestE2ERolesAndNamespaces runs every route with reader, writer and admin
// keys of namespaces a and b against a's and b's ids.
func TestE2ERolesAndNamespaces(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	nss := []string{"a", "b"}
	keys := map[string]map[memory.Role]string{}
	for _, ns := range nss {
		keys[ns] = map[memory.Role]string{}
		for _, role := range memory.Roles {
			keys[ns][role], _ = f.e2eKey(t, ns, role)
		}
	}
	auth := func(raw string) []string { return []string{"Authorization", "Bearer " + raw} }
	seeds := map[string]*e2eSeed{}
	now := time.Now().UTC()
	for _, ns := range nss {
		admin := auth(keys[ns][memory.RoleAdmin])
		s := &e2eSeed{disposable: map[memory.Role]string{}}
		c := f.e2eCapture(t, "s-"+ns, []map[string]any{e2eEvent("user_message", "I live in Porto, says "+ns+".", now.Add(-time.Hour))}, admin...)
		s.jobID = c.JobID
		s.memoryID = f.e2eRemember(t, map[string]any{"text": "My favourite colour is teal."}, admin...).MemoryID
		for _, role := range memory.Roles {
			s.disposable[role] = f.e2eRemember(t, map[string]any{"text": "Note for " + string(role) + ": the " + string(role) + " likes chess."}, admin...).MemoryID
		}
		s.retrievalID = f.e2eRetrieve(t, "where does the user live?", admin...).RetrievalID
		seeds[ns] = s
	}
	f.eng.FlushTraces()

	type matrixCase struct {
		name   string
		method string
		path   func(own, other *e2eSeed, role memory.Role) string
		body   any
		ctype  string
		need   memory.Role // "" for public routes
		status int         // when allowed
		code   string      // the problem code of an error status
		cross  bool        // names the other namespace's id: 404 when allowed
	}
	fixed := func(p string) func(_, _ *e2eSeed, _ memory.Role) string {
		return func(_, _ *e2eSeed, _ memory.Role) string { return p }
	}
	cases := []matrixCase{
		{name: "capture", method: "POST", path: fixed("/v1/episodes"), need: memory.RoleWriter, status: http.StatusAccepted,
			body: map[string]any{"session_id": "m", "events": []map[string]any{e2eEvent("user_message", "I own a bicycle.", now.Add(-time.Minute))}}},
		{name: "remember", method: "POST", path: fixed("/v1/memories"), need: memory.RoleWriter, status: http.StatusCreated,
			body: map[string]any{"text": "I own a kayak."}},
		{name: "retrieve", method: "POST", path: fixed("/v1/memories/retrieve"), need: memory.RoleReader, status: http.StatusOK,
			body: map[string]any{"query": "where does the user live?"}},
		{name: "list", method: "GET", path: fixed("/v1/memories"), need: memory.RoleReader, status: http.StatusOK},
		{name: "show own", method: "GET", need: memory.RoleReader, status: http.StatusOK,
			path: func(own, _ *e2eSeed, _ memory.Role) string { return "/v1/memories/" + own.memoryID }},
		{name: "show other's", method: "GET", need: memory.RoleReader, cross: true,
			path: func(_, other *e2eSeed, _ memory.Role) string { return "/v1/memories/" + other.memoryID }},
		{name: "delete own", method: "DELETE", need: memory.RoleWriter, status: http.StatusOK,
			path: func(own, _ *e2eSeed, role memory.Role) string { return "/v1/memories/" + own.disposable[role] }},
		{name: "delete other's", method: "DELETE", need: memory.RoleWriter, cross: true,
			path: func(_, other *e2eSeed, _ memory.Role) string { return "/v1/memories/" + other.memoryID }},
		{name: "trace own", method: "GET", need: memory.RoleReader, status: http.StatusOK,
			path: func(own, _ *e2eSeed, _ memory.Role) string { return "/v1/retrievals/" + own.retrievalID }},
		{name: "trace other's", method: "GET", need: memory.RoleReader, cross: true,
			path: func(_, other *e2eSeed, _ memory.Role) string { return "/v1/retrievals/" + other.retrievalID }},
		{name: "job own", method: "GET", need: memory.RoleReader, status: http.StatusOK,
			path: func(own, _ *e2eSeed, _ memory.Role) string { return "/v1/jobs/" + own.jobID }},
		{name: "job other's", method: "GET", need: memory.RoleReader, cross: true,
			path: func(_, other *e2eSeed, _ memory.Role) string { return "/v1/jobs/" + other.jobID }},
		{name: "export", method: "GET", path: fixed("/v1/export"), need: memory.RoleAdmin, status: http.StatusOK},
		// The namespace holds data, so an admin's import is a conflict:
		// past authorisation, refused by the engine.
		{name: "import", method: "POST", path: fixed("/v1/import"), need: memory.RoleAdmin, status: http.StatusConflict,
			body: `{"record":"header","format":1}` + "\n", ctype: "application/x-ndjson"},
		{name: "metrics", method: "GET", path: fixed("/metrics"), need: memory.RoleAdmin, status: http.StatusOK},
		{name: "lifecycle", method: "POST", path: fixed("/v1/lifecycle/run"), need: memory.RoleAdmin, status: http.StatusOK,
			body: map[string]any{"dry_run": true, "dedupe": true}},
		// Any valid key learns that a route does not exist or does not
		// take the method, whatever its role.
		{name: "unknown route", method: "GET", path: fixed("/v1/nope"), need: memory.RoleReader, status: http.StatusNotFound, code: "not_found"},
		{name: "wrong method", method: "PATCH", need: memory.RoleReader, status: http.StatusMethodNotAllowed, code: "method_not_allowed",
			path: func(own, _ *e2eSeed, _ memory.Role) string { return "/v1/memories/" + own.memoryID }, body: map[string]any{"text": "x"}},
		{name: "healthz", method: "GET", path: fixed("/healthz"), status: http.StatusOK},
		{name: "readyz", method: "GET", path: fixed("/readyz"), status: http.StatusOK},
		{name: "openapi", method: "GET", path: fixed("/openapi.json"), status: http.StatusOK},
	}
	for _, ns := range nss {
		other := "b"
		if ns == "b" {
			other = "a"
		}
		for _, role := range memory.Roles {
			for _, tc := range cases {
				t.Run(ns+"/"+string(role)+"/"+tc.name, func(t *testing.T) {
					path := tc.path(seeds[ns], seeds[other], role)
					hdr := auth(keys[ns][role])
					// A key may name its own namespace in the header
					// (naming another is refused: TestE2EKeyNamespaceHeader).
					hdr = append(hdr, "X-Mnemon-Namespace", ns)
					if tc.ctype != "" {
						hdr = append(hdr, "Content-Type", tc.ctype)
					}
					allowed := tc.need == "" || role.Allows(tc.need)
					before := f.e2eState(t, nss...)
					r := f.e2eDo(t, tc.method, path, tc.body, hdr...)
					switch {
					case !allowed:
						e2eProblem(t, r, http.StatusForbidden, "forbidden")
					case tc.cross:
						e2eProblem(t, r, http.StatusNotFound, "not_found")
					case tc.status == http.StatusConflict:
						e2eProblem(t, r, http.StatusConflict, "conflict")
					case tc.code != "":
						e2eProblem(t, r, tc.status, tc.code)
					default:
						if r.status != tc.status {
							t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
						}
					}
					if allowed && tc.name == "capture" {
						// Let its extraction finish before the next case
						// compares states.
						var c e2eCaptureResp
						e2eJSON(t, r, http.StatusAccepted, &c)
						ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
						defer cancel()
						if _, err := f.queue.Wait(ctx, ns, c.JobID); err != nil {
							t.Fatal(err)
						}
					}
					if !allowed || tc.cross || tc.status >= 400 || tc.method == "GET" {
						if after := f.e2eState(t, nss...); after != before {
							t.Errorf("state changed:\n%s\n%s", before, after)
						}
					}
					if allowed && tc.name == "export" {
						var rec engine.Record
						line, _, _ := bytes.Cut(r.body, []byte("\n"))
						if err := json.Unmarshal(line, &rec); err != nil || rec.Namespace != ns {
							t.Errorf("export of %s starts %s", ns, line)
						}
					}
					if allowed && tc.name == "list" {
						var list wire.MemoryList
						e2eJSON(t, r, http.StatusOK, &list)
						for _, v := range list.Memories {
							if v.Namespace != ns {
								t.Errorf("key of %s listed %+v", ns, v)
							}
						}
					}
				})
			}
		}
	}
	t.Run("the other namespace's memory survives", func(t *testing.T) {
		for _, ns := range nss {
			r := f.e2eDo(t, "GET", "/v1/memories/"+seeds[ns].memoryID, nil, auth(keys[ns][memory.RoleReader])...)
			var view wire.MemoryView
			e2eJSON(t, r, http.StatusOK, &view)
			for _, v := range view.Versions {
				if v.Status == string(memory.StatusDeleted) {
					t.Errorf("%s's memory was deleted by another namespace's key: %+v", ns, v)
				}
			}
		}
	})

	t.Run("missing, garbage and unknown keys", func(t *testing.T) {
		unknown, _, err := apikey.Generate("a", memory.RoleAdmin, "never stored", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		valid := keys["a"][memory.RoleAdmin]
		for _, tc := range []struct {
			name string
			hdr  []string
		}{
			{"no header", nil},
			{"namespace header only", []string{"X-Mnemon-Namespace", "a"}},
			{"empty bearer", []string{"Authorization", "Bearer "}},
			{"garbage", []string{"Authorization", "Bearer not-a-key"}},
			{"basic", []string{"Authorization", "Basic YTpi"}},
			{"raw key without scheme", []string{"Authorization", valid}},
			{"key cut short", []string{"Authorization", "Bearer " + valid[:len(valid)-1]}},
			{"key with a changed letter", []string{"Authorization", "Bearer " + valid[:len(valid)-1] + e2eFlip(valid[len(valid)-1])}},
			{"well formed, never stored", []string{"Authorization", "Bearer " + unknown}},
		} {
			for _, route := range [][2]string{{"GET", "/v1/memories"}, {"POST", "/v1/memories"}, {"GET", "/v1/export"}, {"GET", "/metrics"}} {
				t.Run(tc.name+"/"+route[0]+" "+route[1], func(t *testing.T) {
					before := f.e2eState(t, nss...)
					var body any
					if route[0] == "POST" {
						body = map[string]any{"text": "I own a canoe."}
					}
					r := f.e2eDo(t, route[0], route[1], body, tc.hdr...)
					e2eProblem(t, r, http.StatusUnauthorized, "unauthenticated")
					if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
						t.Errorf("401 without WWW-Authenticate: Bearer (got %q)", r.header.Get("WWW-Authenticate"))
					}
					if after := f.e2eState(t, nss...); after != before {
						t.Errorf("state changed:\n%s\n%s", before, after)
					}
				})
			}
		}
	})

	t.Run("the scheme is case-insensitive", func(t *testing.T) {
		r := f.e2eDo(t, "GET", "/v1/memories", nil, "Authorization", "bearer "+keys["a"][memory.RoleReader])
		e2eJSON(t, r, http.StatusOK, nil)
	})

	t.Run("a revoked key stops within the cache TTL", func(t *testing.T) {
		raw, id := f.e2eKey(t, "a", memory.RoleWriter)
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories", nil, auth(raw)...), http.StatusOK, nil)
		if _, err := f.store.RevokeAPIKey(context.Background(), memory.RevokeAPIKeyParams{ID: id, At: time.Now()}); err != nil {
			t.Fatal(err)
		}
		revoked := time.Now()
		e2eEventually(t, 2*time.Second, "revoked key refused", func() bool {
			return f.e2eDo(t, "GET", "/v1/memories", nil, auth(raw)...).status == http.StatusUnauthorized
		})
		if took := time.Since(revoked); took > 50*time.Millisecond+time.Second {
			t.Errorf("revocation took %s", took)
		}
		before := f.e2eState(t, nss...)
		r := f.e2eDo(t, "POST", "/v1/memories", map[string]any{"text": "I own a sailboat."}, auth(raw)...)
		e2eProblem(t, r, http.StatusUnauthorized, "unauthenticated")
		if after := f.e2eState(t, nss...); after != before {
			t.Errorf("a revoked key wrote:\n%s\n%s", before, after)
		}
		// The other keys still work.
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories", nil, auth(keys["a"][memory.RoleWriter])...), http.StatusOK, nil)
	})
}

// e2eFlip returns another base32 letter than c.
func e2eFlip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}

// TestE2EOpenMode checks namespaces picked by header while no key exists,
// and that the first key closes the server.
func TestE2EOpenMode(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	alpha := f.e2eRemember(t, map[string]any{"text": "I live in Oslo."}, "X-Mnemon-Namespace", "alpha")
	if alpha.Version == nil || alpha.Version.Namespace != "alpha" {
		t.Fatalf("remember in alpha: %+v", alpha)
	}

	t.Run("the header picks the namespace", func(t *testing.T) {
		var list wire.MemoryList
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories", nil, "X-Mnemon-Namespace", "alpha"), http.StatusOK, &list)
		if len(list.Memories) != 1 || list.Memories[0].MemoryID != alpha.MemoryID {
			t.Errorf("alpha lists %+v", list.Memories)
		}
		f.e2eRemember(t, map[string]any{"text": "I live in Bergen."}, "X-Mnemon-Namespace", "beta")
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories/"+alpha.MemoryID, nil, "X-Mnemon-Namespace", "beta"), http.StatusNotFound, "not_found")
		e2eProblem(t, f.e2eDo(t, "DELETE", "/v1/memories/"+alpha.MemoryID, nil, "X-Mnemon-Namespace", "beta"), http.StatusNotFound, "not_found")
		// Without the header: the default namespace, which holds nothing.
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories", nil), http.StatusNotFound, "namespace_not_found")
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories", nil, "X-Mnemon-Namespace", " alpha "), http.StatusOK, nil)
	})

	t.Run("an invalid namespace is refused", func(t *testing.T) {
		for _, ns := range []string{"bad ns", "../etc", "-lead", strings.Repeat("n", 65), "ünï", "a/b"} {
			for _, route := range [][2]string{{"GET", "/v1/memories"}, {"POST", "/v1/memories"}, {"POST", "/v1/episodes"}} {
				before := f.e2eState(t, "alpha", "beta", memory.DefaultNamespace)
				var body any
				if route[0] == "POST" {
					body = map[string]any{"text": "x", "session_id": "s"}
				}
				r := f.e2eDo(t, route[0], route[1], body, "X-Mnemon-Namespace", ns)
				e2eProblem(t, r, http.StatusBadRequest, "invalid_namespace")
				if after := f.e2eState(t, "alpha", "beta", memory.DefaultNamespace); after != before {
					t.Errorf("state changed:\n%s\n%s", before, after)
				}
			}
		}
	})

	t.Run("the first key closes the server, revoking the last opens it", func(t *testing.T) {
		raw, id := f.e2eKey(t, "alpha", memory.RoleReader)
		e2eEventually(t, 2*time.Second, "server closed", func() bool {
			return f.e2eDo(t, "GET", "/v1/memories", nil, "X-Mnemon-Namespace", "alpha").status == http.StatusUnauthorized
		})
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories", nil, "X-Mnemon-Namespace", "alpha"), http.StatusUnauthorized, "unauthenticated")
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories", nil, "Authorization", "Bearer "+raw), http.StatusOK, nil)
		if _, err := f.store.RevokeAPIKey(context.Background(), memory.RevokeAPIKeyParams{ID: id, At: time.Now()}); err != nil {
			t.Fatal(err)
		}
		e2eEventually(t, 2*time.Second, "server open again", func() bool {
			return f.e2eDo(t, "GET", "/v1/memories", nil, "X-Mnemon-Namespace", "alpha").status == http.StatusOK
		})
	})
}

// TestE2ERequireKeys checks that a server told to require keys refuses
// everything under /v1 while none exists.
func TestE2ERequireKeys(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{requireKeys: true})
	for _, route := range [][2]string{
		{"POST", "/v1/episodes"}, {"POST", "/v1/memories"}, {"POST", "/v1/memories/retrieve"}, {"GET", "/v1/memories"},
		{"GET", "/v1/memories/mem_01m8pm6z2vq745xbdbg0z0xc6n"}, {"DELETE", "/v1/memories/mem_01m8pm6z2vq745xbdbg0z0xc6n"},
		{"GET", "/v1/retrievals/ret_01m8pm6z4mczet8eqmmn0yvfmw"}, {"GET", "/v1/jobs/job_1"}, {"GET", "/v1/export"},
		{"POST", "/v1/import"}, {"GET", "/metrics"},
	} {
		t.Run(route[0]+" "+route[1], func(t *testing.T) {
			var body any
			if route[0] == "POST" {
				body = map[string]any{"text": "I live in Rome.", "session_id": "s", "query": "q",
					"events": []map[string]any{e2eEvent("user_message", "I live in Rome.", time.Now().Add(-time.Minute))}}
			}
			before := f.e2eState(t, memory.DefaultNamespace)
			e2eProblem(t, f.e2eDo(t, route[0], route[1], body), http.StatusUnauthorized, "unauthenticated")
			e2eProblem(t, f.e2eDo(t, route[0], route[1], body, "X-Mnemon-Namespace", "default"), http.StatusUnauthorized, "unauthenticated")
			if after := f.e2eState(t, memory.DefaultNamespace); after != before {
				t.Errorf("state changed:\n%s\n%s", before, after)
			}
		})
	}
	t.Run("probes stay public", func(t *testing.T) {
		for _, p := range []string{"/healthz", "/readyz", "/openapi.json"} {
			e2eJSON(t, f.e2eDo(t, "GET", p, nil), http.StatusOK, nil)
		}
	})
}

// TestE2EBadInput sends what a server must refuse: each answer is a 4xx
// problem with its stable code, and nothing is written.
func TestE2EBadInput(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{limits: httpapi.Limits{
		MaxBodyBytes: 4096, MaxImportBytes: 16 << 10, MaxEvents: 5, MaxQueryBytes: 200,
	}})
	now := time.Now().UTC()
	seed := f.e2eRemember(t, map[string]any{"text": "I live in Madrid."})
	f.e2eCapture(t, "s", []map[string]any{e2eEvent("user_message", "I drive a blue van.", now.Add(-time.Hour))})
	retrieval := f.e2eRetrieve(t, "where do I live?")
	f.eng.FlushTraces()

	ev := func(kind, content string, at any) map[string]any {
		m := map[string]any{"kind": kind, "content": content}
		if at != nil {
			m["occurred_at"] = at
		}
		return m
	}
	good := ev("user_message", "I like plums.", now.Add(-time.Minute).Format(time.RFC3339))
	capture := func(events ...map[string]any) map[string]any {
		return map[string]any{"session_id": "s", "events": events}
	}
	goodJSON, _ := json.Marshal(capture(good))
	big := strings.Repeat("x", 5000)
	var six []map[string]any
	for i := range 6 {
		six = append(six, ev("user_message", fmt.Sprintf("Fact %d.", i), now.Add(-time.Minute).Format(time.RFC3339)))
	}
	export := f.e2eDo(t, "GET", "/v1/export", nil).body

	type badCase struct {
		name   string
		method string
		path   string
		body   any
		hdr    []string
		status int
		code   string
	}
	cases := []badCase{
		// Bodies that are not the JSON asked for.
		{"capture/malformed", "POST", "/v1/episodes", `{"session_id":"s","events":[`, nil, 400, "malformed_json"},
		{"capture/not json", "POST", "/v1/episodes", `hello`, nil, 400, "malformed_json"},
		{"capture/empty body", "POST", "/v1/episodes", ``, nil, 400, "malformed_json"},
		{"capture/null", "POST", "/v1/episodes", `null`, nil, 400, "invalid_request"},
		{"capture/array", "POST", "/v1/episodes", `[1,2]`, nil, 400, "invalid_request"},
		{"capture/session_id number", "POST", "/v1/episodes", map[string]any{"session_id": 7, "events": []any{good}}, nil, 400, "invalid_request"},
		{"capture/events object", "POST", "/v1/episodes", map[string]any{"session_id": "s", "events": good}, nil, 400, "invalid_request"},
		{"capture/content not a string", "POST", "/v1/episodes", `{"session_id":"s","events":[{"kind":"user_message","content":5,"occurred_at":"2026-01-01T00:00:00Z"}]}`, nil, 400, "invalid_request"},
		{"capture/metadata value number", "POST", "/v1/episodes", `{"session_id":"s","events":[{"kind":"user_message","content":"hi","occurred_at":"2026-01-01T00:00:00Z","metadata":{"a":1}}]}`, nil, 400, "invalid_request"},
		{"capture/unknown field", "POST", "/v1/episodes", map[string]any{"session_id": "s", "events": []any{good}, "colour": "red"}, nil, 400, "invalid_request"},
		{"capture/unknown event field", "POST", "/v1/episodes", capture(good, map[string]any{"kind": "user_message", "content": "x", "occurred_at": now.Format(time.RFC3339), "mood": "glad"}), nil, 400, "invalid_request"},
		{"capture/trailing object", "POST", "/v1/episodes", string(goodJSON) + string(goodJSON), nil, 400, "malformed_json"},
		{"capture/trailing garbage", "POST", "/v1/episodes", string(goodJSON) + " x", nil, 400, "malformed_json"},
		{"capture/oversize", "POST", "/v1/episodes", capture(ev("user_message", big, now.Format(time.RFC3339))), nil, 413, "body_too_large"},
		{"capture/oversize chunked", "POST", "/v1/episodes", strings.NewReader(`{"session_id":"s","events":[{"kind":"user_message","content":"` + big + `"}]}`), nil, 413, "body_too_large"},
		{"capture/too many events", "POST", "/v1/episodes", capture(six...), nil, 413, "too_many_events"},
		{"capture/no events", "POST", "/v1/episodes", capture(), nil, 400, "invalid_request"},
		{"capture/session only spaces", "POST", "/v1/episodes", map[string]any{"session_id": "   ", "events": []any{good}}, nil, 400, "invalid_request"},
		{"capture/empty content", "POST", "/v1/episodes", capture(good, ev("user_message", "", now.Format(time.RFC3339))), nil, 400, "invalid_request"},
		{"capture/blank content", "POST", "/v1/episodes", capture(good, ev("user_message", " \n\t ", now.Format(time.RFC3339))), nil, 400, "invalid_request"},
		{"capture/bad kind", "POST", "/v1/episodes", capture(good, ev("shout", "Hello.", now.Format(time.RFC3339))), nil, 400, "invalid_request"},
		{"capture/occurred_at words", "POST", "/v1/episodes", capture(good, ev("user_message", "Hello.", "yesterday")), nil, 400, "invalid_timestamp"},
		{"capture/occurred_at without zone", "POST", "/v1/episodes", capture(good, ev("user_message", "Hello.", "2026-05-01T12:00:00")), nil, 400, "invalid_timestamp"},
		{"capture/occurred_at with a space", "POST", "/v1/episodes", capture(good, ev("user_message", "Hello.", "2026-05-01 12:00:00Z")), nil, 400, "invalid_timestamp"},
		{"capture/occurred_at month 13", "POST", "/v1/episodes", capture(good, ev("user_message", "Hello.", "2026-13-01T00:00:00Z")), nil, 400, "invalid_timestamp"},
		{"capture/occurred_at number", "POST", "/v1/episodes", capture(good, ev("user_message", "Hello.", 1700000000)), nil, 400, "invalid_request"},
		{"capture/occurred_at in the future", "POST", "/v1/episodes", capture(good, ev("user_message", "Hello.", now.Add(48*time.Hour).Format(time.RFC3339))), nil, 400, "invalid_timestamp"},
		{"capture/wait maybe", "POST", "/v1/episodes?wait=maybe", capture(good), nil, 400, "invalid_request"},
		{"capture/xml", "POST", "/v1/episodes", `<capture/>`, []string{"Content-Type", "application/xml"}, 415, "unsupported_media_type"},
		{"capture/multipart", "POST", "/v1/episodes", string(goodJSON), []string{"Content-Type", "multipart/form-data; boundary=x"}, 415, "unsupported_media_type"},

		{"remember/empty text", "POST", "/v1/memories", map[string]any{"text": ""}, nil, 400, "invalid_request"},
		{"remember/text number", "POST", "/v1/memories", map[string]any{"text": 3}, nil, 400, "invalid_request"},
		{"remember/bad type", "POST", "/v1/memories", map[string]any{"text": "I like figs.", "key": "likes:fruit", "value": "figs", "type": "opinion"}, nil, 400, "invalid_request"},
		{"remember/bad criticality", "POST", "/v1/memories", map[string]any{"text": "I like figs.", "criticality": "extreme"}, nil, 400, "invalid_request"},
		{"remember/confidence 0", "POST", "/v1/memories", map[string]any{"text": "I like figs.", "confidence": 0}, nil, 400, "invalid_request"},
		{"remember/confidence 2", "POST", "/v1/memories", map[string]any{"text": "I like figs.", "confidence": 2}, nil, 400, "invalid_request"},
		{"remember/confidence word", "POST", "/v1/memories", map[string]any{"text": "I like figs.", "confidence": "high"}, nil, 400, "invalid_request"},
		{"remember/observed_at bad", "POST", "/v1/memories", map[string]any{"text": "I like figs.", "observed_at": "last week"}, nil, 400, "invalid_timestamp"},
		{"remember/observed_at in the future", "POST", "/v1/memories", map[string]any{"text": "I like figs.", "observed_at": now.Add(72 * time.Hour).Format(time.RFC3339)}, nil, 400, "invalid_timestamp"},
		{"remember/valid_from bad", "POST", "/v1/memories", map[string]any{"text": "I like figs.", "valid_from": "2026-02-30T00:00:00Z"}, nil, 400, "invalid_timestamp"},
		{"remember/valid_to before valid_from", "POST", "/v1/memories", map[string]any{"text": "I like figs.", "valid_from": "2026-02-01T00:00:00Z", "valid_to": "2026-01-01T00:00:00Z"}, nil, 400, "invalid_request"},
		{"remember/unknown field", "POST", "/v1/memories", map[string]any{"text": "I like figs.", "tags": []string{"x"}}, nil, 400, "invalid_request"},
		{"remember/oversize", "POST", "/v1/memories", map[string]any{"text": big}, nil, 413, "body_too_large"},
		{"remember/xml", "POST", "/v1/memories", `<text>hi</text>`, []string{"Content-Type", "text/xml"}, 415, "unsupported_media_type"},

		{"retrieve/query too long", "POST", "/v1/memories/retrieve", map[string]any{"query": strings.Repeat("q", 201)}, nil, 400, "query_too_long"},
		{"retrieve/empty query", "POST", "/v1/memories/retrieve", map[string]any{"query": ""}, nil, 400, "invalid_request"},
		{"retrieve/limit negative", "POST", "/v1/memories/retrieve", map[string]any{"query": "home", "limit": -1}, nil, 400, "invalid_request"},
		{"retrieve/limit huge", "POST", "/v1/memories/retrieve", map[string]any{"query": "home", "limit": 100000}, nil, 400, "invalid_request"},
		{"retrieve/limit word", "POST", "/v1/memories/retrieve", map[string]any{"query": "home", "limit": "ten"}, nil, 400, "invalid_request"},
		{"retrieve/limit fraction", "POST", "/v1/memories/retrieve", `{"query":"home","limit":2.5}`, nil, 400, "invalid_request"},
		{"retrieve/token_budget negative", "POST", "/v1/memories/retrieve", map[string]any{"query": "home", "token_budget": -5}, nil, 400, "invalid_request"},
		{"retrieve/as_of bad", "POST", "/v1/memories/retrieve", map[string]any{"query": "home", "as_of": "soon"}, nil, 400, "invalid_timestamp"},
		{"retrieve/malformed", "POST", "/v1/memories/retrieve", `{"query":`, nil, 400, "malformed_json"},

		{"list/limit word", "GET", "/v1/memories?limit=abc", nil, nil, 400, "invalid_request"},
		{"list/limit too big", "GET", "/v1/memories?limit=1001", nil, nil, 400, "invalid_request"},
		{"list/limit negative", "GET", "/v1/memories?limit=-5", nil, nil, 400, "invalid_request"},
		{"list/include_history maybe", "GET", "/v1/memories?include_history=maybe", nil, nil, 400, "invalid_request"},
		{"list/unknown namespace", "GET", "/v1/memories", nil, []string{"X-Mnemon-Namespace", "ghost"}, 404, "namespace_not_found"},
		{"export/unknown namespace", "GET", "/v1/export", nil, []string{"X-Mnemon-Namespace", "ghost"}, 404, "namespace_not_found"},

		{"show/unknown memory", "GET", "/v1/memories/mem_01m8pm6z2vq745xbdbg0z0xc6n", nil, nil, 404, "not_found"},
		{"show/unknown version", "GET", "/v1/memories/ver_01m8pm6z2vq745xbdbg0z0xc6n", nil, nil, 404, "not_found"},
		{"show/not an id", "GET", "/v1/memories/nonsense", nil, nil, 404, "not_found"},
		{"show/in another namespace", "GET", "/v1/memories/" + seed.MemoryID, nil, []string{"X-Mnemon-Namespace", "ghost"}, 404, "not_found"},
		{"delete/unknown memory", "DELETE", "/v1/memories/mem_01m8pm6z2vq745xbdbg0z0xc6n", nil, nil, 404, "not_found"},
		{"delete/not an id", "DELETE", "/v1/memories/nonsense", nil, nil, 404, "not_found"},
		{"delete/in another namespace", "DELETE", "/v1/memories/" + seed.MemoryID, nil, []string{"X-Mnemon-Namespace", "ghost"}, 404, "not_found"},
		{"trace/unknown", "GET", "/v1/retrievals/ret_01m8pm6z4mczet8eqmmn0yvfmw", nil, nil, 404, "not_found"},
		{"trace/not an id", "GET", "/v1/retrievals/nonsense", nil, nil, 404, "not_found"},
		{"trace/in another namespace", "GET", "/v1/retrievals/" + retrieval.RetrievalID, nil, []string{"X-Mnemon-Namespace", "ghost"}, 404, "not_found"},
		{"job/not an id", "GET", "/v1/jobs/abc", nil, nil, 400, "invalid_request"},
		{"job/zero", "GET", "/v1/jobs/job_0", nil, nil, 400, "invalid_request"},
		{"job/negative", "GET", "/v1/jobs/job_-3", nil, nil, 400, "invalid_request"},
		{"job/overflow", "GET", "/v1/jobs/job_99999999999999999999", nil, nil, 400, "invalid_request"},
		{"job/unknown", "GET", "/v1/jobs/job_999999", nil, nil, 404, "not_found"},
		{"job/in another namespace", "GET", "/v1/jobs/job_1", nil, []string{"X-Mnemon-Namespace", "ghost"}, 404, "not_found"},

		{"import/garbage", "POST", "/v1/import", "\"just a string\"\n", []string{"Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "fresh"}, 400, "invalid_request"},
		{"import/not json", "POST", "/v1/import", "{nope\n", []string{"Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "fresh"}, 400, "invalid_request"},
		{"import/wrong field type", "POST", "/v1/import", `{"record":"memory","memory":{"id":5}}` + "\n", []string{"Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "fresh"}, 400, "invalid_request"},
		{"import/empty record", "POST", "/v1/import", `{"record":"memory"}` + "\n", []string{"Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "fresh"}, 400, "invalid_request"},
		{"import/a good export then a bad line", "POST", "/v1/import", string(export) + "{\"record\":\"bogus\"}\n", []string{"Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "fresh"}, 400, "invalid_request"},
		{"import/oversize", "POST", "/v1/import", strings.Repeat(`{"record":"header","format":1}`+"\n", 1000), []string{"Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "fresh"}, 413, "body_too_large"},
		{"import/oversize chunked", "POST", "/v1/import", strings.NewReader(strings.Repeat(`{"record":"header","format":1}`+"\n", 1000)), []string{"Content-Type", "application/x-ndjson", "X-Mnemon-Namespace", "fresh"}, 413, "body_too_large"},
		{"import/xml", "POST", "/v1/import", `<export/>`, []string{"Content-Type", "application/xml", "X-Mnemon-Namespace", "fresh"}, 415, "unsupported_media_type"},

		{"route/unknown under v1", "GET", "/v1/nope", nil, nil, 404, "not_found"},
		{"route/unknown", "GET", "/nope", nil, nil, 404, "not_found"},
		{"route/v1 alone", "GET", "/v1", nil, nil, 404, "not_found"},
		{"route/too deep", "GET", "/v1/memories/" + seed.MemoryID + "/x/y", nil, nil, 404, "not_found"},
		{"method/POST healthz", "POST", "/healthz", "{}", nil, 405, "method_not_allowed"},
		{"method/PUT memories", "PUT", "/v1/memories", "{}", nil, 405, "method_not_allowed"},
		{"method/DELETE memories", "DELETE", "/v1/memories", nil, nil, 405, "method_not_allowed"},
		{"method/GET episodes", "GET", "/v1/episodes", nil, nil, 405, "method_not_allowed"},
		{"method/GET import", "GET", "/v1/import", nil, nil, 405, "method_not_allowed"},
		{"method/PATCH a memory", "PATCH", "/v1/memories/" + seed.MemoryID, "{}", nil, 405, "method_not_allowed"},
		{"method/POST a job", "POST", "/v1/jobs/job_1", "{}", nil, 405, "method_not_allowed"},
		{"method/DELETE a retrieval", "DELETE", "/v1/retrievals/" + retrieval.RetrievalID, nil, nil, 405, "method_not_allowed"},
	}
	nss := []string{memory.DefaultNamespace, "ghost", "fresh"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := f.e2eState(t, nss...)
			r := f.e2eDo(t, tc.method, tc.path, tc.body, tc.hdr...)
			e2eProblem(t, r, tc.status, tc.code)
			if tc.status == http.StatusMethodNotAllowed && r.header.Get("Allow") == "" {
				t.Errorf("405 without an Allow header")
			}
			if after := f.e2eState(t, nss...); after != before {
				t.Errorf("state changed:\n%s\n%s", before, after)
			}
		})
	}
	t.Run("unknown namespaces stay unknown", func(t *testing.T) {
		ok, err := f.eng.HasNamespace(context.Background(), "ghost")
		if err != nil || ok {
			t.Errorf("ghost exists: %v %v", ok, err)
		}
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories", nil, "X-Mnemon-Namespace", "fresh"), http.StatusNotFound, "namespace_not_found")
	})
}

// TestE2ERateLimit checks the per-key rate limit: a 429 with Retry-After
// that writes nothing, and other keys unaffected.
func TestE2ERateLimit(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{limits: httpapi.Limits{RatePerSecond: 0.1, RateBurst: 2}})
	a, _ := f.e2eKey(t, "a", memory.RoleWriter)
	b, _ := f.e2eKey(t, "a", memory.RoleWriter)
	body := map[string]any{"text": "I collect stamps."}
	for i := range 2 {
		r := f.e2eDo(t, "POST", "/v1/memories", body, "Authorization", "Bearer "+a)
		e2eJSON(t, r, http.StatusCreated, nil)
		_ = i
	}
	before := f.e2eState(t, "a")
	r := f.e2eDo(t, "POST", "/v1/memories", map[string]any{"text": "I collect coins."}, "Authorization", "Bearer "+a)
	e2eProblem(t, r, http.StatusTooManyRequests, "rate_limited")
	if ra := r.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("Retry-After %q", ra)
	}
	if after := f.e2eState(t, "a"); after != before {
		t.Errorf("a limited request wrote:\n%s\n%s", before, after)
	}
	e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories", nil, "Authorization", "Bearer "+a), http.StatusTooManyRequests, "rate_limited")
	// Another key of the same namespace has its own allowance.
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories", nil, "Authorization", "Bearer "+b), http.StatusOK, nil)
	// Probes are never limited.
	for range 5 {
		e2eJSON(t, f.e2eDo(t, "GET", "/healthz", nil), http.StatusOK, nil)
	}
}

// TestE2ERequestIDs checks that a client's plain request id is echoed (in
// the header, in problems and in the log) and anything else is replaced.
func TestE2ERequestIDs(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	generated := regexp.MustCompile(`^req_[0-9a-f]{24}$`)
	for _, tc := range []struct {
		name, sent string
		echoed     bool
	}{
		{"plain", "client-42_A.b", true},
		{"uuid", "3f2b8c1e-6a4d-4f7e-9b1a-2c3d4e5f6a7b", true},
		{"64 characters", strings.Repeat("a", 64), true},
		{"65 characters", strings.Repeat("a", 65), false},
		{"html", "<script>alert(1)</script>", false},
		{"spaces", "a b c", false},
		{"json breaker", `x","level":"ERROR`, false},
		{"path", "../../etc/passwd", false},
		{"non-ascii", "ünïcödé", false},
		{"newline escape", `a\nb`, false},
		{"absent", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.sent != "" {
				hdr = []string{"X-Request-Id", tc.sent}
			}
			ok := f.e2eDo(t, "GET", "/healthz", nil, hdr...)
			bad := f.e2eDo(t, "GET", "/v1/nope", nil, hdr...)
			p := e2eProblem(t, bad, http.StatusNotFound, "not_found")
			for _, r := range []*e2eResp{ok, bad} {
				got := r.header.Get("X-Request-Id")
				if tc.echoed && got != tc.sent {
					t.Errorf("sent %q, got %q", tc.sent, got)
				}
				if !tc.echoed && !generated.MatchString(got) {
					t.Errorf("sent %q, got %q; want a generated id", tc.sent, got)
				}
			}
			if ok.header.Get("X-Request-Id") == bad.header.Get("X-Request-Id") && !tc.echoed {
				t.Errorf("two requests share the generated id %q", ok.header.Get("X-Request-Id"))
			}
			if want := bad.header.Get("X-Request-Id"); p.RequestID != want {
				t.Errorf("problem request_id %q, header %q", p.RequestID, want)
			}
			// The log line of the request carries the same id.
			want, _ := json.Marshal(bad.header.Get("X-Request-Id"))
			if !strings.Contains(f.logs.String(), `"request_id":`+string(want)) {
				t.Errorf("no log line with request_id %s", want)
			}
			if tc.sent != "" && !tc.echoed {
				sent, _ := json.Marshal(tc.sent)
				if strings.Contains(f.logs.String(), string(sent)) {
					t.Errorf("the refused id %s reached the log", sent)
				}
			}
		})
	}
}

// A request's log line is written at debug when it succeeded and at info
// when it was refused, so a server at the default level (info) keeps no line
// per remember or retrieve on disk, and still one for each client error.
func TestE2ERequestLogLevels(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	ok := f.e2eDo(t, "POST", "/v1/memories", map[string]any{"text": "the staging cluster runs on arm64 now"})
	if ok.status != http.StatusCreated {
		t.Fatalf("remember: %d %s", ok.status, ok.body)
	}
	bad := f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "cluster", "limt": 3})
	e2eProblem(t, bad, http.StatusBadRequest, "invalid_request")
	levels := map[string]string{} // request id → level of its "request" line
	for _, line := range strings.Split(strings.TrimSpace(f.logs.String()), "\n") {
		var rec struct {
			Level, Msg string
			RequestID  string `json:"request_id"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec.Msg == "request" {
			levels[rec.RequestID] = rec.Level
		}
	}
	for _, tc := range []struct {
		name string
		r    *e2eResp
		want string
	}{
		{"remember, 201", ok, "DEBUG"},
		{"retrieve with an unknown field, 400", bad, "INFO"},
	} {
		if got := levels[tc.r.header.Get("X-Request-Id")]; got != tc.want {
			t.Errorf("%s: request line at %q, want %q", tc.name, got, tc.want)
		}
	}
}
