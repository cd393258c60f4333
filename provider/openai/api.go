package openai

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"time"
)

// Usage is a reply's token count, as the provider reports it (zero when it
// reports none).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Embeddings is the reply of one embeddings call: one vector per input, in
// input order.
type Embeddings struct {
	Model   string // as the provider names it ("" when it does not say)
	Vectors [][]float32
	Usage   Usage
}

type embeddingsRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type embeddingsReply struct {
	Model string `json:"model"`
	Data  []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage Usage `json:"usage"`
}

// Embed calls POST {base}/embeddings with inputs in one request. The reply
// must hold exactly one finite vector per input, all of one length;
// anything else is a model_bad_reply error. dims, when positive, is the
// length every vector must have.
func (c *Client) Embed(ctx context.Context, inputs []string, dims int) (*Embeddings, error) {
	if len(inputs) == 0 {
		return &Embeddings{Model: c.cfg.Model}, nil
	}
	var rep embeddingsReply
	req := embeddingsRequest{Model: c.cfg.Model, Input: inputs, EncodingFormat: "float"}
	began := time.Now()
	if err := c.post(ctx, "embeddings", "/embeddings", req, &rep); err != nil {
		c.observe(ctx, "embeddings", time.Since(began), Usage{}, true)
		return nil, err
	}
	c.observe(ctx, "embeddings", time.Since(began), rep.Usage, false)
	if len(rep.Data) != len(inputs) {
		return nil, c.badReply("embeddings", nil, "%d vectors for %d inputs", len(rep.Data), len(inputs))
	}
	out := &Embeddings{Model: rep.Model, Vectors: make([][]float32, len(inputs)), Usage: rep.Usage}
	want := dims
	for _, d := range rep.Data {
		if d.Index < 0 || d.Index >= len(inputs) || out.Vectors[d.Index] != nil {
			return nil, c.badReply("embeddings", nil, "vector index %d is out of range or repeated", d.Index)
		}
		if want <= 0 {
			want = len(d.Embedding)
		}
		if len(d.Embedding) != want || want == 0 {
			if dims > 0 {
				return nil, c.badReply("embeddings", nil, "model %s returned %d dimensions; dimensions is set to %d: set it to what the model returns (stored memories are then re-embedded)", c.cfg.Model, len(d.Embedding), dims)
			}
			return nil, c.badReply("embeddings", nil, "vectors of %d and %d dimensions in one reply", want, len(d.Embedding))
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
				return nil, c.badReply("embeddings", nil, "vector %d holds a value that is not a finite number", d.Index)
			}
			v[i] = float32(x)
		}
		out.Vectors[d.Index] = v
	}
	return out, nil
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

// JSONSchema asks for a reply that is a JSON document of this schema
// (response_format json_schema; providers without structured outputs
// ignore it, so callers validate the reply themselves).
type JSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// ChatRequest is one chat completion.
type ChatRequest struct {
	Messages []Message
	// Schema, when set, asks for a JSON reply of this schema; Chat then
	// checks that the reply is JSON (not that it fits the schema).
	Schema      *JSONSchema
	MaxTokens   int      // 0: the provider's default
	Temperature *float64 // nil: the provider's default
}

// ChatReply is the first choice of a chat completion.
type ChatReply struct {
	Model        string
	Content      string
	FinishReason string
	Usage        Usage
}

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

type chatReply struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage Usage `json:"usage"`
}

// Chat calls POST {base}/chat/completions and returns the first choice. A
// reply with no choice or no content, or with text that is not JSON when
// r.Schema asked for JSON, is a model_bad_reply error; the reply is then
// returned too (for its usage), never to be used as an answer.
func (c *Client) Chat(ctx context.Context, r ChatRequest) (*ChatReply, error) {
	req := chatRequest{Model: c.cfg.Model, Messages: r.Messages, MaxTokens: r.MaxTokens, Temperature: r.Temperature}
	if r.Schema != nil {
		req.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: r.Schema}
	}
	var rep chatReply
	began := time.Now()
	if err := c.post(ctx, "chat", "/chat/completions", req, &rep); err != nil {
		c.observe(ctx, "chat", time.Since(began), Usage{}, true)
		return nil, err
	}
	took := time.Since(began)
	if len(rep.Choices) == 0 || rep.Choices[0].Message.Content == nil {
		c.observe(ctx, "chat", took, rep.Usage, true)
		return &ChatReply{Model: rep.Model, Usage: rep.Usage}, c.badReply("chat", nil, "no choice with content")
	}
	out := &ChatReply{Model: rep.Model, Content: *rep.Choices[0].Message.Content, FinishReason: rep.Choices[0].FinishReason, Usage: rep.Usage}
	if r.Schema != nil && !json.Valid([]byte(strings.TrimSpace(out.Content))) {
		c.observe(ctx, "chat", took, rep.Usage, true)
		return out, c.badReply("chat", nil, "a JSON reply was asked for and the content is not JSON")
	}
	c.observe(ctx, "chat", took, rep.Usage, false)
	return out, nil
}

// Rerank calls POST {base}/rerank, the cross-encoder endpoint of Text
// Embeddings Inference, Jina, Cohere, vLLM and llama.cpp server (not part
// of the OpenAI API), and returns one relevance score per document, in
// document order. Both reply shapes in use are read: TEI's bare array of
// {"index", "score"} and the {"results": [{"index", "relevance_score"}]}
// of Jina and Cohere. A reply that does not score every document once,
// with a finite number, is a model_bad_reply error.
func (c *Client) Rerank(ctx context.Context, query string, docs []string) ([]float64, Usage, error) {
	if len(docs) == 0 {
		return nil, Usage{}, nil
	}
	req := map[string]any{
		"model": c.cfg.Model, "query": query,
		"documents": docs, // Jina, Cohere, vLLM, llama.cpp
		"texts":     docs, // TEI
		"top_n":     len(docs),
	}
	var raw json.RawMessage
	began := time.Now()
	if err := c.post(ctx, "rerank", "/rerank", req, &raw); err != nil {
		c.observe(ctx, "rerank", time.Since(began), Usage{}, true)
		return nil, Usage{}, err
	}
	type scored struct {
		Index          *int     `json:"index"`
		Score          *float64 `json:"score"`
		RelevanceScore *float64 `json:"relevance_score"`
	}
	var (
		list  []scored
		usage Usage
	)
	if err := json.Unmarshal(raw, &list); err != nil {
		var obj struct {
			Results []scored `json:"results"`
			Usage   Usage    `json:"usage"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil || obj.Results == nil {
			c.observe(ctx, "rerank", time.Since(began), Usage{}, true)
			return nil, Usage{}, c.badReply("rerank", nil, "the reply is neither a list of scores nor {\"results\": [...]}")
		}
		list, usage = obj.Results, obj.Usage
	}
	c.observe(ctx, "rerank", time.Since(began), usage, false)
	scores := make([]float64, len(docs))
	seen := make([]bool, len(docs))
	for _, s := range list {
		v := s.Score
		if v == nil {
			v = s.RelevanceScore
		}
		switch {
		case s.Index == nil || v == nil:
			return nil, usage, c.badReply("rerank", nil, "a result has no index or no score")
		case *s.Index < 0 || *s.Index >= len(docs) || seen[*s.Index]:
			return nil, usage, c.badReply("rerank", nil, "result index %d is out of range or repeated", *s.Index)
		case math.IsNaN(*v) || math.IsInf(*v, 0):
			return nil, usage, c.badReply("rerank", nil, "result %d's score is not a finite number", *s.Index)
		}
		scores[*s.Index], seen[*s.Index] = *v, true
	}
	for i, ok := range seen {
		if !ok {
			return nil, usage, c.badReply("rerank", nil, "document %d has no score (%d results for %d documents)", i, len(list), len(docs))
		}
	}
	return scores, usage, nil
}
