package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
)

// The optional reranker (Config.Reranker, off by default). After ranking,
// the top candidates (RerankTop, default 20) are scored for relevance to
// the query by a cross-encoder endpoint (POST /rerank, RerankEndpoint) or
// by the chat model (ChatReranker), within a latency budget (RerankBudget,
// default 800 ms). Their order follows the scores: the k-th best score
// takes the k-th best final score of the group, so no candidate leaves
// the group and the ranks below it do not move; each moved candidate
// carries the difference as the term "rerank", so the trace shows it. A
// reranker that fails, answers late or unusably, or a spent token budget
// leaves the fused order, with the note models.rerank_fallback.

// Reranker defaults.
const (
	DefaultRerankTop    = 20
	DefaultRerankBudget = 800 * time.Millisecond
	// rerankDocChars bounds each candidate's text sent to the reranker.
	rerankDocChars = 1000
)

// Notes of the reranker (Result.Notes).
const (
	// NoteReranked: the top candidates were reordered by the reranker.
	NoteReranked = "models.reranked"
	// NoteRerankFallback: the reranker failed or ran out of its budget;
	// the fused order stands.
	NoteRerankFallback = "models.rerank_fallback"
)

// Reranker scores documents' relevance to a query, one score per
// document in document order (higher is more relevant).
type Reranker interface {
	Name() string
	Rerank(ctx context.Context, query string, docs []string) (scores []float64, tokens int, err error)
}

// RerankEndpoint is a Reranker backed by a /rerank endpoint (Text
// Embeddings Inference, Jina, Cohere, vLLM, llama.cpp server).
type RerankEndpoint struct{ Client *openai.Client }

// Name names the endpoint's model.
func (r RerankEndpoint) Name() string { return "rerank:" + r.Client.Config().Model }

// Rerank calls the endpoint.
func (r RerankEndpoint) Rerank(ctx context.Context, query string, docs []string) ([]float64, int, error) {
	scores, u, err := r.Client.Rerank(ctx, query, docs)
	return scores, max(u.PromptTokens+u.CompletionTokens, u.TotalTokens), err
}

// ChatReranker is a Reranker that asks the chat model for a relevance
// score per document, as JSON.
type ChatReranker struct{ Chat ChatModel }

// Name names the chat model.
func (r ChatReranker) Name() string { return "chat:" + r.Chat.Config().Model }

const rerankSchema = `{"type":"object","additionalProperties":false,"required":["scores"],` +
	`"properties":{"scores":{"type":"array","items":{"type":"number","minimum":0,"maximum":1}}}}`

const rerankSystem = `You rate how relevant each numbered memory is to the query: 1 answers it or is needed for it, 0 is unrelated.
Reply with JSON only: {"scores": [<one number from 0 to 1 per memory, in the memories' order>]}.`

// Rerank asks the chat model; a reply that is not one score in [0, 1]
// per document is a model_bad_reply error.
func (r ChatReranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, int, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Query: %s\n\nMemories:\n", query)
	for i, d := range docs {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, strings.Join(strings.Fields(d), " "))
	}
	temp := 0.0
	rep, err := r.Chat.Chat(ctx, openai.ChatRequest{
		Messages:  []openai.Message{{Role: "system", Content: rerankSystem}, {Role: "user", Content: b.String()}},
		Schema:    &openai.JSONSchema{Name: "mnemon_relevance", Schema: json.RawMessage(rerankSchema), Strict: true},
		MaxTokens: 8*len(docs) + 20, Temperature: &temp,
	})
	tokens := 0
	if rep != nil {
		tokens = rep.Usage.PromptTokens + rep.Usage.CompletionTokens
	}
	if err != nil {
		return nil, tokens, err
	}
	var reply struct {
		Scores []float64 `json:"scores"`
	}
	bad := func(format string, args ...any) error {
		return &memory.Error{Code: memory.CodeModelBadReply, Kind: memory.ErrModelBadReply,
			Message: "the chat provider's relevance scores cannot be used: " + fmt.Sprintf(format, args...)}
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(rep.Content)), &reply); err != nil {
		return nil, tokens, bad("the reply is not {\"scores\": [numbers]}")
	}
	if len(reply.Scores) != len(docs) {
		return nil, tokens, bad("%d scores for %d memories", len(reply.Scores), len(docs))
	}
	for i, s := range reply.Scores {
		if math.IsNaN(s) || s < 0 || s > 1 {
			return nil, tokens, bad("score %d is %v, not in [0, 1]", i+1, s)
		}
	}
	return reply.Scores, tokens, nil
}

// rerank reorders the top of cands (sorted) by the reranker's scores and
// returns the note to add (none when there is no reranker or too little
// to reorder). cands stay sorted.
func (e *Engine) rerank(ctx context.Context, ns, query string, cands []*scored) []string {
	top := min(len(cands), e.rerankTop)
	if e.reranker == nil || top < 2 {
		return nil
	}
	fallback := func(reason string) []string {
		e.log.Warn("rerank fell back to the fused order", "namespace", ns, "reranker", e.reranker.Name(), "reason", reason)
		return []string{fmt.Sprintf("%s: %s %s; the fused order stands", NoteRerankFallback, e.reranker.Name(), reason)}
	}
	if !e.budget.allowed(ns, e.clock.Now()) {
		return fallback("was not called: the namespace used its daily model tokens")
	}
	docs := make([]string, top)
	for i, c := range cands[:top] {
		docs[i] = c.en.V.Content
		if len(docs[i]) > rerankDocChars {
			docs[i] = clip(docs[i], rerankDocChars)
		}
	}
	rctx, cancel := context.WithTimeout(ctx, e.rerankBudget)
	scores, tokens, err := e.reranker.Rerank(rctx, query, docs)
	late := rctx.Err() != nil
	cancel()
	e.budget.spend(ns, e.clock.Now(), tokens)
	if err == nil && len(scores) != top {
		err = fmt.Errorf("%d scores for %d candidates", len(scores), top)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return nil // the caller gave up; Retrieve sees it next
	case err != nil && (late || errors.Is(err, context.DeadlineExceeded)):
		return fallback(fmt.Sprintf("gave no answer within the %s budget", e.rerankBudget))
	case err != nil:
		return fallback("failed: " + publicMessage(err))
	}
	// The k-th best score takes the k-th best final of the group: the
	// group's scores are the ones the fusion gave, in the reranker's order.
	order := make([]int, top)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	finals := make([]float64, top)
	for i, c := range cands[:top] {
		finals[i] = c.final
	}
	moved := 0
	for k, i := range order {
		c := cands[i]
		if d := finals[k] - c.final; d != 0 {
			c.terms = append(c.terms, memory.Term{Name: "rerank", Value: d})
			c.final = finals[k]
			moved++
		}
	}
	sortRanked(cands)
	return []string{fmt.Sprintf("%s: %s scored the top %d; %d moved", NoteReranked, e.reranker.Name(), top, moved)}
}
