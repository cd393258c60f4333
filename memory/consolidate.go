package memory

import (
	"context"
	"time"
)

// Consolidation holds what consolidation needs besides the rest of
// Executor: a session's episodes at a glance, which summary covers a
// session, and the stubs of summarised episodes as they are forgotten and
// purged. Like every Executor method, each takes its namespace in its
// params and touches nothing outside it.
type Consolidation interface {
	// GetSession describes the session p.ID of the namespace: how many
	// episodes it holds and when the first and last occurred. ErrNotFound
	// when the namespace holds no episode of that session.
	GetSession(ctx context.Context, p GetParams) (*SessionInfo, error)
	// DueSessions lists sessions whose newest episode occurred before
	// p.Before and that no summary covers wholly (none was written, or
	// episodes were added since), the longest quiet first, then by id; at
	// most p.Limit (0: no limit). Episodes without a session are never
	// listed.
	DueSessions(ctx context.Context, p DueSessionsParams) ([]SessionInfo, error)

	// GetSessionSummary returns the record of the summary covering a
	// session (p.ID is the session id); ErrNotFound when none was written.
	GetSessionSummary(ctx context.Context, p GetParams) (*SessionSummary, error)
	// PutSessionSummary writes a session's summary record, replacing the
	// one it may have.
	PutSessionSummary(ctx context.Context, s *SessionSummary) error
	// ListSessionSummaries returns the namespace's summary records by
	// session id, at most p.Limit (0: no limit): what export carries.
	ListSessionSummaries(ctx context.Context, p ListSessionSummariesParams) ([]*SessionSummary, error)

	// AddEpisodeStubs records summarised episodes. An episode that already
	// has a stub keeps it as it is (its forgetting goes on where it was).
	AddEpisodeStubs(ctx context.Context, p AddEpisodeStubsParams) error
	// UpdateEpisodeStub writes a stub's state: summary link, check_at,
	// forgotten_at, retention and purged_at. ErrNotFound when the episode
	// has no stub in the namespace.
	UpdateEpisodeStub(ctx context.Context, s *EpisodeStub) error
	// ListEpisodeStubs lists stubs by the filters set in p (see there).
	ListEpisodeStubs(ctx context.Context, p ListEpisodeStubsParams) ([]*EpisodeStub, error)
	// PurgeEpisodeText removes a forgotten episode's text for good: the
	// episode's content (its metadata replaced by p.Metadata) and the
	// admissions that copied its text (the episode's own, and candidates
	// drawn from it that were rejected or deferred; the admissions of
	// facts written from it stay); and its episodic version
	// p.VersionID with that version's memory slot, rows derived from the
	// episode that only served it to retrieval (it must already be out of
	// retrieval, deleted, so the purge logs no change); and the episode's
	// stub record. What stays of the episode is its stub from then on: id,
	// content hash, times, and p.Metadata (which names the summary). It is
	// the one write that edits an episode, as the right to be forgotten
	// requires. ErrNotFound when the episode is not in the namespace. Every
	// episode read returns a purged episode as it was, text aside, however
	// the store keeps it (a backend may pack it away, into an archive per
	// session, say).
	PurgeEpisodeText(ctx context.Context, p PurgeEpisodeParams) error

	// FoldableSessions lists the summary records not yet folded whose
	// session has nothing left but purged episodes (every one summarised,
	// forgotten and purged) and whose newest episode occurred before
	// p.Before: the longest quiet first, then by id; at most p.Limit (0: no
	// limit).
	FoldableSessions(ctx context.Context, p DueSessionsParams) ([]*SessionSummary, error)
	// FoldSessions points the records of p.SessionIDs, and of every session
	// folded into p.MemoryID before, at the digest p.MemoryID and its
	// version p.VersionID, marked folded.
	FoldSessions(ctx context.Context, p FoldSessionsParams) error
	// SetPurgedMetadata sets p.Set's keys in the metadata of every purged
	// episode of the sessions p.SessionIDs (a fold points their stubs at
	// the digest that covers them now).
	SetPurgedMetadata(ctx context.Context, p SetPurgedMetadataParams) error
	// DeleteMemories removes derived memories for good: every version of
	// p.MemoryIDs and the memories themselves, and the versions
	// p.VersionIDs; with each its admissions and feedback. Each deleted
	// version is logged as a write, so followers drop it. It returns the
	// deleted versions' ids. Ids not in the namespace are skipped.
	DeleteMemories(ctx context.Context, p DeleteMemoriesParams) ([]string, error)
}

// FoldSessionsParams folds sessions' summary records into a digest.
type FoldSessionsParams struct {
	Namespace  string
	SessionIDs []string
	MemoryID   string // the digest
	VersionID  string // its current version
}

// SetPurgedMetadataParams names sessions whose purged episodes' metadata
// changes.
type SetPurgedMetadataParams struct {
	Namespace  string
	SessionIDs []string
	Set        map[string]string
}

// DeleteMemoriesParams names derived memories and versions to delete.
type DeleteMemoriesParams struct {
	Namespace  string
	MemoryIDs  []string
	VersionIDs []string
	Now        time.Time // when the deletion is logged
}

// SessionInfo describes one session's episodes.
type SessionInfo struct {
	ID       string    `json:"id"`
	Episodes int       `json:"episodes"`
	FirstAt  time.Time `json:"first_at"`
	LastAt   time.Time `json:"last_at"`
}

// DueSessionsParams asks for sessions quiet since before Before.
type DueSessionsParams struct {
	Namespace string
	Before    time.Time
	Limit     int
}

// SessionSummary records which summary memory covers a session.
type SessionSummary struct {
	Namespace      string    `json:"namespace"`
	SessionID      string    `json:"session_id"`
	MemoryID       string    `json:"memory_id"`
	VersionID      string    `json:"version_id"`
	Episodes       int       `json:"episodes"`
	LastAt         time.Time `json:"last_at"`
	ConsolidatedAt time.Time `json:"consolidated_at"`
	// Folded: the session's own summary was folded into its month's
	// digest, which MemoryID and VersionID now name.
	Folded bool `json:"folded,omitempty"`
}

// EpisodeStub is what stays of a summarised raw episode once it is
// forgotten: its id, content hash and time, and the summary that covers it;
// with where it is in its forgetting.
type EpisodeStub struct {
	Namespace       string     `json:"namespace"`
	EpisodeID       string     `json:"episode_id"`
	SessionID       string     `json:"session_id"`
	VersionID       string     `json:"version_id,omitempty"` // its episodic version, if it was indexed
	SummaryMemoryID string     `json:"summary_memory_id"`
	ContentHash     string     `json:"content_hash"`
	OccurredAt      time.Time  `json:"occurred_at"`
	SummarisedAt    time.Time  `json:"summarised_at"`
	CheckAt         time.Time  `json:"check_at"` // its retention cannot fall below the threshold before
	ForgottenAt     *time.Time `json:"forgotten_at,omitempty"`
	Retention       float64    `json:"retention"` // at the last check
	PurgedAt        *time.Time `json:"purged_at,omitempty"`
}

// ListSessionSummariesParams lists a namespace's summary records.
type ListSessionSummariesParams struct {
	Namespace string
	Limit     int // 0 means no limit
}

// AddEpisodeStubsParams records summarised episodes of one namespace.
type AddEpisodeStubsParams struct {
	Namespace string
	Stubs     []*EpisodeStub
}

// ListEpisodeStubsParams filters stubs. Set at most one of the filters
// below; with none set, every stub of the namespace is listed, by
// occurred_at then episode id (export):
//   - IDs: these episodes' stubs, by occurred_at then episode id;
//   - SessionID: a session's stubs, by occurred_at then episode id (no
//     index serves it: prefer IDs on a hot path);
//   - CheckBy: stubs not forgotten whose check_at is at or before it,
//     soonest first;
//   - PurgeBy: stubs forgotten at or before it and not purged, oldest
//     forgetting first.
type ListEpisodeStubsParams struct {
	Namespace string
	IDs       []string
	SessionID string
	CheckBy   time.Time
	PurgeBy   time.Time
	Limit     int // 0 means no limit
}

// PurgeEpisodeParams names the episode whose text to purge.
type PurgeEpisodeParams struct {
	Namespace string
	EpisodeID string
	// VersionID is its episodic version ("" if it has none).
	VersionID string
	Metadata  map[string]string // the episode's metadata from now on
}
