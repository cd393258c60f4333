// Package engine holds mnemon's use cases: the write path (gate, extract,
// admit, embed, reconcile), the read path (channels, fusion, ranking,
// reservation, packing, trace) and the operations around them.
//
// The engine talks to storage only through memory.Store and serves search
// from an in-process index per namespace (package index), derived from the
// store: built on first use, updated after every committed write,
// rebuildable at any time.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemon-dev/mnemon/consolidate"
	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/internal/tokens"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
	"github.com/mnemon-dev/mnemon/search"
)

// Config wires an Engine. Store is required; every other field has a
// built-in default.
type Config struct {
	Store     memory.Store
	Embedder  embed.Embedder    // default: embed.NewWordVectors()
	Extractor extract.Extractor // default: extract.NewRules()
	Clock     clock.Clock       // default: clock.System{}
	Logger    *slog.Logger      // default: discard
	Ranking   Ranking           // zero value: DefaultRanking()
	// DedupeThreshold is the cosine at which Maintain's dedupe links two
	// facts (0: DefaultDedupeThreshold).
	DedupeThreshold float64
	// Consolidation: zero fields take DefaultConsolidation()'s.
	Consolidation Consolidation
	// ChangeLogKeep is how long Compact keeps change log entries (0:
	// DefaultChangeLogKeep).
	ChangeLogKeep time.Duration
	// HistoryKeep is how many superseded versions Compact keeps per memory
	// (0: DefaultHistoryKeep; negative: all of them).
	HistoryKeep int
	// TraceKeep is how long Compact keeps retrieval traces (0: the
	// consolidation's AccessHorizon, a year by default, since retention
	// counts the accesses traces record). Feedback and explain name a
	// retrieval by its trace: after this, they answer not found.
	TraceKeep time.Duration
	// QueryBudget bounds a query's embedding call when Embedder is not
	// a built-in one (0: DefaultQueryBudget); past it, or on its error,
	// the query is embedded with the built-in embedder (see models.go).
	QueryBudget time.Duration
	// ModelExtractor, when set, extracts in the background extraction
	// job (CaptureDeferred's), never on an acknowledged write's path:
	// capture latency does not change. Synchronous writes use Extractor.
	ModelExtractor extract.Reporter
	// Chat, when set, is the chat model: Respond answers with it, and the
	// model features below that name it use it.
	Chat ChatModel
	// DuplicateJudge, with Chat, has the chat model judge the pairs of
	// the dedupe job's ambiguous band (see judge.go); nil: cosine alone.
	DuplicateJudge *JudgeConfig
	// ModelSummaries, with Chat, has the chat model write session
	// summaries and month digests (consolidate.ModelSummariser), the
	// configured summariser (extractive by default) writing when it
	// fails; false: the configured summariser alone.
	ModelSummaries bool
	// Reranker, when set, reorders the top RerankTop candidates of every
	// retrieval by relevance within RerankBudget (see rerank.go); nil:
	// off. Zero RerankTop and RerankBudget take DefaultRerankTop and
	// DefaultRerankBudget.
	Reranker     Reranker
	RerankTop    int
	RerankBudget time.Duration
	// TokensPerDay bounds the model tokens one namespace may use a UTC
	// day (0: no bound); past it model features take the offline path.
	TokensPerDay int
	// Meter, when set, is the meter the model clients count their calls
	// in; ModelStats reads it.
	Meter *openai.Meter
	// Context is the neighbouring turns a retrieval shows with each packed
	// episode when it does not say (0: DefaultContext; NoContext: none).
	Context int
	// IndexMemory caps the estimated bytes of the in-process indexes of
	// the namespaces held: past it, whole namespaces are evicted, least
	// recently used first, and reloaded from the store on their next use
	// (0: DefaultIndexMemory; negative: no cap).
	IndexMemory int64
}

// DefaultIndexMemory is the default cap of the in-process indexes (2 GiB,
// about a million short memories by the index's estimate).
const DefaultIndexMemory = 2 << 30

// Engine runs mnemon's use cases. It is safe for concurrent use.
type Engine struct {
	store memory.Store
	// vectors is the store's own vector search when it has one enabled
	// (PostgreSQL with pgvector): the semantic channel asks it, and falls
	// back to the in-process index when it fails. See semanticChannel.
	vectors   memory.VectorSearcher
	embedder  embed.Embedder
	extractor extract.Extractor
	clock     clock.Clock
	log       *slog.Logger
	counter   *tokens.Counter
	analyzer  *search.Analyzer
	// teamKey and limitKeys are index terms ranking asks of every
	// retrieval that needs them, read once: the team's subject (a question
	// in the first person is about it too) and the key words of a limit
	// (addUserLimits).
	teamKey   string
	limitKeys []string
	// ruleTemplate are the index terms of ruleTemplateWords.
	ruleTemplate []string
	// nameKeyTerms are the index terms of a name's key ("name",
	// "name:theo"), read by namedTurnsLocked.
	nameKeyTerms []string
	ranking      Ranking
	traces       *traceWriter
	// retrieving counts the retrievals in flight (coreToSpare).
	retrieving atomic.Int32
	// readOnly: the store refuses writes (a read-only replica, see
	// memory.ErrReadOnly), so retrieval traces are not written: each
	// retrieval says so in its notes instead of logging a failed write.
	readOnly bool

	dedupeThreshold float64 // see Config.DedupeThreshold
	consolidation   Consolidation
	changeLogKeep   time.Duration // see Config.ChangeLogKeep
	historyKeep     int           // see Config.HistoryKeep; 0: keep all
	// testStopKeyMin, set only by tests (SetStopKeyMinForTest), lowers
	// the stop key floor so a test meets it with fewer notes.
	testStopKeyMin int
	// testReembedBatch, set only by tests (SetReembedBatchForTest),
	// shrinks Reembed's transactions.
	testReembedBatch int
	context          int           // see Config.Context; NoContext: none
	traceKeep        time.Duration // see Config.TraceKeep

	// fallback embeds queries when embedder (a model provider) fails or
	// is late, and while a namespace still holds its vectors; nil when
	// embedder is built in. queryBudget bounds embedder's query call.
	fallback    embed.Embedder
	queryBudget time.Duration
	stale       sync.Map // namespace → *staleState
	// modelExtractor extracts in the background job (nil: the rules).
	modelExtractor extract.Reporter
	budget         tokenBudget
	meter          *openai.Meter
	chat           ChatModel // see Config.Chat; nil: none
	judge          *JudgeConfig
	reranker       Reranker
	rerankTop      int
	rerankBudget   time.Duration
	// verdicts: the duplicate judge's answers, namespace and pair →
	// verdict (in this process: a restart asks again).
	verdicts sync.Map
	// held: namespaces seen holding something (namespace → struct{}), so
	// HasNamespace answers from memory after the first time. Nothing
	// empties a namespace (forgetting keeps tombstones, archiving keeps the
	// episodes), so the answer cannot go stale.
	held sync.Map

	// dedupeMarks: namespace → dedupeMark, how far Dedupe has compared
	// (in this process: a restart compares everything once).
	dedupeMarks sync.Map

	// index holds the search state of every namespace in use.
	index *index.Set
	// consolidator summarises, forgets and folds sessions.
	consolidator *consolidate.Consolidator

	// captures groups concurrent deferred captures per namespace into one
	// transaction (see CaptureDeferred).
	captures sync.Map // namespace → *captureGroup
	// capturing gives acknowledged-write latency priority over background
	// extraction on the store's single writer.
	capturing captureGate

	// background counts the goroutines Close waits for: capture leaders
	// and Follow loops. done ends when Close begins, stopping the loops.
	background sync.WaitGroup
	bgMu       sync.Mutex // orders background.Add with Close's Wait
	closed     bool
	done       context.Context
	stop       context.CancelFunc
}

// New returns an engine over cfg.Store. Close it to flush pending traces.
func New(cfg Config) (*Engine, error) {
	if cfg.Store == nil {
		return nil, errors.New("engine: a store is required")
	}
	counter, err := tokens.NewCounter()
	if err != nil {
		return nil, fmt.Errorf("engine: token counter: %w", err)
	}
	e := &Engine{
		store:     cfg.Store,
		embedder:  cfg.Embedder,
		extractor: cfg.Extractor,
		clock:     cfg.Clock,
		log:       cfg.Logger,
		counter:   counter,
		analyzer:  search.NewAnalyzer(),
		ranking:   cfg.Ranking,

		dedupeThreshold: cfg.DedupeThreshold,
		consolidation:   cfg.Consolidation.WithDefaults(),
		changeLogKeep:   cfg.ChangeLogKeep,
	}
	if e.changeLogKeep <= 0 {
		e.changeLogKeep = DefaultChangeLogKeep
	}
	if vs, ok := cfg.Store.(memory.VectorSearcher); ok && vs.VectorSearchEnabled() {
		e.vectors = vs
	}
	e.traceKeep = cfg.TraceKeep
	if e.traceKeep <= 0 {
		e.traceKeep = e.consolidation.AccessHorizon
	}
	switch {
	case cfg.Context == 0:
		e.context = DefaultContext
	case cfg.Context < NoContext || cfg.Context > MaxContext:
		return nil, fmt.Errorf("engine: context %d: use 1 to %d, %d for none, or 0 for the default", cfg.Context, MaxContext, NoContext)
	default:
		e.context = cfg.Context
	}
	switch {
	case cfg.HistoryKeep == 0:
		e.historyKeep = DefaultHistoryKeep
	case cfg.HistoryKeep > 0:
		e.historyKeep = cfg.HistoryKeep
	}
	if e.embedder == nil {
		e.embedder = embed.NewWordVectors()
	}
	e.modelExtractor, e.meter, e.chat, e.judge = cfg.ModelExtractor, cfg.Meter, cfg.Chat, cfg.DuplicateJudge
	e.budget.perDay = int64(max(cfg.TokensPerDay, 0))
	if !builtinEmbedder(e.embedder) {
		e.fallback = embed.NewWordVectors()
		e.queryBudget = cfg.QueryBudget
		if e.queryBudget <= 0 {
			e.queryBudget = DefaultQueryBudget
		}
	}
	if e.extractor == nil {
		e.extractor = extract.NewRules()
	}
	if e.clock == nil {
		e.clock = clock.System{}
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.ranking == (Ranking{}) {
		e.ranking = DefaultRanking()
	}
	memCap := cfg.IndexMemory
	if memCap == 0 {
		memCap = DefaultIndexMemory
	}
	e.index = index.New(index.Config{
		Store: cfg.Store, Embedder: e.embedder, Analyzer: e.analyzer, Logger: e.log, MemoryCap: memCap,
		Shape: func(v *memory.Version) uint16 { return shapeOf(v, e.analyzer) },
	})
	if ts := e.analyzer.QueryTerms(extract.TeamSubject); len(ts) > 0 {
		e.teamKey = ts[0]
	}
	e.limitKeys = e.analyzer.QueryTerms("constraint allergic avoids diet")
	e.ruleTemplate = e.analyzer.QueryTerms(strings.Join(ruleTemplateWords, " "))
	e.nameKeyTerms = e.analyzer.QueryTerms("name")
	e.traces = newTraceWriter(cfg.Store, e.log)
	if ro, ok := cfg.Store.(interface{ ReadOnly() bool }); ok {
		e.readOnly = ro.ReadOnly()
	}
	e.reranker, e.rerankTop, e.rerankBudget = cfg.Reranker, cfg.RerankTop, cfg.RerankBudget
	if e.rerankTop <= 0 {
		e.rerankTop = DefaultRerankTop
	}
	if e.rerankBudget <= 0 {
		e.rerankBudget = DefaultRerankBudget
	}
	if cfg.ModelSummaries && cfg.Chat != nil {
		e.consolidation.Summariser = &consolidate.ModelSummariser{
			Chat: cfg.Chat, Fallback: e.consolidation.Summariser, Logger: e.log,
			Spend:   func(ns string, n int) { e.budget.spend(ns, e.clock.Now(), n) },
			Allowed: func(ns string) bool { return e.budget.allowed(ns, e.clock.Now()) },
		}
	}
	e.consolidator = consolidate.New(consolidate.Config{
		Store: cfg.Store, Index: e.index, Clock: e.clock, Embedder: e.embedder, Counter: e.counter,
		Settings: e.consolidation, Trust: trustOf, Traces: e.traces,
	})
	e.done, e.stop = context.WithCancel(context.Background())
	return e, nil
}

// Close stops the engine's background work and waits for it: it ends
// Follow loops, lets capture groups commit what they hold (their callers
// are acknowledged), then flushes traces still waiting to be written. When
// it returns, no goroutine the engine started is running. It does not close
// the store, which the caller opened.
func (e *Engine) Close() error {
	e.bgMu.Lock()
	e.closed = true
	e.bgMu.Unlock()
	e.stop()
	e.background.Wait()
	// The search indexes compute a loaded block's axes in the background
	// for a few milliseconds after the load (search.Settle).
	search.Settle()
	return e.traces.Close()
}

// track counts a background goroutine in for Close to wait for; it says
// false once Close has begun, and the work must then run in the caller.
// The goroutine calls e.background.Done when it ends.
func (e *Engine) track() bool {
	e.bgMu.Lock()
	defer e.bgMu.Unlock()
	if e.closed {
		return false
	}
	e.background.Add(1)
	return true
}

// Embedder returns the embedder the engine writes with.
func (e *Engine) Embedder() embed.Embedder { return e.embedder }

// nsState and entry are the index's names for a namespace's search state
// and one indexed version, as the read path knows them.
type (
	nsState = index.Namespace
	entry   = index.Entry
)

// namespace returns the index of ns, building it from the store on first
// use. A failed load is retried on the next call.
func (e *Engine) namespace(ctx context.Context, ns string) (*nsState, error) {
	return e.index.Namespace(ctx, ns)
}

// IndexSizes returns how many versions each loaded namespace index holds.
func (e *Engine) IndexSizes() map[string]int { return e.index.Sizes() }

// HasNamespace reports whether ns holds anything, without loading its
// index: a service answers reads of an unknown namespace with not found
// instead of building an empty index for every name it is sent.
func (e *Engine) HasNamespace(ctx context.Context, ns string) (bool, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return false, err
	}
	if _, ok := e.held.Load(ns); ok {
		return true, nil
	}
	if st, ok := e.index.Loaded(ns); ok && st.Size() > 0 {
		e.held.Store(ns, struct{}{})
		return true, nil
	}
	// Stats counts every row of the namespace (tens of milliseconds at
	// 100k memories): pay it once, not on every page of the inspector.
	s, err := e.store.Stats(ctx, memory.StatsParams{Namespace: ns})
	if err != nil {
		return false, fmt.Errorf("namespace: %w", err)
	}
	if s.Episodes > 0 || s.Memories > 0 {
		e.held.Store(ns, struct{}{})
		return true, nil
	}
	return false, nil
}

// Namespaces lists every namespace the store holds anything in, sorted.
func (e *Engine) Namespaces(ctx context.Context) ([]string, error) {
	nss, err := e.store.Namespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("namespaces: %w", err)
	}
	return nss, nil
}

// Warm loads the index of every namespace in the store, so the first query
// does not pay for it.
func (e *Engine) Warm(ctx context.Context) error {
	nss, err := e.store.Namespaces(ctx)
	if err != nil {
		return fmt.Errorf("warm: %w", err)
	}
	for _, ns := range nss {
		if _, err := e.namespace(ctx, ns); err != nil {
			return fmt.Errorf("warm: %w", err)
		}
	}
	return nil
}

// Rebuild drops the index of ns and builds it again from the store. It
// waits for the namespace's writer, so no write lands on the old index.
func (e *Engine) Rebuild(ctx context.Context, ns string) error {
	return e.index.Rebuild(ctx, ns)
}

// lockNamespace takes the writer lock of ns's index: writes are reconciled
// one at a time per namespace (see index.Set.Lock).
func (e *Engine) lockNamespace(ctx context.Context, ns string) (*nsState, func(), error) {
	return e.index.Lock(ctx, ns)
}

func checkNamespace(ns string) (string, error) {
	ns = memory.NormalizeNamespace(ns)
	if err := memory.ValidateNamespace(ns); err != nil {
		return "", err
	}
	return ns, nil
}
