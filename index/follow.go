package index

import (
	"context"
	"errors"
	"fmt"
	"time"

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
		if err := s.sync(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// SyncNamespace is Sync for the one namespace ns, when its index is held
// (a namespace not held is not loaded for it).
func (s *Set) SyncNamespace(ctx context.Context, ns string) error {
	st, ok := s.Loaded(ns)
	if !ok {
		return nil
	}
	return s.sync(ctx, st)
}

func (s *Set) sync(ctx context.Context, st *Namespace) error {
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
	return nil
}

// Lag returns, of the held namespaces whose index misses a committed
// change, the one that has missed changes the longest and for how long
// at most: the time since its index was last known to hold the whole log
// (see Namespace.currentAt). It returns "" and 0 when every held index is
// current. It reads the store only for a namespace not known current
// within the last fresh (one query each), so a follower keeping up costs
// nothing here.
func (s *Set) Lag(ctx context.Context, fresh time.Duration) (string, time.Duration, error) {
	var (
		worst string
		lag   time.Duration
	)
	now := time.Now()
	for _, st := range s.held() {
		at := st.currentAt.Load()
		if at == 0 {
			continue // loading: it starts from the log's end
		}
		behind := now.Sub(time.Unix(0, at))
		if behind <= fresh || behind <= lag {
			continue
		}
		st.writeMu.Lock()
		seq := st.changeSeq
		st.writeMu.Unlock()
		last, err := s.cfg.Store.LastChange(ctx, memory.ScanParams{Namespace: st.name})
		if err != nil {
			return "", 0, fmt.Errorf("index lag of namespace %q: %w", st.name, err)
		}
		if last <= seq {
			continue // nothing missed, only not synced lately
		}
		worst, lag = st.name, behind
	}
	return worst, lag, nil
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
	start := time.Now()
	for {
		changes, err := s.cfg.Store.ListChanges(ctx, memory.ListChangesParams{Namespace: st.name, After: st.changeSeq, Limit: followBatch})
		if err != nil {
			return err
		}
		if len(changes) == 0 {
			st.currentAt.Store(start.UnixNano())
			return nil
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
			st.currentAt.Store(start.UnixNano())
			return nil
		}
	}
}
