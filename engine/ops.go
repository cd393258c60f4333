package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// FactsParams lists semantic and procedural memories.
type FactsParams struct {
	Namespace      string
	IncludeHistory bool // also superseded, expired and contested-away versions
	Subject        string
	Limit          int // 0: all
}

// Facts lists distilled memories (not episodes), current ones first, then by
// subject, key and version.
func (e *Engine) Facts(ctx context.Context, p FactsParams) ([]*memory.Version, error) {
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("facts: %w", err)
	}
	statuses := []memory.Status{memory.StatusActive, memory.StatusContested}
	if p.IncludeHistory {
		statuses = append(statuses, memory.StatusSuperseded, memory.StatusExpired)
	}
	vs, err := e.store.ListVersions(ctx, memory.ListVersionsParams{
		Namespace: ns, Kinds: []memory.Kind{memory.KindSemantic, memory.KindProcedural},
		Statuses: statuses, Subject: p.Subject,
	})
	if err != nil {
		return nil, fmt.Errorf("facts: %w", err)
	}
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if a.Status.Live() != b.Status.Live() {
			return a.Status.Live()
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return a.Seq < b.Seq
	})
	if p.Limit > 0 && len(vs) > p.Limit {
		vs = vs[:p.Limit]
	}
	return vs, nil
}

// MemoryView is a memory with every version and its admission log; or, for
// an episode id, the episode and the decisions about it (Memory nil).
type MemoryView struct {
	Memory     *memory.Memory      `json:"memory"`
	Versions   []*memory.Version   `json:"versions"`
	Admissions []*memory.Admission `json:"admissions"`
	Episodes   []*memory.Episode   `json:"episodes"`
	Episode    *memory.Episode     `json:"episode,omitempty"`
}

// SplitVersionRef splits a version reference in the form remember prints
// it, mem_…@v2, into the memory id and the version's number; a reference
// without the @vN suffix comes back whole, with 0.
func SplitVersionRef(ref string) (string, int) {
	at := strings.LastIndex(ref, "@v")
	if at <= 0 {
		return ref, 0
	}
	digits := ref[at+2:]
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return ref, 0
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 {
		return ref, 0
	}
	return ref[:at], n
}

// Show returns what id names, in every form `mnemon show` and GET
// /v1/memories/{id} take: a memory (mem_…) or one of its versions (ver_…,
// or mem_…@v2), with every version of the memory, the admission decisions
// about it and the episodes it cites; or an episode (ep_…), with the
// decisions about it.
func (e *Engine) Show(ctx context.Context, ns, id string) (*MemoryView, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("show: %w", err)
	}
	id = strings.TrimSpace(id)
	if ids.HasPrefix(id, ids.Episode) {
		return e.showEpisode(ctx, ns, id)
	}
	memID, seq := SplitVersionRef(id)
	if seq > 0 && !ids.HasPrefix(memID, ids.Memory) {
		return nil, fmt.Errorf("show %s: %w", id, memory.ErrNotFound) // only a memory id numbers its versions
	}
	if ids.HasPrefix(id, ids.Version) {
		v, err := e.store.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: id})
		if err != nil {
			return nil, fmt.Errorf("show %s: %w", id, err)
		}
		memID = v.MemoryID
	}
	m, err := e.store.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: memID})
	if err != nil {
		return nil, fmt.Errorf("show %s: %w", id, err)
	}
	vs, err := e.store.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: m.ID})
	if err != nil {
		return nil, fmt.Errorf("show %s: %w", id, err)
	}
	if seq > 0 && !slices.ContainsFunc(vs, func(v *memory.Version) bool { return v.Seq == seq }) {
		return nil, fmt.Errorf("show %s: %w", id, memory.ErrNotFound)
	}
	adms, err := e.store.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, MemoryID: m.ID})
	if err != nil {
		return nil, fmt.Errorf("show %s: %w", id, err)
	}
	var epIDs []string
	seen := map[string]bool{}
	for _, v := range vs {
		for _, ep := range v.EvidenceEpisodeIDs {
			if !seen[ep] {
				seen[ep] = true
				epIDs = append(epIDs, ep)
			}
		}
	}
	var eps []*memory.Episode
	if len(epIDs) > 0 {
		eps, err = e.store.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, IDs: epIDs})
		if err != nil {
			return nil, fmt.Errorf("show %s: %w", id, err)
		}
	}
	return &MemoryView{Memory: m, Versions: vs, Admissions: adms, Episodes: eps}, nil
}

// showEpisode returns an episode and the admission decisions about it, in
// the order they were made.
func (e *Engine) showEpisode(ctx context.Context, ns, id string) (*MemoryView, error) {
	ep, err := e.store.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: id})
	if err != nil {
		return nil, fmt.Errorf("show %s: %w", id, err)
	}
	adms, err := e.store.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, EpisodeID: id})
	if err != nil {
		return nil, fmt.Errorf("show %s: %w", id, err)
	}
	if adms == nil {
		adms = []*memory.Admission{}
	}
	sort.SliceStable(adms, func(i, j int) bool { return adms[i].ID < adms[j].ID })
	return &MemoryView{Versions: []*memory.Version{}, Admissions: adms, Episodes: []*memory.Episode{ep}, Episode: ep}, nil
}

// Trace returns a retrieval's trace, including one still being written.
func (e *Engine) Trace(ctx context.Context, ns, id string) (*memory.Trace, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if t, ok := e.traces.Get(ns, id); ok {
		return t, nil
	}
	t, err := e.store.GetTrace(ctx, memory.GetParams{Namespace: ns, ID: id})
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", id, err)
	}
	return t, nil
}

// FlushTraces writes queued traces now (for tests and shutdown).
func (e *Engine) FlushTraces() { e.traces.Flush() }

// ForgetResult says what a forget did.
type ForgetResult struct {
	MemoryID string   `json:"memory_id"`
	Versions []string `json:"versions"` // its version ids marked deleted now
	// Episodes lists the episodic memories of the statements it came
	// from, which left retrieval with it.
	Episodes []string `json:"episodes"`
}

// Forget marks every version of a memory deleted, and the episodic
// memories of the statements it was extracted from: it leaves retrieval at
// once and for good, and stays in the store as a tombstone (only an admin
// purge removes rows). Forgetting twice changes nothing the second time.
func (e *Engine) Forget(ctx context.Context, ns, id string) (*ForgetResult, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	defer unlock()
	now := e.clock.Now()
	res := &ForgetResult{}
	var changed []*memory.Version
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		changed, res.Versions, res.Episodes = changed[:0], []string{}, []string{}
		memID := id
		if ids.HasPrefix(id, ids.Version) {
			v, err := tx.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: id})
			if err != nil {
				return err
			}
			memID = v.MemoryID
		}
		m, err := tx.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: memID})
		if err != nil {
			return err
		}
		res.MemoryID = m.ID
		vs, err := tx.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: m.ID})
		if err != nil {
			return err
		}
		del := func(v *memory.Version) error {
			v.Status, v.UpdatedAt = memory.StatusDeleted, now
			if v.ValidTo == nil {
				v.ValidTo = timePtr(now)
			}
			if err := tx.UpdateVersionState(ctx, v); err != nil {
				return err
			}
			changed = append(changed, v)
			return nil
		}
		var evidence []string
		for _, v := range vs {
			if v.Status == memory.StatusDeleted {
				continue
			}
			if err := del(v); err != nil {
				return err
			}
			res.Versions = append(res.Versions, v.ID)
			if v.Kind != memory.KindEpisodic {
				evidence = append(evidence, v.EvidenceEpisodeIDs...)
			}
		}
		// The statements a fact came from would still serve it as
		// episodes: they leave retrieval with it, and so do their word-
		// for-word repeats still held (a long evidence list keeps one of
		// each, see trimEvidence).
		evidence, err = withRepeats(ctx, tx, ns, evidence)
		if err != nil {
			return err
		}
		for _, ep := range evidence {
			evs, err := tx.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, Key: "episode:" + ep, Kinds: []memory.Kind{memory.KindEpisodic}})
			if err != nil {
				return err
			}
			for _, v := range evs {
				if v.Status == memory.StatusDeleted {
					continue
				}
				if err := del(v); err != nil {
					return err
				}
				res.Episodes = append(res.Episodes, v.MemoryID)
			}
		}
		if len(changed) == 0 {
			return nil // already forgotten: nothing to log
		}
		return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{{
			ID: ids.New(ids.Admission), Namespace: ns, MemoryID: m.ID, Decision: memory.AdmitReject,
			Reasons: []string{"forgotten"}, Content: "forget " + m.ID, Extractor: "forget", CreatedAt: now,
		}}})
	})
	if err != nil {
		return nil, fmt.Errorf("forget %s: %w", id, err)
	}
	for _, v := range changed {
		st.UpdateState(v)
	}
	return res, nil
}

// withRepeats adds to ids the held episodes with the same content as one
// of them.
func withRepeats(ctx context.Context, tx memory.Records, ns string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return ids, nil
	}
	eps, err := tx.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, IDs: ids, Held: true})
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		seen[id] = true
	}
	hashes := make(map[string]bool, len(eps))
	for _, ep := range eps {
		if ep.ContentHash == "" || hashes[ep.ContentHash] {
			continue
		}
		hashes[ep.ContentHash] = true
		same, err := tx.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, ContentHash: ep.ContentHash, Held: true})
		if err != nil {
			return nil, err
		}
		for _, s := range same {
			if !seen[s.ID] {
				seen[s.ID] = true
				ids = append(ids, s.ID)
			}
		}
	}
	return ids, nil
}

// StatsResult counts a namespace and its index.
type StatsResult struct {
	memory.Stats
	Indexed int `json:"indexed"`
}

// Stats counts what a namespace holds.
func (e *Engine) Stats(ctx context.Context, ns string) (*StatsResult, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	e.traces.Flush()
	s, err := e.store.Stats(ctx, memory.StatsParams{Namespace: ns})
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	res := &StatsResult{Stats: *s}
	if s.Episodes == 0 && s.Memories == 0 {
		// Nothing to index: counting a namespace that holds nothing does
		// not build an index for it.
		return res, nil
	}
	st, err := e.namespace(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	res.Indexed = st.Size()
	return res, nil
}

// IsNotFound reports whether err means a named thing does not exist.
func IsNotFound(err error) bool { return errors.Is(err, memory.ErrNotFound) }
