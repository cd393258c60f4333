package locomo

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/mnemon-dev/mnemon/bench"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/tokens"
	"github.com/mnemon-dev/mnemon/memory"
)

// Content is the text a turn is stored and indexed as: "<speaker>: <text>".
func Content(t Turn) string { return t.Speaker + ": " + t.Text }

// BM25Arm is the reference: plain BM25 over the turns of each
// conversation (see bench.BM25), each hit one turn.
type BM25Arm struct {
	counter *tokens.Counter
	indexes map[string]*bm25Conv // by sample id, built on first question
}

type bm25Conv struct {
	ix     *bench.BM25
	turns  []string // turn id by document position
	tokens []int
}

// NewBM25Arm returns the BM25 reference arm.
func NewBM25Arm() (*BM25Arm, error) {
	c, err := tokens.NewCounter()
	if err != nil {
		return nil, err
	}
	return &BM25Arm{counter: c, indexes: make(map[string]*bm25Conv)}, nil
}

// Name implements Arm.
func (a *BM25Arm) Name() string { return "bm25" }

// Retrieve implements Arm.
func (a *BM25Arm) Retrieve(_ context.Context, s *Sample, question string, k int) ([]Item, error) {
	c := a.indexes[s.ID]
	if c == nil {
		c = &bm25Conv{}
		var texts []string
		for _, ss := range s.Sessions {
			for _, t := range ss.Turns {
				texts = append(texts, Content(t))
				c.turns = append(c.turns, t.ID)
				c.tokens = append(c.tokens, a.counter.Count(Content(t)))
			}
		}
		c.ix = bench.NewBM25(texts)
		a.indexes[s.ID] = c
	}
	var out []Item
	for _, d := range c.ix.Search(question, k) {
		out = append(out, Item{Turns: []string{c.turns[d]}, Tokens: c.tokens[d]})
	}
	return out, nil
}

// Corpus is the conversations as stored in a mnemon database: which
// namespace holds each, and which turn each episode records. Engines
// opened on the same store share it.
type Corpus struct {
	namespaces map[string]string // sample id → namespace
	turnOf     map[string]string // episode id → turn id
}

// Namespace is where a conversation is stored: one namespace each.
func Namespace(sampleID string) string { return "locomo-" + sampleID }

// Ingest captures every turn of the samples into eng through the capture
// path (so extraction runs as in production): one namespace per
// conversation, one capture per session, each turn an episode spoken by its
// speaker at the session's time plus i seconds, its dia_id as metadata only.
func Ingest(ctx context.Context, eng *engine.Engine, samples []Sample, progress *bench.Progress) (*Corpus, error) {
	c := &Corpus{namespaces: make(map[string]string), turnOf: make(map[string]string)}
	for i := range samples {
		s := &samples[i]
		ns := Namespace(s.ID)
		c.namespaces[s.ID] = ns
		for _, ss := range s.Sessions {
			if len(ss.Turns) == 0 {
				continue
			}
			evs := make([]engine.Event, len(ss.Turns))
			for j, t := range ss.Turns {
				evs[j] = engine.Event{
					Kind: memory.EpisodeUserMessage, Content: Content(t), Speaker: t.Speaker,
					OccurredAt: ss.Time.Add(time.Duration(j) * time.Second),
					Metadata:   map[string]string{"dia_id": t.ID},
				}
			}
			res, err := eng.Capture(ctx, engine.CaptureParams{Namespace: ns, Events: evs})
			if err != nil {
				return nil, fmt.Errorf("ingest %s session %d: %w", s.ID, ss.N, err)
			}
			if err := c.record(s, ss, res.EpisodeIDs); err != nil {
				return nil, err
			}
			progress.Add(len(ss.Turns))
		}
	}
	return c, nil
}

// EngineArm retrieves with a mnemon engine over an ingested corpus.
type EngineArm struct {
	name   string
	eng    *engine.Engine
	corpus *Corpus
	opt    EngineOptions
}

// EngineOptions are the retrieval parameters an engine arm varies.
type EngineOptions struct {
	Disable []string // channels switched off
	Context int      // neighbouring episodes shown with each episode
}

// NewEngineArm returns an arm named name retrieving from eng, which must
// serve the store corpus was ingested into.
func NewEngineArm(name string, eng *engine.Engine, corpus *Corpus, opt EngineOptions) *EngineArm {
	return &EngineArm{name: name, eng: eng, corpus: corpus, opt: opt}
}

// Name implements Arm.
func (a *EngineArm) Name() string { return a.name }

// Retrieve implements Arm. The token budget is the largest allowed, so
// ranking alone decides what the top k is.
func (a *EngineArm) Retrieve(ctx context.Context, s *Sample, question string, k int) ([]Item, error) {
	return a.RetrieveWithin(ctx, s, question, k, engine.MaxTokenBudget)
}

// RetrieveWithin implements BudgetArm: the engine packs within budget, as
// it does for a caller that names one.
func (a *EngineArm) RetrieveWithin(ctx context.Context, s *Sample, question string, k, budget int) ([]Item, error) {
	ns, ok := a.corpus.namespaces[s.ID]
	if !ok {
		return nil, fmt.Errorf("conversation %s was not ingested", s.ID)
	}
	res, err := a.eng.Retrieve(ctx, engine.RetrieveParams{
		Namespace: ns, Query: question, Limit: k, TokenBudget: budget,
		Disable: a.opt.Disable, Context: a.opt.Context,
	})
	if err != nil {
		return nil, err
	}
	out := make([]Item, 0, len(res.Items))
	for _, it := range res.Items {
		item := a.corpus.item(it.EpisodeIDs, it.Tokens)
		item.Kind, item.Type, item.Score, item.Content = string(it.Kind), string(it.Type), it.Score, it.Content
		for ch := range it.Channels {
			item.Channels = append(item.Channels, ch)
		}
		sort.Strings(item.Channels)
		out = append(out, item)
	}
	return out, nil
}

// record maps the episodes a session was captured as to its turns.
func (c *Corpus) record(s *Sample, ss Session, episodeIDs []string) error {
	if len(episodeIDs) != len(ss.Turns) {
		return fmt.Errorf("ingest %s session %d: %d episodes for %d turns", s.ID, ss.N, len(episodeIDs), len(ss.Turns))
	}
	for j, id := range episodeIDs {
		c.turnOf[id] = ss.Turns[j].ID
	}
	return nil
}

// item is a retrieved item as the turns its episodes record.
func (c *Corpus) item(episodeIDs []string, tokens int) Item {
	var turns []string
	for _, ep := range episodeIDs {
		if t, ok := c.turnOf[ep]; ok {
			turns = append(turns, t)
		}
	}
	return Item{Turns: turns, Tokens: tokens}
}
