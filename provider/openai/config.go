// Package openai is mnemon's client for model providers that speak the
// OpenAI HTTP API: OpenAI itself, Azure OpenAI's compatible endpoint,
// Ollama, vLLM, llama.cpp server, LM Studio, Text Embeddings Inference and
// others. It owns the wire (POST {base}/embeddings and
// {base}/chat/completions), the retry and concurrency policy, the API key's
// handling, and Embedder, the embed.Embedder backed by an embeddings
// endpoint.
//
// Models are optional in mnemon: nothing here is used unless a provider is
// configured. Errors are *memory.Error with the stable codes
// model_unavailable and model_bad_reply; the API key never appears in an
// error, a log line or a formatted Config.
package openai

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// Defaults of Config's zero fields.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultMaxRetries  = 3
	DefaultConcurrency = 4
)

// Config is one endpoint: where it is, which model, and how to call it.
// Formatting a Config with fmt or slog shows every field but the key.
type Config struct {
	// BaseURL is the API's root, the part before /embeddings or
	// /chat/completions: https://api.openai.com/v1,
	// http://127.0.0.1:11434/v1. http or https, no user:password@.
	BaseURL string
	Model   string
	// APIKey is sent as "Authorization: Bearer"; zero sends none (local
	// servers need none).
	APIKey Secret
	// Timeout bounds one attempt, from sending the request to reading the
	// whole reply (0: DefaultTimeout).
	Timeout time.Duration
	// MaxRetries is how many times a failed attempt is tried again (on
	// 429, 5xx, a network error or a timeout); 0 gives DefaultMaxRetries,
	// a negative number none.
	MaxRetries int
	// Concurrency caps the requests in flight to this endpoint at once
	// (0: DefaultConcurrency).
	Concurrency int
}

// Validate checks the config; field prefixes the field names its errors
// give ("models.embeddings" gives "models.embeddings.base_url").
func (c Config) Validate(field string) error {
	if err := ValidateBaseURL(field+".base_url", c.BaseURL); err != nil {
		return err
	}
	if strings.TrimSpace(c.Model) == "" {
		return memory.FieldInvalidf(memory.CodeInvalid, field+".model", "%s.model is not set: name the model the endpoint serves (e.g. text-embedding-3-small, nomic-embed-text)", field)
	}
	if c.Timeout < 0 {
		return memory.FieldInvalidf(memory.CodeInvalid, field+".timeout", "%s.timeout %s: must not be negative (0 gives the default, %s)", field, c.Timeout, DefaultTimeout)
	}
	if c.Concurrency < 0 {
		return memory.FieldInvalidf(memory.CodeInvalid, field+".concurrency", "%s.concurrency %d: must not be negative (0 gives the default, %d)", field, c.Concurrency, DefaultConcurrency)
	}
	return nil
}

// ValidateBaseURL checks a provider URL: absolute http or https with a
// host, and no credentials in it (they would end up in logs and process
// listings; the key has its own setting). field names the setting in the
// error.
func ValidateBaseURL(field, raw string) error {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return memory.FieldInvalidf(memory.CodeInvalid, field, "%s is not set: give the API's root URL, like https://api.openai.com/v1 or http://127.0.0.1:11434/v1", field)
	}
	if !strings.Contains(raw, "://") {
		return memory.FieldInvalidf(memory.CodeInvalid, field, "%s: use an http:// or https:// URL, like http://127.0.0.1:11434/v1", field)
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url's error quotes the input, which may hold a password: say
		// what is wrong without it.
		return memory.FieldInvalidf(memory.CodeInvalid, field, "%s is not a URL: write it like https://api.openai.com/v1", field)
	}
	if u.User != nil {
		return memory.FieldInvalidf(memory.CodeInvalid, field, "%s must not hold credentials (user:password@): put the API key in a file or an environment variable and name it with api_key_file or api_key_env", field)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return memory.FieldInvalidf(memory.CodeInvalid, field, "%s: use an http:// or https:// URL, not %s://", field, u.Scheme)
	}
	if u.Host == "" {
		return memory.FieldInvalidf(memory.CodeInvalid, field, "%s has no host: write it like http://127.0.0.1:11434/v1", field)
	}
	if u.Fragment != "" {
		return memory.FieldInvalidf(memory.CodeInvalid, field, "%s: remove the #fragment", field)
	}
	return nil
}

func (c Config) timeout() time.Duration {
	if c.Timeout == 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

func (c Config) maxRetries() int {
	switch {
	case c.MaxRetries == 0:
		return DefaultMaxRetries
	case c.MaxRetries < 0:
		return 0
	}
	return c.MaxRetries
}

func (c Config) concurrency() int {
	if c.Concurrency == 0 {
		return DefaultConcurrency
	}
	return c.Concurrency
}

// String shows the config with the key redacted.
func (c Config) String() string {
	return fmt.Sprintf("{base_url: %s, model: %s, api_key: %s, timeout: %s, max_retries: %d, concurrency: %d}",
		c.BaseURL, c.Model, c.APIKey, c.timeout(), c.maxRetries(), c.concurrency())
}

// GoString is String, so %#v redacts too.
func (c Config) GoString() string { return "openai.Config" + c.String() }

// LogValue logs the config with the key redacted.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", c.BaseURL), slog.String("model", c.Model),
		slog.String("api_key", c.APIKey.String()), slog.Duration("timeout", c.timeout()),
		slog.Int("max_retries", c.maxRetries()), slog.Int("concurrency", c.concurrency()),
	)
}

// Secret holds an API key. Printed, logged or encoded it shows
// "[redacted]" ("" when empty); only Reveal gives the key, for the
// Authorization header. The key sits behind a pointer so that even fmt's
// reflection into a struct that holds a Secret in an unexported field
// prints an address, not the key.
type Secret struct{ value *string }

// NewSecret wraps key.
func NewSecret(key string) Secret {
	if key == "" {
		return Secret{}
	}
	return Secret{value: &key}
}

// IsZero reports whether there is no key.
func (s Secret) IsZero() bool { return s.value == nil }

// Reveal returns the key.
func (s Secret) Reveal() string {
	if s.value == nil {
		return ""
	}
	return *s.value
}

const redacted = "[redacted]"

// String is "[redacted]", or "" when there is no key.
func (s Secret) String() string {
	if s.value == nil {
		return ""
	}
	return redacted
}

// GoString is String.
func (s Secret) GoString() string { return s.String() }

// Format makes every fmt verb print String.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(s.String())) }

// MarshalJSON encodes String.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + s.String() + `"`), nil }

// LogValue logs String.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// LoadKey reads an API key from the environment variable envName or the
// file path (at most one of them may be set; neither gives no key). The
// file's content is trimmed of surrounding whitespace. Errors name the
// variable or the file, never their content; field prefixes the setting
// names they give.
func LoadKey(field, envName, path string, getenv func(string) string) (Secret, error) {
	envName, path = strings.TrimSpace(envName), strings.TrimSpace(path)
	switch {
	case envName != "" && path != "":
		return Secret{}, memory.FieldInvalidf(memory.CodeInvalid, field+".api_key_env", "%s: set api_key_env or api_key_file, not both", field)
	case envName != "":
		if getenv == nil {
			getenv = os.Getenv
		}
		key := strings.TrimSpace(getenv(envName))
		if key == "" {
			return Secret{}, memory.FieldInvalidf(memory.CodeInvalid, field+".api_key_env", "%s.api_key_env names %s, which is not set or empty: export it, or remove api_key_env for an endpoint that needs no key", field, envName)
		}
		return NewSecret(key), nil
	case path != "":
		data, err := os.ReadFile(path)
		if err != nil {
			return Secret{}, &memory.Error{Code: memory.CodeInvalid, Field: field + ".api_key_file", Kind: memory.ErrInvalid,
				Message: fmt.Sprintf("%s.api_key_file %s cannot be read: %s", field, path, fileProblem(err))}
		}
		key := strings.TrimSpace(string(data))
		if key == "" {
			return Secret{}, memory.FieldInvalidf(memory.CodeInvalid, field+".api_key_file", "%s.api_key_file %s is empty: write the API key in it", field, path)
		}
		return NewSecret(key), nil
	}
	return Secret{}, nil
}

// fileProblem says why a file could not be read, without the path twice.
func fileProblem(err error) string {
	switch {
	case os.IsNotExist(err):
		return "no such file"
	case os.IsPermission(err):
		return "permission denied"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
