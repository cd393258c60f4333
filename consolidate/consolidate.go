package consolidate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// Consolidation configures how sessions are summarised and their raw
// episodes forgotten. Zero fields take DefaultConsolidation's values.
type Consolidation struct {
	// MinAge: a session is summarised once its last episode is this old.
	MinAge time.Duration
	// HalfLife of an episode's retention without access.
	HalfLife time.Duration
	// ForgetBelow: a summarised episode whose retention falls below it
	// leaves retrieval.
	ForgetBelow float64
	// PurgeAfter: a forgotten episode's text is purged this long after it
	// was forgotten (until then an operator can still read it).
	PurgeAfter time.Duration
	// SummaryTokens bounds a summary's length.
	SummaryTokens int
	// DigestTokens bounds a month digest's length (see foldSessions).
	DigestTokens int
	// MaxSessions and MaxEpisodes bound one ConsolidateDue run: sessions
	// summarised, and episodes checked for forgetting (and purged).
	MaxSessions int
	MaxEpisodes int
	// AccessHorizon and MaxTraces bound how far back retrieval traces are
	// read for access: accesses older than the horizon no longer count.
	AccessHorizon time.Duration
	MaxTraces     int
	// Summariser writes the summaries; default NewExtractiveSummariser().
	Summariser Summariser
}

// DefaultConsolidation is the configuration of SPEC §4.
func DefaultConsolidation() Consolidation {
	return Consolidation{
		MinAge:        7 * 24 * time.Hour,
		HalfLife:      30 * 24 * time.Hour,
		ForgetBelow:   0.05,
		PurgeAfter:    30 * 24 * time.Hour,
		SummaryTokens: 200,
		DigestTokens:  400,
		MaxSessions:   50,
		MaxEpisodes:   2000,
		AccessHorizon: 365 * 24 * time.Hour,
		MaxTraces:     20000,
		Summariser:    NewExtractiveSummariser(),
	}
}

// WithDefaults returns c with every zero field set to DefaultConsolidation's.
func (c Consolidation) WithDefaults() Consolidation {
	d := DefaultConsolidation()
	if c.MinAge <= 0 {
		c.MinAge = d.MinAge
	}
	if c.HalfLife <= 0 {
		c.HalfLife = d.HalfLife
	}
	if c.ForgetBelow <= 0 || c.ForgetBelow >= 1 {
		c.ForgetBelow = d.ForgetBelow
	}
	if c.PurgeAfter <= 0 {
		c.PurgeAfter = d.PurgeAfter
	}
	if c.SummaryTokens <= 0 {
		c.SummaryTokens = d.SummaryTokens
	}
	if c.DigestTokens <= 0 {
		c.DigestTokens = d.DigestTokens
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = d.MaxSessions
	}
	if c.MaxEpisodes <= 0 {
		c.MaxEpisodes = d.MaxEpisodes
	}
	if c.AccessHorizon <= 0 {
		c.AccessHorizon = d.AccessHorizon
	}
	if c.MaxTraces <= 0 {
		c.MaxTraces = d.MaxTraces
	}
	if c.Summariser == nil {
		c.Summariser = d.Summariser
	}
	return c
}

// Access is how retrievals used an episode: how many packed it (within the
// access horizon) and when the last did.
type Access struct {
	Count int       `json:"count"`
	Last  time.Time `json:"last,omitzero"`
}

// halfLife is an episode's half-life given its access: each doubling of
// the times it was served adds one base half-life.
func (c Consolidation) halfLife(a Access) float64 {
	return float64(c.HalfLife) * (1 + math.Log2(1+float64(a.Count)))
}

// Retention is an episode's retention at now: 2^(-age/half-life), where age
// counts from its last access (or from when it happened, if never served)
// and the half-life grows with how often it was served. Recent or frequent
// access keeps an episode longer.
func (c Consolidation) Retention(occurred time.Time, a Access, now time.Time) float64 {
	since := occurred
	if a.Last.After(since) {
		since = a.Last
	}
	age := now.Sub(since)
	if age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / c.halfLife(a))
}

// ForgetAt is when an episode's retention falls below ForgetBelow if no
// further access comes: before then it cannot be forgotten.
func (c Consolidation) ForgetAt(occurred time.Time, a Access) time.Time {
	since := occurred
	if a.Last.After(since) {
		since = a.Last
	}
	return since.Add(time.Duration(c.halfLife(a) * math.Log2(1/c.ForgetBelow)))
}

// Session outcome statuses.
const (
	SessionSummarised   = "summarised"   // a first summary was written
	SessionResummarised = "resummarised" // episodes came since: a new summary version supersedes the old
	SessionUnchanged    = "unchanged"    // its summary already covers every episode
	SessionTooRecent    = "too_recent"   // younger than MinAge: untouched
)

// SessionOutcome says what consolidation did with one session.
type SessionOutcome struct {
	SessionID        string     `json:"session_id"`
	Status           string     `json:"status"`
	Episodes         int        `json:"episodes"`
	SummaryMemoryID  string     `json:"summary_memory_id,omitempty"`
	SummaryVersionID string     `json:"summary_version_id,omitempty"`
	Summary          string     `json:"summary,omitempty"`
	EligibleAt       *time.Time `json:"eligible_at,omitempty"` // too_recent: when it may be summarised
}

// ForgottenEpisode is a summarised episode that left retrieval.
type ForgottenEpisode struct {
	EpisodeID       string  `json:"episode_id"`
	SummaryMemoryID string  `json:"summary_memory_id"`
	Retention       float64 `json:"retention"`
	Accesses        int     `json:"accesses"`
}

// ConsolidateReport says what one consolidation run did. Running it again
// at the same time changes nothing.
type ConsolidateReport struct {
	Sessions  []SessionOutcome   `json:"sessions"`
	Forgotten []ForgottenEpisode `json:"forgotten"`
	Purged    []string           `json:"purged"` // episodes whose text was purged
	// Folded: sessions whose episodes were all purged, their summaries
	// folded into their month's digest.
	Folded []FoldedMonth `json:"folded"`
	// More: a bound was reached; another run has work left.
	More bool `json:"more"`
}

func newReport() *ConsolidateReport {
	return &ConsolidateReport{Sessions: []SessionOutcome{}, Forgotten: []ForgottenEpisode{}, Purged: []string{}, Folded: []FoldedMonth{}}
}

// ConsolidateOptions tunes ConsolidateSession.
type ConsolidateOptions struct {
	// Force summarises a session younger than MinAge. Forgetting still
	// follows retention.
	Force bool
}

// MaxSessionIDBytes bounds a session id, as every scope id.
const MaxSessionIDBytes = memory.MaxScopeIDBytes

// ValidateSessionID checks a session id named by a caller.
func ValidateSessionID(id string) error {
	if strings.TrimSpace(id) == "" {
		return memory.Invalidf("session id is empty")
	}
	return memory.ValidateScopeID("session id", id)
}

// ConsolidateSession summarises one session (if it is old enough, or
// forced) and forgets and purges its summarised episodes that are due.
// Consolidating the same session again changes nothing. An unknown session
// is ErrNotFound.
func (e *Consolidator) ConsolidateSession(ctx context.Context, ns, sessionID string, opt ConsolidateOptions) (*ConsolidateReport, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("consolidate: %w", err)
	}
	if err := ValidateSessionID(sessionID); err != nil {
		// Here the session is what the call names, so it has its own code;
		// an imported record's session id is one invalid field among many.
		return nil, fmt.Errorf("consolidate: %w", memory.WithCode(err, memory.CodeInvalidSession))
	}
	info, err := e.store.GetSession(ctx, memory.GetParams{Namespace: ns, ID: sessionID})
	if err != nil {
		return nil, fmt.Errorf("consolidate session %s: %w", sessionID, err)
	}
	rep := newReport()
	out, err := e.summariseSession(ctx, ns, *info, opt.Force)
	if err != nil {
		return nil, fmt.Errorf("consolidate session %s: %w", sessionID, err)
	}
	rep.Sessions = append(rep.Sessions, out)
	eps, err := e.store.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, SessionID: sessionID})
	if err != nil {
		return nil, fmt.Errorf("consolidate session %s: %w", sessionID, err)
	}
	epIDs := make([]string, len(eps))
	for i, ep := range eps {
		epIDs[i] = ep.ID
	}
	stubs, err := e.store.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, IDs: epIDs})
	if err != nil {
		return nil, fmt.Errorf("consolidate session %s: %w", sessionID, err)
	}
	now := e.clock.Now()
	var check, purge []*memory.EpisodeStub
	for _, s := range stubs {
		switch {
		case s.ForgottenAt == nil && !s.CheckAt.After(now):
			check = append(check, s)
		case s.ForgottenAt != nil && s.PurgedAt == nil && !s.ForgottenAt.After(now.Add(-e.consolidation.PurgeAfter)):
			purge = append(purge, s)
		}
	}
	if err := e.forgetStubs(ctx, ns, check, rep); err != nil {
		return nil, fmt.Errorf("consolidate session %s: %w", sessionID, err)
	}
	if err := e.purgeStubs(ctx, ns, purge, rep); err != nil {
		return nil, fmt.Errorf("consolidate session %s: %w", sessionID, err)
	}
	return rep, nil
}

// ConsolidateDue is the periodic run: it summarises the sessions quiet for
// MinAge that no summary covers yet, forgets the summarised episodes whose
// retention fell below ForgetBelow, purges the text of episodes forgotten
// PurgeAfter ago, and folds the summaries of sessions left with nothing
// but purged episodes into their month's digest (fold.go). Each part is bounded per run (More says work is
// left); each step commits on its own, so a run cut short loses nothing
// done, and running it again changes nothing.
func (e *Consolidator) ConsolidateDue(ctx context.Context, ns string) (*ConsolidateReport, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("consolidate: %w", err)
	}
	c := e.consolidation
	rep := newReport()
	now := e.clock.Now()
	due, err := e.store.DueSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: now.Add(-c.MinAge), Limit: c.MaxSessions + 1})
	if err != nil {
		return nil, fmt.Errorf("consolidate: %w", err)
	}
	if len(due) > c.MaxSessions {
		due, rep.More = due[:c.MaxSessions], true
	}
	for _, s := range due {
		out, err := e.summariseSession(ctx, ns, s, false)
		if err != nil {
			return nil, fmt.Errorf("consolidate session %s: %w", s.ID, err)
		}
		rep.Sessions = append(rep.Sessions, out)
	}
	now = e.clock.Now()
	check, err := e.store.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, CheckBy: now, Limit: c.MaxEpisodes + 1})
	if err != nil {
		return nil, fmt.Errorf("consolidate: %w", err)
	}
	if len(check) > c.MaxEpisodes {
		check, rep.More = check[:c.MaxEpisodes], true
	}
	if err := e.forgetStubs(ctx, ns, check, rep); err != nil {
		return nil, fmt.Errorf("consolidate: %w", err)
	}
	purge, err := e.store.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, PurgeBy: now.Add(-c.PurgeAfter), Limit: c.MaxEpisodes + 1})
	if err != nil {
		return nil, fmt.Errorf("consolidate: %w", err)
	}
	if len(purge) > c.MaxEpisodes {
		purge, rep.More = purge[:c.MaxEpisodes], true
	}
	if err := e.purgeStubs(ctx, ns, purge, rep); err != nil {
		return nil, fmt.Errorf("consolidate: %w", err)
	}
	if err := e.foldSessions(ctx, ns, rep); err != nil {
		return nil, fmt.Errorf("consolidate: %w", err)
	}
	return rep, nil
}

// summaryKey is the slot of a session's summary (subject "session").
func summaryKey(sessionID string) string { return "summary:" + sessionID }

// summariseSession writes (or leaves) the summary of one session, in one
// transaction with its stubs and its record.
func (e *Consolidator) summariseSession(ctx context.Context, ns string, info memory.SessionInfo, force bool) (SessionOutcome, error) {
	c := e.consolidation
	out := SessionOutcome{SessionID: info.ID, Episodes: info.Episodes}
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return out, err
	}
	defer unlock()
	now := e.clock.Now()
	if !force && now.Sub(info.LastAt) < c.MinAge {
		out.Status, out.EligibleAt = SessionTooRecent, timePtr(info.LastAt.Add(c.MinAge))
		return out, nil
	}
	eps, err := e.store.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, SessionID: info.ID})
	if err != nil {
		return out, err
	}
	if len(eps) == 0 {
		return out, memory.ErrNotFound
	}
	out.Episodes = len(eps)
	prev, err := e.store.GetSessionSummary(ctx, memory.GetParams{Namespace: ns, ID: info.ID})
	switch {
	case err == nil && prev.Episodes == len(eps):
		out.Status, out.SummaryMemoryID, out.SummaryVersionID = SessionUnchanged, prev.MemoryID, prev.VersionID
		return out, nil
	case err != nil && !errors.Is(err, memory.ErrNotFound):
		return out, err
	}
	scope := factScope(eps[0].Scope)
	// Each episode's searchable version, and what may be quoted: never
	// quarantined text, nor text mnemon itself served the agent.
	epVersions := make(map[string]*memory.Version, len(eps))
	var quotable []*memory.Episode
	for _, ep := range eps {
		vs, err := e.store.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, Subject: strings.ToLower(ep.Speaker),
			Key: "episode:" + ep.ID, Kinds: []memory.Kind{memory.KindEpisodic}, WithoutEmbeddings: true})
		if err != nil {
			return out, err
		}
		if len(vs) > 0 {
			epVersions[ep.ID] = vs[0]
		}
		if v := epVersions[ep.ID]; v != nil && v.Status == memory.StatusQuarantined {
			continue
		}
		if bad, _ := extract.DetectInstruction(ep.Content); bad || fromMemory(ep.Metadata) || ep.Content == "" {
			continue
		}
		quotable = append(quotable, ep)
	}
	if prev == nil {
		// No record, but a summary may cover the session already (a
		// namespace imported from an export written before exports
		// carried the records). Adopt it rather than summarise again
		// what may be purged.
		if cur, err := e.coveringSummary(ctx, ns, scope, info.ID, eps); err != nil {
			return out, err
		} else if cur != nil {
			err := e.store.InTx(ctx, func(tx memory.Executor) error {
				return e.recordSummary(ctx, tx, ns, info.ID, cur.MemoryID, cur.ID, eps, epVersions, now)
			})
			if err != nil {
				return out, err
			}
			out.Status, out.SummaryMemoryID, out.SummaryVersionID = SessionUnchanged, cur.MemoryID, cur.ID
			return out, nil
		}
		// Nothing left but purged episodes: the session was consolidated
		// and folded into its month's digest before this namespace lost
		// its records; adopt the digest rather than summarise nothing.
		if allPurged(eps) {
			if d, err := e.monthDigest(ctx, ns, scope, info.LastAt); err != nil {
				return out, err
			} else if d != nil {
				err := e.store.PutSessionSummary(ctx, &memory.SessionSummary{Namespace: ns, SessionID: info.ID, MemoryID: d.MemoryID,
					VersionID: d.ID, Episodes: len(eps), LastAt: eps[len(eps)-1].OccurredAt, ConsolidatedAt: now, Folded: true})
				if err != nil {
					return out, err
				}
				out.Status, out.SummaryMemoryID, out.SummaryVersionID = SessionUnchanged, d.MemoryID, d.ID
				return out, nil
			}
		}
	}
	sum, err := e.summarise(ctx, SummaryInput{
		Namespace: ns, SessionID: info.ID, Episodes: quotable, Facts: st.FactsCiting(quotable),
		MaxTokens: c.SummaryTokens, Count: e.counter.Count,
	}, "summary")
	if err != nil {
		return out, err
	}
	var (
		v       *memory.Version
		old     []*memory.Version
		doc     search.Doc
		created bool
	)
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		old, created = old[:0], false
		m, err := tx.FindMemory(ctx, memory.FindMemoryParams{Namespace: ns, Scope: scope, Subject: "session", Key: summaryKey(info.ID)})
		if errors.Is(err, memory.ErrNotFound) {
			m = &memory.Memory{ID: ids.New(ids.Memory), Namespace: ns, Scope: scope, Kind: memory.KindSemantic,
				Subject: "session", Key: summaryKey(info.ID), CreatedAt: now, UpdatedAt: now}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
			created = true
		} else if err != nil {
			return err
		}
		vs, err := tx.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: m.ID, WithoutEmbeddings: true})
		if err != nil {
			return err
		}
		evidence := make([]string, len(eps))
		for i, ep := range eps {
			evidence[i] = ep.ID
		}
		v = e.summaryVersion(m, memory.NextSeq(vs), sum, eps[0].OccurredAt, eps[len(eps)-1].OccurredAt, now, "consolidate")
		v.EvidenceEpisodeIDs, v.EvidenceSpans = evidence, sum.Spans
		for _, o := range vs {
			if !o.Status.Live() {
				continue
			}
			o.Status, o.SupersededBy, o.UpdatedAt = memory.StatusSuperseded, v.ID, now
			if o.ValidTo == nil {
				o.ValidTo = timePtr(now)
			}
			o.Trust = e.trustOf(o, now)
			if err := tx.UpdateVersionState(ctx, o); err != nil {
				return err
			}
			old = append(old, o)
		}
		if len(old) > 0 {
			v.Operation = memory.OpSupersede
		}
		v.Trust = e.trustOf(v, now)
		if err := tx.CreateVersion(ctx, v); err != nil {
			return err
		}
		reasons := []string{"session_summary", fmt.Sprintf("episodes:%d", len(eps)), fmt.Sprintf("sentences:%d", len(sum.Spans))}
		if len(old) > 0 {
			reasons = append(reasons, "session_grew")
		}
		if err := tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{{
			ID: ids.New(ids.Admission), Namespace: ns, MemoryID: m.ID, VersionID: v.ID, Decision: memory.AdmitAccept,
			// The summary's text is in its version; the log says what was
			// written (a copy here cost ~0.8 KiB per session, for good).
			Reasons: reasons, Operation: v.Operation, Extractor: "consolidate", CreatedAt: now,
			Content: fmt.Sprintf("summarised session %s: %d episodes in %d sentences", info.ID, len(eps), len(sum.Spans)),
		}}}); err != nil {
			return err
		}
		if err := e.recordSummary(ctx, tx, ns, info.ID, m.ID, v.ID, eps, epVersions, now); err != nil {
			return err
		}
		doc, err = e.index.Doc(v)
		return err
	})
	if err != nil {
		return out, err
	}
	st.Put(v, doc)
	for _, o := range old {
		st.UpdateState(o)
	}
	out.Status = SessionSummarised
	if !created && len(old) > 0 {
		out.Status = SessionResummarised
	}
	out.SummaryMemoryID, out.SummaryVersionID, out.Summary = v.MemoryID, v.ID, v.Content
	return out, nil
}

// coveringSummary returns the live summary version of a session that cites
// exactly its episodes, or nil.
func (e *Consolidator) coveringSummary(ctx context.Context, ns string, scope memory.Scope, sessionID string, eps []*memory.Episode) (*memory.Version, error) {
	_, vs, err := e.sessionSlot(ctx, ns, scope, summaryKey(sessionID))
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if !v.Status.Live() || len(v.EvidenceEpisodeIDs) != len(eps) {
			continue
		}
		same := true
		for i, ep := range eps {
			same = same && v.EvidenceEpisodeIDs[i] == ep.ID
		}
		if same {
			return v, nil
		}
	}
	return nil, nil
}

// recordSummary writes a session's summary record and the stubs of its
// episodes (not of those already purged: what is left of them is their stub).
func (e *Consolidator) recordSummary(ctx context.Context, tx memory.Executor, ns, sessionID, memoryID, versionID string,
	eps []*memory.Episode, epVersions map[string]*memory.Version, now time.Time) error {
	c := e.consolidation
	stubs := make([]*memory.EpisodeStub, 0, len(eps))
	for _, ep := range eps {
		if ep.Metadata[PurgedMetadataKey] != "" {
			continue
		}
		s := &memory.EpisodeStub{Namespace: ns, EpisodeID: ep.ID, SessionID: sessionID, SummaryMemoryID: memoryID,
			ContentHash: ep.ContentHash, OccurredAt: ep.OccurredAt, SummarisedAt: now,
			CheckAt: c.ForgetAt(ep.OccurredAt, Access{}), Retention: c.Retention(ep.OccurredAt, Access{}, now)}
		if ev := epVersions[ep.ID]; ev != nil {
			s.VersionID = ev.ID
		}
		stubs = append(stubs, s)
	}
	if err := tx.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: ns, Stubs: stubs}); err != nil {
		return err
	}
	return tx.PutSessionSummary(ctx, &memory.SessionSummary{Namespace: ns, SessionID: sessionID, MemoryID: memoryID,
		VersionID: versionID, Episodes: len(eps), LastAt: eps[len(eps)-1].OccurredAt, ConsolidatedAt: now})
}

// accessOf counts, from the retrieval traces within the access horizon,
// how often each version was packed and when last. Retrievals write no
// counter of their own: the traces they already keep are read here, off
// the hot path.
func (e *Consolidator) accessOf(ctx context.Context, ns string, versionIDs map[string]bool, now time.Time) (map[string]Access, error) {
	out := make(map[string]Access)
	if len(versionIDs) == 0 {
		return out, nil
	}
	e.traces.Flush()
	c := e.consolidation
	trs, err := e.store.ListTraces(ctx, memory.ListTracesParams{Namespace: ns, Since: now.Add(-c.AccessHorizon), Limit: c.MaxTraces})
	if err != nil {
		return nil, err
	}
	for _, tr := range trs {
		for _, it := range tr.Items {
			if !it.Packed || !versionIDs[it.VersionID] {
				continue
			}
			a := out[it.VersionID]
			a.Count++
			if tr.CreatedAt.After(a.Last) {
				a.Last = tr.CreatedAt
			}
			out[it.VersionID] = a
		}
	}
	return out, nil
}

// forgetStubs computes the retention of summarised episodes and takes
// those below ForgetBelow out of retrieval; the others are checked again
// when they could next be due. Each episode's stub records when and at
// what retention it was forgotten; the admission log gets one entry per
// summary (not per episode: the log must not grow with what it forgets).
func (e *Consolidator) forgetStubs(ctx context.Context, ns string, stubs []*memory.EpisodeStub, rep *ConsolidateReport) error {
	if len(stubs) == 0 {
		return nil
	}
	c := e.consolidation
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return err
	}
	defer unlock()
	now := e.clock.Now()
	want := make(map[string]bool, len(stubs))
	for _, s := range stubs {
		if s.VersionID != "" {
			want[s.VersionID] = true
		}
	}
	access, err := e.accessOf(ctx, ns, want, now)
	if err != nil {
		return err
	}
	var (
		changed   []*memory.Version
		forgotten []ForgottenEpisode
	)
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		changed, forgotten = changed[:0], forgotten[:0]
		bySummary := map[string][]ForgottenEpisode{}
		var order []string
		for _, s0 := range stubs {
			s := *s0
			a := access[s.VersionID]
			s.Retention = c.Retention(s.OccurredAt, a, now)
			if s.Retention >= c.ForgetBelow {
				s.CheckAt = c.ForgetAt(s.OccurredAt, a)
				if err := tx.UpdateEpisodeStub(ctx, &s); err != nil {
					return err
				}
				continue
			}
			if s.VersionID != "" {
				v, err := tx.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: s.VersionID})
				if err != nil && !errors.Is(err, memory.ErrNotFound) {
					return err
				}
				if v != nil && v.Status != memory.StatusDeleted && v.Status != memory.StatusQuarantined {
					v.Status, v.UpdatedAt = memory.StatusDeleted, now
					if v.ValidTo == nil {
						v.ValidTo = timePtr(now)
					}
					if err := tx.UpdateVersionState(ctx, v); err != nil {
						return err
					}
					changed = append(changed, v)
				}
			}
			s.ForgottenAt = timePtr(now)
			if err := tx.UpdateEpisodeStub(ctx, &s); err != nil {
				return err
			}
			f := ForgottenEpisode{EpisodeID: s.EpisodeID, SummaryMemoryID: s.SummaryMemoryID, Retention: s.Retention, Accesses: a.Count}
			if _, ok := bySummary[s.SummaryMemoryID]; !ok {
				order = append(order, s.SummaryMemoryID)
			}
			bySummary[s.SummaryMemoryID] = append(bySummary[s.SummaryMemoryID], f)
			forgotten = append(forgotten, f)
		}
		adms := make([]*memory.Admission, 0, len(order))
		for _, sum := range order {
			fs := bySummary[sum]
			top := 0.0
			for _, f := range fs {
				top = math.Max(top, f.Retention)
			}
			adms = append(adms, &memory.Admission{
				ID: ids.New(ids.Admission), Namespace: ns, MemoryID: sum, Decision: memory.AdmitReject,
				Reasons: []string{"consolidated", fmt.Sprintf("forgot_episodes:%d", len(fs)), fmt.Sprintf("retention_below:%g", c.ForgetBelow),
					fmt.Sprintf("max_retention:%.4f", top)},
				Content: fmt.Sprintf("forgot %d raw episodes this summary covers (stubs kept)", len(fs)), Extractor: "consolidate", CreatedAt: now,
			})
		}
		if len(adms) == 0 {
			return nil
		}
		return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: adms})
	})
	if err != nil {
		return err
	}
	for _, v := range changed {
		st.UpdateState(v)
	}
	rep.Forgotten = append(rep.Forgotten, forgotten...)
	return nil
}

// purgeStubs removes the text of forgotten episodes for good; the stub
// (id, hash, time, summary link) stays and answers for them, and the
// episode keeps one metadata entry naming its summary.
func (e *Consolidator) purgeStubs(ctx context.Context, ns string, stubs []*memory.EpisodeStub, rep *ConsolidateReport) error {
	if len(stubs) == 0 {
		return nil
	}
	_, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return err
	}
	defer unlock()
	now := e.clock.Now()
	var purged []string
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		purged = purged[:0]
		count := map[string]int{}
		var order []string
		for _, s0 := range stubs {
			s := *s0
			meta := map[string]string{PurgedMetadataKey: s.SummaryMemoryID, forgottenMetadataKey: s.ForgottenAt.UTC().Format(time.RFC3339),
				purgedAtMetadataKey: now.UTC().Format(time.RFC3339)}
			if err := tx.PurgeEpisodeText(ctx, memory.PurgeEpisodeParams{Namespace: ns, EpisodeID: s.EpisodeID,
				VersionID: s.VersionID, Metadata: meta}); err != nil {
				return err
			}
			if count[s.SummaryMemoryID] == 0 {
				order = append(order, s.SummaryMemoryID)
			}
			count[s.SummaryMemoryID]++
			purged = append(purged, s.EpisodeID)
		}
		adms := make([]*memory.Admission, 0, len(order))
		for _, sum := range order {
			adms = append(adms, &memory.Admission{
				ID: ids.New(ids.Admission), Namespace: ns, MemoryID: sum, Decision: memory.AdmitReject,
				Reasons:   []string{"purged", fmt.Sprintf("episodes:%d", count[sum])},
				Content:   fmt.Sprintf("purged the text of %d forgotten episodes this summary covers", count[sum]),
				Extractor: "consolidate", CreatedAt: now,
			})
		}
		return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: adms})
	})
	if err != nil {
		return err
	}
	rep.Purged = append(rep.Purged, purged...)
	return nil
}

// The metadata a purged episode keeps, its stub from then on: the summary
// memory that covers it (PurgedMetadataKey), when it was forgotten and
// when its text was purged (RFC 3339).
const (
	PurgedMetadataKey    = "purged_into"
	forgottenMetadataKey = "forgotten_at"
	purgedAtMetadataKey  = "purged_at"
)

// EpisodeStubs returns the consolidation stubs of these episodes (those
// summarised; forgotten or purged ones say so): what answers for an
// episode whose text is gone. A purged episode's stub is read from its
// row (the stub record goes with the purge: storage stays flat).
func (e *Consolidator) EpisodeStubs(ctx context.Context, ns string, episodeIDs []string) ([]*memory.EpisodeStub, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("episode stubs: %w", err)
	}
	if len(episodeIDs) == 0 {
		return []*memory.EpisodeStub{}, nil
	}
	out, err := e.store.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, IDs: episodeIDs})
	if err != nil {
		return nil, fmt.Errorf("episode stubs: %w", err)
	}
	// A purged episode's row is its stub.
	eps, err := e.store.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, IDs: episodeIDs})
	if err != nil {
		return nil, fmt.Errorf("episode stubs: %w", err)
	}
	for _, ep := range eps {
		sum := ep.Metadata[PurgedMetadataKey] // a fold since names its month's digest
		if sum == "" {
			continue
		}
		s := &memory.EpisodeStub{Namespace: ns, EpisodeID: ep.ID, SessionID: ep.Scope.SessionID, SummaryMemoryID: sum,
			ContentHash: ep.ContentHash, OccurredAt: ep.OccurredAt}
		if t, err := time.Parse(time.RFC3339, ep.Metadata[forgottenMetadataKey]); err == nil {
			s.ForgottenAt = &t
		}
		if t, err := time.Parse(time.RFC3339, ep.Metadata[purgedAtMetadataKey]); err == nil {
			s.PurgedAt = &t
		}
		out = append(out, s)
	}
	return out, nil
}
