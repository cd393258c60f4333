package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/extract/llm"
	"github.com/mnemon-dev/mnemon/provider/openai"
)

// Model providers (see 'mnemon help serve' and the README's "Model
// providers"). Without a "models" section and without MNEMON_EMBEDDINGS_* or
// MNEMON_CHAT_* variables nothing here runs and mnemon uses its built-in
// embedder. The variables override the file field by field, and they are
// read by every command, so one-shot commands (remember, recall) embed
// with the same model as the server when the settings are in the
// environment.

// modelsConfig is the config file's "models" section.
type modelsConfig struct {
	Embeddings *embeddingsConfig `json:"embeddings"`
	Chat       *chatConfig       `json:"chat"`
	// QueryBudget bounds a query's embedding call, a Go duration (""
	// gives 300ms); past it the built-in embedder embeds the query.
	QueryBudget string `json:"query_budget"`
	// Extraction is who extracts facts in the background extraction job:
	// rules (the default without a chat endpoint), model (the chat model;
	// the rules when it cannot answer) or both (the model, then the rules
	// for the slots it left out; the default with a chat endpoint). model
	// and both need a chat endpoint.
	Extraction string `json:"extraction"`
	// TokensPerDay bounds the model tokens one namespace may use a UTC
	// day (0: no bound); past it the offline path serves.
	TokensPerDay int `json:"tokens_per_day"`
	// DuplicateJudge has the chat model judge the dedupe job's ambiguous
	// pairs, at most JudgeCalls a run (0: 20). Needs a chat endpoint.
	DuplicateJudge bool `json:"duplicate_judge"`
	JudgeCalls     int  `json:"judge_calls"`
	// Summaries is who writes session summaries: extractive (the
	// default) or model (the chat model; extractive when it fails).
	Summaries string `json:"summaries"`
	// Rerank, when set, reorders the top candidates of each retrieval.
	Rerank *rerankConfig `json:"rerank"`

	// defaulted says which base URLs defaults filled, one line each, for
	// doctor and serve's startup log.
	defaulted []string
}

// rerankConfig is models.rerank: with "endpoint", a /rerank endpoint of
// its own (base_url, model, key...); with "chat", the chat endpoint.
type rerankConfig struct {
	endpointConfig
	With   string `json:"with"`   // endpoint or chat
	Top    int    `json:"top"`    // candidates reordered (0: 20)
	Budget string `json:"budget"` // a Go duration ("" : 800ms)
}

// Variables of the model features beside extraction.
const (
	duplicateJudgeEnv = "MNEMON_MODELS_DUPLICATE_JUDGE"
	judgeCallsEnv     = "MNEMON_MODELS_JUDGE_CALLS"
	summariesEnv      = "MNEMON_MODELS_SUMMARIES"
	rerankEnv         = "MNEMON_RERANK_" // WITH, TOP, BUDGET and the endpoint's fields
)

// Variables overriding the models section's own fields.
const (
	extractionEnv   = "MNEMON_MODELS_EXTRACTION"
	tokensPerDayEnv = "MNEMON_MODELS_TOKENS_PER_DAY"
)

// queryBudgetEnv overrides models.query_budget.
const queryBudgetEnv = "MNEMON_MODELS_QUERY_BUDGET"

// queryBudget is models.query_budget (0: the engine's default).
func (m *modelsConfig) queryBudget() (time.Duration, error) {
	if m == nil || strings.TrimSpace(m.QueryBudget) == "" {
		return 0, nil
	}
	d, err := parseDuration(m.QueryBudget)
	if err != nil || d <= 0 || d > time.Minute {
		return 0, usagef("models.query_budget %q: give a duration from 1ms to 1m, like 300ms", m.QueryBudget)
	}
	return d, nil
}

// endpointConfig are the settings every endpoint has.
type endpointConfig struct {
	BaseURL string `json:"base_url"`
	Model   string `json:"model"`
	// The API key is read from the variable api_key_env names or from
	// the file api_key_file, never written in the config itself.
	APIKeyEnv  string `json:"api_key_env"`
	APIKeyFile string `json:"api_key_file"`
	// Timeout of one attempt, a Go duration ("" or "0": 30s).
	Timeout string `json:"timeout"`
	// MaxRetries after a failed attempt (nil: 3; 0: none).
	MaxRetries  *int `json:"max_retries"`
	Concurrency int  `json:"concurrency"` // requests in flight (0: 4)
}

type embeddingsConfig struct {
	endpointConfig
	Dimensions int `json:"dimensions"` // the model's vector length (0: asked of the endpoint once)
	BatchSize  int `json:"batch_size"` // texts per request (0: 64)
}

type chatConfig struct {
	endpointConfig
}

// modelEnvPrefixes are the MNEMON_ variable prefixes of the endpoints.
const (
	embeddingsEnv = "MNEMON_EMBEDDINGS_"
	chatEnv       = "MNEMON_CHAT_"
)

// applyModelsEnv lets MNEMON_EMBEDDINGS_* and MNEMON_CHAT_* override m's
// fields, making the sections they set; m may be nil.
func applyModelsEnv(m *modelsConfig, getenv func(string) string) (*modelsConfig, error) {
	set := func(prefix string) bool {
		for _, f := range []string{"BASE_URL", "MODEL", "API_KEY_ENV", "API_KEY_FILE", "TIMEOUT", "MAX_RETRIES", "CONCURRENCY", "DIMENSIONS", "BATCH_SIZE"} {
			if strings.TrimSpace(getenv(prefix+f)) != "" {
				return true
			}
		}
		return false
	}
	budget := strings.TrimSpace(getenv(queryBudgetEnv))
	extraction := strings.TrimSpace(getenv(extractionEnv))
	perDay := strings.TrimSpace(getenv(tokensPerDayEnv))
	others := false
	for _, name := range []string{duplicateJudgeEnv, judgeCallsEnv, summariesEnv, rerankEnv + "WITH", rerankEnv + "TOP", rerankEnv + "BUDGET"} {
		others = others || strings.TrimSpace(getenv(name)) != ""
	}
	if m == nil && (set(embeddingsEnv) || set(chatEnv) || set(rerankEnv) || budget != "" || extraction != "" || perDay != "" || others) {
		m = &modelsConfig{}
	}
	if m == nil {
		return nil, nil
	}
	if budget != "" {
		m.QueryBudget = budget
	}
	if extraction != "" {
		m.Extraction = extraction
	}
	if err := envInt(getenv, tokensPerDayEnv, func(n int) { m.TokensPerDay = n }); err != nil {
		return nil, err
	}
	if v := strings.TrimSpace(getenv(duplicateJudgeEnv)); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return nil, usagef("%s=%q: want true or false", duplicateJudgeEnv, v)
		}
		m.DuplicateJudge = on
	}
	if err := envInt(getenv, judgeCallsEnv, func(n int) { m.JudgeCalls = n }); err != nil {
		return nil, err
	}
	if v := strings.TrimSpace(getenv(summariesEnv)); v != "" {
		m.Summaries = v
	}
	with := strings.TrimSpace(getenv(rerankEnv + "WITH"))
	if m.Rerank == nil && (set(rerankEnv) || with != "" || strings.TrimSpace(getenv(rerankEnv+"TOP")) != "" || strings.TrimSpace(getenv(rerankEnv+"BUDGET")) != "") {
		m.Rerank = &rerankConfig{}
	}
	if r := m.Rerank; r != nil {
		if with != "" {
			r.With = with
		}
		if v := strings.TrimSpace(getenv(rerankEnv + "BUDGET")); v != "" {
			r.Budget = v
		}
		if err := envInt(getenv, rerankEnv+"TOP", func(n int) { r.Top = n }); err != nil {
			return nil, err
		}
		if err := r.endpointConfig.applyEnv(rerankEnv, getenv); err != nil {
			return nil, err
		}
	}
	if m.Embeddings == nil && set(embeddingsEnv) {
		m.Embeddings = &embeddingsConfig{}
	}
	if m.Chat == nil && set(chatEnv) {
		m.Chat = &chatConfig{}
	}
	if e := m.Embeddings; e != nil {
		if err := e.endpointConfig.applyEnv(embeddingsEnv, getenv); err != nil {
			return nil, err
		}
		for name, dst := range map[string]*int{"DIMENSIONS": &e.Dimensions, "BATCH_SIZE": &e.BatchSize} {
			if err := envInt(getenv, embeddingsEnv+name, func(n int) { *dst = n }); err != nil {
				return nil, err
			}
		}
	}
	if c := m.Chat; c != nil {
		if err := c.endpointConfig.applyEnv(chatEnv, getenv); err != nil {
			return nil, err
		}
		for _, name := range []string{"DIMENSIONS", "BATCH_SIZE"} {
			if strings.TrimSpace(getenv(chatEnv+name)) != "" {
				return nil, usagef("%s%s: a chat endpoint has no %s; did you mean %s%s?", chatEnv, name, strings.ToLower(name), embeddingsEnv, name)
			}
		}
	}
	m.defaults()
	return m, nil
}

// The base URLs an endpoint that names a model and no base URL gets.
const (
	openAIBaseURL = "https://api.openai.com/v1"
	ollamaBaseURL = "http://127.0.0.1:11434/v1"
)

// defaults fills what the endpoints leave unsaid, so that a user with
// Ollama running names two models and nothing else:
//   - An embeddings endpoint that names a model and no base URL gets
//     OpenAI's when it has an API key source (a local server needs none),
//     else local Ollama's (see defaultBaseURL).
//   - A chat endpoint's base URL (and the key's source) is the embeddings
//     endpoint's when it names none: the servers people run locally
//     (Ollama, LM Studio, vLLM with both models) and OpenAI serve both
//     APIs at one root, so naming the chat model is enough. Without an
//     embeddings endpoint the chat endpoint's own key source decides, as
//     above.
//   - A configured chat model extracts: extraction left unset is both
//     (the model first, the rules for the slots it leaves out, and alone
//     when it cannot answer); set it to rules to keep the chat model for
//     the other features only.
func (m *modelsConfig) defaults() {
	c, e := m.Chat, m.Embeddings
	if e != nil {
		m.defaultBaseURL("models.embeddings", &e.endpointConfig)
	}
	if c == nil {
		return
	}
	if strings.TrimSpace(c.BaseURL) == "" && e != nil && strings.TrimSpace(e.BaseURL) != "" {
		c.BaseURL = e.BaseURL
		if c.APIKeyEnv == "" && c.APIKeyFile == "" {
			c.APIKeyEnv, c.APIKeyFile = e.APIKeyEnv, e.APIKeyFile
		}
	}
	m.defaultBaseURL("models.chat", &c.endpointConfig)
	if strings.TrimSpace(m.Extraction) == "" {
		m.Extraction = string(llm.ModeBoth)
	}
}

// defaultBaseURL gives an endpoint that names a model and no base URL
// OpenAI's base URL when it has an API key source, else local Ollama's,
// and notes which in m.defaulted. An endpoint naming neither is left for
// the check to refuse.
func (m *modelsConfig) defaultBaseURL(field string, c *endpointConfig) {
	if strings.TrimSpace(c.BaseURL) != "" || strings.TrimSpace(c.Model) == "" {
		return
	}
	if strings.TrimSpace(c.APIKeyEnv) != "" || strings.TrimSpace(c.APIKeyFile) != "" {
		c.BaseURL = openAIBaseURL
		m.defaulted = append(m.defaulted, fmt.Sprintf("%s.base_url is not set: %s (OpenAI's, as an API key source is set)", field, openAIBaseURL))
		return
	}
	c.BaseURL = ollamaBaseURL
	m.defaulted = append(m.defaulted, fmt.Sprintf("%s.base_url is not set: %s (local Ollama's, as no API key source is set)", field, ollamaBaseURL))
}

func (c *endpointConfig) applyEnv(prefix string, getenv func(string) string) error {
	for name, dst := range map[string]*string{
		"BASE_URL": &c.BaseURL, "MODEL": &c.Model, "API_KEY_ENV": &c.APIKeyEnv, "API_KEY_FILE": &c.APIKeyFile, "TIMEOUT": &c.Timeout,
	} {
		if v := strings.TrimSpace(getenv(prefix + name)); v != "" {
			*dst = v
		}
	}
	if err := envInt(getenv, prefix+"MAX_RETRIES", func(n int) { c.MaxRetries = &n }); err != nil {
		return err
	}
	return envInt(getenv, prefix+"CONCURRENCY", func(n int) { c.Concurrency = n })
}

func envInt(getenv func(string) string, name string, set func(int)) error {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return usagef("%s=%q: want a whole number", name, v)
	}
	set(n)
	return nil
}

// client checks the endpoint's settings and returns its client; field is
// its place in the config ("models.embeddings"). It reads the API key.
func (c *endpointConfig) client(field string, getenv func(string) string) (*openai.Client, error) {
	timeout := time.Duration(0)
	if strings.TrimSpace(c.Timeout) != "" {
		d, err := parseDuration(c.Timeout)
		if err != nil || d < 0 {
			return nil, usagef("%s.timeout %q is not a duration: %s", field, c.Timeout, durationHint)
		}
		timeout = d
	}
	retries := 0 // the default
	if c.MaxRetries != nil {
		switch n := *c.MaxRetries; {
		case n < 0 || n > 10:
			return nil, usagef("%s.max_retries %d: use 0 (no retries) to 10", field, n)
		case n == 0:
			retries = -1
		default:
			retries = n
		}
	}
	key, err := openai.LoadKey(field, c.APIKeyEnv, c.APIKeyFile, getenv)
	if err != nil {
		return nil, err
	}
	cfg := openai.Config{BaseURL: c.BaseURL, Model: strings.TrimSpace(c.Model), APIKey: key, Timeout: timeout, MaxRetries: retries, Concurrency: c.Concurrency}
	if err := cfg.Validate(field); err != nil {
		return nil, err
	}
	return openai.New(cfg)
}

// dimensionsProbeTimeout bounds the call that learns an embedding model's
// vector length when models.embeddings.dimensions is not set.
const dimensionsProbeTimeout = 10 * time.Second

// embedder returns the provider-backed embedder the section configures.
// Without dimensions it asks the endpoint once, embedding one word, and
// keeps the length its vector has (so a process asks once): one setting
// fewer, for one call per process; set dimensions to spare the call and
// to let a command start while the endpoint is down.
func (e *embeddingsConfig) embedder(getenv func(string) string) (*openai.Embedder, error) {
	const field = "models.embeddings"
	if e.Dimensions < 0 {
		return nil, usagef("%s.dimensions is %d: set it to the length of the model's vectors (1536 for text-embedding-3-small, 768 for nomic-embed-text; 'mnemon doctor' reports what the endpoint returns), or leave it out to ask the endpoint", field, e.Dimensions)
	}
	if e.BatchSize < 0 || e.BatchSize > 2048 {
		return nil, usagef("%s.batch_size %d: use 1 to 2048 (0 gives the default, %d)", field, e.BatchSize, openai.DefaultBatchSize)
	}
	c, err := e.client(field, getenv)
	if err != nil {
		return nil, err
	}
	if e.Dimensions == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), dimensionsProbeTimeout)
		rep, err := c.Embed(ctx, []string{"dimensions"}, 0)
		cancel()
		if err != nil || len(rep.Vectors) != 1 || len(rep.Vectors[0]) == 0 {
			c.Close()
			why := "it returned no vector"
			if err != nil {
				why = describeModelErr(context.Background(), err)
			}
			return nil, usagef("%s.dimensions is not set, and %s could not tell the length of the model's vectors (%s): start it, or set dimensions (1536 for text-embedding-3-small, 768 for nomic-embed-text)", field, e.BaseURL, why)
		}
		e.Dimensions = len(rep.Vectors[0])
	}
	return openai.NewEmbedder(c, e.Dimensions, e.BatchSize)
}

// check validates every configured endpoint (and reads its key) without
// calling it.
func (m *modelsConfig) check(getenv func(string) string) error {
	if m == nil {
		return nil
	}
	if _, err := m.queryBudget(); err != nil {
		return err
	}
	if err := m.checkExtraction(); err != nil {
		return err
	}
	if m.Embeddings != nil {
		emb, err := m.Embeddings.embedder(getenv)
		if err != nil {
			return err
		}
		emb.Close()
	}
	if m.Chat != nil {
		c, err := m.Chat.client("models.chat", getenv)
		if err != nil {
			return err
		}
		c.Close()
	}
	if r := m.Rerank; r != nil && strings.TrimSpace(r.With) == "endpoint" {
		c, err := r.client("models.rerank", getenv)
		if err != nil {
			return err
		}
		c.Close()
	}
	return nil
}

// embedder is the engine's embedder for the app's model settings: the
// provider's when embeddings are configured, else nil (the engine's
// built-in default). The settings are the config file's and the
// environment's when a command read a config (serve, worker, doctor
// --config), the environment's otherwise.
func (a *app) embedder() (*openai.Embedder, error) {
	m := a.models
	if !a.modelsRead {
		var err error
		if m, err = applyModelsEnv(nil, a.env.Getenv); err != nil {
			return nil, err
		}
		a.models, a.modelsRead = m, true
	}
	if m == nil || m.Embeddings == nil {
		return nil, nil
	}
	emb, err := m.Embeddings.embedder(a.env.Getenv)
	if err != nil {
		return nil, err
	}
	return emb, nil
}

// checkExtraction checks models.extraction and models.tokens_per_day.
func (m *modelsConfig) checkExtraction() error {
	mode, err := llm.ParseMode(m.Extraction)
	if err != nil {
		return usagef("models.extraction %q: use rules, model or both", m.Extraction)
	}
	if mode != llm.ModeRules && m.Chat == nil {
		return usagef("models.extraction is %s: configure models.chat (or MNEMON_CHAT_BASE_URL and MNEMON_CHAT_MODEL) for the model to extract with", mode)
	}
	if m.TokensPerDay < 0 {
		return usagef("models.tokens_per_day %d: must not be negative (0: no bound)", m.TokensPerDay)
	}
	if m.DuplicateJudge && m.Chat == nil {
		return usagef("models.duplicate_judge is on: configure models.chat (or MNEMON_CHAT_BASE_URL and MNEMON_CHAT_MODEL) for the model to judge with")
	}
	if m.JudgeCalls < 0 || m.JudgeCalls > 1000 {
		return usagef("models.judge_calls %d: use 1 to 1000 (0: the default, %d)", m.JudgeCalls, engine.DefaultJudgeCalls)
	}
	switch strings.TrimSpace(m.Summaries) {
	case "", "extractive":
	case "model":
		if m.Chat == nil {
			return usagef("models.summaries is model: configure models.chat (or MNEMON_CHAT_BASE_URL and MNEMON_CHAT_MODEL) for the model to summarise with")
		}
	default:
		return usagef("models.summaries %q: use extractive or model", m.Summaries)
	}
	if r := m.Rerank; r != nil {
		if _, err := r.budget(); err != nil {
			return err
		}
		if r.Top < 0 || r.Top > 100 {
			return usagef("models.rerank.top %d: use 2 to 100 (0: the default, %d)", r.Top, engine.DefaultRerankTop)
		}
		switch strings.TrimSpace(r.With) {
		case "endpoint":
		case "chat":
			if m.Chat == nil {
				return usagef("models.rerank.with is chat: configure models.chat (or MNEMON_CHAT_BASE_URL and MNEMON_CHAT_MODEL)")
			}
			if r.BaseURL != "" || r.Model != "" {
				return usagef("models.rerank.with is chat: the chat endpoint scores; remove models.rerank.base_url and model, or set with to endpoint")
			}
		default:
			return usagef("models.rerank.with %q: use endpoint (a /rerank cross-encoder: TEI, Jina, Cohere, vLLM, llama.cpp) or chat", r.With)
		}
	}
	return nil
}

// budget is models.rerank.budget (0: the engine's default).
func (r *rerankConfig) budget() (time.Duration, error) {
	if strings.TrimSpace(r.Budget) == "" {
		return 0, nil
	}
	d, err := parseDuration(r.Budget)
	if err != nil || d <= 0 || d > time.Minute {
		return 0, usagef("models.rerank.budget %q: give a duration from 1ms to 1m, like 800ms", r.Budget)
	}
	return d, nil
}

// withModels sets the engine config's model-backed parts from the app's
// model settings: the embedder, the query budget, the model extractor,
// the daily token budget and the meter /metrics reads (nothing when no
// provider is configured).
func (a *app) withModels(c engine.Config) (engine.Config, error) {
	emb, err := a.embedder()
	if err != nil {
		return c, err
	}
	m := a.models
	if m == nil {
		return c, nil
	}
	if c.QueryBudget, err = m.queryBudget(); err != nil {
		return c, err
	}
	if err := m.checkExtraction(); err != nil {
		return c, err
	}
	meter := openai.NewMeter()
	c.Meter, c.TokensPerDay = meter, m.TokensPerDay
	if emb != nil {
		emb.Client().SetMeter(meter)
		c.Embedder = emb
	}
	var chat *openai.Client
	if m.Chat != nil {
		// One client for every chat feature: its concurrency cap is the
		// endpoint's, whoever calls.
		if chat, err = m.Chat.client("models.chat", a.env.Getenv); err != nil {
			return c, err
		}
		chat.SetMeter(meter)
		c.Chat = chat
	}
	if chat != nil && m.DuplicateJudge {
		c.DuplicateJudge = &engine.JudgeConfig{Calls: m.JudgeCalls}
	}
	c.ModelSummaries = chat != nil && strings.TrimSpace(m.Summaries) == "model"
	if r := m.Rerank; r != nil {
		if c.RerankBudget, err = r.budget(); err != nil {
			return c, err
		}
		c.RerankTop = r.Top
		if strings.TrimSpace(r.With) == "chat" {
			c.Reranker = engine.ChatReranker{Chat: chat}
		} else {
			rc, err := r.client("models.rerank", a.env.Getenv)
			if err != nil {
				return c, err
			}
			rc.SetMeter(meter)
			c.Reranker = engine.RerankEndpoint{Client: rc}
		}
	}
	if mode, _ := llm.ParseMode(m.Extraction); mode != llm.ModeRules {
		x, err := llm.New(chat, nil, mode)
		if err != nil {
			return c, err
		}
		c.ModelExtractor = x
	}
	return c, nil
}

// checkModels calls each configured endpoint once (doctor): a one-word
// embedding or a one-token chat, reporting the model, the vector length
// and the latency. A failing endpoint is a failed check.
func (a *app) checkModels(ctx context.Context, add func(name, status, format string, args ...any)) {
	if !a.modelsRead {
		m, err := applyModelsEnv(nil, a.env.Getenv)
		if err != nil {
			return // the config check reported it
		}
		a.models, a.modelsRead = m, true
	}
	m := a.models
	if m == nil {
		return
	}
	for _, d := range m.defaulted {
		add("model base URL", checkOK, "%s", d)
	}
	const probeTimeout = 30 * time.Second
	if e := m.Embeddings; e != nil {
		emb, err := e.embedder(a.env.Getenv)
		if err != nil {
			add("embeddings provider", checkFail, "%s", describeModelErr(ctx, err))
		} else {
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			began := time.Now()
			rep, err := emb.Client().Embed(pctx, []string{"mnemon doctor"}, 0)
			took := time.Since(began).Round(time.Millisecond)
			cancel()
			switch {
			case err != nil:
				add("embeddings provider", checkFail, "%s: %s", e.BaseURL, describeModelErr(ctx, err))
			case len(rep.Vectors[0]) != e.Dimensions:
				add("embeddings provider", checkFail, "%s: model %s returns %d dimensions; models.embeddings.dimensions is %d: set it to %d (stored memories are then re-embedded)",
					e.BaseURL, modelName(rep.Model, e.Model), len(rep.Vectors[0]), e.Dimensions, len(rep.Vectors[0]))
			default:
				add("embeddings provider", checkOK, "%s: model %s, %d dimensions, answered in %s", e.BaseURL, modelName(rep.Model, e.Model), len(rep.Vectors[0]), took)
			}
			emb.Close()
		}
	}
	if r := m.Rerank; r != nil && strings.TrimSpace(r.With) == "endpoint" {
		client, err := r.client("models.rerank", a.env.Getenv)
		if err != nil {
			add("rerank provider", checkFail, "%s", describeModelErr(ctx, err))
		} else {
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			began := time.Now()
			_, _, err := client.Rerank(pctx, "mnemon doctor", []string{"mnemon doctor", "something else"})
			took := time.Since(began).Round(time.Millisecond)
			cancel()
			if err != nil {
				add("rerank provider", checkFail, "%s: %s", r.BaseURL, describeModelErr(ctx, err))
			} else {
				add("rerank provider", checkOK, "%s: model %s scored 2 documents in %s", r.BaseURL, r.Model, took)
			}
			client.Close()
		}
	}
	if c := m.Chat; c != nil {
		client, err := c.client("models.chat", a.env.Getenv)
		if err != nil {
			add("chat provider", checkFail, "%s", describeModelErr(ctx, err))
			return
		}
		defer client.Close()
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		began := time.Now()
		rep, err := client.Chat(pctx, openai.ChatRequest{Messages: []openai.Message{{Role: "user", Content: "Reply with the word ok."}}, MaxTokens: 5})
		took := time.Since(began).Round(time.Millisecond)
		if err != nil {
			add("chat provider", checkFail, "%s: %s", c.BaseURL, describeModelErr(ctx, err))
			return
		}
		add("chat provider", checkOK, "%s: model %s answered in %s", c.BaseURL, modelName(rep.Model, c.Model), took)
	}
}

// modelName is the model a reply names, or the configured one when it
// names none.
func modelName(replied, configured string) string {
	if replied == "" {
		return configured
	}
	return replied
}

// describeModelErr is an endpoint's error as doctor shows it: the public
// message (never the key, which no message holds), and for the operator
// running doctor, what the provider said.
func describeModelErr(ctx context.Context, err error) string {
	msg, _ := describe(ctx, err)
	var cause interface{ Unwrap() []error }
	if errors.As(err, &cause) {
		for _, e := range cause.Unwrap() {
			if s := e.Error(); strings.Contains(s, "provider said: ") {
				_, said, _ := strings.Cut(s, "provider said: ")
				return fmt.Sprintf("%s (the provider said: %s)", msg, said)
			}
		}
	}
	return msg
}

// logModels logs the model providers a server or worker uses, key
// redacted (openai.Config's LogValue).
func (a *app) logModels(log *slog.Logger) {
	if a.models != nil {
		for _, d := range a.models.defaulted {
			log.Info("model base URL defaulted", "default", d)
		}
	}
	if emb, ok := a.engine.Embedder().(*openai.Embedder); ok {
		log.Info("embeddings provider", "embedder", emb.Name(), "endpoint", emb.Client().Config())
	}
	if a.models != nil && a.models.Chat != nil {
		if c, err := a.models.Chat.client("models.chat", a.env.Getenv); err == nil {
			log.Info("chat provider", "endpoint", c.Config(), "extraction", a.models.Extraction)
			c.Close()
		}
	}
}
