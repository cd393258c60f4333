package memory

import (
	"context"
	"time"
)

// Procedures holds what procedural promotion (engine/procedures.go)
// reads and keeps besides memories: the task_result episodes that say how a
// session ended, the retrieval traces in the order they were made, and the
// uses of procedures those traces record (one per procedure and session),
// so that "when was it last used" and "did a session that used it fail" are
// answered without reading every trace again.
type Procedures interface {
	// ListTaskResults returns the namespace's task_result episodes, newest
	// first (occurred_at, then id, descending), at most p.Limit.
	ListTaskResults(ctx context.Context, p ListTaskResultsParams) ([]*Episode, error)
	// ListTracesAfter returns the namespace's traces created at or after
	// p.Since, oldest first (created_at, then id), at most p.Limit.
	ListTracesAfter(ctx context.Context, p ListTracesAfterParams) ([]*Trace, error)

	// RecordProcedureUses adds uses; for a (memory, session) already
	// recorded the later packing wins (PackedAt and VersionID move forward,
	// never back) and the outcome stays as settled.
	RecordProcedureUses(ctx context.Context, p RecordProcedureUsesParams) error
	// RestoreProcedureUses inserts uses as they are, outcome and settled_at
	// included (import), all or none. A use must be pending (outcome ""
	// and no SettledAt) or settled (success, failure or none, with
	// SettledAt); a (memory, session) the namespace already holds is
	// ErrConflict.
	RestoreProcedureUses(ctx context.Context, p RecordProcedureUsesParams) error
	// ListProcedureUses returns uses ordered by packed_at, memory id and
	// session id.
	ListProcedureUses(ctx context.Context, p ListProcedureUsesParams) ([]*ProcedureUse, error)
	// SettleProcedureUse records how the session of one use ended. Only a
	// pending use settles: settling twice is ErrConflict, so an outcome is
	// acted on once. An unknown use is ErrNotFound.
	SettleProcedureUse(ctx context.Context, p SettleProcedureUseParams) error

	// ProcedureCursor returns the created_at of the last trace promotion
	// has read in the namespace (the zero time when none).
	ProcedureCursor(ctx context.Context, p ScanParams) (time.Time, error)
	// SetProcedureCursor moves it.
	SetProcedureCursor(ctx context.Context, p SetProcedureCursorParams) error
}

// Outcomes of a procedure use, and of the task_result episode that settles it.
const (
	OutcomePending = ""        // its session has not reported a result yet
	OutcomeSuccess = "success" // the session's task succeeded
	OutcomeFailure = "failure" // the session's task failed: counted against the procedure
	OutcomeNone    = "none"    // no session, or none reported in time: never judged
)

// ProcedureUse is one session's use of a procedure: a retrieval in the
// session packed it.
type ProcedureUse struct {
	Namespace string `json:"namespace"`
	MemoryID  string `json:"memory_id"`
	// SessionID is the retrieval's session; "" for retrievals outside one.
	SessionID string `json:"session_id"`
	// VersionID is the version the latest of those retrievals packed.
	VersionID string    `json:"version_id"`
	PackedAt  time.Time `json:"packed_at"`
	Outcome   string    `json:"outcome"`
	// SettledAt is when the outcome was recorded; nil while pending.
	SettledAt *time.Time `json:"settled_at,omitempty"`
}

// ListTaskResultsParams filters task_result episodes.
type ListTaskResultsParams struct {
	Namespace string
	SessionID string // when set, only this session's
	Limit     int    // 0 means no limit
}

// ListTracesAfterParams pages through a namespace's traces oldest first.
type ListTracesAfterParams struct {
	Namespace string
	Since     time.Time // inclusive
	Limit     int       // 0 means no limit
}

// RecordProcedureUsesParams adds uses to one namespace (RecordProcedureUses,
// RestoreProcedureUses).
type RecordProcedureUsesParams struct {
	Namespace string
	Uses      []*ProcedureUse
}

// ListProcedureUsesParams filters uses; zero fields match everything.
type ListProcedureUsesParams struct {
	Namespace string
	MemoryIDs []string
	// Pending, when set, returns only uses whose outcome is not settled.
	Pending bool
	Limit   int // 0 means no limit
}

// SettleProcedureUseParams records the outcome of one use.
type SettleProcedureUseParams struct {
	Namespace string
	MemoryID  string
	SessionID string
	Outcome   string // success, failure or none
	At        time.Time
}

// SetProcedureCursorParams moves a namespace's trace cursor.
type SetProcedureCursorParams struct {
	Namespace string
	At        time.Time
}
