package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

const (
	fakeModel = "fake-embed"
	fakeKey   = "sk-cli-e2e-6f1d2c3b4a"
)

// providerEnv is the environment of commands embedding with fake: the
// settings in MNEMON_EMBEDDINGS_* variables, the key in another variable.
func providerEnv(fake *openaitest.Server, db string, dims string) map[string]string {
	return map[string]string{
		"MNEMON_DB":                      db,
		"MNEMON_EMBEDDINGS_BASE_URL":     fake.URL,
		"MNEMON_EMBEDDINGS_MODEL":        fakeModel,
		"MNEMON_EMBEDDINGS_DIMENSIONS":   dims,
		"MNEMON_EMBEDDINGS_API_KEY_ENV":  "FAKE_PROVIDER_KEY",
		"MNEMON_EMBEDDINGS_BATCH_SIZE":   "8",
		"MNEMON_EMBEDDINGS_TIMEOUT":      "5s",
		"MNEMON_EMBEDDINGS_MAX_RETRIES":  "1",
		"MNEMON_EMBEDDINGS_CONCURRENCY":  "2",
		"FAKE_PROVIDER_KEY":              fakeKey,
		"MNEMON_EMBEDDINGS_UNUSED_CHECK": "",
	}
}

// TestProviderEmbedderEndToEnd remembers and recalls with the provider's
// embedder configured by MNEMON_ variables: the fake receives the key,
// provenance names the provider's embedder, the semantic channel finds
// by its vectors, doctor reports the endpoint, and the key is in no
// output, error or export.
func TestProviderEmbedderEndToEnd(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, fakeModel, 32)
	fake.RequireKey(fakeKey)
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))
	env := providerEnv(fake, db, "32")
	var seen []string // every output, to search for the key
	run := func(want int, args ...string) string {
		t.Helper()
		code, out, errs := runEnv(t, t.Context(), env, "", args...)
		seen = append(seen, out, errs)
		if code != want {
			t.Fatalf("mnemon %v: exit %d, want %d\n%s%s", args, code, want, out, errs)
		}
		return out
	}
	run(0, "remember", "My favorite editor is Helix. I live in Porto.")
	run(0, "remember", "My sister plays the cello on weekends.")
	if fake.Requests("/v1/embeddings") == 0 {
		t.Fatal("remember did not call the embeddings endpoint")
	}
	for _, h := range fake.AuthHeaders() {
		if h != "Bearer "+fakeKey {
			t.Fatalf("authorization %q", h)
		}
	}

	out := run(0, "recall", "which editor is my favorite", "--json", "--disable", "critical,structured,lexical,recent,graph")
	var res struct {
		RetrievalID string `json:"retrieval_id"`
		Items       []struct {
			MemoryID string                     `json:"memory_id"`
			Content  string                     `json:"content"`
			Channels map[string]json.RawMessage `json:"channels"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("recall --json: %v\n%s", err, out)
	}
	memID := ""
	for _, it := range res.Items {
		if _, ok := it.Channels["semantic"]; ok && strings.Contains(it.Content, "Helix") {
			memID = it.MemoryID
		}
	}
	if memID == "" {
		t.Fatalf("the semantic channel did not find the editor with the provider's vectors:\n%s", out)
	}
	run(0, "explain", res.RetrievalID) // the trace, searched for the key below
	if show := run(0, "show", memID); !strings.Contains(show, "embedder openai:fake-embed@32 (32 dims)") {
		t.Fatalf("show does not name the provider's embedder:\n%s", show)
	}

	doc := run(0, "doctor")
	lines := strings.Join(strings.Fields(doc), " ")
	for _, want := range []string{"ok embeddings provider " + fake.URL + ": model fake-embed, 32 dimensions, answered in", "every memory item has vectors of openai:fake-embed@32"} {
		if !strings.Contains(lines, want) {
			t.Fatalf("doctor lacks %q:\n%s", want, doc)
		}
	}
	run(0, "doctor", "--json")
	exp := filepath.Join(dir, "export.jsonl")
	run(0, "export", "--out", exp)
	data, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "openai:fake-embed@32") {
		t.Fatal("the export does not record the provider's embedder")
	}
	seen = append(seen, string(data))

	// A wrong key: the refusal is reported, the key (which the fake
	// echoes) is not.
	env["FAKE_PROVIDER_KEY"] = fakeKey + "-wrong"
	run(1, "remember", "I moved to Lisbon.")
	if errs := seen[len(seen)-1]; !strings.Contains(errs, "the embeddings provider refused the API key (HTTP 401)") || !strings.Contains(errs, "nothing was stored") {
		t.Fatalf("remember with a wrong key says:\n%s", errs)
	}
	doc = run(1, "doctor")
	if !strings.Contains(doc, "refused the API key") {
		t.Fatalf("doctor with a wrong key:\n%s", doc)
	}
	for _, s := range seen {
		if strings.Contains(s, fakeKey) {
			t.Fatalf("the API key shows in:\n%s", s)
		}
	}
	// The fake saw the wrong key and echoed it; the CLI said nothing of it.
	if !strings.Contains(strings.Join(seen, "\n"), "refused the API key") {
		t.Fatal("no output says the key was refused")
	}
}

// TestServeWithProviderConfigFile runs serve with the models section of
// a config file (key in a file): writes and retrievals embed through the
// provider, the start is logged with the key redacted, and a database
// written with the built-in embedder is re-embedded by the start's job.
func TestServeWithProviderConfigFile(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, fakeModel, 16)
	fake.RequireKey(fakeKey)
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))
	// Written first with the built-in embedder.
	if code, _, errs := runCLI(t, db, "", "remember", "I am allergic to peanuts."); code != 0 {
		t.Fatal(errs)
	}
	keyFile := filepath.Join(dir, "provider.key")
	if err := os.WriteFile(keyFile, []byte(fakeKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mnemon.json")
	conf := `{"models": {"embeddings": {"base_url": "` + fake.URL + `", "model": "fake-embed", "dimensions": 16, "batch_size": 4,
		"api_key_file": "` + keyFile + `", "timeout": "5s", "max_retries": 2, "concurrency": 2},
		"chat": {"base_url": "` + fake.URL + `", "model": "fake-chat", "api_key_file": "` + keyFile + `"},
		"rerank": {"with": "endpoint", "base_url": "` + fake.URL + `", "model": "fake-rerank", "api_key_file": "` + keyFile + `", "top": 5, "budget": "2s"},
		"duplicate_judge": true, "judge_calls": 5, "summaries": "model"}}`
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, map[string]string{"MNEMON_DB": db}, "--addr", "127.0.0.1:0", "--config", cfg, "--workers", "1")
	code, body := call(t, "POST", s.url+"/v1/memories", map[string]any{"text": "My favorite editor is Helix."})
	if code != http.StatusCreated && code != http.StatusOK {
		t.Fatalf("remember: %d %s", code, body)
	}
	code, body = call(t, "POST", s.url+"/v1/memories/retrieve", map[string]any{"query": "favorite editor"})
	if code != http.StatusOK || !strings.Contains(string(body), "Helix") || !strings.Contains(string(body), "models.reranked") {
		t.Fatalf("retrieve: %d %s", code, body)
	}
	if fake.Requests("/v1/rerank") != 1 {
		t.Fatalf("%d rerank requests; want the retrieval's", fake.Requests("/v1/rerank"))
	}
	// The chat model answers POST /v1/agent/respond from the same server.
	fake.Script("/v1/chat/completions", openaitest.Reply{Content: `{"answer": "Helix.", "used": [1]}`})
	code, body = call(t, "POST", s.url+"/v1/agent/respond", map[string]any{"query": "favorite editor"})
	if code != http.StatusOK || !strings.Contains(string(body), `"answer":"Helix."`) || strings.Contains(string(body), fakeKey) {
		t.Fatalf("respond: %d %s", code, body)
	}
	// The start's re-embedding job gives the old memory the provider's
	// vectors: doctor, reading the same config, finds none stale.
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, out, _ := runEnv(t, t.Context(), map[string]string{"MNEMON_DB": db}, "", "doctor", "--config", cfg)
		if strings.Contains(out, "every memory item has vectors of openai:fake-embed@16") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not re-embedded after 15s:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	code, body = call(t, "GET", s.url+"/v1/export", nil)
	if code != http.StatusOK || !strings.Contains(string(body), "openai:fake-embed@16") || strings.Contains(string(body), fakeKey) {
		t.Fatalf("export: %d; want the provider's embedder in the provenance and no key:\n%s", code, body)
	}
	s.stop(t)
	logs := s.stderr.String()
	if !strings.Contains(logs, `"embedder":"openai:fake-embed@16"`) || !strings.Contains(logs, `"api_key":"[redacted]"`) {
		t.Fatalf("the start does not log the provider (key redacted):\n%s", logs)
	}
	if strings.Contains(logs, fakeKey) {
		t.Fatalf("the log holds the key:\n%s", logs)
	}
	if fake.Requests("/v1/embeddings") < 3 {
		t.Fatalf("%d embeddings requests; want the write, the retrieval and the re-embedding", fake.Requests("/v1/embeddings"))
	}
}

func TestModelsConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	emb := func(fields string) string {
		return `{"models": {"embeddings": {` + fields + `}}}`
	}
	base := `"base_url": "http://127.0.0.1:11434/v1", "model": "nomic-embed-text"`
	for _, c := range []struct {
		name, config string
		env          map[string]string
		want         string
	}{
		{"credentials in the URL", emb(`"base_url": "https://me:hunter2@api.example.com/v1", "model": "m", "dimensions": 8`), nil,
			"models.embeddings.base_url must not hold credentials"},
		{"no scheme", emb(`"base_url": "127.0.0.1:11434/v1", "model": "m", "dimensions": 8`), nil, "models.embeddings.base_url: use an http:// or https:// URL"},
		{"no model", emb(`"base_url": "http://127.0.0.1:11434/v1", "dimensions": 8`), nil, "models.embeddings.model is not set"},
		{"no dimensions", emb(base), nil, "models.embeddings.dimensions is not set"},
		{"timeout as a number", emb(base + `, "dimensions": 8, "timeout": 30`), nil, "models.embeddings.timeout must be a string holding a duration"},
		{"bad timeout", emb(base + `, "dimensions": 8, "timeout": "soon"`), nil, `models.embeddings.timeout "soon" is not a duration`},
		{"unknown field", emb(base + `, "dimensions": 8, "dims": 8`), nil, `unknown field "dims"`},
		{"both key sources", emb(base + `, "dimensions": 8, "api_key_env": "K", "api_key_file": "/k"`), nil, "set api_key_env or api_key_file, not both"},
		{"unset key variable", emb(base + `, "dimensions": 8, "api_key_env": "NO_SUCH_KEY"`), nil, "NO_SUCH_KEY, which is not set"},
		{"chat dimensions", "", map[string]string{"MNEMON_CHAT_BASE_URL": "http://127.0.0.1:1/v1", "MNEMON_CHAT_DIMENSIONS": "8"}, "a chat endpoint has no dimensions"},
		{"variable overrides the file", emb(base + `, "dimensions": 8`), map[string]string{"MNEMON_EMBEDDINGS_BASE_URL": "ftp://x/v1"}, "models.embeddings.base_url: use an http:// or https:// URL, not ftp://"},
		{"bad retries", "", map[string]string{"MNEMON_EMBEDDINGS_MAX_RETRIES": "many"}, `MNEMON_EMBEDDINGS_MAX_RETRIES="many": want a whole number`},
		{"model extraction without chat", `{"models": {"extraction": "model"}}`, nil, "models.extraction is model: configure models.chat"},
		{"unknown extraction", "", map[string]string{"MNEMON_MODELS_EXTRACTION": "sometimes"}, `models.extraction "sometimes": use rules, model or both`},
		{"bad query budget", `{"models": {"query_budget": "forever"}}`, nil, `models.query_budget "forever": give a duration`},
		{"negative token budget", "", map[string]string{"MNEMON_MODELS_TOKENS_PER_DAY": "-5"}, "models.tokens_per_day -5: must not be negative"},
		{"judge without chat", `{"models": {"duplicate_judge": true}}`, nil, "models.duplicate_judge is on: configure models.chat"},
		{"judge not a bool", "", map[string]string{"MNEMON_MODELS_DUPLICATE_JUDGE": "often"}, `MNEMON_MODELS_DUPLICATE_JUDGE="often": want true or false`},
		{"model summaries without chat", "", map[string]string{"MNEMON_MODELS_SUMMARIES": "model"}, "models.summaries is model: configure models.chat"},
		{"unknown summariser", `{"models": {"summaries": "poetic"}}`, nil, `models.summaries "poetic": use extractive or model`},
		{"rerank with nothing", `{"models": {"rerank": {}}}`, nil, `models.rerank.with "": use endpoint`},
		{"rerank chat without chat", "", map[string]string{"MNEMON_RERANK_WITH": "chat"}, "models.rerank.with is chat: configure models.chat"},
		{"rerank endpoint without model", `{"models": {"rerank": {"with": "endpoint", "base_url": "http://127.0.0.1:8080"}}}`, nil, "models.rerank.model is not set"},
		{"rerank endpoint with credentials", "", map[string]string{"MNEMON_RERANK_WITH": "endpoint", "MNEMON_RERANK_BASE_URL": "http://u:hunter2@127.0.0.1:8080", "MNEMON_RERANK_MODEL": "bge-reranker"}, "models.rerank.base_url must not hold credentials"},
		{"bad rerank budget", `{"models": {"rerank": {"with": "endpoint", "base_url": "http://127.0.0.1:8080", "model": "m", "budget": "2h"}}}`, nil, `models.rerank.budget "2h": give a duration`},
	} {
		vars := map[string]string{"MNEMON_DB": db}
		for k, v := range c.env {
			vars[k] = v
		}
		args := []string{"worker"}
		if c.config != "" {
			args = append(args, "--config", write(strings.ReplaceAll(c.name, " ", "_")+".json", c.config))
		}
		code, out, errs := runEnv(t, t.Context(), vars, "", args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "hunter2") {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s%s", c.name, code, c.want, out, errs)
		}
	}
	// One-shot commands read the variables too.
	code, _, errs := runEnv(t, t.Context(), map[string]string{"MNEMON_DB": db, "MNEMON_EMBEDDINGS_BASE_URL": "http://127.0.0.1:1/v1", "MNEMON_EMBEDDINGS_MODEL": "m"}, "", "remember", "I like tea.")
	if code != 2 || !strings.Contains(errs, "models.embeddings.dimensions is not set") {
		t.Errorf("remember with half a provider configured: exit %d: %s", code, errs)
	}
}

func TestDoctorModelEndpoints(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, fakeModel, 32)
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	doctor := func(env map[string]string, want int) string {
		t.Helper()
		code, out, errs := runEnv(t, t.Context(), env, "", "doctor")
		if code != want {
			t.Fatalf("doctor: exit %d, want %d\n%s%s", code, want, out, errs)
		}
		return strings.Join(strings.Fields(out), " ")
	}
	env := providerEnv(fake, db, "32")
	delete(env, "MNEMON_EMBEDDINGS_API_KEY_ENV")
	env["MNEMON_CHAT_BASE_URL"] = fake.URL
	env["MNEMON_CHAT_MODEL"] = "fake-chat"
	env["MNEMON_RERANK_WITH"] = "endpoint"
	env["MNEMON_RERANK_BASE_URL"] = fake.URL
	env["MNEMON_RERANK_MODEL"] = "fake-rerank"
	out := doctor(env, 0)
	for _, want := range []string{"ok embeddings provider " + fake.URL + ": model fake-embed, 32 dimensions", "ok chat provider " + fake.URL + ": model fake-chat answered in",
		"ok rerank provider " + fake.URL + ": model fake-rerank scored 2 documents in"} {
		if !strings.Contains(out, want) {
			t.Fatalf("doctor lacks %q:\n%s", want, out)
		}
	}

	env["MNEMON_EMBEDDINGS_DIMENSIONS"] = "64"
	if out := doctor(env, 1); !strings.Contains(out, "fail embeddings provider "+fake.URL+": model fake-embed returns 32 dimensions; models.embeddings.dimensions is 64: set it to 32") {
		t.Fatalf("doctor with the wrong dimensions:\n%s", out)
	}
	env["MNEMON_EMBEDDINGS_DIMENSIONS"] = "32"
	fake.Script("/v1/rerank", openaitest.Reply{Body: `{"results": []}`})
	if out := doctor(env, 1); !strings.Contains(out, "fail rerank provider "+fake.URL+": the rerank provider's reply cannot be used") {
		t.Fatalf("doctor with a rerank reply scoring nothing:\n%s", out)
	}
	fake.Script("/v1/chat/completions", openaitest.Reply{Body: "<html>bad gateway</html>"})
	if out := doctor(env, 1); !strings.Contains(out, "fail chat provider "+fake.URL+": the chat provider's reply cannot be used") {
		t.Fatalf("doctor with a malformed chat reply:\n%s", out)
	}
	fake.Close()
	if out := doctor(env, 1); !strings.Contains(out, "fail embeddings provider "+fake.URL+": the embeddings provider cannot be reached") {
		t.Fatalf("doctor with the provider down:\n%s", out)
	}
}

func TestNoModelsConfiguredChangesNothing(t *testing.T) {
	t.Parallel()
	m, err := applyModelsEnv(nil, func(string) string { return "" })
	if m != nil || err != nil {
		t.Fatalf("models %+v, %v from an empty environment", m, err)
	}
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	mustRun(t, db, "remember", "I like tea.")
	out := mustRun(t, db, "doctor")
	if strings.Contains(out, "provider") || !strings.Contains(out, "vectors of "+embed.WordVectorsName) {
		t.Fatalf("doctor without models:\n%s", out)
	}
}

// TestModelsDefaults: a chat endpoint without a base URL (or key) takes
// the embeddings endpoint's, and extraction left unset is both once a
// chat endpoint is configured; without one it stays the rules.
func TestModelsDefaults(t *testing.T) {
	t.Parallel()
	const (
		ollama    = "http://127.0.0.1:11434/v1"
		openai    = "https://api.openai.com/v1"
		embOllama = "models.embeddings.base_url is not set: " + ollama + " (local Ollama's, as no API key source is set)"
		embOpenAI = "models.embeddings.base_url is not set: " + openai + " (OpenAI's, as an API key source is set)"
	)
	for _, c := range []struct {
		name           string
		env            map[string]string
		embBase        string // "" : no embeddings endpoint, or one left without
		base, keyEnv   string // the chat endpoint's
		wantExtraction string
		defaulted      []string
	}{
		// Two settings: the README's Ollama setup.
		{"two models, Ollama", map[string]string{"MNEMON_EMBEDDINGS_MODEL": "nomic-embed-text", "MNEMON_CHAT_MODEL": "llama3.2"},
			ollama, ollama, "", "both", []string{embOllama}},
		{"two models and a key, OpenAI", map[string]string{"MNEMON_EMBEDDINGS_MODEL": "text-embedding-3-small", "MNEMON_EMBEDDINGS_API_KEY_ENV": "OPENAI_API_KEY", "MNEMON_CHAT_MODEL": "gpt-4o-mini"},
			openai, openai, "OPENAI_API_KEY", "both", []string{embOpenAI}},
		{"a key file is a key source", map[string]string{"MNEMON_EMBEDDINGS_MODEL": "e", "MNEMON_EMBEDDINGS_API_KEY_FILE": "/run/secrets/openai"},
			openai, "", "", "", []string{embOpenAI}},
		{"embeddings alone, Ollama", map[string]string{"MNEMON_EMBEDDINGS_MODEL": "e"}, ollama, "", "", "", []string{embOllama}},
		{"chat alone, Ollama", map[string]string{"MNEMON_CHAT_MODEL": "c"}, "", ollama, "", "both",
			[]string{"models.chat.base_url is not set: " + ollama + " (local Ollama's, as no API key source is set)"}},
		{"chat alone with a key, OpenAI", map[string]string{"MNEMON_CHAT_MODEL": "c", "MNEMON_CHAT_API_KEY_ENV": "K"}, "", openai, "K", "both",
			[]string{"models.chat.base_url is not set: " + openai + " (OpenAI's, as an API key source is set)"}},
		{"a base URL given is kept", map[string]string{"MNEMON_EMBEDDINGS_BASE_URL": "http://10.0.0.5:8080/v1", "MNEMON_EMBEDDINGS_MODEL": "e", "MNEMON_EMBEDDINGS_API_KEY_ENV": "K"},
			"http://10.0.0.5:8080/v1", "", "", "", nil},
		{"no model, no default", map[string]string{"MNEMON_EMBEDDINGS_API_KEY_ENV": "K"}, "", "", "", "", nil},
		{"chat model only", map[string]string{"MNEMON_EMBEDDINGS_BASE_URL": ollama, "MNEMON_EMBEDDINGS_MODEL": "e", "MNEMON_CHAT_MODEL": "c"}, ollama, ollama, "", "both", nil},
		{"key source follows the base URL", map[string]string{"MNEMON_EMBEDDINGS_BASE_URL": openai, "MNEMON_EMBEDDINGS_API_KEY_ENV": "OPENAI_API_KEY", "MNEMON_CHAT_MODEL": "c"},
			openai, openai, "OPENAI_API_KEY", "both", nil},
		{"a chat endpoint of its own", map[string]string{"MNEMON_EMBEDDINGS_BASE_URL": ollama, "MNEMON_EMBEDDINGS_API_KEY_ENV": "K", "MNEMON_CHAT_BASE_URL": "http://127.0.0.1:8081/v1", "MNEMON_CHAT_MODEL": "c"},
			ollama, "http://127.0.0.1:8081/v1", "", "both", nil},
		{"rules kept when asked", map[string]string{"MNEMON_EMBEDDINGS_BASE_URL": ollama, "MNEMON_CHAT_MODEL": "c", "MNEMON_MODELS_EXTRACTION": "rules"}, ollama, ollama, "", "rules", nil},
		{"model kept when asked", map[string]string{"MNEMON_CHAT_BASE_URL": ollama, "MNEMON_CHAT_MODEL": "c", "MNEMON_MODELS_EXTRACTION": "model"}, "", ollama, "", "model", nil},
		{"no chat endpoint", map[string]string{"MNEMON_EMBEDDINGS_BASE_URL": ollama, "MNEMON_EMBEDDINGS_MODEL": "e"}, ollama, "", "", "", nil},
	} {
		m, err := applyModelsEnv(nil, func(k string) string { return c.env[k] })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var embBase, base, keyEnv string
		if m.Embeddings != nil {
			embBase = m.Embeddings.BaseURL
		}
		if m.Chat != nil {
			base, keyEnv = m.Chat.BaseURL, m.Chat.APIKeyEnv
		}
		if embBase != c.embBase || base != c.base || keyEnv != c.keyEnv || m.Extraction != c.wantExtraction {
			t.Errorf("%s: embeddings base %q, chat base %q key env %q extraction %q; want %q, %q %q %q", c.name, embBase, base, keyEnv, m.Extraction, c.embBase, c.base, c.keyEnv, c.wantExtraction)
		}
		if !slices.Equal(m.defaulted, c.defaulted) {
			t.Errorf("%s: defaulted %q; want %q", c.name, m.defaulted, c.defaulted)
		}
	}
	// A config file's sections get the same defaults.
	m, err := applyModelsEnv(&modelsConfig{Embeddings: &embeddingsConfig{endpointConfig: endpointConfig{BaseURL: "http://127.0.0.1:11434/v1", Model: "e"}, Dimensions: 8},
		Chat: &chatConfig{endpointConfig{Model: "c"}}}, func(string) string { return "" })
	if err != nil || m.Chat.BaseURL != "http://127.0.0.1:11434/v1" || m.Extraction != "both" {
		t.Fatalf("config file: %+v %v", m, err)
	}
	m, err = applyModelsEnv(&modelsConfig{Embeddings: &embeddingsConfig{endpointConfig: endpointConfig{Model: "e"}}}, func(string) string { return "" })
	if err != nil || m.Embeddings.BaseURL != ollama || !slices.Equal(m.defaulted, []string{embOllama}) {
		t.Fatalf("config file without a base URL: %+v %v", m, err)
	}
}

// TestEmbeddingDimensionsLearnt: without models.embeddings.dimensions a
// command asks the endpoint once for the vector length and embeds with
// it; with the endpoint down it says to set dimensions; with dimensions
// set, a recall still answers while the endpoint is down (the query
// fallback), which asking would have prevented.
func TestEmbeddingDimensionsLearnt(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, fakeModel, 24)
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	env := map[string]string{"MNEMON_DB": db, "MNEMON_EMBEDDINGS_BASE_URL": fake.URL, "MNEMON_EMBEDDINGS_MODEL": fakeModel}
	code, out, errs := runEnv(t, t.Context(), env, "", "remember", "My favorite editor is Helix.", "--json")
	if code != 0 {
		t.Fatalf("remember: exit %d\n%s%s", code, out, errs)
	}
	if n := fake.Requests("/v1/embeddings"); n != 2 {
		t.Fatalf("%d embeddings requests; want the length asked once, then the write", n)
	}
	var rem struct {
		Outcomes []struct {
			MemoryID string `json:"memory_id"`
		} `json:"outcomes"`
	}
	if err := json.Unmarshal([]byte(out), &rem); err != nil || len(rem.Outcomes) == 0 || rem.Outcomes[0].MemoryID == "" {
		t.Fatalf("remember --json: %v\n%s", err, out)
	}
	if _, show, _ := runEnv(t, t.Context(), env, "", "show", rem.Outcomes[0].MemoryID); !strings.Contains(show, "embedder openai:fake-embed@24 (24 dims)") {
		t.Fatalf("show does not name the learnt length:\n%s", show)
	}

	fake.Close()
	code, _, errs = runEnv(t, t.Context(), env, "", "recall", "which editor?")
	if code != 2 || !strings.Contains(errs, "models.embeddings.dimensions is not set, and "+fake.URL+" could not tell the length") || !strings.Contains(errs, "set dimensions") {
		t.Fatalf("recall with the endpoint down and no dimensions: exit %d: %s", code, errs)
	}
	env["MNEMON_EMBEDDINGS_DIMENSIONS"] = "24"
	if code, out, errs := runEnv(t, t.Context(), env, "", "recall", "which editor?"); code != 0 || !strings.Contains(out, "Helix") {
		t.Fatalf("recall with dimensions set and the endpoint down: exit %d\n%s%s", code, out, errs)
	}
}

// TestDefaultBaseURLIsReported: with a model named and no base URL (the
// two-setting Ollama setup), doctor and serve's startup log say which
// base URL mnemon took. Dimensions are set so that serve starts without
// asking the endpoint, which need not be running here.
func TestDefaultBaseURLIsReported(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	env := map[string]string{
		"MNEMON_DB":                      db,
		"MNEMON_EMBEDDINGS_MODEL":        "nomic-embed-text",
		"MNEMON_EMBEDDINGS_DIMENSIONS":   "768",
		"MNEMON_EMBEDDINGS_MAX_RETRIES":  "0",
		"MNEMON_EMBEDDINGS_TIMEOUT":      "2s",
		"MNEMON_MODELS_EXTRACTION":       "",
		"MNEMON_EMBEDDINGS_API_KEY_FILE": "",
	}
	const want = "models.embeddings.base_url is not set: http://127.0.0.1:11434/v1 (local Ollama's, as no API key source is set)"
	// Whether or not an Ollama answers on this machine, the line is there.
	_, out, errs := runEnv(t, t.Context(), env, "", "doctor")
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "ok model base URL "+want) {
		t.Fatalf("doctor does not say which base URL it took:\n%s%s", out, errs)
	}
	s := startServe(t, env, "--addr", "127.0.0.1:0")
	s.stop(t)
	if log := s.stderr.String(); !strings.Contains(log, "model base URL defaulted") || !strings.Contains(log, "127.0.0.1:11434/v1 (local Ollama's") {
		t.Fatalf("serve's log does not say which base URL it took:\n%s", log)
	}
}
