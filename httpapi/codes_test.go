package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

// TestE2EEveryDocumentedCodeIsAnswered walks the problem codes the OpenAPI
// document lists (Problem.code's enum) and, for each, makes a request over
// loopback that answers it, with its status and a detail. A code the
// document promises but no request can produce, or a request here for a
// code the document does not list, fails.
func TestE2EEveryDocumentedCodeIsAnswered(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{limits: httpapi.Limits{MaxBodyBytes: 4096, MaxEvents: 5, MaxQueryBytes: 200}})
	now := time.Now().UTC()
	seed := f.e2eRemember(t, map[string]any{"text": "I live in Madrid."})
	retrieval := f.e2eRetrieve(t, "where do I live?")
	f.eng.FlushTraces()
	// Stored after the retrieval, so it is none of its items.
	later := f.e2eRemember(t, map[string]any{"text": "My sister plays the cello."})
	feedback := "/v1/retrievals/" + retrieval.RetrievalID + "/feedback"

	var six []map[string]any
	for i := range 6 {
		six = append(six, e2eEvent("user_message", fmt.Sprintf("Fact %d.", i), now.Add(-time.Minute)))
	}

	on := func(method, path string, body any, hdr ...string) func(*testing.T) *e2eResp {
		return func(t *testing.T) *e2eResp { return f.e2eDo(t, method, path, body, hdr...) }
	}
	type answer struct {
		status int
		call   func(*testing.T) *e2eResp
	}
	cases := map[string]answer{
		httpapi.CodeMalformedJSON:        {400, on("POST", "/v1/memories", `{"text":`)},
		httpapi.CodeInvalidRequest:       {400, on("POST", "/v1/memories", map[string]any{"text": "I like figs.", "confidence": 2})},
		httpapi.CodeInvalidTimestamp:     {400, on("POST", "/v1/memories/retrieve", map[string]any{"query": "where?", "as_of": "3000-01-01T00:00:00Z"})},
		httpapi.CodeInvalidNamespace:     {400, on("GET", "/v1/memories", nil, "X-Mnemon-Namespace", "no spaces here")},
		httpapi.CodeInvalidSession:       {400, on("POST", "/v1/sessions/%20/consolidate", nil)},
		httpapi.CodeInvalidOutcome:       {400, on("POST", feedback, map[string]any{"outcome": "great"})},
		httpapi.CodeInvalidSeverity:      {400, on("POST", feedback, map[string]any{"outcome": "harmful", "severity": 3})},
		httpapi.CodeInvalidSource:        {400, on("POST", feedback, map[string]any{"outcome": "helpful", "source": "oracle"})},
		httpapi.CodeUnsupportedMediaType: {415, on("POST", "/v1/memories", `{"text":"I like figs."}`, "Content-Type", "text/xml")},
		httpapi.CodeBodyTooLarge:         {413, on("POST", "/v1/memories", map[string]any{"text": strings.Repeat("x", 5000)})},
		httpapi.CodeHeadersTooLarge:      {431, on("GET", "/v1/memories", nil, "X-Padding", strings.Repeat("x", 100<<10))},
		httpapi.CodeTooManyEvents:        {413, on("POST", "/v1/episodes", map[string]any{"session_id": "s", "events": six})},
		httpapi.CodeQueryTooLong:         {400, on("POST", "/v1/memories/retrieve", map[string]any{"query": strings.Repeat("q", 201)})},
		httpapi.CodeNotFound:             {404, on("GET", "/v1/memories/mem_01jv4n3s8m6d0c9x2qf7a5k1ew", nil)},
		httpapi.CodeNamespaceNotFound:    {404, on("GET", "/v1/memories", nil, "X-Mnemon-Namespace", "ghost")},
		httpapi.CodeSessionNotFound:      {404, on("POST", "/v1/sessions/never-captured/consolidate", nil)},
		httpapi.CodeRetrievalNotFound:    {404, on("POST", "/v1/retrievals/ret_01jv4n3s8m6d0c9x2qf7a5k1ew/feedback", map[string]any{"outcome": "helpful"})},
		httpapi.CodeNotInRetrieval:       {422, on("POST", feedback, map[string]any{"outcome": "helpful", "memory_ids": []string{later.MemoryID}})},
		httpapi.CodeMethodNotAllowed:     {405, on("PUT", "/v1/memories", "{}")},
		httpapi.CodeConflict:             {409, on("POST", "/v1/import", f.e2eDo(t, "GET", "/v1/export", nil).body, "Content-Type", "application/x-ndjson")},
		httpapi.CodeStorageFull:          {507, func(t *testing.T) *e2eResp { return storageFull(t, e2eOpen(t, e2eOptions{})) }},
		// A server on a database it opened read-only (serve --read-only).
		httpapi.CodeStoreReadOnly: {409, func(t *testing.T) *e2eResp {
			return e2eOpen(t, e2eOptions{readOnly: true}).e2eDo(t, "POST", "/v1/memories", map[string]any{"text": "I like figs."})
		}},
		httpapi.CodeStoreCorrupt: {503, func(t *testing.T) *e2eResp { return corruptNamespace(t, f) }},
		httpapi.CodeInternal:     {500, func(t *testing.T) *e2eResp { return tableMissing(t, f, seed.MemoryID) }},
		// The fixture configures no chat model.
		httpapi.CodeModelNotConfigured: {503, on("POST", "/v1/agent/respond", map[string]any{"query": "where do I live?"})},
		httpapi.CodeTimeout: {503, func(t *testing.T) *e2eResp {
			slow := e2eOpen(t, e2eOptions{limits: httpapi.Limits{RequestTimeout: time.Nanosecond}})
			return slow.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "where?"})
		}},
	}
	// A model provider that fails: down (5xx past its retries) or
	// answering what cannot be used.
	provider := func(t *testing.T, reply openaitest.Reply) *e2eResp {
		fake, emb := fakeProviderEmbedder(t)
		g := e2eOpen(t, e2eOptions{embedder: emb})
		fake.Script("/v1/embeddings", reply)
		return g.e2eDo(t, "POST", "/v1/memories", map[string]any{"text": "I like figs."})
	}
	cases[httpapi.CodeModelUnavailable] = answer{503, func(t *testing.T) *e2eResp { return provider(t, openaitest.Reply{Status: 500}) }}
	cases[httpapi.CodeModelBadReply] = answer{502, func(t *testing.T) *e2eResp { return provider(t, openaitest.Reply{Body: "not json"}) }}
	// The key cases share one server whose keys may make two requests.
	keyed := e2eOpen(t, e2eOptions{requireKeys: true, limits: httpapi.Limits{RatePerSecond: 0.001, RateBurst: 2}})
	reader, _ := keyed.e2eKey(t, memory.DefaultNamespace, memory.RoleReader)
	limited, _ := keyed.e2eKey(t, memory.DefaultNamespace, memory.RoleReader)
	cases[httpapi.CodeUnauthenticated] = answer{401, func(t *testing.T) *e2eResp { return keyed.e2eDo(t, "GET", "/v1/memories", nil) }}
	cases[httpapi.CodeForbidden] = answer{403, func(t *testing.T) *e2eResp {
		return keyed.e2eDo(t, "POST", "/v1/memories", map[string]any{"text": "I like figs."}, "Authorization", "Bearer "+reader)
	}}
	cases[httpapi.CodeRateLimited] = answer{429, func(t *testing.T) *e2eResp {
		var r *e2eResp
		for range 3 {
			r = keyed.e2eDo(t, "GET", "/v1/memories?limit=1", nil, "Authorization", "Bearer "+limited)
		}
		return r
	}}

	documented := documentedCodes(t, f)
	for _, code := range documented {
		t.Run(code, func(t *testing.T) {
			c, ok := cases[code]
			if !ok {
				t.Fatalf("the OpenAPI document lists %s, and no request here answers it", code)
			}
			e2eProblem(t, c.call(t), c.status, code)
		})
	}
	for code := range cases {
		if !slices.Contains(documented, code) {
			t.Errorf("a request answers %s, which the OpenAPI document does not list", code)
		}
	}
}

// documentedCodes reads Problem.code's enum from the served document.
func documentedCodes(t *testing.T, f *e2eFixture) []string {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas struct {
				Problem struct {
					Properties struct {
						Code struct {
							Enum []string `json:"enum"`
						} `json:"code"`
					} `json:"properties"`
				} `json:"Problem"`
			} `json:"schemas"`
		} `json:"components"`
	}
	e2eJSON(t, f.e2eDo(t, "GET", "/openapi.json", nil), http.StatusOK, &doc)
	codes := doc.Components.Schemas.Problem.Properties.Code.Enum
	if len(codes) == 0 {
		t.Fatal("the OpenAPI document lists no problem codes")
	}
	sort.Strings(codes)
	return codes
}

// storageFull lets the database grow by no page and asks for a write
// that needs some.
func storageFull(t *testing.T, f *e2eFixture) *e2eResp {
	t.Helper()
	db := f.store.WriterDB()
	var pages int
	if err := db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("My notes on the deployment say to run the migrations first. ", 800)
	return f.e2eDo(t, "POST", "/v1/episodes", map[string]any{
		"session_id": "full", "events": []map[string]any{e2eEvent("user_message", big, time.Now().Add(-time.Minute))}})
}

// corruptNamespace stores a memory in a namespace the server has not
// loaded, through another engine over the same store, damages its
// embedding, and retrieves there: the server cannot build the
// namespace's index.
func corruptNamespace(t *testing.T, f *e2eFixture) *e2eResp {
	t.Helper()
	ctx := context.Background()
	other, err := engine.New(engine.Config{Store: f.store})
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.Remember(ctx, engine.RememberParams{Namespace: "damaged", Text: "I live in Quito."})
	if cerr := other.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.WriterDB().Exec(`UPDATE versions SET embedding = x'01' WHERE namespace = 'damaged'`); err != nil {
		t.Fatal(err)
	}
	return f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "where do I live?"}, "X-Mnemon-Namespace", "damaged")
}

// tableMissing takes the memories table away for one request and puts it
// back: the store's error is nothing a client can act on.
func tableMissing(t *testing.T, f *e2eFixture, memoryID string) *e2eResp {
	t.Helper()
	db := f.store.WriterDB()
	if _, err := db.Exec(`ALTER TABLE memories RENAME TO memories_away`); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := db.Exec(`ALTER TABLE memories_away RENAME TO memories`); err != nil {
			t.Fatal(err)
		}
	}()
	r := f.e2eDo(t, "GET", "/v1/memories/"+memoryID, nil)
	var p wire.Problem
	if json.Unmarshal(r.body, &p) == nil && strings.Contains(p.Detail, "memories_away") {
		t.Errorf("the detail names the table: %s", r.body)
	}
	return r
}

// fakeProviderEmbedder returns a fake OpenAI-compatible server on loopback
// and a provider embedder over it that never retries, so a scripted
// failure reaches the caller at once.
func fakeProviderEmbedder(t *testing.T) (*openaitest.Server, *openai.Embedder) {
	t.Helper()
	fake := openaitest.New(t, "fake-embed", 8)
	client, err := openai.New(openai.Config{BaseURL: fake.URL, Model: "fake-embed", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	emb, err := openai.NewEmbedder(client, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fake, emb
}
