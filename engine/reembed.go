package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/memory"
)

// Re-embedding. Vectors of different embedders (Name or Dim) are not
// comparable, so a database written with another embedder than the
// engine's has memories the semantic channel cannot see (the lexical and
// other channels still find them). Reembed gives them vectors of the
// current embedder, a batch at a time, each batch committed on its own:
// whatever a run finished stays done, and the next run (the maintenance
// job's, after a restart or a kill) carries on with what is left, found
// again by the provenance each version records.

// DefaultReembedLimit bounds the versions one Reembed call re-embeds.
const DefaultReembedLimit = 5000

// reembedBatch is the versions embedded and written in one transaction:
// small enough that writers waiting for the namespace's lock wait a few
// milliseconds, large enough to amortise the transaction.
const reembedBatch = 128

// reembedBatchSize is reembedBatch unless a test made it smaller
// (SetReembedBatchForTest) to need fewer versions for several batches.
func (e *Engine) reembedBatchSize() int {
	if e.testReembedBatch > 0 {
		return e.testReembedBatch
	}
	return reembedBatch
}

// ReembedParams runs re-embedding over one namespace.
type ReembedParams struct {
	Namespace string
	// Limit bounds the versions re-embedded in this call (default
	// DefaultReembedLimit); More in the report says some are left.
	Limit int
	// Progress, when set, is called after every committed batch.
	Progress func(done, total int)
}

// ReembedReport says what one Reembed call did.
type ReembedReport struct {
	Namespace string `json:"namespace"`
	Embedder  string `json:"embedder"`
	// Stale is how many versions carried another embedder's vectors when
	// the call started; Reembedded how many of them it re-embedded.
	Stale      int  `json:"stale"`
	Reembedded int  `json:"reembedded"`
	More       bool `json:"more"`
}

// StaleEmbeddings counts the indexed versions of ns whose vectors come from
// another embedder than the engine's.
func (e *Engine) StaleEmbeddings(ctx context.Context, ns string) (int, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return 0, fmt.Errorf("stale embeddings: %w", err)
	}
	st, err := e.namespace(ctx, ns)
	if err != nil {
		return 0, fmt.Errorf("stale embeddings: %w", err)
	}
	return len(st.StaleEmbeddings(e.embedder.Name(), e.embedder.Dim())), nil
}

// StaleEmbeddingsAll counts StaleEmbeddings over every namespace.
func (e *Engine) StaleEmbeddingsAll(ctx context.Context) (int, error) {
	nss, err := e.store.Namespaces(ctx)
	if err != nil {
		return 0, fmt.Errorf("stale embeddings: %w", err)
	}
	total := 0
	for _, ns := range nss {
		n, err := e.StaleEmbeddings(ctx, ns)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// Reembed re-embeds up to p.Limit versions of the namespace that carry
// another embedder's vectors. Retrieval keeps serving meanwhile; a version
// is searchable by its old vector's words until its batch commits.
func (e *Engine) Reembed(ctx context.Context, p ReembedParams) (*ReembedReport, error) {
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("reembed: %w", err)
	}
	if p.Limit < 0 {
		return nil, fmt.Errorf("reembed: %w", memory.Invalidf("limit %d: must not be negative", p.Limit))
	}
	if p.Limit == 0 {
		p.Limit = DefaultReembedLimit
	}
	name, dim := e.embedder.Name(), e.embedder.Dim()
	rep := &ReembedReport{Namespace: ns, Embedder: name}
	if held, err := e.HasNamespace(ctx, ns); err != nil || !held {
		return rep, err
	}
	st, err := e.namespace(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("reembed: %w", err)
	}
	stale := st.StaleEmbeddings(name, dim)
	rep.Stale = len(stale)
	if len(stale) > p.Limit {
		stale, rep.More = stale[:p.Limit], true
	}
	for len(stale) > 0 {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("reembed: %w", err)
		}
		n := min(e.reembedBatchSize(), len(stale))
		done, err := e.reembedBatch(ctx, ns, stale[:n])
		rep.Reembedded += done
		if err != nil {
			return rep, fmt.Errorf("reembed: %w", err)
		}
		stale = stale[n:]
		if p.Progress != nil {
			p.Progress(rep.Reembedded, rep.Stale)
		}
	}
	if !rep.More {
		// The namespace's new vectors are complete: queries stop
		// searching the old ones (see models.go).
		e.reembedDone(ns)
	}
	return rep, nil
}

// reembedBatch re-embeds the versions ids in one transaction, holding the
// namespace's writer lock so no reconciliation changes them between the
// read and the index update.
func (e *Engine) reembedBatch(ctx context.Context, ns string, ids []string) (int, error) {
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return 0, err
	}
	defer unlock()
	name, dim := e.embedder.Name(), e.embedder.Dim()
	vs, err := e.store.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, IDs: ids})
	if err != nil {
		return 0, err
	}
	// Read again under the lock: a version may be re-embedded already (by
	// another process) or deleted since the list was made.
	vs = slices.DeleteFunc(vs, func(v *memory.Version) bool {
		return !index.Indexable(v) || (v.Provenance.Embedder == name && v.Provenance.EmbedderDim == dim)
	})
	if len(vs) == 0 {
		return 0, nil
	}
	texts := make([]string, len(vs))
	for i, v := range vs {
		texts[i] = v.Content
	}
	vecs, err := e.embedder.Embed(ctx, texts)
	if err != nil {
		return 0, fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != len(texts) {
		return 0, fmt.Errorf("embed: %d vectors for %d texts", len(vecs), len(texts))
	}
	now := e.clock.Now()
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		for i, v := range vs {
			v.Embedding = nil
			if !vecs[i].IsZero() {
				v.Embedding = vecs[i].EncodeCompact()
			}
			v.Provenance.Embedder, v.Provenance.EmbedderDim = name, dim
			if err := tx.SetEmbedding(ctx, memory.SetEmbeddingParams{
				Namespace: ns, ID: v.ID, Embedding: v.Embedding, Embedder: name, EmbedderDim: dim, ChangedAt: now,
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, v := range vs {
		doc, err := e.index.Doc(v)
		if err != nil {
			return 0, err
		}
		st.Put(v, doc)
	}
	return len(vs), nil
}

// ReembedAll re-embeds every namespace's stale versions, to the end, in name
// order; progress, when set, is called after every committed batch. A
// namespace that fails does not stop the others.
func (e *Engine) ReembedAll(ctx context.Context, progress func(ns string, done, total int)) ([]*ReembedReport, error) {
	nss, err := e.store.Namespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("reembed: %w", err)
	}
	var (
		reps []*ReembedReport
		errs []error
	)
	for _, ns := range nss {
		p := ReembedParams{Namespace: ns, Limit: math.MaxInt}
		if progress != nil {
			p.Progress = func(done, total int) { progress(ns, done, total) }
		}
		rep, err := e.Reembed(ctx, p)
		if rep != nil {
			reps = append(reps, rep)
		}
		if err != nil {
			if ctx.Err() != nil {
				return reps, err
			}
			errs = append(errs, err)
		}
	}
	return reps, errors.Join(errs...)
}
