package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemon-dev/mnemon/memory"
)

// Following the store's change log. A namespace's index is built from the
// store once and then kept current by this process's own writes; versions
// another process writes (a 'mnemon worker' beside 'mnemon serve', another
// server on the same database) reach it through the change log, which the
// store appends to on every version write.

// followBatch bounds the changes read in one step.
const followBatch = 512

// Sync applies to the index of every loaded namespace what other
// processes wrote since it was loaded or last synced. A write of this
// engine's own is recognised (its version is indexed with the same
// updated_at) and skipped without reading it again; every write
// sets updated_at from the clock, so two writes of one version share it
// only if the clock stood still between them.
func (s *Set) Sync(ctx context.Context) error {
	for _, st := range s.held() {
		err := s.syncNamespace(ctx, st)
		if errors.Is(err, memory.ErrChangesPruned) {
			// This index stood before the log's horizon (the process was
			// paused longer than Compact keeps entries): some writes can
			// no longer be read one by one, so the namespace is read again.
			s.cfg.Logger.Info("change log pruned past this index; reloading the namespace", "namespace", st.name)
			err = s.Rebuild(ctx, st.name)
		}
		if err != nil {
			return fmt.Errorf("sync namespace %q: %w", st.name, err)
		}
	}
	return nil
}

func (s *Set) syncNamespace(ctx context.Context, st *Namespace) error {
	// The writer lock orders the follower with this process's writers, so
	// an index update never goes back in time.
	st.writeMu.Lock()
	defer st.writeMu.Unlock()
	st.loadMu.Lock()
	loaded := st.loaded
	st.loadMu.Unlock()
	if !loaded {
		return nil // a load in progress starts from the log's end itself
	}
	if !s.current(st) {
		return nil // replaced by a Rebuild, which read everything again
	}
	for {
		changes, err := s.cfg.Store.ListChanges(ctx, memory.ListChangesParams{Namespace: st.name, After: st.changeSeq, Limit: followBatch})
		if err != nil || len(changes) == 0 {
			return err
		}
		var ids []string
		seen := make(map[string]bool, len(changes))
		for _, c := range changes {
			if en, ok := st.Entry(c.VersionID); ok && en.V.UpdatedAt.Equal(c.UpdatedAt) {
				continue // indexed as written: ours, or applied already
			}
			if !seen[c.VersionID] {
				seen[c.VersionID] = true
				ids = append(ids, c.VersionID)
			}
		}
		if len(ids) > 0 {
			vs, err := s.cfg.Store.ListVersions(ctx, memory.ListVersionsParams{Namespace: st.name, IDs: ids})
			if err != nil {
				return err
			}
			found := make(map[string]bool, len(vs))
			for _, v := range vs {
				found[v.ID] = true
			}
			for _, id := range ids {
				if !found[id] {
					st.Drop(id) // deleted since (old history pruned by Compact)
				}
			}
			for _, v := range vs {
				if en, ok := st.Entry(v.ID); ok && en.V.Provenance.Embedder == v.Provenance.Embedder && en.V.Provenance.EmbedderDim == v.Provenance.EmbedderDim {
					// A version's claim never changes: only its state,
					// and its vector when it is re-embedded.
					st.UpdateState(v)
					continue
				}
				doc, err := s.Doc(v)
				if err != nil {
					return err
				}
				st.Put(v, doc)
			}
		}
		st.changeSeq = changes[len(changes)-1].Seq
		if len(changes) < followBatch {
			return nil
		}
	}
}
