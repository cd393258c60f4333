package openai

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// DefaultBatchSize is how many texts one embeddings request carries when
// the config does not say: within what OpenAI, Ollama and llama.cpp
// server accept in one request.
const DefaultBatchSize = 64

// Embedder is an embed.Embedder backed by an embeddings endpoint. Its
// Name, "openai:<model>@<dims>", goes into every embedding's provenance,
// so switching model or size makes the stored vectors stale and the
// re-embedding job replaces them.
type Embedder struct {
	client *Client
	dims   int
	batch  int
}

var _ embed.Embedder = (*Embedder)(nil)

// NewEmbedder returns an embedder calling client's endpoint. dims is the
// length of the model's vectors (a reply of another length is refused);
// batchSize the texts per request (0: DefaultBatchSize).
func NewEmbedder(client *Client, dims, batchSize int) (*Embedder, error) {
	if dims <= 0 {
		return nil, memory.FieldInvalidf(memory.CodeInvalid, "dimensions", "dimensions %d: set it to the length of the model's vectors (mnemon doctor reports it)", dims)
	}
	if batchSize < 0 {
		return nil, memory.FieldInvalidf(memory.CodeInvalid, "batch_size", "batch_size %d: must not be negative (0 gives the default, %d)", batchSize, DefaultBatchSize)
	}
	if batchSize == 0 {
		batchSize = DefaultBatchSize
	}
	return &Embedder{client: client, dims: dims, batch: batchSize}, nil
}

// Name is "openai:<model>@<dims>": the API the vectors came through, the
// model and the size.
func (e *Embedder) Name() string {
	return "openai:" + e.client.cfg.Model + "@" + strconv.Itoa(e.dims)
}

// Dim is the configured dimensions.
func (e *Embedder) Dim() int { return e.dims }

// Embed returns one dense, L2-normalised vector per text, one request per
// batch of texts. Blank texts are not sent (providers refuse empty
// input) and get a zero vector, as the built-in embedders give text with
// no words.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([]search.Vector, error) {
	out := make([]search.Vector, len(texts))
	var (
		batch []string
		at    []int // batch[i] is texts[at[i]]
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		rep, err := e.client.Embed(ctx, batch, e.dims)
		if err != nil {
			return err
		}
		for i, v := range rep.Vectors {
			vec := search.Vector{Dim: e.dims, Values: v}
			search.Normalize(&vec)
			if allZero(v) {
				vec = search.Vector{}
			}
			out[at[i]] = vec
		}
		batch, at = batch[:0], at[:0]
		return nil
	}
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue
		}
		batch, at = append(batch, t), append(at, i)
		if len(batch) == e.batch {
			if err := flush(); err != nil {
				return nil, fmt.Errorf("embed: %w", err)
			}
		}
	}
	if err := flush(); err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	return out, nil
}

func allZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// Client is the client the embedder calls.
func (e *Embedder) Client() *Client { return e.client }

// Close releases the client's idle connections.
func (e *Embedder) Close() { e.client.Close() }
