package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

const (
	testModel = "fake-embed"
	testKey   = "sk-test-0123456789abcdef"
)

// newTestClient returns a client of the fake with a short backoff, so
// retries take milliseconds.
func newTestClient(t *testing.T, fake *openaitest.Server, edit func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: fake.URL, Model: testModel, APIKey: NewSecret(testKey), Timeout: 2 * time.Second}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = 5 * time.Millisecond
	t.Cleanup(c.Close)
	return c
}

// codeOf is err's public code, "" when it is no *memory.Error.
func codeOf(err error) string {
	var pe *memory.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// mustFail checks that err is an Error of code whose message and log text
// never hold the key.
func mustFail(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s", code)
	}
	if got := codeOf(err); got != code {
		t.Fatalf("code %q (%v); want %s", got, err, code)
	}
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(s, testKey) {
			t.Fatalf("the error shows the key: %s", s)
		}
	}
}

func TestEmbedSendsKeyAndOrdersByIndex(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 8)
	c := newTestClient(t, fake, nil)
	inputs := []string{"I live in Lisbon", "my editor is vim", "tea"}
	rep, err := c.Embed(context.Background(), inputs, 8)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Model != testModel || len(rep.Vectors) != 3 || rep.Usage.TotalTokens == 0 {
		t.Fatalf("reply %+v", rep)
	}
	for i, in := range inputs {
		want := openaitest.Vector(in, 8)
		for j := range want {
			if float32(want[j]) != rep.Vectors[i][j] {
				t.Fatalf("vector %d is not the one of %q (the fake sends data in reverse order)", i, in)
			}
		}
	}
	if got := fake.AuthHeaders(); len(got) != 1 || got[0] != "Bearer "+testKey {
		t.Fatalf("authorization headers %q", got)
	}
	var body struct {
		Model  string   `json:"model"`
		Input  []string `json:"input"`
		Format string   `json:"encoding_format"`
	}
	if err := json.Unmarshal([]byte(fake.Bodies()[0]), &body); err != nil || body.Model != testModel || len(body.Input) != 3 || body.Format != "float" {
		t.Fatalf("request body %s (%v)", fake.Bodies()[0], err)
	}
}

func TestNoKeySendsNoAuthorization(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	c := newTestClient(t, fake, func(c *Config) { c.APIKey = Secret{} })
	if _, err := c.Embed(context.Background(), []string{"x"}, 4); err != nil {
		t.Fatal(err)
	}
	if got := fake.AuthHeaders(); got[0] != "" {
		t.Fatalf("authorization %q without a key", got[0])
	}
}

func TestRetryAfterSecondsIsHonoured(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	fake.Script("/v1/embeddings", openaitest.Reply{Status: 429, RetryAfter: "1"})
	c := newTestClient(t, fake, nil)
	began := time.Now()
	if _, err := c.Embed(context.Background(), []string{"x"}, 4); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took < 900*time.Millisecond {
		t.Fatalf("retried after %s; Retry-After said 1s", took)
	}
	if n := fake.Requests("/v1/embeddings"); n != 2 {
		t.Fatalf("%d requests; want 2", n)
	}
}

func TestRetryAfterHTTPDateIsHonoured(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	at := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second)
	fake.Script("/v1/embeddings", openaitest.Reply{Status: 503, RetryAfter: at.Format(http.TimeFormat)})
	c := newTestClient(t, fake, nil)
	if _, err := c.Embed(context.Background(), []string{"x"}, 4); err != nil {
		t.Fatal(err)
	}
	if now := time.Now(); now.Before(at.Add(-50 * time.Millisecond)) {
		t.Fatalf("retried at %s, before the Retry-After date %s", now, at)
	}
}

func TestRetryAfterBeyondTheDeadlineFailsAtOnce(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	fake.Script("/v1/embeddings", openaitest.Reply{Status: 429, RetryAfter: "30"})
	c := newTestClient(t, fake, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	began := time.Now()
	_, err := c.Embed(ctx, []string{"x"}, 4)
	mustFail(t, err, memory.CodeModelUnavailable)
	if took := time.Since(began); took > time.Second {
		t.Fatalf("waited %s for a retry the deadline cannot cover", took)
	}
	if !strings.Contains(err.Error(), "rate limited") {
		t.Fatalf("error %q does not say it was rate limited", err)
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	fake.Script("/v1/embeddings", openaitest.Reply{Status: 500}, openaitest.Reply{Status: 502})
	c := newTestClient(t, fake, nil)
	rep, err := c.Embed(context.Background(), []string{"x"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Vectors) != 1 || fake.Requests("/v1/embeddings") != 3 {
		t.Fatalf("%d vectors after %d requests", len(rep.Vectors), fake.Requests("/v1/embeddings"))
	}
}

func TestRetriesEndWithModelUnavailable(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	for range 5 {
		fake.Script("/v1/embeddings", openaitest.Reply{Status: 500})
	}
	c := newTestClient(t, fake, func(c *Config) { c.MaxRetries = 2 })
	_, err := c.Embed(context.Background(), []string{"x"}, 4)
	mustFail(t, err, memory.CodeModelUnavailable)
	if !errors.Is(err, memory.ErrModelUnavailable) || !strings.Contains(err.Error(), "(3 attempts)") {
		t.Fatalf("error %q", err)
	}
	if n := fake.Requests("/v1/embeddings"); n != 3 {
		t.Fatalf("%d requests; want 3 (1 + 2 retries)", n)
	}
}

func TestSlowReplyTimesOut(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	fake.Script("/v1/embeddings", openaitest.Reply{Delay: 5 * time.Second})
	c := newTestClient(t, fake, func(c *Config) { c.Timeout = 100 * time.Millisecond; c.MaxRetries = -1 })
	began := time.Now()
	_, err := c.Embed(context.Background(), []string{"x"}, 4)
	mustFail(t, err, memory.CodeModelUnavailable)
	if took := time.Since(began); took > 2*time.Second {
		t.Fatalf("a 100ms timeout took %s", took)
	}
	if !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("error %q does not say it timed out", err)
	}
}

func TestSlowReplyIsRetried(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	fake.Script("/v1/embeddings", openaitest.Reply{Delay: 5 * time.Second})
	c := newTestClient(t, fake, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	if _, err := c.Embed(context.Background(), []string{"x"}, 4); err != nil {
		t.Fatal(err)
	}
	if n := fake.Requests("/v1/embeddings"); n != 2 {
		t.Fatalf("%d requests; want 2", n)
	}
}

func TestCancellationStopsTheCall(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	fake.Script("/v1/embeddings", openaitest.Reply{Delay: 5 * time.Second})
	c := newTestClient(t, fake, func(c *Config) { c.Timeout = 10 * time.Second })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	began := time.Now()
	_, err := c.Embed(ctx, []string{"x"}, 4)
	mustFail(t, err, memory.CodeModelUnavailable)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v does not unwrap to context.Canceled", err)
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Fatalf("cancelled call returned after %s", took)
	}
	if n := fake.Requests("/v1/embeddings"); n != 1 {
		t.Fatalf("%d requests; a cancelled call is not retried", n)
	}
}

func TestMalformedJSONIsABadReply(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	fake.Script("/v1/embeddings", openaitest.Reply{Body: `{"data": [{"index": 0, "embedding": [0.1,`})
	c := newTestClient(t, fake, nil)
	_, err := c.Embed(context.Background(), []string{"x"}, 4)
	mustFail(t, err, memory.CodeModelBadReply)
	if !errors.Is(err, memory.ErrModelBadReply) {
		t.Fatalf("%v is not ErrModelBadReply", err)
	}
	if n := fake.Requests("/v1/embeddings"); n != 1 {
		t.Fatalf("%d requests; a malformed reply is not retried", n)
	}
}

func TestWrongVectorCountOrValuesAreBadReplies(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 2)
	fake.Script("/v1/embeddings",
		openaitest.Reply{Body: `{"data":[{"index":0,"embedding":[1,0]}]}`},
		openaitest.Reply{Body: `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`},
		openaitest.Reply{Body: `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,1,0]}]}`},
	)
	c := newTestClient(t, fake, nil)
	for _, want := range []string{"1 vectors for 2 inputs", "repeated", "3 dimensions"} {
		_, err := c.Embed(context.Background(), []string{"a", "b"}, 2)
		mustFail(t, err, memory.CodeModelBadReply)
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q; want it to say %q", err, want)
		}
	}
}

func TestRefusedKeyIsNeverShown(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	fake.RequireKey("sk-the-right-one")
	c := newTestClient(t, fake, nil)
	_, err := c.Embed(context.Background(), []string{"x"}, 4)
	mustFail(t, err, memory.CodeModelUnavailable)
	if !strings.Contains(err.Error(), "refused the API key") || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("error %q: want the refusal, with the echoed key redacted", err)
	}
	if n := fake.Requests("/v1/embeddings"); n != 1 {
		t.Fatalf("%d requests; a refused key is not retried", n)
	}
}

func TestUnknownModelSaysWhatToCheck(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	c := newTestClient(t, fake, func(c *Config) { c.Model = "no-such-model" })
	_, err := c.Embed(context.Background(), []string{"x"}, 4)
	mustFail(t, err, memory.CodeModelUnavailable)
	if !strings.Contains(err.Error(), "HTTP 404") || !strings.Contains(err.Error(), "no-such-model") {
		t.Fatalf("error %q", err)
	}
}

func TestUnreachableProvider(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	url := fake.URL
	fake.Close()
	c := newTestClient(t, fake, func(c *Config) { c.BaseURL = url; c.MaxRetries = 1 })
	_, err := c.Embed(context.Background(), []string{"x"}, 4)
	mustFail(t, err, memory.CodeModelUnavailable)
	if !strings.Contains(err.Error(), "cannot be reached") {
		t.Fatalf("error %q", err)
	}
}

func TestConcurrencyIsCapped(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	for range 6 {
		fake.Script("/v1/embeddings", openaitest.Reply{Delay: 100 * time.Millisecond, Body: `{"data":[{"index":0,"embedding":[1,0,0,0]}]}`})
	}
	c := newTestClient(t, fake, func(c *Config) { c.Concurrency = 2 })
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			_, err := c.Embed(context.Background(), []string{"x"}, 4)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := fake.MaxInFlight(); got != 2 {
		t.Fatalf("%d requests in flight at once; the cap is 2", got)
	}
}

func TestChat(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	fake.Script("/v1/chat/completions",
		openaitest.Reply{Content: `{"facts":[]}`},
		openaitest.Reply{Content: `{"facts": [`},
		openaitest.Reply{Body: `{"choices":[]}`},
	)
	c := newTestClient(t, fake, func(c *Config) { c.Model = "fake-chat" })
	schema := &JSONSchema{Name: "facts", Schema: json.RawMessage(`{"type":"object"}`), Strict: true}
	req := ChatRequest{Messages: []Message{{Role: "user", Content: "list the facts"}}, Schema: schema, MaxTokens: 50}
	rep, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Content != `{"facts":[]}` || rep.Model != "fake-chat" || rep.FinishReason != "stop" || rep.Usage.TotalTokens != 4 {
		t.Fatalf("reply %+v", rep)
	}
	var body struct {
		Model          string    `json:"model"`
		Messages       []Message `json:"messages"`
		MaxTokens      int       `json:"max_tokens"`
		ResponseFormat struct {
			Type       string     `json:"type"`
			JSONSchema JSONSchema `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal([]byte(fake.Bodies()[0]), &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "fake-chat" || body.MaxTokens != 50 || body.ResponseFormat.Type != "json_schema" ||
		body.ResponseFormat.JSONSchema.Name != "facts" || !body.ResponseFormat.JSONSchema.Strict {
		t.Fatalf("request body %s", fake.Bodies()[0])
	}
	_, err = c.Chat(context.Background(), req)
	mustFail(t, err, memory.CodeModelBadReply) // content not JSON
	_, err = c.Chat(context.Background(), req)
	mustFail(t, err, memory.CodeModelBadReply) // no choice
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"0", 0}, {"-3", 0}, {"2", 2 * time.Second}, {"1.5", 1500 * time.Millisecond},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second},
		{now.Add(-10 * time.Second).Format(http.TimeFormat), 0},
		{"soon", 0},
		{"1e300", 1e6 * time.Second},
	} {
		if got := retryAfter(c.in, now); got != c.want {
			t.Errorf("retryAfter(%q) = %s; want %s", c.in, got, c.want)
		}
	}
}

func TestBackoffGrowsWithJitter(t *testing.T) {
	t.Parallel()
	c := &Client{backoff: 100 * time.Millisecond}
	for attempt, base := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		for range 50 {
			if d := c.jittered(attempt); d < base/2 || d > base {
				t.Fatalf("attempt %d waits %s; want %s to %s", attempt, d, base/2, base)
			}
		}
	}
	if d := c.jittered(40); d > backoffMax {
		t.Fatalf("attempt 40 waits %s, above the cap %s", d, backoffMax)
	}
}

func TestConfigNeverShowsTheKey(t *testing.T) {
	t.Parallel()
	cfg := Config{BaseURL: "https://api.example.com/v1", Model: "m", APIKey: NewSecret(testKey)}
	type holder struct {
		inner Config // unexported: fmt cannot call its methods
		Outer Config
		key   Secret
	}
	h := holder{inner: cfg, Outer: cfg, key: cfg.APIKey}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "embeddings", cfg, "key", cfg.APIKey)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "embeddings", cfg)
	js, _ := json.Marshal(struct{ Key Secret }{cfg.APIKey})
	for _, s := range []string{
		fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%s %q %x", cfg.APIKey, cfg.APIKey, cfg.APIKey),
		fmt.Sprintf("%v", h), fmt.Sprintf("%+v", h), fmt.Sprintf("%#v", h), fmt.Sprintf("%v", &h),
		logged.String(), string(js), cfg.String(),
	} {
		if strings.Contains(s, testKey) || strings.Contains(s, fmt.Sprintf("%x", testKey)) {
			t.Fatalf("the key shows in %s", s)
		}
	}
	if !strings.Contains(cfg.String(), "[redacted]") || !strings.Contains(logged.String(), "[redacted]") {
		t.Fatalf("the config does not say a key is set: %s / %s", cfg, logged.String())
	}
	if cfg.APIKey.Reveal() != testKey {
		t.Fatal("Reveal lost the key")
	}
}

func TestBaseURLValidation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, want string }{
		{"", "is not set"},
		{"ftp://example.com/v1", "http:// or https://"},
		{"127.0.0.1:11434/v1", "http:// or https://"},
		{"https://user:hunter2@api.example.com/v1", "must not hold credentials"},
		{"https://:hunter2@api.example.com/v1", "must not hold credentials"},
		{"http:///v1", "no host"},
		{"http://exa mple.com/v1", "not a URL"},
	} {
		err := ValidateBaseURL("models.embeddings.base_url", c.url)
		var pe *memory.Error
		if !errors.As(err, &pe) || pe.Field != "models.embeddings.base_url" || !strings.Contains(pe.Message, c.want) || !strings.HasPrefix(pe.Message, "models.embeddings.base_url") {
			t.Errorf("%q: %v; want an error naming the field that says %q", c.url, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: the error shows the password: %v", c.url, err)
		}
	}
	for _, ok := range []string{"https://api.openai.com/v1", "http://127.0.0.1:11434/v1", "http://localhost:8080/v1/", "https://x.openai.azure.com/openai/v1?api-version=preview"} {
		if err := ValidateBaseURL("base_url", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestEndpointKeepsPathAndQuery(t *testing.T) {
	t.Parallel()
	c, err := New(Config{BaseURL: "https://x.example.com/openai/v1/?api-version=preview", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.endpoint("/embeddings"); got != "https://x.example.com/openai/v1/embeddings?api-version=preview" {
		t.Fatalf("endpoint %s", got)
	}
}

func TestLoadKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "key")
	if err := os.WriteFile(file, []byte("  "+testKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(name string) string {
		if name == "MY_KEY" {
			return testKey
		}
		return ""
	}
	for _, c := range []struct {
		envName, path string
		want, err     string
	}{
		{"MY_KEY", "", testKey, ""},
		{"", file, testKey, ""},
		{"", "", "", ""},
		{"MY_KEY", file, "", "not both"},
		{"UNSET_KEY", "", "", "UNSET_KEY, which is not set"},
		{"", filepath.Join(dir, "missing"), "", "no such file"},
		{"", empty, "", "is empty"},
	} {
		s, err := LoadKey("models.chat", c.envName, c.path, env)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "models.chat") {
				t.Errorf("LoadKey(%q, %q): %v; want an error saying %q", c.envName, c.path, err, c.err)
			}
			continue
		}
		if err != nil || s.Reveal() != c.want {
			t.Errorf("LoadKey(%q, %q) = %q, %v", c.envName, c.path, s, err)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	good := Config{BaseURL: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text"}
	if err := good.Validate("models.embeddings"); err != nil {
		t.Fatal(err)
	}
	for field, bad := range map[string]Config{
		"models.embeddings.model":       {BaseURL: good.BaseURL},
		"models.embeddings.timeout":     {BaseURL: good.BaseURL, Model: "m", Timeout: -time.Second},
		"models.embeddings.concurrency": {BaseURL: good.BaseURL, Model: "m", Concurrency: -1},
		"models.embeddings.base_url":    {BaseURL: "file:///etc/passwd", Model: "m"},
	} {
		var pe *memory.Error
		if err := bad.Validate("models.embeddings"); !errors.As(err, &pe) || pe.Field != field {
			t.Errorf("%+v: %v; want an error on %s", bad, err, field)
		}
	}
}

func TestBaseURLErrorsNeverRepeatAPassword(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"user:hunter2@api.example.com/v1", "ftp://u:hunter2@x/v1", "http://u:hunter2@/v1", "https://u:hunter2@x/v1#f"} {
		err := ValidateBaseURL("base_url", raw)
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: %v", raw, err)
		}
	}
}
