package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
	"github.com/mnemon-dev/mnemon/search"
)

// Model-backed embedders on the read path. A query is embedded within a
// budget (Config.QueryBudget, default DefaultQueryBudget): a provider that
// fails or answers late does not fail the retrieval, which then embeds the
// query with the built-in embedder instead and says so in the result's
// notes (NoteEmbedderFallback). The built-in embedder's vectors only
// match versions that still carry built-in vectors, so the semantic
// channel mostly goes quiet, and the lexical, structured, critical,
// recent and graph channels, which need no model, answer.
//
// While a namespace still holds versions embedded by the built-in embedder
// (the re-embedding to a new embedder is incomplete), the query is
// embedded by both: the new embedder's vector finds the versions already
// re-embedded, the built-in's the rest (the search index keeps vectors of
// different sizes apart). Retrieval so keeps serving the old vectors until
// the namespace's new ones are complete.

// DefaultQueryBudget bounds a query's embedding call to a model provider.
const DefaultQueryBudget = 300 * time.Millisecond

// Notes a retrieval may carry (Result.Notes), each "code: detail".
const (
	// NoteEmbedderFallback: the configured embedder failed or ran out of
	// its budget; the built-in embedder embedded the query.
	NoteEmbedderFallback = "models.embedder_fallback"
	// NoteReembedIncomplete: the namespace is being re-embedded; the
	// semantic channel searched the old vectors too.
	NoteReembedIncomplete = "models.reembed_incomplete"
)

// builtinEmbedder reports whether emb is one of the offline embedders,
// which never fail and need no budget.
func builtinEmbedder(emb embed.Embedder) bool {
	switch emb.(type) {
	case *embed.WordVectors, *embed.Builtin:
		return true
	}
	return false
}

// staleState remembers, per namespace, whether versions with the fallback
// embedder's vectors remain (so queries embed with it too). It is worked
// out on a namespace's first retrieval and cleared when a re-embedding
// run leaves nothing stale.
type staleState struct {
	once sync.Once
	mu   sync.Mutex
	old  bool
	// foreign: versions remain whose vectors another model made with the
	// engine's embedder's length (a switch between two providers of one
	// dimension). Their cosines with a query of the new model mean
	// nothing, so the semantic channel skips them until re-embedded.
	foreign bool
}

func (e *Engine) staleOf(ns string) *staleState {
	s, _ := e.stale.LoadOrStore(ns, &staleState{})
	return s.(*staleState)
}

// servesOld reports whether ns still holds versions carrying the fallback
// embedder's vectors while the engine writes with another.
func (e *Engine) servesOld(st *nsState) bool {
	if e.fallback == nil {
		return false
	}
	s := e.staleOf(st.Name())
	s.once.Do(func() {
		old, foreign := false, false
		name, dim := e.fallback.Name(), e.fallback.Dim()
		st.RLock()
		for _, id := range st.StaleEmbeddings(e.embedder.Name(), e.embedder.Dim()) {
			en, ok := st.EntryLocked(id)
			if !ok {
				continue
			}
			p := en.V.Provenance
			old = old || (p.Embedder == name && p.EmbedderDim == dim)
			foreign = foreign || p.EmbedderDim == e.embedder.Dim()
			if old && foreign {
				break
			}
		}
		st.RUnlock()
		s.mu.Lock()
		s.old, s.foreign = old, foreign
		s.mu.Unlock()
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.old
}

// semanticKeep is keep for the semantic channel: while ns holds vectors
// of another model with the engine's embedder's length, it also leaves
// those out (the lexical and other channels still find them). same says
// it is keep itself.
func (e *Engine) semanticKeep(st *nsState, keep func(string) bool) (_ func(string) bool, same bool) {
	if e.fallback == nil {
		return keep, true
	}
	e.servesOld(st) // works the state out on first use
	s := e.staleOf(st.Name())
	s.mu.Lock()
	foreign := s.foreign
	s.mu.Unlock()
	if !foreign {
		return keep, true
	}
	name, dim := e.embedder.Name(), e.embedder.Dim()
	return func(id string) bool {
		if !keep(id) {
			return false
		}
		en, ok := st.EntryLocked(id)
		return ok && (en.V.Provenance.EmbedderDim != dim || en.V.Provenance.Embedder == name)
	}, false
}

// reembedDone records that ns holds no stale vectors any more.
func (e *Engine) reembedDone(ns string) {
	s := e.staleOf(ns)
	s.once.Do(func() {})
	s.mu.Lock()
	s.old, s.foreign = false, false
	s.mu.Unlock()
}

// queryVectors embeds a query for the semantic channel: the engine's
// embedder's vector within the query budget, and the fallback's vector
// when the first failed or the namespace still serves old vectors. notes
// say what happened. An error is returned only when the caller's own
// context ended.
func (e *Engine) queryVectors(ctx context.Context, st *nsState, query string) (vecs []search.Vector, notes []string, err error) {
	if e.fallback == nil {
		vs, err := e.embedder.Embed(ctx, []string{query})
		if err != nil {
			return nil, nil, err
		}
		if len(vs) != 1 {
			return nil, nil, fmt.Errorf("%d vectors for 1 text", len(vs))
		}
		return vs, nil, nil
	}
	if !e.budget.allowed(st.Name(), e.clock.Now()) {
		notes = append(notes, fmt.Sprintf("%s: the namespace used its daily model tokens; the query was embedded with %s", NoteBudgetExceeded, e.fallback.Name()))
		old, err := e.fallback.Embed(ctx, []string{query})
		if err != nil {
			return nil, nil, err
		}
		return old, notes, nil
	}
	qctx, cancel := context.WithTimeout(ctx, e.queryBudget)
	began := time.Now()
	vs, err := e.embedder.Embed(qctx, []string{query})
	cancel()
	if err == nil && len(vs) != 1 {
		err = fmt.Errorf("%d vectors for 1 text", len(vs))
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		reason := "failed: " + publicMessage(err)
		if errors.Is(err, context.DeadlineExceeded) || qctx.Err() != nil {
			reason = fmt.Sprintf("no reply within the %s budget", e.queryBudget)
		}
		e.log.Warn("query embedding fell back to the built-in embedder", "embedder", e.embedder.Name(), "after", time.Since(began).Round(time.Millisecond), "reason", reason)
		notes = append(notes, fmt.Sprintf("%s: %s %s; the query was embedded with %s", NoteEmbedderFallback, e.embedder.Name(), reason, e.fallback.Name()))
		vs = nil
	}
	if vs == nil || e.servesOld(st) {
		old, ferr := e.fallback.Embed(ctx, []string{query})
		if ferr != nil || len(old) != 1 {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
		} else {
			if vs != nil {
				notes = append(notes, fmt.Sprintf("%s: the namespace still holds vectors of %s; the semantic channel searched them too", NoteReembedIncomplete, e.fallback.Name()))
			}
			vs = append(vs, old[0])
		}
	}
	return vs, notes, nil
}

// publicMessage is an error's message as a client may read it: a
// memory.Error's public text (no endpoint, no provider words), else the
// error's text.
func publicMessage(err error) string {
	var me *memory.Error
	if errors.As(err, &me) {
		return me.Message
	}
	return err.Error()
}

// semanticHits runs the semantic channel once per query vector and keeps
// each version's best score, best first.
func semanticHits(st *nsState, qvecs []search.Vector, keep func(string) bool, common bool, r Ranking) []search.Hit {
	if len(qvecs) == 1 {
		if common {
			return st.SemanticCommon(qvecs[0], r.ChannelCap, r.SemanticFloor)
		}
		return st.Semantic(qvecs[0], r.ChannelCap, r.SemanticFloor, keep)
	}
	best := map[string]float64{}
	var out []search.Hit
	for _, q := range qvecs {
		for _, h := range st.Semantic(q, r.ChannelCap, r.SemanticFloor, keep) {
			if s, ok := best[h.ID]; !ok || h.Score > s {
				if !ok {
					out = append(out, h)
				}
				best[h.ID] = h.Score
			}
		}
	}
	return bestFirst(out, best, r.ChannelCap)
}

// NoteBudgetExceeded: the namespace used its daily model token budget;
// the offline path served.
const NoteBudgetExceeded = "models.budget_exceeded"

// tokenBudget counts, per namespace and UTC day, the tokens model calls
// made on its behalf used (as the providers report them), against
// Config.TokensPerDay. The count lives in the process: a restart starts
// the day again.
type tokenBudget struct {
	perDay int64
	mu     sync.Mutex
	day    string
	used   map[string]int64
}

func (b *tokenBudget) spend(ns string, now time.Time, tokens int) {
	if b.perDay <= 0 || tokens <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(now)
	b.used[ns] += int64(tokens)
}

// allowed reports whether ns may call a model now.
func (b *tokenBudget) allowed(ns string, now time.Time) bool {
	if b.perDay <= 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(now)
	return b.used[ns] < b.perDay
}

func (b *tokenBudget) roll(now time.Time) {
	if d := now.UTC().Format("2006-01-02"); d != b.day || b.used == nil {
		b.day, b.used = d, map[string]int64{}
	}
}

// ModelTokensToday is how many model tokens ns used today (UTC), as far
// as a daily budget is kept (0 without one).
func (e *Engine) ModelTokensToday(ns string) int64 {
	b := &e.budget
	if b.perDay <= 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(e.clock.Now())
	return b.used[ns]
}

// tallied returns ctx counting its model calls in a Tally, when the
// read path may call a model (a provider embedder, a reranker, or the chat
// model when chat is set): the Tally ctx already carries, else a new one.
// Without models it returns ctx and nil, and costs nothing.
func (e *Engine) tallied(ctx context.Context, chat bool) (context.Context, *openai.Tally) {
	if e.fallback == nil && e.reranker == nil && !(chat && e.chat != nil) {
		return ctx, nil
	}
	if t := openai.TallyOf(ctx); t != nil {
		return ctx, t
	}
	t := new(openai.Tally)
	return openai.WithTally(ctx, t), t
}

// modelUsage is what t counted, as a trace or an admission keeps it; nil
// when nothing was called.
func modelUsage(t *openai.Tally) []memory.ModelUsage {
	stats := t.Stats()
	if len(stats) == 0 {
		return nil
	}
	out := make([]memory.ModelUsage, len(stats))
	for i, s := range stats {
		out[i] = memory.ModelUsage{
			Model: s.Model, Endpoint: s.Endpoint, Calls: int(s.Calls), Errors: int(s.Errors),
			TokensIn: int(s.TokensIn), TokensOut: int(s.TokensOut), DurationMicros: int64(s.Seconds * 1e6),
		}
	}
	return out
}

// extractionUsage is what an extraction cost: the calls the Tally saw
// (a client of package openai), else, for an extractor that calls
// through another client, the counts of its report.
func extractionUsage(t *openai.Tally, rep *extract.Report, name string) []memory.ModelUsage {
	if ms := modelUsage(t); ms != nil {
		return ms
	}
	if rep == nil || rep.ModelCalls == 0 {
		return nil
	}
	return []memory.ModelUsage{{Model: name, Endpoint: "chat", Calls: rep.ModelCalls, TokensIn: rep.TokensIn, TokensOut: rep.TokensOut}}
}

// ModelStats are the model calls the engine's providers made (nil
// without a meter).
func (e *Engine) ModelStats() []openai.CallStats { return e.meter.Snapshot() }

// modelExtract runs the model extractor on one episode of the background
// job, turning its report into candidates: proposals admitted as the
// rules' are, rejections logged as rejected admissions (never stored).
// ok is false when the model may not be used now (the namespace's token
// budget is spent): the caller then runs the rules.
func (e *Engine) modelExtract(ctx context.Context, pe *pendingEvent, ev extract.Event, source string) (bool, error) {
	ns := pe.ep.Namespace
	if !e.budget.allowed(ns, e.clock.Now()) {
		e.log.Info("model extraction skipped: the namespace's daily token budget is spent", "namespace", ns, "episode", pe.ep.ID)
		pe.epReason = append(pe.epReason, NoteBudgetExceeded)
		return false, nil
	}
	tally := new(openai.Tally)
	rep, err := e.modelExtractor.Report(openai.WithTally(ctx, tally), ev)
	if err != nil {
		return false, fmt.Errorf("extract: %w", err)
	}
	pe.models = extractionUsage(tally, rep, e.modelExtractor.Name())
	e.budget.spend(ns, e.clock.Now(), rep.TokensIn+rep.TokensOut)
	for _, n := range rep.Notes {
		e.log.Warn("model extraction", "namespace", ns, "episode", pe.ep.ID, "note", n)
		code, _, _ := strings.Cut(n, ":")
		pe.epReason = append(pe.epReason, code)
	}
	for _, p := range rep.Proposals {
		cand := &candidate{
			Candidate: p.Candidate, scope: factScope(pe.ep.Scope), observedAt: pe.ep.OccurredAt,
			validFrom: pe.ep.OccurredAt, validTo: p.ValidTo, extractor: p.Extractor, source: source, episodeID: pe.ep.ID,
		}
		if p.ValidFrom != nil {
			cand.validFrom = p.ValidFrom.UTC()
		}
		if cand.extractor == "" {
			cand.extractor = e.modelExtractor.Name()
		}
		admit(cand)
		pe.cands = append(pe.cands, cand)
	}
	for _, r := range rep.Rejected {
		pe.cands = append(pe.cands, &candidate{
			Candidate: extract.Candidate{Content: r.Content}, scope: factScope(pe.ep.Scope), observedAt: pe.ep.OccurredAt,
			extractor: r.Extractor, source: source, episodeID: pe.ep.ID,
			decision: memory.AdmitReject, reasons: []string{"extracted:" + r.Extractor, r.Reason},
		})
	}
	return true, nil
}

// semanticChannel runs the semantic channel: on the in-process index, or,
// when the store searches vectors itself (pgvector), there. The store's
// hits are the versions whose stored vector (the same quantised vector the
// index holds) is nearest the full-precision query, with the same cosine,
// so the ranking is the index's except where the store's approximate
// index misses a neighbour. Hits the index does not hold (written by
// another process and not followed yet) or keep refuses are dropped, as
// the index would not find them; if the store fails, the index answers.
func (e *Engine) semanticChannel(ctx context.Context, st *nsState, qvecs []search.Vector, keep func(string) bool, common bool, r Ranking) []search.Hit {
	if e.vectors == nil || len(qvecs) == 0 {
		return channel(st, ChannelSemantic, nil, nil, qvecs, keep, common, nil, r, false)
	}
	best := map[string]float64{}
	var out []search.Hit
	for _, q := range qvecs {
		if q.IsZero() {
			continue
		}
		// Over-fetch: keep drops history and other scopes after the
		// store's search.
		hits, err := e.vectors.SearchVectors(ctx, memory.VectorSearchParams{Namespace: st.Name(), Query: q.Encode(), K: 4 * r.ChannelCap, Floor: r.SemanticFloor})
		if err != nil {
			e.log.Warn("vector search in the store failed; the in-process index answers", "namespace", st.Name(), "err", err)
			return channel(st, ChannelSemantic, nil, nil, qvecs, keep, common, nil, r, false)
		}
		st.RLock()
		for _, h := range hits {
			if !keep(h.VersionID) {
				continue
			}
			if s, ok := best[h.VersionID]; !ok || h.Score > s {
				if !ok {
					out = append(out, search.Hit{ID: h.VersionID})
				}
				best[h.VersionID] = h.Score
			}
		}
		st.RUnlock()
	}
	return bestFirst(out, best, r.ChannelCap)
}

// bestFirst gives each hit its best score, orders them best first (ties by
// ID) and keeps the first k.
func bestFirst(out []search.Hit, best map[string]float64, k int) []search.Hit {
	for i := range out {
		out[i].Score = best[out[i].ID]
	}
	slices.SortFunc(out, func(a, b search.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}
