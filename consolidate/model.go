package consolidate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
)

// The model summariser: the chat model writes a session's summary (or a
// month's digest) in its own words, where the extractive one quotes. It
// is an option; the extractive summariser stays the default and is the
// fallback. A reply is used only if it is a summary: non-empty, within the
// token bound with its header, not cut off by the provider's length
// limit, and not an instruction to an agent (summaries are served to
// agents). Anything else, and any error, falls back to the extractive
// summary, and the summary version's provenance names who wrote it.

// ChatModel is a chat endpoint (*openai.Client).
type ChatModel interface {
	Chat(ctx context.Context, r openai.ChatRequest) (*openai.ChatReply, error)
	Config() openai.Config
}

// maxSummaryInput bounds the session text sent to the model, in bytes: a
// long session's tail is left out rather than the call refused.
const maxSummaryInput = 24 << 10

const summarySystem = `You write the long-term memory summary of a conversation between a user and an AI assistant.
Keep what it established: facts about the user and their people, preferences, decisions, constraints, plans and how tasks ended.
Write plain declarative sentences ("The user ..."), at most %d words, no lists, no headings, no preamble.
Never add anything the conversation does not say. Never write instructions to the assistant.
Reply with the summary text only.`

// ModelSummariser summarises with a chat model, falling back to Fallback.
type ModelSummariser struct {
	Chat     ChatModel
	Fallback Summariser   // nil: NewExtractiveSummariser()
	Logger   *slog.Logger // why a reply was not used; nil: discard
	// Spend, when set, is told the tokens each call used, for the
	// namespace's daily budget; Allowed, when set, says whether a call
	// may be made now (false: the fallback writes).
	Spend   func(ns string, tokens int)
	Allowed func(ns string) bool
}

// Name is the chat model's name in provenance.
func (m *ModelSummariser) Name() string { return "openai:" + m.Chat.Config().Model }

func (m *ModelSummariser) fallback() Summariser {
	if m.Fallback == nil {
		return NewExtractiveSummariser()
	}
	return m.Fallback
}

// Summarise asks the model; on any failure it returns the fallback's
// summary with By naming the fallback.
func (m *ModelSummariser) Summarise(ctx context.Context, in SummaryInput) (*Summary, error) {
	sum, reason := m.generate(ctx, in)
	if reason == "" {
		return sum, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	log := m.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	fb := m.fallback()
	log.Warn("model summary not used; the extractive summary is written instead", "session", in.SessionID, "model", m.Name(), "reason", reason)
	out, err := fb.Summarise(ctx, in)
	if err != nil {
		return nil, err
	}
	if out.By == "" {
		out.By = fb.Name()
	}
	return out, nil
}

// generate returns the model's summary, or why there is none.
func (m *ModelSummariser) generate(ctx context.Context, in SummaryInput) (*Summary, string) {
	if in.Count == nil {
		return nil, "no token counter"
	}
	if m.Allowed != nil && !m.Allowed(in.Namespace) {
		return nil, "the namespace used its daily model tokens"
	}
	header := in.Header
	if header == "" {
		header = sessionHeader(in.SessionID, in.Episodes)
	}
	room := in.MaxTokens - in.Count(header) - 1
	if room < 8 {
		return nil, "no room for a summary under its header"
	}
	var text strings.Builder
	for _, ep := range in.Episodes {
		line := strings.Join(strings.Fields(ep.Content), " ")
		if line == "" {
			continue
		}
		if ep.Speaker != "" {
			line = ep.Speaker + ": " + line
		}
		if text.Len()+len(line)+1 > maxSummaryInput {
			break
		}
		text.WriteString(line)
		text.WriteByte('\n')
	}
	if text.Len() == 0 {
		return nil, "nothing to summarise"
	}
	temp := 0.0
	words := max(room*3/4, 5) // about 4/3 tokens a word
	rep, err := m.Chat.Chat(ctx, openai.ChatRequest{
		Messages: []openai.Message{
			{Role: "system", Content: fmt.Sprintf(summarySystem, words)},
			{Role: "user", Content: text.String()},
		},
		MaxTokens: room + room/2, Temperature: &temp,
	})
	if rep != nil && m.Spend != nil {
		m.Spend(in.Namespace, rep.Usage.PromptTokens+rep.Usage.CompletionTokens)
	}
	if err != nil {
		return nil, "the chat call failed: " + publicText(err)
	}
	body := strings.Join(strings.Fields(rep.Content), " ")
	switch {
	case body == "":
		return nil, "the reply is empty"
	case rep.FinishReason == "length":
		return nil, "the reply was cut off at its length limit"
	}
	if bad, _ := extract.DetectInstruction(body); bad {
		return nil, "the reply reads as an instruction to an agent"
	}
	content := header + "\n" + body
	if n := in.Count(content); n > in.MaxTokens {
		return nil, fmt.Sprintf("the reply takes %d tokens with its header; the bound is %d", n, in.MaxTokens)
	}
	if !utf8.ValidString(content) {
		return nil, "the reply is not valid UTF-8"
	}
	return &Summary{Content: content, By: m.Name()}, ""
}

// publicText is an error's public message (a memory.Error's, without the
// endpoint its cause names), else its text.
func publicText(err error) string {
	var me *memory.Error
	if errors.As(err, &me) {
		return me.Message
	}
	return err.Error()
}
