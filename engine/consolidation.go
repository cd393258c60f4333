package engine

import (
	"context"

	"github.com/mnemon-dev/mnemon/consolidate"
	"github.com/mnemon-dev/mnemon/memory"
)

// Consolidation (summarising sessions, forgetting and purging their raw
// episodes, folding old summaries into monthly digests) lives in package
// consolidate; the engine runs it on its store and index. These names keep
// the engine's API as it was.
type (
	Consolidation      = consolidate.Consolidation
	Access             = consolidate.Access
	SessionOutcome     = consolidate.SessionOutcome
	ForgottenEpisode   = consolidate.ForgottenEpisode
	ConsolidateReport  = consolidate.ConsolidateReport
	ConsolidateOptions = consolidate.ConsolidateOptions
	FoldedMonth        = consolidate.FoldedMonth
	Summariser         = consolidate.Summariser
	SummaryInput       = consolidate.SummaryInput
	Summary            = consolidate.Summary
)

// Session outcome statuses (see consolidate).
const (
	SessionSummarised   = consolidate.SessionSummarised
	SessionResummarised = consolidate.SessionResummarised
	SessionUnchanged    = consolidate.SessionUnchanged
	SessionTooRecent    = consolidate.SessionTooRecent
)

// PurgedMetadataKey names, on a purged episode, the memory that covers it.
const PurgedMetadataKey = consolidate.PurgedMetadataKey

// MaxSessionIDBytes bounds a session id.
const MaxSessionIDBytes = consolidate.MaxSessionIDBytes

// DefaultConsolidation is the built-in consolidation policy.
func DefaultConsolidation() Consolidation { return consolidate.DefaultConsolidation() }

// ValidateSessionID checks a session id named by a caller.
func ValidateSessionID(id string) error { return consolidate.ValidateSessionID(id) }

// NewExtractiveSummariser returns the built-in summariser.
func NewExtractiveSummariser() Summariser { return consolidate.NewExtractiveSummariser() }

// ConsolidateSession summarises one session now (see
// consolidate.Consolidator.ConsolidateSession).
func (e *Engine) ConsolidateSession(ctx context.Context, ns, sessionID string, opt ConsolidateOptions) (*ConsolidateReport, error) {
	return e.consolidator.ConsolidateSession(ctx, ns, sessionID, opt)
}

// ConsolidateDue summarises the sessions of ns that are due, forgets and
// purges what retention lets go, and folds old summaries (see
// consolidate.Consolidator.ConsolidateDue).
func (e *Engine) ConsolidateDue(ctx context.Context, ns string) (*ConsolidateReport, error) {
	return e.consolidator.ConsolidateDue(ctx, ns)
}

// EpisodeStubs returns the consolidation stubs of these episodes (see
// consolidate.Consolidator.EpisodeStubs).
func (e *Engine) EpisodeStubs(ctx context.Context, ns string, episodeIDs []string) ([]*memory.EpisodeStub, error) {
	return e.consolidator.EpisodeStubs(ctx, ns, episodeIDs)
}
