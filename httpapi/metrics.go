package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mnemon-dev/mnemon/engine"
)

// metrics are the server's Prometheus series, on a registry of its own so
// two servers in one process (tests) never collide.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.HistogramVec
	channels  *prometheus.HistogramVec
	retrieval prometheus.Histogram
	notes     *prometheus.CounterVec
	handler   http.Handler
}

// Latency buckets from 100 µs to 10 s: retrieval lives at the low end.
var latencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "mnemon_http_request_duration_seconds", Help: "HTTP request latency by route, method and status.",
		Buckets: latencyBuckets,
	}, []string{"route", "method", "status"})
	m.channels = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "mnemon_retrieval_channel_duration_seconds", Help: "Time each retrieval channel ran.",
		Buckets: latencyBuckets,
	}, []string{"channel"})
	m.retrieval = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "mnemon_retrieval_duration_seconds", Help: "Whole read path per retrieval, trace included.",
		Buckets: latencyBuckets,
	})
	m.notes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mnemon_retrieval_notes_total", Help: "Retrievals that left their usual path, by note (models.embedder_fallback, models.reembed_incomplete, models.budget_exceeded).",
	}, []string{"note"})
	m.reg.MustRegister(m.requests, m.channels, m.retrieval, m.notes,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
	return m
}

// collectors registers the series read at scrape time: queue depth and
// index sizes.
func (m *metrics) collectors(s *Server) {
	m.reg.MustRegister(&scrapeCollector{s: s,
		jobs:    prometheus.NewDesc("mnemon_jobs", "Background jobs by state (pending is the queue depth).", []string{"state"}, nil),
		docs:    prometheus.NewDesc("mnemon_index_documents", "Versions in each loaded namespace index.", []string{"namespace"}, nil),
		backlog: prometheus.NewDesc("mnemon_extraction_backlog", "Captured episodes whose extraction has not run yet, per namespace.", []string{"namespace"}, nil),
		open:    prometheus.NewDesc("mnemon_open_mode", "1 when no API key is active and the server accepts requests without one.", nil, nil),
	})
	labels := []string{"model", "endpoint"}
	m.reg.MustRegister(&modelCollector{e: s.cfg.Engine,
		calls:   prometheus.NewDesc("mnemon_model_calls_total", "Calls to model providers, per model and endpoint (embeddings, chat).", labels, nil),
		errors:  prometheus.NewDesc("mnemon_model_errors_total", "Model calls that failed or whose reply could not be used.", labels, nil),
		tokens:  prometheus.NewDesc("mnemon_model_tokens_total", "Tokens the providers reported, by direction (in: prompt, out: completion).", append(labels, "direction"), nil),
		seconds: prometheus.NewDesc("mnemon_model_call_seconds_total", "Time spent in model calls, retries included.", labels, nil),
	})
}

// modelCollector reads the engine's model meter at scrape time.
type modelCollector struct {
	e                              *engine.Engine
	calls, errors, tokens, seconds *prometheus.Desc
}

func (c *modelCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.calls
	ch <- c.errors
	ch <- c.tokens
	ch <- c.seconds
}

func (c *modelCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.e.ModelStats() {
		ch <- prometheus.MustNewConstMetric(c.calls, prometheus.CounterValue, float64(s.Calls), s.Model, s.Endpoint)
		ch <- prometheus.MustNewConstMetric(c.errors, prometheus.CounterValue, float64(s.Errors), s.Model, s.Endpoint)
		ch <- prometheus.MustNewConstMetric(c.tokens, prometheus.CounterValue, float64(s.TokensIn), s.Model, s.Endpoint, "in")
		ch <- prometheus.MustNewConstMetric(c.tokens, prometheus.CounterValue, float64(s.TokensOut), s.Model, s.Endpoint, "out")
		ch <- prometheus.MustNewConstMetric(c.seconds, prometheus.CounterValue, s.Seconds, s.Model, s.Endpoint)
	}
}

func (m *metrics) observeRequest(route, method string, status int, took time.Duration) {
	m.requests.WithLabelValues(route, methodLabel(method), strconv.Itoa(status)).Observe(took.Seconds())
}

// methodLabel bounds the method label: clients, anonymous ones included,
// choose the method, and each value would be a series of its own.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "OTHER"
}

func (m *metrics) observeRetrieval(res *engine.Result) {
	m.retrieval.Observe(res.Duration.Seconds())
	for _, n := range res.Notes {
		code, _, _ := strings.Cut(n, ":")
		m.notes.WithLabelValues(code).Inc()
	}
	for i, name := range engine.Channels {
		if d := res.ChannelDurations[i]; d > 0 {
			m.channels.WithLabelValues(name).Observe(d.Seconds())
		}
	}
}

type scrapeCollector struct {
	s                         *Server
	jobs, docs, backlog, open *prometheus.Desc
}

func (c *scrapeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.jobs
	ch <- c.docs
	ch <- c.backlog
	ch <- c.open
}

func (c *scrapeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if counts, err := c.s.cfg.Queue.Counts(ctx); err == nil {
		for state, n := range counts {
			ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.GaugeValue, float64(n), state)
		}
	} else {
		ch <- prometheus.NewInvalidMetric(c.jobs, err)
	}
	for ns, n := range c.s.cfg.Engine.IndexSizes() {
		ch <- prometheus.MustNewConstMetric(c.docs, prometheus.GaugeValue, float64(n), ns)
	}
	if sizes, err := c.s.cfg.Engine.ExtractionBacklogs(ctx); err == nil {
		for ns, n := range sizes {
			ch <- prometheus.MustNewConstMetric(c.backlog, prometheus.GaugeValue, float64(n), ns)
		}
	} else {
		ch <- prometheus.NewInvalidMetric(c.backlog, err)
	}
	if open, err := c.s.openMode(ctx); err == nil {
		v := 0.0
		if open {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, v)
	}
}

func (s *Server) serveMetrics(w http.ResponseWriter, r *request) error {
	s.metrics.handler.ServeHTTP(w, r.Request)
	return nil
}
