package engine_test

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// countingEmbedder is the default embedder, counting the texts it is given.
type countingEmbedder struct {
	*embed.WordVectors
	mu    sync.Mutex
	texts []string
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([]search.Vector, error) {
	c.mu.Lock()
	c.texts = append(c.texts, texts...)
	c.mu.Unlock()
	return c.WordVectors.Embed(ctx, texts)
}

// A remembered statement kept as a note has its episode's very text: it is
// embedded once, and the note and the episodic memory store the same
// half-precision vector, which decodes to what the write compared.
func TestRememberEmbedsEachTextOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	emb := &countingEmbedder{WordVectors: embed.NewWordVectors()}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Config{Store: st, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		st.Close()
	})
	const text = "Fixed a flaky retry in the uploader when the queue drained early"
	res, err := e.Remember(ctx, engine.RememberParams{Namespace: "n", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if len(emb.texts) != 1 || emb.texts[0] != text {
		t.Fatalf("embedded %q, want the text once", emb.texts)
	}
	var note, episode *memory.Version
	for _, o := range res.Outcomes {
		if o.Version != nil && o.Version.Kind != memory.KindEpisodic {
			note = o.Version
		}
	}
	if note == nil || note.Content != text {
		t.Fatalf("no note of the text: %+v", res.Outcomes)
	}
	m, err := st.FindMemory(ctx, memory.FindMemoryParams{Namespace: "n", Subject: "user", Key: "episode:" + res.EpisodeID})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: "n", MemoryID: m.ID})
	if err != nil || len(vs) != 1 || vs[0].Content != text {
		t.Fatalf("episodic memory: %+v %v", vs, err)
	}
	episode = vs[0]
	want := search.Quantize(embed.NewWordVectors().Vector(text)).EncodeCompact()
	for _, v := range []*memory.Version{note, episode} {
		if !bytes.Equal(v.Embedding, want) || v.Embedding[0] != 2 {
			t.Fatalf("%s: embedding %d bytes, want the compact encoding of the text's vector (%d bytes)", v.ID, len(v.Embedding), len(want))
		}
	}
}
