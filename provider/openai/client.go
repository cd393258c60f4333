package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// Retry policy. An attempt that fails on 429, 5xx, a network error or its
// timeout is tried again after an exponential backoff with jitter (the
// half-to-full "equal jitter": never a hammering zero wait, and retries of
// many callers spread out), or after the reply's Retry-After when it gives
// one. A wait the caller's deadline cannot cover, or longer than
// maxRetryAfter, is not waited: the call fails at once.
const (
	backoffBase   = 250 * time.Millisecond
	backoffMax    = 8 * time.Second
	maxRetryAfter = 2 * time.Minute
	// maxReplyBytes bounds a reply read into memory: 2,048 inputs of
	// 3,072 floats as JSON text is about 120 MiB; batches stay far below.
	maxReplyBytes = 128 << 20
	// maxProviderText bounds the provider's own error text kept for the
	// log.
	maxProviderText = 300
)

// Client calls one OpenAI-compatible endpoint. It is safe for concurrent
// use; Config.Concurrency caps its requests in flight.
type Client struct {
	cfg  Config
	base *url.URL
	http *http.Client
	sem  chan struct{}
	// backoff is the first retry's wait before jitter; tests shorten it.
	backoff time.Duration
	meter   *Meter // see SetMeter
}

// New returns a client for cfg, checked with Config.Validate (field
// "provider" in its errors; callers that know the setting's name validate
// first).
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate("provider"); err != nil {
		return nil, err
	}
	base, _ := url.Parse(strings.TrimSpace(cfg.BaseURL)) // Validate parsed it
	base.Path = strings.TrimRight(base.Path, "/")
	base.RawPath = ""
	return &Client{
		cfg:  cfg,
		base: base,
		// Timeouts are per attempt (Config.Timeout, through the request's
		// context); the transport's defaults bound connecting.
		http:    &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
		sem:     make(chan struct{}, cfg.concurrency()),
		backoff: backoffBase,
	}, nil
}

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

// Close releases the client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// endpoint is base + path, keeping base's query (Azure's api-version).
func (c *Client) endpoint(path string) string {
	u := *c.base
	u.Path += path
	return u.String()
}

// post sends body as JSON to path and decodes the reply into out, with
// the retry policy above. what names the endpoint in messages
// ("embeddings", "chat").
func (c *Client) post(ctx context.Context, what, path string, body, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s request: %w", what, err)
	}
	retries := c.cfg.maxRetries()
	for attempt := 0; ; attempt++ {
		retry, after, err := c.attempt(ctx, what, path, payload, out)
		if err == nil || !retry || attempt >= retries {
			if err != nil && retry && retries > 0 {
				err = withNote(err, fmt.Sprintf("%d attempts", attempt+1))
			}
			return err
		}
		wait := after
		if wait <= 0 {
			wait = c.jittered(attempt)
		}
		if wait > maxRetryAfter {
			return withNote(err, fmt.Sprintf("it asks to wait %s, longer than mnemon waits", wait.Round(time.Second)))
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return withNote(err, "no time left to retry before the caller's deadline")
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return c.cancelled(ctx, what)
		case <-t.C:
		}
	}
}

// withNote appends a note in parentheses to err's public message.
func withNote(err error, note string) error {
	var pe *memory.Error
	if !errors.As(err, &pe) {
		return fmt.Errorf("%w (%s)", err, note)
	}
	return &memory.Error{Code: pe.Code, Field: pe.Field, Kind: pe.Kind, Message: pe.Message + " (" + note + ")", Cause: pe.Cause}
}

// jittered is the backoff before retry attempt+1: base·2^attempt, capped,
// then a uniform draw from its upper half.
func (c *Client) jittered(attempt int) time.Duration {
	d := c.backoff << min(attempt, 16)
	if d > backoffMax || d <= 0 {
		d = backoffMax
	}
	half := d / 2
	return half + rand.N(half+1)
}

// attempt makes one request. retry says whether a failure may succeed if
// tried again; after is the reply's Retry-After (0 when it gave none).
func (c *Client) attempt(ctx context.Context, what, path string, payload []byte, out any) (retry bool, after time.Duration, err error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return false, 0, c.cancelled(ctx, what)
	}
	defer func() { <-c.sem }()

	actx, cancel := context.WithTimeout(ctx, c.cfg.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint(path), bytes.NewReader(payload))
	if err != nil {
		return false, 0, fmt.Errorf("%s request: %w", what, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "mnemon")
	if !c.cfg.APIKey.IsZero() {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey.Reveal())
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportFailure(ctx, actx, what, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	if err != nil {
		return c.transportFailure(ctx, actx, what, err)
	}
	if len(data) > maxReplyBytes {
		return false, 0, c.badReply(what, nil, "the reply is larger than %d MiB", maxReplyBytes>>20)
	}
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		if err := json.Unmarshal(data, out); err != nil {
			return false, 0, c.badReply(what, c.scrub(err), "the reply is not the JSON the API defines")
		}
		return false, 0, nil
	case s == http.StatusTooManyRequests || s == http.StatusRequestTimeout || s >= 500:
		msg := fmt.Sprintf("HTTP %d", s)
		if s == http.StatusTooManyRequests {
			msg = "rate limited (HTTP 429)"
		}
		return true, retryAfter(resp.Header.Get("Retry-After"), time.Now()), c.unavailable(what, c.providerText(data), "the %s provider is unavailable: %s", what, msg)
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return false, 0, c.unavailable(what, c.providerText(data), "the %s provider refused the API key (HTTP %d): check api_key_env or api_key_file", what, s)
	case s == http.StatusNotFound:
		return false, 0, c.unavailable(what, c.providerText(data), "the %s provider has no %s for model %q (HTTP 404): check base_url (it usually ends in /v1) and model", what, path, c.cfg.Model)
	default:
		return false, 0, c.unavailable(what, c.providerText(data), "the %s provider refused the request (HTTP %d)", what, s)
	}
}

// transportFailure phrases a request that got no (whole) reply: the
// caller's cancellation is not retried, the attempt's timeout and network
// errors are.
func (c *Client) transportFailure(ctx, actx context.Context, what string, err error) (bool, time.Duration, error) {
	switch {
	case ctx.Err() != nil:
		return false, 0, c.cancelled(ctx, what)
	case actx.Err() != nil:
		return true, 0, c.unavailable(what, c.scrub(err), "the %s provider sent no reply within %s (timeout)", what, c.cfg.timeout())
	}
	return true, 0, c.unavailable(what, c.scrub(err), "the %s provider cannot be reached", what)
}

// cancelled is the error of a call its caller gave up on; it unwraps to
// the context's error, so deadline handling upstream still sees it.
func (c *Client) cancelled(ctx context.Context, what string) error {
	return &memory.Error{Code: memory.CodeModelUnavailable, Kind: memory.ErrModelUnavailable,
		Message: fmt.Sprintf("the %s call was cancelled or ran out of time", what), Cause: ctx.Err()}
}

func (c *Client) unavailable(what string, cause error, format string, args ...any) error {
	return &memory.Error{Code: memory.CodeModelUnavailable, Kind: memory.ErrModelUnavailable,
		Message: fmt.Sprintf(format, args...), Cause: c.located(what, cause)}
}

func (c *Client) badReply(what string, cause error, format string, args ...any) error {
	return &memory.Error{Code: memory.CodeModelBadReply, Kind: memory.ErrModelBadReply,
		Message: fmt.Sprintf("the %s provider's reply cannot be used: ", what) + fmt.Sprintf(format, args...), Cause: c.located(what, cause)}
}

// located adds the endpoint's URL to the cause, for the log: the public
// message leaves it out.
func (c *Client) located(what string, cause error) error {
	if cause == nil {
		return fmt.Errorf("%s endpoint %s, model %s", what, c.base.Redacted(), c.cfg.Model)
	}
	return fmt.Errorf("%s endpoint %s, model %s: %w", what, c.base.Redacted(), c.cfg.Model, cause)
}

// providerText is the provider's own words about a failure (its
// {"error":{"message"}} or the body's start), clipped and scrubbed of the
// key, for the log.
func (c *Client) providerText(body []byte) error {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	text := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &obj) == nil && obj.Message != "":
			text = obj.Message
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			text = s
		}
	}
	if text == "" {
		return nil
	}
	if len(text) > maxProviderText {
		text = text[:maxProviderText] + "…"
	}
	return errors.New("provider said: " + c.redact(text))
}

// scrub wraps err so that its text never shows the key, should a server or
// a proxy have echoed it.
func (c *Client) scrub(err error) error {
	if err == nil || c.cfg.APIKey.IsZero() {
		return err
	}
	return &scrubbed{err: err, text: c.redact(err.Error())}
}

func (c *Client) redact(s string) string {
	if key := c.cfg.APIKey.Reveal(); key != "" {
		s = strings.ReplaceAll(s, key, redacted)
	}
	return s
}

type scrubbed struct {
	err  error
	text string
}

func (s *scrubbed) Error() string { return s.text }
func (s *scrubbed) Unwrap() error { return s.err }

// retryAfter reads a Retry-After header: a number of seconds or an HTTP
// date (RFC 9110 §10.2.3). Anything else, or a time already past, is 0.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		// Clamped so the conversion cannot overflow; post refuses any
		// wait over maxRetryAfter anyway.
		return time.Duration(min(secs, 1e6) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
