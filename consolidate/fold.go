package consolidate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// Folding is consolidation's last step. Once every episode of a session is
// purged, the session's summary is all that is left of it: one memory per
// session (about 3.5 KiB with its embedding, evidence and admissions) that
// would grow with every session for good. Folding merges those summaries
// into one digest per scope and calendar month (subject "session", key
// "summary:month:2024-01"), written by the same Summariser within
// DigestTokens, and deletes the session summaries: they were derived from
// episodes already gone, and the sessions' records (and so their purged
// episodes' stubs) now name the digest. A digest is rewritten, not
// versioned, as more of its month's sessions fold into it; its admission
// log says which sessions each rewrite folded.

// digestKeyPrefix starts a month digest's key; the month follows (2024-01).
const digestKeyPrefix = "summary:month:"

// FoldedMonth says which sessions one run folded into a month's digest.
type FoldedMonth struct {
	Month     string   `json:"month"` // 2024-01
	MemoryID  string   `json:"memory_id"`
	VersionID string   `json:"version_id"`
	Sessions  []string `json:"sessions"`
}

// foldGroup is the sessions of one scope and month folded in one write.
type foldGroup struct {
	scope memory.Scope
	month string
	recs  []*memory.SessionSummary
	vers  []*memory.Version // their live summaries (a record whose summary is gone or forgotten gives no text)
}

// errStaleFold: a session changed between listing it and folding it; the
// next run folds what is due then.
var errStaleFold = errors.New("a session changed while it was folded")

// foldSessions folds every session whose episodes are all purged and whose
// month is over into its month's digest; at most MaxSessions per run.
func (e *Consolidator) foldSessions(ctx context.Context, ns string, rep *ConsolidateReport) error {
	c := e.consolidation
	now := e.clock.Now().UTC()
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	recs, err := e.store.FoldableSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: monthStart, Limit: c.MaxSessions + 1})
	if err != nil {
		return err
	}
	if len(recs) > c.MaxSessions {
		recs, rep.More = recs[:c.MaxSessions], true
	}
	var groups []*foldGroup
	for _, r := range recs {
		scope, v, err := e.foldInput(ctx, ns, r)
		if err != nil {
			return err
		}
		month := r.LastAt.UTC().Format("2006-01")
		i := slices.IndexFunc(groups, func(g *foldGroup) bool { return g.scope == scope && g.month == month })
		if i < 0 {
			groups = append(groups, &foldGroup{scope: scope, month: month})
			i = len(groups) - 1
		}
		g := groups[i]
		g.recs = append(g.recs, r)
		if v != nil {
			g.vers = append(g.vers, v)
		}
	}
	for _, g := range groups {
		out, err := e.foldMonth(ctx, ns, g, monthStart)
		if errors.Is(err, errStaleFold) {
			rep.More = true
			continue
		}
		if err != nil {
			return fmt.Errorf("fold %s: %w", g.month, err)
		}
		rep.Folded = append(rep.Folded, out)
	}
	return nil
}

// foldInput returns the scope a session's record folds under and its live
// summary, nil when the summary is gone or was forgotten (the session
// still folds; its text does not come back).
func (e *Consolidator) foldInput(ctx context.Context, ns string, r *memory.SessionSummary) (memory.Scope, *memory.Version, error) {
	v, err := e.store.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: r.VersionID})
	switch {
	case err == nil:
		if !v.Status.Live() {
			return v.Scope, nil, nil
		}
		return v.Scope, v, nil
	case !errors.Is(err, memory.ErrNotFound):
		return memory.Scope{}, nil, err
	}
	if m, err := e.store.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: r.MemoryID}); err == nil {
		return m.Scope, nil, nil
	} else if !errors.Is(err, memory.ErrNotFound) {
		return memory.Scope{}, nil, err
	}
	// No summary left at all: the session's episodes say whose it was.
	eps, err := e.store.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, SessionID: r.SessionID, Limit: 1})
	if err != nil || len(eps) == 0 {
		return memory.Scope{}, nil, err
	}
	return factScope(eps[0].Scope), nil, nil
}

// foldMonth writes the month's digest anew from its current text and the
// group's session summaries, and deletes what it replaces.
func (e *Consolidator) foldMonth(ctx context.Context, ns string, g *foldGroup, monthStart time.Time) (FoldedMonth, error) {
	c := e.consolidation
	out := FoldedMonth{Month: g.month}
	for _, r := range g.recs {
		out.Sessions = append(out.Sessions, r.SessionID)
	}
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return out, err
	}
	defer unlock()
	// The summaries again, under the lock: one forgotten since they were
	// listed (Forget takes this lock) must not be quoted.
	g.vers = g.vers[:0]
	for _, r := range g.recs {
		_, v, err := e.foldInput(ctx, ns, r)
		if err != nil {
			return out, err
		}
		if v != nil {
			g.vers = append(g.vers, v)
		}
	}
	now := e.clock.Now()
	key := digestKeyPrefix + g.month
	// The digest's versions so far: its live one is rewritten; a forgotten
	// one stays a tombstone, and its text stays out.
	m, prev, err := e.sessionSlot(ctx, ns, g.scope, key)
	if err != nil {
		return out, err
	}
	var live []*memory.Version
	for _, v := range prev {
		if v.Status.Live() {
			live = append(live, v)
		}
	}
	// The summariser reads each summary as one episode of the month.
	var inputs []*memory.Episode
	first, last := time.Time{}, time.Time{}
	for _, r := range g.recs {
		if first.IsZero() || r.LastAt.Before(first) {
			first = r.LastAt
		}
		if r.LastAt.After(last) {
			last = r.LastAt
		}
	}
	for _, v := range slices.Concat(live, g.vers) {
		body := v.Content
		if v.Key == key {
			body = cutHeader(body, "Sessions of "+g.month)
		} else {
			body = cutHeader(body, "Session "+strings.TrimPrefix(v.Key, "summary:"))
		}
		inputs = append(inputs, &memory.Episode{ID: v.ID, Namespace: ns, Kind: memory.EpisodeKind("summary"), Content: body, OccurredAt: v.ObservedAt})
		if from := v.ValidFrom; first.IsZero() || (!from.IsZero() && from.Before(first)) {
			first = from
		}
		if v.ObservedAt.After(last) {
			last = v.ObservedAt
		}
	}
	// With every summary forgotten there is nothing to quote: the
	// summariser writes the month's header alone.
	slices.SortStableFunc(inputs, func(a, b *memory.Episode) int { return a.OccurredAt.Compare(b.OccurredAt) })
	header := fmt.Sprintf("Sessions of %s:", g.month)
	if !first.IsZero() && !last.IsZero() {
		header = fmt.Sprintf("Sessions of %s (%s to %s):", g.month, first.Format("2006-01-02"), last.Format("2006-01-02"))
	}
	sum, err := e.summarise(ctx, SummaryInput{Namespace: ns, SessionID: key, Header: header, Episodes: inputs, MaxTokens: c.DigestTokens, Count: e.counter.Count}, "digest")
	if err != nil {
		return out, err
	}
	var (
		v       *memory.Version
		doc     search.Doc
		deleted []string
	)
	// Each folded session's memory goes with its versions, unless it holds
	// a forgotten version: that stays a tombstone, and only the rest go.
	del := memory.DeleteMemoriesParams{Namespace: ns, Now: now}
	for _, p := range live {
		del.VersionIDs = append(del.VersionIDs, p.ID)
	}
	for _, r := range g.recs {
		if (m != nil && r.MemoryID == m.ID) || slices.Contains(del.MemoryIDs, r.MemoryID) {
			continue
		}
		vs, err := e.store.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: r.MemoryID, WithoutEmbeddings: true})
		if err != nil {
			return out, err
		}
		if !slices.ContainsFunc(vs, func(v *memory.Version) bool {
			return v.Status == memory.StatusDeleted || v.Status == memory.StatusQuarantined
		}) {
			del.MemoryIDs = append(del.MemoryIDs, r.MemoryID)
			continue
		}
		for _, v := range vs {
			if v.Status != memory.StatusDeleted && v.Status != memory.StatusQuarantined {
				del.VersionIDs = append(del.VersionIDs, v.ID)
			}
		}
	}
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		// What was read before the lock must still hold: every session
		// still foldable with the summary read (another process may have
		// captured into one, or summarised it again).
		still, err := tx.FoldableSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: monthStart})
		if err != nil {
			return err
		}
		for _, r := range g.recs {
			if !slices.ContainsFunc(still, func(s *memory.SessionSummary) bool {
				return s.SessionID == r.SessionID && s.VersionID == r.VersionID && s.MemoryID == r.MemoryID
			}) {
				return errStaleFold
			}
		}
		// And every text quoted still live (another process may have
		// forgotten one).
		for _, v := range slices.Concat(live, g.vers) {
			cur, err := tx.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: v.ID})
			if errors.Is(err, memory.ErrNotFound) || (err == nil && !cur.Status.Live()) {
				return errStaleFold
			}
			if err != nil {
				return err
			}
		}
		if m == nil {
			m = &memory.Memory{ID: ids.New(ids.Memory), Namespace: ns, Scope: g.scope, Kind: memory.KindSemantic,
				Subject: "session", Key: key, CreatedAt: now, UpdatedAt: now}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
		}
		v = e.summaryVersion(m, memory.NextSeq(prev), sum, first, last, now, "fold")
		v.Trust = e.trustOf(v, now)
		if err := tx.CreateVersion(ctx, v); err != nil {
			return err
		}
		if deleted, err = tx.DeleteMemories(ctx, del); err != nil {
			return err
		}
		// The sessions' purged episodes name the digest from now on.
		if err := tx.SetPurgedMetadata(ctx, memory.SetPurgedMetadataParams{Namespace: ns, SessionIDs: out.Sessions,
			Set: map[string]string{PurgedMetadataKey: m.ID}}); err != nil {
			return err
		}
		listed := out.Sessions
		if len(listed) > 20 {
			listed = append(slices.Clone(listed[:20]), fmt.Sprintf("and %d more", len(listed)-20))
		}
		if err := tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{{
			ID: ids.New(ids.Admission), Namespace: ns, MemoryID: m.ID, VersionID: v.ID, Decision: memory.AdmitAccept,
			Reasons:   []string{"folded_sessions", fmt.Sprintf("sessions:%d", len(g.recs)), fmt.Sprintf("sentences:%d", len(sum.Spans))},
			Operation: v.Operation, Extractor: "consolidate", CreatedAt: now,
			Content: fmt.Sprintf("folded the summaries of %d sessions (every episode purged) into the digest of %s: %s",
				len(g.recs), g.month, strings.Join(listed, ", ")),
		}}}); err != nil {
			return err
		}
		if err := tx.FoldSessions(ctx, memory.FoldSessionsParams{Namespace: ns, SessionIDs: out.Sessions, MemoryID: m.ID, VersionID: v.ID}); err != nil {
			return err
		}
		doc, err = e.index.Doc(v)
		return err
	})
	if err != nil {
		return out, err
	}
	for _, id := range deleted {
		st.Drop(id)
	}
	st.Put(v, doc)
	out.MemoryID, out.VersionID = v.MemoryID, v.ID
	return out, nil
}

// cutHeader drops a summary's header ("Session s-1 (2024-01-02):"): the
// text from prefix to the first colon after it.
func cutHeader(content, prefix string) string {
	rest, ok := strings.CutPrefix(content, prefix)
	if !ok {
		return content
	}
	if i := strings.Index(rest, ":"); i >= 0 {
		return strings.TrimSpace(rest[i+1:])
	}
	return content
}

// allPurged reports whether every episode's text was purged.
func allPurged(eps []*memory.Episode) bool {
	for _, ep := range eps {
		if ep.Content != "" || ep.Metadata[PurgedMetadataKey] == "" {
			return false
		}
	}
	return len(eps) > 0
}

// monthDigest returns the live digest of the scope's month of at, or nil.
func (e *Consolidator) monthDigest(ctx context.Context, ns string, scope memory.Scope, at time.Time) (*memory.Version, error) {
	_, vs, err := e.sessionSlot(ctx, ns, scope, digestKeyPrefix+at.UTC().Format("2006-01"))
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if v.Status.Live() {
			return v, nil
		}
	}
	return nil, nil
}

// sessionSlot returns the memory of subject "session" and this key in the
// scope (a session's summary, a month's digest) and its versions, without
// embeddings; nil and none when there is no such memory.
func (e *Consolidator) sessionSlot(ctx context.Context, ns string, scope memory.Scope, key string) (*memory.Memory, []*memory.Version, error) {
	m, err := e.store.FindMemory(ctx, memory.FindMemoryParams{Namespace: ns, Scope: scope, Subject: "session", Key: key})
	if errors.Is(err, memory.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	vs, err := e.store.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: m.ID, WithoutEmbeddings: true})
	if err != nil {
		return nil, nil, err
	}
	return m, vs, nil
}
