package engine_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
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
// embedded once, and the note, standing in for the episode, stores its
// half-precision vector, which decodes to what the write compared.
func TestRememberEmbedsEachTextOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	emb := &countingEmbedder{WordVectors: embed.NewWordVectors()}
	e, st := openCounting(t, emb)
	const text = "Fixed a flaky retry in the uploader when the queue drained early"
	res, err := e.Remember(ctx, engine.RememberParams{Namespace: "n", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if len(emb.texts) != 1 || emb.texts[0] != text {
		t.Fatalf("embedded %q, want the text once", emb.texts)
	}
	var note *memory.Version
	for _, o := range res.Outcomes {
		if o.Version != nil && o.Version.Kind != memory.KindEpisodic {
			note = o.Version
		}
	}
	if note == nil || note.Content != text {
		t.Fatalf("no note of the text: %+v", res.Outcomes)
	}
	want := search.Quantize(embed.NewWordVectors().Vector(text)).EncodeCompact()
	if !bytes.Equal(note.Embedding, want) || note.Embedding[0] != 2 {
		t.Fatalf("%s: embedding %d bytes, want the compact encoding of the text's vector (%d bytes)", note.ID, len(note.Embedding), len(want))
	}
	vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: "n"})
	if err != nil || len(vs) != 1 || vs[0].ID != note.ID {
		t.Fatalf("versions %+v, %v: want the note alone, standing in for its episode", vs, err)
	}
}

func openCounting(t *testing.T, emb *countingEmbedder) (*engine.Engine, *sqlite.Store) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
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
	return e, st
}

// A note standing in for its episode that a later statement replaces
// leaves the live set; the episode then gets its own episodic memory, so
// what was said stays findable as said.
func TestReplacedStandInNoteKeepsItsEpisode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, st := openCounting(t, &countingEmbedder{WordVectors: embed.NewWordVectors()})
	const (
		first  = "Flaky retry uploader queue drain deploy happened on the monday rollout"
		second = "Flaky retry uploader queue drain deploy happened on the friday hotfix"
	)
	a, err := e.Remember(ctx, engine.RememberParams{Namespace: "n", Text: first})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Remember(ctx, engine.RememberParams{Namespace: "n", Text: second})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Outcomes) != 1 || b.Outcomes[0].Operation != memory.OpSupersede || b.Outcomes[0].MemoryID != a.Outcomes[0].MemoryID {
		t.Fatalf("second statement: %+v; want it to replace the first note", b.Outcomes)
	}
	episodic := func(ep string) []*memory.Version {
		t.Helper()
		m, err := st.FindMemory(ctx, memory.FindMemoryParams{Namespace: "n", Subject: "user", Key: "episode:" + ep})
		if errors.Is(err, memory.ErrNotFound) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: "n", MemoryID: m.ID})
		if err != nil {
			t.Fatal(err)
		}
		return vs
	}
	for _, c := range []struct {
		name, ep, text string
	}{
		{"replaced note's episode", a.EpisodeID, first},
		{"replacing statement's episode", b.EpisodeID, second},
	} {
		vs := episodic(c.ep)
		if len(vs) != 1 || vs[0].Content != c.text || vs[0].Status != memory.StatusActive || len(vs[0].Embedding) == 0 {
			t.Fatalf("%s: episodic versions %+v, want one active with the text and a vector", c.name, vs)
		}
	}
	res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "n", Query: "monday rollout"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 || res.Items[0].Content != first {
		t.Fatalf("monday rollout: %+v, want the replaced statement as said", res.Items)
	}
}

// A remember whose note stands in for its episode logs one admission that
// says so, and that admission marks the episode extracted: an export
// imported elsewhere does not extract it again (which would reinforce the
// note with its own words).
func TestStandInAdmissionRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, st := openCounting(t, &countingEmbedder{WordVectors: embed.NewWordVectors()})
	res, err := e.Remember(ctx, engine.RememberParams{Namespace: "n", Text: "Fixed a flaky retry in the uploader when the queue drained early"})
	if err != nil {
		t.Fatal(err)
	}
	adms, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n", EpisodeID: res.EpisodeID})
	if err != nil {
		t.Fatal(err)
	}
	if len(adms) != 1 || adms[0].Extractor != "note" || !slices.Contains(adms[0].Reasons, "stands_in_for_episode") ||
		adms[0].Operation != memory.OpAdd || adms[0].VersionID != res.Outcomes[0].VersionID {
		t.Fatalf("admissions %+v: want the note's alone, saying it stands in for the episode", adms)
	}
	if got := res.Outcomes[0].Reasons; slices.Contains(got, "stands_in_for_episode") {
		t.Fatalf("outcome reasons %q: the answer is unchanged", got)
	}
	var buf bytes.Buffer
	if _, err := e.Export(ctx, "n", &buf); err != nil {
		t.Fatal(err)
	}
	stats, err := e.Import(ctx, "m", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Extracted != 0 || stats.Versions != 1 || stats.Admissions != 1 {
		t.Fatalf("import: %+v; want the one version and admission as they were, nothing extracted again", stats)
	}
	vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: "m"})
	if err != nil || len(vs) != 1 || vs[0].ReinforcementCount != 0 {
		t.Fatalf("imported versions %+v, %v", vs, err)
	}
}
