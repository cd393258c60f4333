package openai

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// Meter counts the model calls of every client that shares it: calls,
// failed calls, tokens in and out as the provider reports them, and the
// time spent, per model and endpoint. /metrics shows its Snapshot. It is
// safe for concurrent use; a nil *Meter counts nothing.
type Meter struct {
	mu    sync.Mutex
	stats map[meterKey]*CallStats
}

type meterKey struct{ model, endpoint string }

// CallStats are the counts of one model at one endpoint kind
// ("embeddings", "chat").
type CallStats struct {
	Model     string
	Endpoint  string
	Calls     int64
	Errors    int64
	TokensIn  int64
	TokensOut int64
	Seconds   float64
}

// NewMeter returns an empty meter.
func NewMeter() *Meter { return &Meter{stats: map[meterKey]*CallStats{}} }

func (m *Meter) observe(model, endpoint string, took time.Duration, u Usage, failed bool) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := meterKey{model, endpoint}
	s := m.stats[k]
	if s == nil {
		s = &CallStats{Model: model, Endpoint: endpoint}
		m.stats[k] = s
	}
	s.add(took, u, failed)
}

func (s *CallStats) add(took time.Duration, u Usage, failed bool) {
	s.Calls++
	if failed {
		s.Errors++
	}
	s.TokensIn += int64(u.PromptTokens)
	s.TokensOut += int64(u.CompletionTokens)
	s.Seconds += took.Seconds()
}

// observe counts one call in the client's meter and in the Tally the
// call's context carries, if any.
func (c *Client) observe(ctx context.Context, endpoint string, took time.Duration, u Usage, failed bool) {
	c.meter.observe(c.cfg.Model, endpoint, took, u, failed)
	if t, ok := ctx.Value(tallyKey{}).(*Tally); ok {
		t.observe(c.cfg.Model, endpoint, took, u, failed)
	}
}

// Tally counts the model calls made on behalf of one request (a
// retrieval, an extraction): every Client call whose context carries it
// (WithTally) adds to it, beside the process-wide Meter. The caller reads
// it when the request is done, to record what that request cost. It is
// safe for concurrent use; the zero value is ready.
type Tally struct {
	mu    sync.Mutex
	stats []CallStats // few: one per model and endpoint, in first-call order
}

type tallyKey struct{}

// WithTally returns ctx carrying t: the calls made with it count in t.
func WithTally(ctx context.Context, t *Tally) context.Context {
	return context.WithValue(ctx, tallyKey{}, t)
}

// TallyOf returns the Tally ctx carries, or nil.
func TallyOf(ctx context.Context) *Tally {
	t, _ := ctx.Value(tallyKey{}).(*Tally)
	return t
}

func (t *Tally) observe(model, endpoint string, took time.Duration, u Usage, failed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.stats {
		if s := &t.stats[i]; s.Model == model && s.Endpoint == endpoint {
			s.add(took, u, failed)
			return
		}
	}
	t.stats = append(t.stats, CallStats{Model: model, Endpoint: endpoint})
	t.stats[len(t.stats)-1].add(took, u, failed)
}

// Stats returns the counts so far, one per model and endpoint in the
// order of their first call; nil when nothing was called.
func (t *Tally) Stats() []CallStats {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.stats)
}

// Snapshot returns the counts, ordered by model and endpoint.
func (m *Meter) Snapshot() []CallStats {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	out := make([]CallStats, 0, len(m.stats))
	for _, s := range m.stats {
		out = append(out, *s)
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b CallStats) int {
		if c := strings.Compare(a.Model, b.Model); c != 0 {
			return c
		}
		return strings.Compare(a.Endpoint, b.Endpoint)
	})
	return out
}

// SetMeter makes the client count its calls in m (nil: none). Call it
// before the client is used.
func (c *Client) SetMeter(m *Meter) { c.meter = m }
