// Package openaitest is a fake OpenAI-compatible provider for tests: a
// real HTTP server on 127.0.0.1 that speaks POST /v1/embeddings and
// /v1/chat/completions the way the API defines them, with deterministic
// embeddings, scripted chat replies and scripted failures (status codes
// with Retry-After, slow replies, malformed JSON).
package openaitest

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// Reply is one scripted answer. The first scripted reply of a path is
// used (and dropped) by its next request; with none left, the server
// answers normally.
type Reply struct {
	Status     int           // non-2xx: this status with Body (or an API error body)
	RetryAfter string        // the Retry-After header, when set
	Delay      time.Duration // wait before answering (or until the client gives up)
	Body       string        // raw body to send instead of the normal reply ("not json" for malformed)
	Content    string        // chat: the assistant message's content
}

// Server is the fake provider.
type Server struct {
	URL string // base URL, ending in /v1

	srv *httptest.Server

	mu       sync.Mutex
	dims     int
	key      string // required bearer key; "" accepts any
	model    string
	script   map[string][]Reply
	requests map[string]int
	batches  []int    // inputs per embeddings request
	auth     []string // Authorization headers seen
	bodies   []string // request bodies seen
	inFlight int
	maxIn    int // most requests in flight at once
	answer   func(system, user string) string
	teiShape bool // rerank replies as TEI's bare list
}

// New starts a fake provider returning vectors of dims dimensions for the
// embeddings model model; it stops when the test ends.
func New(t testing.TB, model string, dims int) *Server {
	t.Helper()
	s := &Server{dims: dims, model: model, script: map[string][]Reply{}, requests: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL + "/v1"
	return s
}

// RequireKey makes the server refuse requests without "Bearer key", with
// a 401 that echoes the key it was sent, as some providers do.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// SetDims changes the length of the vectors from now on.
func (s *Server) SetDims(dims int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dims = dims
}

// Script queues replies for path ("/v1/embeddings", "/v1/chat/completions").
func (s *Server) Script(path string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script[path] = append(s.script[path], replies...)
}

// Answer makes chat requests without a scripted reply answered by fn,
// given the request's system message and its last user message; its
// result is the assistant's content (nil: "ok").
func (s *Server) Answer(fn func(system, user string) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = fn
}

// RerankAsTEI makes /v1/rerank answer as Text Embeddings Inference does
// (a bare list of {"index","score"}) instead of Jina's and Cohere's
// {"results": [{"index","relevance_score"}]}.
func (s *Server) RerankAsTEI() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.teiShape = true
}

// Requests is how many requests path received.
func (s *Server) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// Batches is the number of inputs of each embeddings request answered
// normally, in order.
func (s *Server) Batches() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.batches...)
}

// AuthHeaders are the Authorization headers received, in order.
func (s *Server) AuthHeaders() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// Bodies are the request bodies received, in order.
func (s *Server) Bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// MaxInFlight is the most requests the server was answering at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxIn
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.inFlight++
	s.maxIn = max(s.maxIn, s.inFlight)
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	s.requests[r.URL.Path]++
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.bodies = append(s.bodies, string(body))
	var rep *Reply
	if q := s.script[r.URL.Path]; len(q) > 0 {
		rep, s.script[r.URL.Path] = &q[0], q[1:]
	}
	key, dims, model, answer, tei := s.key, s.dims, s.model, s.answer, s.teiShape
	s.mu.Unlock()

	if r.Method != http.MethodPost {
		apiError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		apiError(w, http.StatusUnauthorized, "Incorrect API key provided: "+got)
		return
	}
	if rep != nil {
		if rep.Delay > 0 {
			select {
			case <-time.After(rep.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		if rep.Status != 0 && (rep.Status < 200 || rep.Status > 299) {
			if rep.Body != "" {
				w.WriteHeader(rep.Status)
				_, _ = io.WriteString(w, rep.Body)
				return
			}
			apiError(w, rep.Status, http.StatusText(rep.Status))
			return
		}
		if rep.Body != "" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, rep.Body)
			return
		}
	}
	switch r.URL.Path {
	case "/v1/embeddings":
		s.embeddings(w, body, model, dims)
	case "/v1/chat/completions":
		content := "ok"
		if rep != nil && rep.Content != "" {
			content = rep.Content
		} else if answer != nil {
			content = answerWith(answer, body)
		}
		s.chat(w, body, content)
	case "/v1/rerank":
		rerank(w, body, tei)
	default:
		apiError(w, http.StatusNotFound, "unknown path "+r.URL.Path)
	}
}

// rerank scores each document by the share of the query's words it
// holds, deterministic like Vector.
func rerank(w http.ResponseWriter, body []byte, tei bool) {
	var req struct {
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		Texts     []string `json:"texts"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Query == "" {
		apiError(w, http.StatusBadRequest, "query is required")
		return
	}
	docs := req.Documents
	if tei {
		docs = req.Texts
	}
	q := map[string]bool{}
	for _, w := range words(req.Query) {
		q[w] = true
	}
	type result struct {
		Index int     `json:"index"`
		Score float64 `json:"score,omitempty"`
		Rel   float64 `json:"relevance_score,omitempty"`
	}
	out := make([]result, len(docs))
	for i, d := range docs {
		hits := 0
		for _, w := range words(d) {
			if q[w] {
				hits++
			}
		}
		score := float64(hits)/float64(len(q)+1) + 0.001
		out[i] = result{Index: i}
		if tei {
			out[i].Score = score
		} else {
			out[i].Rel = score
		}
	}
	if tei {
		writeJSON(w, out)
		return
	}
	writeJSON(w, map[string]any{"results": out, "usage": map[string]int{"prompt_tokens": len(docs)}})
}

func (s *Server) embeddings(w http.ResponseWriter, body []byte, model string, dims int) {
	var req struct {
		Model string `json:"model"`
		Input any    `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "body is not JSON")
		return
	}
	if req.Model != model {
		apiError(w, http.StatusNotFound, "model "+req.Model+" not found")
		return
	}
	var inputs []string
	switch in := req.Input.(type) {
	case string:
		inputs = []string{in}
	case []any:
		for _, x := range in {
			str, ok := x.(string)
			if !ok || str == "" {
				apiError(w, http.StatusBadRequest, "'$.input' is invalid")
				return
			}
			inputs = append(inputs, str)
		}
	default:
		apiError(w, http.StatusBadRequest, "'$.input' is invalid")
		return
	}
	s.mu.Lock()
	s.batches = append(s.batches, len(inputs))
	s.mu.Unlock()
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	out := struct {
		Object string         `json:"object"`
		Data   []datum        `json:"data"`
		Model  string         `json:"model"`
		Usage  map[string]int `json:"usage"`
	}{Object: "list", Model: model, Usage: map[string]int{}}
	tokens := 0
	// Reverse order: the API gives each vector its index, and clients
	// must not assume the order of data.
	for i := len(inputs) - 1; i >= 0; i-- {
		out.Data = append(out.Data, datum{Object: "embedding", Index: i, Embedding: Vector(inputs[i], dims)})
		tokens += len(words(inputs[i]))
	}
	out.Usage["prompt_tokens"], out.Usage["total_tokens"] = tokens, tokens
	writeJSON(w, out)
}

func (s *Server) chat(w http.ResponseWriter, body []byte, content string) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		apiError(w, http.StatusBadRequest, "messages is required")
		return
	}
	writeJSON(w, map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content},
		}},
		"usage": map[string]int{"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
	})
}

// answerWith runs fn on a chat request's system and last user message.
func answerWith(fn func(system, user string) string, body []byte) string {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	var system, user string
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = m.Content
		case "user":
			user = m.Content
		}
	}
	return fn(system, user)
}

// Vector is the fake model's embedding of text: each lower-cased word
// adds ±1 at two hashed dimensions, so texts sharing words have a positive
// cosine and the same text always gets the same vector. Not normalised,
// as real providers' vectors need not be exactly.
func Vector(text string, dims int) []float64 {
	v := make([]float64, dims)
	for _, w := range words(text) {
		h := fnv.New64a()
		_, _ = h.Write([]byte(w))
		x := h.Sum64()
		for range 2 {
			sign := 1.0
			if x&1 == 1 {
				sign = -1
			}
			v[(x>>1)%uint64(dims)] += sign
			x = x*0x9e3779b97f4a7c15 + 1
		}
	}
	v[0] += 0.01 // no all-zero vector for text without words
	norm := 0.0
	for _, x := range v {
		norm += x * x
	}
	for i := range v {
		v[i] *= 2 / math.Sqrt(norm)
	}
	return v
}

func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Close stops the server now (it also stops when the test ends): calls
// to URL then fail to connect.
func (s *Server) Close() { s.srv.Close() }
