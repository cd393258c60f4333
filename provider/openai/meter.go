package openai

import (
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
	s.Calls++
	if failed {
		s.Errors++
	}
	s.TokensIn += int64(u.PromptTokens)
	s.TokensOut += int64(u.CompletionTokens)
	s.Seconds += took.Seconds()
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
