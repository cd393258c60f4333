package memory

import (
	"context"
	"time"
)

// FeedbackOutcome is what an agent, user, tool or evaluator says a
// retrieved memory did for the task.
type FeedbackOutcome string

const (
	OutcomeHelpful FeedbackOutcome = "helpful"
	OutcomeUnused  FeedbackOutcome = "unused"
	OutcomeHarmful FeedbackOutcome = "harmful"
)

// FeedbackOutcomes lists every valid outcome, in documentation order.
var FeedbackOutcomes = []FeedbackOutcome{OutcomeHelpful, OutcomeUnused, OutcomeHarmful}

// Valid reports whether o is one of FeedbackOutcomes.
func (o FeedbackOutcome) Valid() bool {
	for _, v := range FeedbackOutcomes {
		if o == v {
			return true
		}
	}
	return false
}

// FeedbackSource says who judged the outcome.
type FeedbackSource string

const (
	SourceUser      FeedbackSource = "user"
	SourceAgent     FeedbackSource = "agent"
	SourceTool      FeedbackSource = "tool"
	SourceEvaluator FeedbackSource = "evaluator"
)

// FeedbackSources lists every valid source, in documentation order.
var FeedbackSources = []FeedbackSource{SourceUser, SourceAgent, SourceTool, SourceEvaluator}

// Valid reports whether s is one of FeedbackSources.
func (s FeedbackSource) Valid() bool {
	for _, v := range FeedbackSources {
		if s == v {
			return true
		}
	}
	return false
}

// Feedback is one outcome applied to one version served by a retrieval,
// with the usefulness and trust it had before and after: the history
// explain shows. Feedback rows are never edited.
type Feedback struct {
	ID          string          `json:"id"`
	Namespace   string          `json:"namespace"`
	RetrievalID string          `json:"retrieval_id"`
	MemoryID    string          `json:"memory_id"`
	VersionID   string          `json:"version_id"`
	Outcome     FeedbackOutcome `json:"outcome"`
	Severity    float64         `json:"severity"`
	Source      FeedbackSource  `json:"source"`
	// Used says whether the agent's output used the memory; Overlap, when
	// the output was given, is the share of the memory's terms found in it.
	Used          bool     `json:"used"`
	Overlap       *float64 `json:"overlap,omitempty"`
	TaskSucceeded bool     `json:"task_succeeded"`
	// Reinforced says the outcome counted as a reinforcement (helpful,
	// used, task succeeded).
	Reinforced       bool      `json:"reinforced"`
	UsefulnessBefore float64   `json:"usefulness_before"`
	UsefulnessAfter  float64   `json:"usefulness_after"`
	TrustBefore      float64   `json:"trust_before"`
	TrustAfter       float64   `json:"trust_after"`
	StatusAfter      Status    `json:"status_after"`
	CreatedAt        time.Time `json:"created_at"`
}

// FeedbackLog persists feedback events. A namespace holds at most one
// event per (retrieval, version, source, outcome): a second is ErrConflict.
type FeedbackLog interface {
	// CreateFeedback inserts events of one namespace, all or none.
	CreateFeedback(ctx context.Context, p CreateFeedbackParams) error
	// ListFeedback returns events matching p, oldest first (created_at,
	// then id).
	ListFeedback(ctx context.Context, p ListFeedbackParams) ([]*Feedback, error)
}

// CreateFeedbackParams inserts feedback events of one namespace.
type CreateFeedbackParams struct {
	Namespace string
	Feedback  []*Feedback
}

// ListFeedbackParams filters feedback events; zero fields match everything.
type ListFeedbackParams struct {
	Namespace   string
	RetrievalID string
	MemoryID    string
	VersionID   string
	Limit       int // 0 means no limit
}
