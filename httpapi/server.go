// Package httpapi serves mnemon's HTTP/JSON API (/v1) on the engine:
// routes, request and response types, authentication by API key, limits,
// errors as application/problem+json, Prometheus metrics and the OpenAPI
// document. It is a thin transport: every decision is the engine's.
package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/apikey"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
)

// Limits bound what one request may ask. Each refusal is a 4xx problem
// whose code names the limit.
type Limits struct {
	MaxBodyBytes       int64         // JSON bodies (default 8 MiB)
	MaxImportBytes     int64         // POST /v1/import (default 1 GiB)
	MaxEvents          int           // events per capture (default 1000)
	MaxQueryBytes      int           // retrieval query (default 4096)
	RatePerSecond      float64       // per key (default 5000: more than one client sending one request at a time reaches)
	RateBurst          int           // default twice the rate
	RequestTimeout     time.Duration // per request (default 30 s)
	WaitTimeout        time.Duration // capture with wait=true (default 60 s)
	KeyCacheTTL        time.Duration // how long an API key lookup is reused (default 2 s)
	OpenModeCheckEvery time.Duration // how often the server checks whether keys exist (default 2 s)

	// OpenRatePerSecond limits each client address in open mode (no API
	// key): 0 takes RatePerSecond, a negative rate turns the limit off
	// (the serve command's default on a loopback address, where every
	// client shares 127.0.0.1 and a batch script must not meet a 429).
	OpenRatePerSecond float64

	// MaxHeaderBytes bounds the request line and headers (default 64
	// KiB). The API refuses more itself, as a problem: net/http's own
	// limit (http.Server.MaxHeaderBytes) answers text/plain before any
	// handler runs, so a server sets that one higher (its default, 1 MiB).
	MaxHeaderBytes int
}

func (l *Limits) defaults() {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = 8 << 20
	}
	if l.MaxImportBytes <= 0 {
		l.MaxImportBytes = 1 << 30
	}
	if l.MaxEvents <= 0 {
		l.MaxEvents = 1000
	}
	if l.MaxQueryBytes <= 0 || l.MaxQueryBytes > engine.MaxQueryBytes {
		l.MaxQueryBytes = engine.MaxQueryBytes
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = 64 << 10
	}
	if l.RatePerSecond <= 0 {
		l.RatePerSecond = 5000
	}
	if l.RateBurst <= 0 {
		l.RateBurst = int(min(2*l.RatePerSecond, 1e9))
	}
	if l.OpenRatePerSecond == 0 {
		l.OpenRatePerSecond = l.RatePerSecond
	}
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = 30 * time.Second
	}
	if l.WaitTimeout <= 0 {
		l.WaitTimeout = 60 * time.Second
	}
	if l.KeyCacheTTL <= 0 {
		l.KeyCacheTTL = 2 * time.Second
	}
	if l.OpenModeCheckEvery <= 0 {
		l.OpenModeCheckEvery = 2 * time.Second
	}
}

// Queue is the job queue the API enqueues extraction on and reports.
type Queue interface {
	Enqueue(ctx context.Context, tx memory.Executor, job engine.ExtractJob) (string, error)
	Get(ctx context.Context, ns, id string) (*jobs.Job, error)
	Wait(ctx context.Context, ns, id string) (*jobs.Job, error)
	Counts(ctx context.Context) (map[string]int, error)
	List(ctx context.Context, p jobs.ListParams) ([]*jobs.Job, error)
	Retry(ctx context.Context, ns, id string) (*jobs.Job, error)
}

// Config wires a Server.
type Config struct {
	Engine *engine.Engine
	Keys   memory.KeyStore
	Queue  Queue
	Logger *slog.Logger // default: discard
	Clock  clock.Clock  // default: system
	Limits Limits
	// RequireKeys turns open mode off: with no active key every request is
	// refused. A server listening beyond loopback sets it, so revoking the
	// last key can never open it to the network.
	RequireKeys bool
	// Ready, when set, is part of /readyz (for example: the workers run).
	Ready func(ctx context.Context) error
	// MaxIndexLag, when positive, makes /readyz check the engine's index
	// (the check "index"): a namespace whose index has missed committed
	// changes of the store's change log for longer than this makes the
	// server unavailable (a replica that cannot keep up).
	MaxIndexLag time.Duration
	// Version is reported in the OpenAPI document.
	Version string
	// MCP, when set, is served at /mcp (see mcpserver.HTTPHandler).
	MCP http.Handler
	// UI, when set, is served at /ui/ without authentication (see
	// webui.New): static files only; the page asks for a key and calls
	// /v1 with it like any client.
	UI http.Handler
}

// Server is the HTTP API. It is an http.Handler.
type Server struct {
	cfg     Config
	log     *slog.Logger
	limits  Limits
	mux     *http.ServeMux
	table   []*route // the routes, built once: the mux, 405s and OpenAPI read it
	metrics *metrics

	keyMu    sync.Mutex
	keyCache map[string]cachedKey // by key hash
	openAt   time.Time            // when open mode was last checked
	open     bool

	rateMu   sync.Mutex
	limiters map[string]*limiter

	unknown http.Handler // 404s and 405s, as problems

	openapiOnce sync.Once
	openapiDoc  []byte

	reports reportKeeper // the last maintenance reports per namespace
}

type cachedKey struct {
	key *memory.APIKey // nil: no such key
	at  time.Time
}

type limiter struct {
	lim  *rate.Limiter
	seen time.Time
}

// New returns the API server.
func New(cfg Config) (*Server, error) {
	if cfg.Engine == nil || cfg.Keys == nil || cfg.Queue == nil {
		return nil, errors.New("httpapi: Engine, Keys and Queue are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.System{}
	}
	cfg.Limits.defaults()
	s := &Server{
		cfg: cfg, log: cfg.Logger, limits: cfg.Limits, mux: http.NewServeMux(),
		metrics:  newMetrics(),
		keyCache: make(map[string]cachedKey),
		limiters: make(map[string]*limiter),
	}
	s.metrics.collectors(s)
	s.table = s.routes()
	for _, rt := range s.table {
		s.mux.Handle(rt.Method+" "+rt.Path, s.wrap(rt))
	}
	if cfg.MCP != nil {
		for _, m := range []string{"POST", "GET", "DELETE"} {
			s.mux.Handle(m+" /mcp", s.wrap(s.mcpRoute(m)))
		}
	}
	if cfg.UI != nil {
		ui := func(w http.ResponseWriter, r *request) error {
			cfg.UI.ServeHTTP(w, r.Request)
			return nil
		}
		s.mux.Handle("GET /ui/", s.wrap(&route{Method: "GET", Path: "/ui/", handle: ui, public: true, quiet: true}))
		s.mux.Handle("GET /ui", s.wrap(&route{Method: "GET", Path: "/ui", handle: ui, public: true, quiet: true}))
	}
	s.unknown = s.wrap(&route{Path: "/", Role: memory.RoleReader, handle: s.notFound}) // 404 and 405 for any valid key, not 403
	s.mux.Handle("/", s.unknown)
	return s, nil
}

// Registry is the Prometheus registry /metrics serves, for tests and for
// embedding mnemon's metrics elsewhere.
func (s *Server) Registry() *prometheus.Registry { return s.metrics.reg }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The mux answers a path with "..", "." or "//" segments with an HTML
	// redirect to the cleaned path; an API answers it as a problem.
	if r.Method != http.MethodConnect && cleanPath(r.URL.Path) != r.URL.Path {
		s.unknown.ServeHTTP(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// cleanPath is the path the mux would redirect p to, as net/http cleans
// it: rooted, without "." and ".." segments or repeated slashes, with a
// trailing slash kept.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// headerBytes is about what net/http counts against MaxHeaderBytes: the
// request line and every header line.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4 + len("Host: ") + len(r.Host) + 2
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// caller is who sent a request: the namespace it acts in and its role.
type caller struct {
	ns    string
	role  memory.Role
	keyID string // "" in open mode
}

// request is what a handler receives.
type request struct {
	*http.Request
	id     string
	caller caller
}

// statusWriter records the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// requestID accepts a client's X-Request-Id when it is short and plain, so
// a client can follow its request through our logs; otherwise it makes one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 64 && plainID(id) {
		return id
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}

func plainID(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// wrap runs a route's handler with everything every request gets: a
// request id, a timeout, authentication and authorisation, the rate limit,
// the body limit, a log line and its latency in the metrics.
func (s *Server) wrap(rt *route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		id := requestID(r)
		w.Header().Set("X-Request-Id", id)
		sw := &statusWriter{ResponseWriter: w}
		req := &request{Request: r, id: id}
		timeout := s.limits.RequestTimeout
		if rt.long {
			timeout = max(timeout, s.limits.WaitTimeout+5*time.Second)
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		req.Request = r.WithContext(ctx)

		var err error
		if headerBytes(r) > s.limits.MaxHeaderBytes {
			err = problemf(http.StatusRequestHeaderFieldsTooLarge, CodeHeadersTooLarge,
				"the request line and headers are larger than this server accepts ("+strconv.Itoa(s.limits.MaxHeaderBytes>>10)+" KiB)")
		}
		if err == nil {
			err = s.admit(req, rt)
		}
		if err == nil {
			err = rt.checkQuery(req.Request)
		}
		if err == nil {
			err = rt.handle(sw, req)
		}
		if err != nil {
			ae := publicError(err)
			if ae.status >= 500 {
				s.log.Error("request failed", "request_id", id, "route", rt.name(), "error", err)
			}
			if !sw.wrote {
				writeProblem(sw, id, ae)
			}
		}
		took := time.Since(began)
		s.metrics.observeRequest(rt.name(), r.Method, sw.status, took)
		level := requestLogLevel(rt, sw.status, took)
		s.log.Log(ctx, level, "request", "request_id", id, "method", r.Method, "route", rt.name(),
			"status", sw.status, "duration_ms", float64(took.Microseconds())/1000,
			"namespace", req.caller.ns, "key_id", req.caller.keyID)
	})
}

// slowRequest is the duration from which a successful request's log line
// is written at info level rather than debug.
const slowRequest = time.Second

// requestLogLevel says at which level a request's log line is written. A
// successful request is routine: at debug, so a busy server's log (and its
// disk) holds what needs a look, not a line per remember; the metrics count
// every request. A refused one (4xx) or a slow one is at info, a failed one
// (5xx) at warn, as its error is logged at error beside it.
func requestLogLevel(rt *route, status int, took time.Duration) slog.Level {
	switch {
	case rt.quiet: // probes and scrapes, whatever they answer
		return slog.LevelDebug
	case status >= 500:
		return slog.LevelWarn
	case status >= 400 || took >= slowRequest:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

// admit authenticates the caller, checks its role and rate, and bounds the
// body.
func (s *Server) admit(req *request, rt *route) error {
	if rt.public {
		return nil
	}
	c, err := s.authenticate(req.Request)
	if err != nil {
		return err
	}
	req.caller = c
	if !c.role.Allows(rt.Role) {
		return problemf(http.StatusForbidden, CodeForbidden, "this key's role is "+string(c.role)+"; "+rt.name()+" needs "+string(rt.Role))
	}
	if err := s.allow(c, req.Request); err != nil {
		return err
	}
	limit := s.limits.MaxBodyBytes
	if rt.bigBody {
		limit = s.limits.MaxImportBytes
	}
	if req.ContentLength > limit {
		return problemf(http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the body is larger than this endpoint accepts")
	}
	req.Body = http.MaxBytesReader(nil, req.Body, limit)
	return nil
}

// authenticate finds the caller. With no active API key the server is open
// (it then listens on loopback only, see the serve command) and the
// namespace comes from X-Mnemon-Namespace; otherwise a bearer key is
// required and its namespace is the caller's.
func (s *Server) authenticate(r *http.Request) (caller, error) {
	open, err := s.openMode(r.Context())
	if err != nil {
		return caller{}, err
	}
	auth := r.Header.Get("Authorization")
	if open && auth == "" {
		ns := memory.NormalizeNamespace(r.Header.Get("X-Mnemon-Namespace"))
		if err := memory.ValidateNamespace(ns); err != nil {
			return caller{}, err
		}
		return caller{ns: ns, role: memory.RoleAdmin}, nil
	}
	// The scheme is case-insensitive (RFC 9110 §11.1): "bearer" is Bearer.
	scheme, raw, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(raw) == "" {
		return caller{}, unauthenticated("send an API key as Authorization: Bearer <key>")
	}
	raw = strings.TrimSpace(raw)
	if !apikey.LooksValid(raw) {
		return caller{}, unauthenticated("the API key is not valid")
	}
	k, err := s.lookupKey(r.Context(), apikey.Hash(raw))
	if err != nil {
		return caller{}, err
	}
	if k == nil || !k.Active() {
		return caller{}, unauthenticated("the API key is not valid")
	}
	// A key acts in its own namespace only. A header naming another is a
	// mistake to point out, not to answer from the key's namespace as if
	// the one asked for were served.
	if h := r.Header.Get("X-Mnemon-Namespace"); h != "" && memory.NormalizeNamespace(h) != k.Namespace {
		return caller{}, problemf(http.StatusForbidden, CodeForbidden, "this key acts in namespace "+quote(k.Namespace)+
			" only, and X-Mnemon-Namespace names another; leave the header out or send "+quote(k.Namespace))
	}
	return caller{ns: k.Namespace, role: k.Role, keyID: k.ID}, nil
}

func unauthenticated(detail string) *apiError {
	return problemf(http.StatusUnauthorized, CodeUnauthenticated, detail)
}

// openMode reports whether no API key is active, checked at most every
// OpenModeCheckEvery: a key created with the CLI closes the server within
// that time.
func (s *Server) openMode(ctx context.Context) (bool, error) {
	if s.cfg.RequireKeys {
		return false, nil
	}
	now := time.Now()
	s.keyMu.Lock()
	if !s.openAt.IsZero() && now.Sub(s.openAt) < s.limits.OpenModeCheckEvery {
		open := s.open
		s.keyMu.Unlock()
		return open, nil
	}
	s.keyMu.Unlock()
	n, err := s.cfg.Keys.CountActiveAPIKeys(ctx)
	if err != nil {
		return false, err
	}
	s.keyMu.Lock()
	s.open, s.openAt = n == 0, now
	s.keyMu.Unlock()
	return n == 0, nil
}

// OpenMode reports whether the server currently accepts requests without
// a key.
func (s *Server) OpenMode(ctx context.Context) (bool, error) { return s.openMode(ctx) }

// lookupKey finds a key by hash, reusing answers for KeyCacheTTL so a
// revoked key stops working within that time.
func (s *Server) lookupKey(ctx context.Context, hash string) (*memory.APIKey, error) {
	now := time.Now()
	s.keyMu.Lock()
	c, ok := s.keyCache[hash]
	s.keyMu.Unlock()
	if ok && now.Sub(c.at) < s.limits.KeyCacheTTL {
		return c.key, nil
	}
	k, err := s.cfg.Keys.APIKeyByHash(ctx, hash)
	if errors.Is(err, memory.ErrNotFound) {
		k, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.keyMu.Lock()
	if len(s.keyCache) > 10000 {
		clear(s.keyCache) // bounded: guessed keys must not grow it forever
	}
	s.keyCache[hash] = cachedKey{key: k, at: now}
	s.keyMu.Unlock()
	return k, nil
}

// allow applies the per-key rate limit (per client address in open mode).
func (s *Server) allow(c caller, r *http.Request) error {
	who, perSecond, whom := c.keyID, s.limits.RatePerSecond, "key"
	if who == "" {
		if s.limits.OpenRatePerSecond < 0 {
			return nil
		}
		who, perSecond, whom = "addr:"+clientHost(r.RemoteAddr), s.limits.OpenRatePerSecond, "client"
	}
	now := time.Now()
	s.rateMu.Lock()
	l, ok := s.limiters[who]
	if !ok {
		if len(s.limiters) > 10000 {
			for k, v := range s.limiters {
				if now.Sub(v.seen) > time.Minute {
					delete(s.limiters, k)
				}
			}
		}
		l = &limiter{lim: rate.NewLimiter(rate.Limit(perSecond), s.limits.RateBurst)}
		s.limiters[who] = l
	}
	l.seen = now
	ok = l.lim.AllowN(now, 1)
	s.rateMu.Unlock()
	if !ok {
		return &apiError{status: http.StatusTooManyRequests, code: CodeRateLimited, retryAfter: 1,
			detail: "more than the allowed requests per second for this " + whom + "; slow down and retry"}
	}
	return nil
}

func clientHost(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i > 0 {
		return addr[:i]
	}
	return addr
}

// decode reads a JSON body into dst: one object, no unknown fields, no
// trailing data.
func decode(r *request, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt := strings.TrimSpace(strings.ToLower(strings.SplitN(ct, ";", 2)[0]))
		// curl -d sends form encoding by default; its body is still the
		// JSON the user typed, so take it rather than teach curl flags.
		if mt != "application/json" && !strings.HasSuffix(mt, "+json") && mt != "text/plain" && mt != "application/x-www-form-urlencoded" {
			return problemf(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "send the body as application/json, not "+mt)
		}
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonProblem(err)
	}
	// Only white space may follow the object: a second value, or a stray
	// bracket (which dec.More does not see), makes the body malformed.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			return jsonProblem(err)
		}
		return problemf(http.StatusBadRequest, CodeMalformedJSON, "the body holds more than one JSON value")
	}
	return nil
}

// jsonProblem explains a decoding error without echoing Go type names.
func jsonProblem(err error) error {
	var (
		maxErr    *http.MaxBytesError
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &maxErr):
		return problemf(http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the body is larger than this endpoint accepts")
	case errors.As(err, &syntaxErr):
		return problemf(http.StatusBadRequest, CodeMalformedJSON, "the body is not valid JSON: "+syntaxErr.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return problemf(http.StatusBadRequest, CodeMalformedJSON, "the body is empty or cut short; send a JSON object")
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return problemf(http.StatusBadRequest, CodeInvalidRequest, "the body must be a JSON object")
		}
		return problemf(http.StatusBadRequest, CodeInvalidRequest, "field "+field+" must be "+jsonKind(typeErr.Type.Kind().String())+", not "+jsonValue(typeErr.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return problemf(http.StatusBadRequest, CodeInvalidRequest, "unknown field "+strings.TrimPrefix(err.Error(), "json: unknown field ")+"; see /openapi.json")
	}
	return problemf(http.StatusBadRequest, CodeMalformedJSON, "the body could not be read as JSON")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "another type"
}

// jsonValue names what a client sent, from an UnmarshalTypeError's Value:
// the JSON kind ("object"), or for a number that did not fit, the number
// itself ("number 1.5").
func jsonValue(v string) string {
	if n, ok := strings.CutPrefix(v, "number "); ok {
		if f, err := strconv.ParseFloat(n, 64); err == nil && f == math.Trunc(f) {
			return n + " (out of range)"
		}
		return n
	}
	switch v {
	case "string", "number":
		return "a " + v
	case "object", "array":
		return "an " + v
	case "bool":
		return "true or false"
	}
	return v
}

// writeJSON writes v with status. The body is encoded into a pooled buffer
// first: the response goes out with a Content-Length in one write rather
// than chunked, and an encoding error is returned before anything was sent,
// so the caller can still answer with a problem.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	buf := jsonBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledJSON {
			buf.Reset()
			jsonBufs.Put(buf)
		}
	}()
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// jsonBufs holds writeJSON's buffers; one larger than maxPooledJSON (an
// export, a long listing) is left to the collector rather than kept.
var jsonBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledJSON = 1 << 20
