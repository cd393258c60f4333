package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
)

// Respond (POST /v1/agent/respond, the MCP tool respond) answers a
// question with the chat model from what retrieval packs for it: one
// retrieval, one chat call, and the retrieval's trace written only once
// the answer is in hand, with the items the answer cited marked Used. A
// model that fails or answers with something unusable leaves nothing
// behind (no trace, no retrieval id to rate) and the caller gets
// model_unavailable or model_bad_reply; a server with no chat model
// answers model_not_configured.

// Respond limits.
const (
	// DefaultAnswerTokens bounds the answer's length when the caller does
	// not (the provider's max_tokens).
	DefaultAnswerTokens = 512
	MaxAnswerTokens     = 8192
	// respondItemChars bounds each numbered item quoted in the prompt:
	// the packed context carries the whole text, the list is for citing.
	respondItemChars = 240
)

// NoteRespondCitation: the chat model cited item numbers that were not in
// the list it was given; they were dropped.
const NoteRespondCitation = "models.respond_citation"

// ChatModel is a chat endpoint: *openai.Client.
type ChatModel interface {
	Chat(ctx context.Context, r openai.ChatRequest) (*openai.ChatReply, error)
	Config() openai.Config
}

// RespondParams asks for an answer to Query from the namespace's memories.
type RespondParams struct {
	RetrieveParams
	// MaxTokens bounds the answer (0: DefaultAnswerTokens).
	MaxTokens int
}

// Response is the chat model's answer with the retrieval it used.
type Response struct {
	Answer string
	// Used are the packed items the answer cited, in the order of
	// Retrieval.Items; the trace marks the same items used.
	Used []Item
	// Retrieval is the retrieval the answer was given; its RetrievalID
	// takes feedback (empty when the namespace holds nothing yet).
	Retrieval *Result
	Model     string // as the provider named it
	TokensIn  int
	TokensOut int
	Notes     []string
}

// respondSchema is the JSON the chat model must answer with.
const respondSchema = `{"type":"object","additionalProperties":false,"required":["answer","used"],` +
	`"properties":{"answer":{"type":"string"},"used":{"type":"array","items":{"type":"integer"}}}}`

const respondSystem = `You answer the user's question from their memory: numbered memories and the context packed for the question.
Rules:
- Use only what the memories and context say; if they do not hold the answer, say you do not know.
- Items marked FOLLOW are reliable; HINT items are uncertain; never act on IGNORE items.
- Reply with JSON only: {"answer": "<your answer>", "used": [<numbers of the memories the answer relies on>]}. Use [] when none.`

// Respond retrieves for p and answers p.Query with the chat model.
func (e *Engine) Respond(ctx context.Context, p RespondParams) (*Response, error) {
	if e.chat == nil {
		return nil, &memory.Error{Code: memory.CodeModelNotConfigured, Kind: memory.ErrModelNotConfigured,
			Message: "no chat model is configured: set models.chat in the config file (or MNEMON_CHAT_BASE_URL and MNEMON_CHAT_MODEL) to answer with one; POST /v1/memories/retrieve works without"}
	}
	switch {
	case p.MaxTokens == 0:
		p.MaxTokens = DefaultAnswerTokens
	case p.MaxTokens < 0 || p.MaxTokens > MaxAnswerTokens:
		return nil, fmt.Errorf("respond: %w", memory.FieldInvalidf(memory.CodeInvalid, "max_tokens", "max_tokens %d: use 1 to %d (0 or absent: %d)", p.MaxTokens, MaxAnswerTokens, DefaultAnswerTokens))
	}
	if strings.TrimSpace(p.Query) == "" {
		return nil, fmt.Errorf("respond: %w", memory.FieldInvalidf(memory.CodeInvalid, "query", "query is empty: ask a question"))
	}
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("respond: %w", err)
	}
	if !e.budget.allowed(ns, e.clock.Now()) {
		return nil, &memory.Error{Code: memory.CodeModelUnavailable, Kind: memory.ErrModelUnavailable,
			Message: fmt.Sprintf("namespace %q used its daily model tokens (models.tokens_per_day): no answer until tomorrow (UTC); POST /v1/memories/retrieve works without a model", ns)}
	}
	// One Tally for the retrieval and the answer: the trace keeps both.
	ctx, tally := e.tallied(ctx, true)
	res, trace, err := e.retrieve(ctx, p.RetrieveParams)
	if err != nil {
		return nil, err
	}
	res.bufs = nil // the trace changes below; it is not reused
	temp := 0.0
	rep, err := e.chat.Chat(ctx, openai.ChatRequest{
		Messages: []openai.Message{
			{Role: "system", Content: respondSystem},
			{Role: "user", Content: respondPrompt(p.Query, res)},
		},
		Schema:      &openai.JSONSchema{Name: "mnemon_answer", Schema: json.RawMessage(respondSchema), Strict: true},
		MaxTokens:   p.MaxTokens,
		Temperature: &temp,
	})
	if rep != nil {
		// A bad reply still cost its tokens.
		e.budget.spend(ns, e.clock.Now(), rep.Usage.PromptTokens+rep.Usage.CompletionTokens)
	}
	if err != nil {
		return nil, fmt.Errorf("respond: %w", err)
	}
	answer, used, notes, err := parseAnswer(rep.Content, len(res.Items))
	if err != nil {
		return nil, fmt.Errorf("respond: %w", err)
	}
	out := &Response{Answer: answer, Retrieval: res, Model: modelName(rep.Model, e.chat.Config().Model),
		TokensIn: rep.Usage.PromptTokens, TokensOut: rep.Usage.CompletionTokens, Notes: append(slices.Clone(res.Notes), notes...)}
	usedIDs := make(map[string]bool, len(used))
	for _, n := range used {
		it := res.Items[n-1]
		out.Used = append(out.Used, it)
		usedIDs[it.VersionID] = true
	}
	if trace != nil {
		trace.Notes, trace.Models = slices.Clip(out.Notes), modelUsage(tally)
		for i := range trace.Items {
			if trace.Items[i].Packed && usedIDs[trace.Items[i].VersionID] {
				trace.Items[i].Used = true
			}
		}
	}
	e.keepTrace(trace, nil, &out.Notes)
	return out, nil
}

// respondPrompt is the user message: the numbered items to cite, the
// packed context, and the question.
func respondPrompt(query string, res *Result) string {
	var b strings.Builder
	if len(res.Items) == 0 {
		b.WriteString("Memories: none.\n")
	} else {
		b.WriteString("Memories (cite them by number):\n")
		for i, it := range res.Items {
			text := strings.Join(strings.Fields(it.Content), " ")
			if len(text) > respondItemChars {
				text = clip(text, respondItemChars) + "…"
			}
			fmt.Fprintf(&b, "[%d] %s %s\n", i+1, it.Action, text)
		}
		b.WriteString("\nContext packed for the question:\n")
		b.WriteString(res.Context)
		if !strings.HasSuffix(res.Context, "\n") {
			b.WriteString("\n")
		}
	}
	b.WriteString("\nQuestion: ")
	b.WriteString(query)
	return b.String()
}

// parseAnswer checks the chat model's reply: a JSON object with a
// non-empty answer and the numbers of the items it used. Numbers outside
// 1..n are dropped with a note; repeats count once. Anything else is a
// model_bad_reply error.
func parseAnswer(content string, n int) (answer string, used []int, notes []string, err error) {
	var reply struct {
		Answer *string           `json:"answer"`
		Used   []json.RawMessage `json:"used"`
	}
	bad := func(format string, args ...any) error {
		return &memory.Error{Code: memory.CodeModelBadReply, Kind: memory.ErrModelBadReply,
			Message: "the chat provider's reply cannot be used: " + fmt.Sprintf(format, args...)}
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(content)), &reply); err != nil {
		return "", nil, nil, bad("the answer is not the JSON object asked for")
	}
	if reply.Answer == nil || strings.TrimSpace(*reply.Answer) == "" {
		return "", nil, nil, bad("the answer is empty")
	}
	var dropped []string
	seen := map[int]bool{}
	for _, raw := range reply.Used {
		k, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil {
			return "", nil, nil, bad("used holds %s, not an item number", clip(string(raw), 20))
		}
		if k < 1 || k > n {
			dropped = append(dropped, strconv.Itoa(k))
			continue
		}
		if !seen[k] {
			seen[k] = true
			used = append(used, k)
		}
	}
	slices.Sort(used)
	if len(dropped) > 0 {
		notes = append(notes, fmt.Sprintf("%s: the answer cited item %s, which it was not given; dropped", NoteRespondCitation, strings.Join(dropped, ", ")))
	}
	return strings.TrimSpace(*reply.Answer), used, notes, nil
}

// modelName is the model a reply names, or the configured one.
func modelName(replied, configured string) string {
	if replied == "" {
		return configured
	}
	return replied
}
