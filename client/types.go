package client

import "time"

// The request and response bodies, mirroring the server's wire types
// (package httpapi/wire) and the schemas of its OpenAPI document
// (docs/openapi.json, served at /openapi.json). They are the client's own
// types, not the wire types, for their Go shape: a request takes time.Time
// where the wire carries an RFC 3339 string, and an optional number is a
// plain value whose zero means "the server's default" rather than a
// pointer. TestTypesMatchWire keeps them in step with the wire types,
// member for member, and TestTypesMatchOpenAPI with the document.
//
// Times are time.Time; a zero time is left out of a request ("not set")
// and means "none" in a response.

// Scope narrows a memory or a retrieval inside a namespace. Every field is
// optional.
type Scope struct {
	AgentID   string `json:"agent_id,omitempty"`
	UserID    string `json:"user_id,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// Event kinds of a capture.
const (
	KindUserMessage  = "user_message"
	KindAgentMessage = "agent_message"
	KindToolCall     = "tool_call"
	KindToolResult   = "tool_result"
	KindUserFeedback = "user_feedback"
	KindTaskResult   = "task_result"
	KindObservation  = "observation"
)

// CaptureRequest is the body of POST /v1/episodes.
type CaptureRequest struct {
	SessionID string  `json:"session_id,omitempty"` // the conversation; optional, at most 256 bytes
	AgentID   string  `json:"agent_id,omitempty"`
	UserID    string  `json:"user_id,omitempty"`
	ProjectID string  `json:"project_id,omitempty"`
	Events    []Event `json:"events"` // at least one
	// Wait asks the server to answer only once extraction has finished
	// (the wait=true query parameter; not part of the body).
	Wait bool `json:"-"`
}

// Event is one raw event of a capture.
type Event struct {
	Kind    string `json:"kind"` // one of the Kind constants
	Content string `json:"content"`
	// OccurredAt is when it happened; a zero time is sent as the moment
	// the capture is sent.
	OccurredAt time.Time         `json:"occurred_at,omitzero"`
	Speaker    string            `json:"speaker,omitempty"`
	Metadata   map[string]string `json:"metadata,omitempty"`
}

// CaptureResponse acknowledges a capture.
type CaptureResponse struct {
	EpisodeIDs []string `json:"episode_ids"`
	JobID      string   `json:"job_id"`
	JobState   string   `json:"job_state,omitempty"` // with Wait: the job's final state
}

// RememberRequest is the body of POST /v1/memories.
type RememberRequest struct {
	Text        string    `json:"text"` // required
	SessionID   string    `json:"session_id,omitempty"`
	AgentID     string    `json:"agent_id,omitempty"`
	UserID      string    `json:"user_id,omitempty"`
	ProjectID   string    `json:"project_id,omitempty"`
	Speaker     string    `json:"speaker,omitempty"`
	ObservedAt  time.Time `json:"observed_at,omitzero"`
	Type        string    `json:"type,omitempty"`
	Subject     string    `json:"subject,omitempty"`
	Key         string    `json:"key,omitempty"`
	Value       string    `json:"value,omitempty"`
	Criticality string    `json:"criticality,omitempty"` // normal, high or must_include
	Confidence  float64   `json:"confidence,omitzero"`   // 0: the server's default
	ValidFrom   time.Time `json:"valid_from,omitzero"`
	ValidTo     time.Time `json:"valid_to,omitzero"`
}

// RememberResponse says what a remember wrote.
type RememberResponse struct {
	EpisodeID string    `json:"episode_id"`
	MemoryID  string    `json:"memory_id,omitempty"`
	Version   *Version  `json:"version,omitempty"`
	Operation string    `json:"operation,omitempty"` // ADD, REINFORCE, SUPERSEDE, CONTEST or NOOP
	Decision  string    `json:"decision"`            // accept, defer, reject or quarantine
	Reasons   []string  `json:"reasons"`
	Outcomes  []Outcome `json:"outcomes"`
}

// Outcome is one candidate memory's admission decision and reconciliation.
type Outcome struct {
	EpisodeID string   `json:"episode_id,omitempty"`
	Decision  string   `json:"decision"`
	Operation string   `json:"operation,omitempty"`
	Reasons   []string `json:"reasons"`
	MemoryID  string   `json:"memory_id,omitempty"`
	VersionID string   `json:"version_id,omitempty"`
	Content   string   `json:"content"`
}

// RetrieveRequest is the body of POST /v1/memories/retrieve.
type RetrieveRequest struct {
	Query          string    `json:"query"` // required, at most 4096 bytes
	Limit          int       `json:"limit,omitempty"`
	TokenBudget    int       `json:"token_budget,omitempty"`
	TaskType       string    `json:"task_type,omitempty"`
	AgentID        string    `json:"agent_id,omitempty"`
	UserID         string    `json:"user_id,omitempty"`
	ProjectID      string    `json:"project_id,omitempty"`
	SessionID      string    `json:"session_id,omitempty"`   // the current conversation: ranks its items a little higher
	SessionOnly    bool      `json:"session_only,omitempty"` // serve only items said in SessionID
	AsOf           time.Time `json:"as_of,omitzero"`
	KnownAt        time.Time `json:"known_at,omitzero"` // record time: what mnemon held then
	IncludeHistory bool      `json:"include_history,omitempty"`
	// ContextTurns: turns shown around each packed episode (nil: the
	// server's default, 1; 0: none; up to 3). See Turns.
	ContextTurns *int `json:"context_turns,omitempty"`
}

// Turns returns a pointer to n, for RetrieveRequest.ContextTurns.
func Turns(n int) *int { return &n }

// RetrieveResponse is a packed context and its items in final rank order.
type RetrieveResponse struct {
	// RetrievalID names the retrieval's trace; empty when the namespace
	// held nothing yet (nothing was retrieved: no trace, no feedback).
	RetrievalID string         `json:"retrieval_id"`
	Context     string         `json:"context"`
	TokensUsed  int            `json:"tokens_used"`
	Items       []RetrieveItem `json:"items"`
	// Hint is set when the namespace holds nothing yet: what to do first.
	Hint string `json:"hint,omitempty"`
	// Notes say where the retrieval left its usual path, each
	// "code: detail" (models.embedder_fallback, models.reembed_incomplete).
	Notes []string `json:"notes,omitempty"`
}

// RespondRequest is the body of POST /v1/agent/respond.
type RespondRequest struct {
	Query        string `json:"query"` // required, at most 4096 bytes
	Limit        int    `json:"limit,omitempty"`
	TokenBudget  int    `json:"token_budget,omitempty"`
	TaskType     string `json:"task_type,omitempty"`
	AgentID      string `json:"agent_id,omitempty"`
	UserID       string `json:"user_id,omitempty"`
	ProjectID    string `json:"project_id,omitempty"`
	SessionID    string `json:"session_id,omitempty"`
	ContextTurns *int   `json:"context_turns,omitempty"`
	MaxTokens    int    `json:"max_tokens,omitempty"` // the answer's length (0: 512)
}

// RespondResponse is the chat model's answer with the retrieval it used.
type RespondResponse struct {
	Answer string `json:"answer"`
	// RetrievalID names the retrieval the answer was given: send feedback
	// on it. Its trace marks the items the answer used.
	RetrievalID string         `json:"retrieval_id"`
	Used        []RespondUse   `json:"used"`
	Context     string         `json:"context"`
	TokensUsed  int            `json:"tokens_used"`
	Items       []RetrieveItem `json:"items"`
	Model       string         `json:"model"`
	Usage       ModelUsage     `json:"usage"`
	Notes       []string       `json:"notes,omitempty"`
}

// RespondUse is one item an answer cited.
type RespondUse struct {
	MemoryID  string `json:"memory_id"`
	VersionID string `json:"version_id"`
	Content   string `json:"content"`
}

// ModelUsage is the token count of a model call.
type ModelUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// RetrieveItem is one packed memory with its citation and reason.
type RetrieveItem struct {
	MemoryID    string                `json:"memory_id"`
	VersionID   string                `json:"version_id"`
	Kind        string                `json:"kind"`
	Type        string                `json:"type"`
	Content     string                `json:"content"`
	Score       float64               `json:"score"`
	Tokens      int                   `json:"tokens"`
	Action      string                `json:"action"` // FOLLOW, HINT or IGNORE
	EpisodeIDs  []string              `json:"episode_ids"`
	Channels    map[string]ChannelHit `json:"channels"`
	Explanation string                `json:"explanation"`
	Trust       float64               `json:"trust"`       // 0 to 1: how far to act on it
	Uncertainty float64               `json:"uncertainty"` // 0 to 1: how little outcomes settle its trust
}

// ChannelHit is an item's rank and score in one retrieval channel.
type ChannelHit struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// ListOptions are the query parameters of GET /v1/memories.
type ListOptions struct {
	IncludeHistory bool   // also superseded, expired and contested-away versions
	Subject        string // only memories about this subject
	Limit          int    // 1-1000; 0: the server's default (100)
}

// MemoryList is the body of GET /v1/memories.
type MemoryList struct {
	Memories []*Version `json:"memories"`
}

// Version is one immutable version of a memory. The server never sends
// its embedding, so the client has no field for it.
type Version struct {
	ID                 string     `json:"id"`
	MemoryID           string     `json:"memory_id"`
	Namespace          string     `json:"namespace"`
	Seq                int        `json:"seq"`
	Scope              Scope      `json:"scope"`
	Kind               string     `json:"kind"`
	Type               string     `json:"type"`
	Subject            string     `json:"subject"`
	Key                string     `json:"key"`
	Value              string     `json:"value"`
	Content            string     `json:"content"`
	Criticality        string     `json:"criticality"`
	Confidence         float64    `json:"confidence"`
	Usefulness         float64    `json:"usefulness"`
	Trust              float64    `json:"trust"`
	ReinforcementCount int        `json:"reinforcement_count"`
	FailureCount       int        `json:"failure_count"`
	Status             string     `json:"status"`
	Operation          string     `json:"operation"`
	SupersededBy       string     `json:"superseded_by,omitempty"`
	ObservedAt         time.Time  `json:"observed_at"`
	RecordedAt         time.Time  `json:"recorded_at"`
	ValidFrom          time.Time  `json:"valid_from"`
	ValidTo            time.Time  `json:"valid_to,omitzero"`
	UpdatedAt          time.Time  `json:"updated_at"`
	EvidenceEpisodeIDs []string   `json:"evidence_episode_ids,omitempty"`
	EvidenceSpans      []Span     `json:"evidence_spans,omitempty"`
	Provenance         Provenance `json:"provenance"`
	Tokens             int        `json:"tokens"`
	SearchText         string     `json:"search_text,omitempty"`
}

// Span is a stretch of an episode a version was extracted from.
type Span struct {
	EpisodeID string `json:"episode_id"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
}

// Provenance says how a version was made.
type Provenance struct {
	Extractor     string `json:"extractor"`
	Model         string `json:"model,omitempty"`
	PromptVersion string `json:"prompt_version,omitempty"`
	Embedder      string `json:"embedder"`
	EmbedderDim   int    `json:"embedder_dim"`
	Source        string `json:"source"`
}

// MemoryView is a memory with every version, its admission log and the
// episodes it cites (GET /v1/memories/{id}). For an episode id, Memory is
// nil and Episode is the episode, with the decisions about it in
// Admissions.
type MemoryView struct {
	Memory     *Memory      `json:"memory"`
	Versions   []*Version   `json:"versions"`
	Admissions []*Admission `json:"admissions"`
	Episodes   []*Episode   `json:"episodes"`
	Episode    *Episode     `json:"episode,omitempty"`
}

// Memory is a canonical slot (subject + key) whose versions hold its values.
type Memory struct {
	ID        string    `json:"id"`
	Namespace string    `json:"namespace"`
	Scope     Scope     `json:"scope"`
	Kind      string    `json:"kind"`
	Subject   string    `json:"subject"`
	Key       string    `json:"key"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Admission is one admission decision about a candidate memory.
type Admission struct {
	ID        string    `json:"id"`
	Namespace string    `json:"namespace"`
	EpisodeID string    `json:"episode_id,omitempty"`
	MemoryID  string    `json:"memory_id,omitempty"`
	VersionID string    `json:"version_id,omitempty"`
	Decision  string    `json:"decision"`
	Reasons   []string  `json:"reasons"`
	Operation string    `json:"operation,omitempty"`
	Content   string    `json:"content"`
	Extractor string    `json:"extractor"`
	CreatedAt time.Time `json:"created_at"`
	// Models is what the model extraction of the episode cost, on the
	// episode's own admission; empty when no model ran.
	Models []ModelCalls `json:"models,omitempty"`
}

// ModelCalls is what the calls to one model, at one endpoint kind
// (embeddings, chat, rerank), cost one retrieval or extraction.
type ModelCalls struct {
	Model          string `json:"model"`
	Endpoint       string `json:"endpoint"`
	Calls          int    `json:"calls"`
	Errors         int    `json:"errors,omitempty"`
	TokensIn       int    `json:"tokens_in,omitempty"`
	TokensOut      int    `json:"tokens_out,omitempty"`
	DurationMicros int64  `json:"duration_us"`
}

// Episode is one immutable raw event.
type Episode struct {
	ID          string            `json:"id"`
	Namespace   string            `json:"namespace"`
	Scope       Scope             `json:"scope"`
	Kind        string            `json:"kind"`
	Speaker     string            `json:"speaker,omitempty"`
	Content     string            `json:"content"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	OccurredAt  time.Time         `json:"occurred_at"`
	RecordedAt  time.Time         `json:"recorded_at"`
	ContentHash string            `json:"content_hash"`
}

// ForgetResponse says what a DELETE /v1/memories/{id} took out of
// retrieval.
type ForgetResponse struct {
	MemoryID string   `json:"memory_id"`
	Versions []string `json:"versions"` // version ids marked deleted now
	Episodes []string `json:"episodes"` // episodic memories that left with it
}

// Trace is the record of one retrieval (GET /v1/retrievals/{id}).
type Trace struct {
	ID             string      `json:"id"`
	Namespace      string      `json:"namespace"`
	Query          string      `json:"query"`
	Scope          Scope       `json:"scope"`
	TaskType       string      `json:"task_type,omitempty"`
	Limit          int         `json:"limit"`
	TokenBudget    int         `json:"token_budget"`
	TokensUsed     int         `json:"tokens_used"`
	AsOf           time.Time   `json:"as_of,omitzero"`
	KnownAt        time.Time   `json:"known_at,omitzero"`
	IncludeHistory bool        `json:"include_history"`
	Items          []TraceItem `json:"items"`
	CreatedAt      time.Time   `json:"created_at"`
	DurationMicros int64       `json:"duration_us"`
	// Notes say where the retrieval left its usual path, as its response
	// did; Models what its model calls cost. Both empty without models.
	Notes  []string     `json:"notes,omitempty"`
	Models []ModelCalls `json:"models,omitempty"`
}

// TraceItem is one candidate of a retrieval, packed or not.
type TraceItem struct {
	MemoryID    string                `json:"memory_id"`
	VersionID   string                `json:"version_id"`
	Channels    map[string]ChannelHit `json:"channels"`
	Fused       float64               `json:"fused"`
	Terms       map[string]float64    `json:"terms"` // utility terms added to Fused
	Final       float64               `json:"final"`
	Rank        int                   `json:"rank"`
	Tokens      int                   `json:"tokens"`
	Trust       float64               `json:"trust"`
	Action      string                `json:"action"`
	Packed      bool                  `json:"packed"`
	Reason      string                `json:"reason"`
	Explanation string                `json:"explanation,omitempty"`
	Used        bool                  `json:"used,omitempty"` // an answer of Respond relied on it
}

// Job states.
const (
	JobPending   = "pending"
	JobRunning   = "running"
	JobSucceeded = "succeeded"
	JobFailed    = "failed"
)

// Job is a background job (GET /v1/jobs/{id}).
type Job struct {
	ID          string    `json:"id"`
	Kind        string    `json:"kind"`
	Namespace   string    `json:"namespace"`
	State       string    `json:"state"` // one of the Job constants
	Attempt     int       `json:"attempt"`
	MaxAttempts int       `json:"max_attempts"`
	Error       string    `json:"error,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	ScheduledAt time.Time `json:"scheduled_at"`
	FinishedAt  time.Time `json:"finished_at,omitzero"`
}

// Finished reports whether the job will not run again.
func (j *Job) Finished() bool { return j.State == JobSucceeded || j.State == JobFailed }

// ImportResponse counts what an import carried.
type ImportResponse struct {
	Memories         int `json:"memories"`
	Versions         int `json:"versions"`
	Episodes         int `json:"episodes"`
	Admissions       int `json:"admissions"`
	Traces           int `json:"traces"`
	Feedback         int `json:"feedback"`          // feedback events
	SessionSummaries int `json:"session_summaries"` // consolidation records of summarised sessions
	EpisodeStubs     int `json:"episode_stubs"`     // consolidation records of summarised episodes not purged
	ProcedureUses    int `json:"procedure_uses"`
	// Extracted counts episodes that arrived unextracted (exported while
	// waiting for extraction) and were extracted by the import.
	Extracted int `json:"extracted,omitempty"`
}

// Health is the body of /healthz and /readyz.
type Health struct {
	Status string            `json:"status"` // ok or unavailable
	Checks map[string]string `json:"checks,omitempty"`
}

// Feedback outcomes.
const (
	OutcomeHelpful = "helpful"
	OutcomeUnused  = "unused"
	OutcomeHarmful = "harmful"
)

// FeedbackRequest is the body of POST /v1/retrievals/{id}/feedback.
type FeedbackRequest struct {
	Outcome string `json:"outcome"` // required: one of the Outcome constants
	// MemoryIDs are the items judged (mem_... or ver_...), each an item of
	// the retrieval; empty: every item it returned.
	MemoryIDs []string `json:"memory_ids,omitempty"`
	// Output is the agent's output; when set, the server decides from it
	// which memories were used.
	Output string `json:"output,omitempty"`
	// Severity weighs a harmful outcome, 0 to 1; 0: the server's default (1).
	Severity float64 `json:"severity,omitzero"`
	Source   string  `json:"source,omitempty"` // user, agent (default), tool or evaluator
	// TaskSucceeded: nil is the server's default (true).
	TaskSucceeded *bool `json:"task_succeeded,omitempty"`
}

// FeedbackResult says what a feedback changed.
type FeedbackResult struct {
	RetrievalID string            `json:"retrieval_id"`
	Applied     []*FeedbackRecord `json:"applied"`
	Duplicates  []string          `json:"duplicates"`     // judgements already recorded
	Gone        []string          `json:"gone,omitempty"` // versions no longer stored (pruned, purged): skipped
}

// FeedbackRecord is one judgement of a memory and how it moved the
// memory's usefulness and trust (schema Feedback).
type FeedbackRecord struct {
	ID               string    `json:"id"`
	Namespace        string    `json:"namespace"`
	RetrievalID      string    `json:"retrieval_id"`
	MemoryID         string    `json:"memory_id"`
	VersionID        string    `json:"version_id"`
	Outcome          string    `json:"outcome"`
	Source           string    `json:"source"`
	Severity         float64   `json:"severity"`
	TaskSucceeded    bool      `json:"task_succeeded"`
	Used             bool      `json:"used"`
	Overlap          float64   `json:"overlap,omitempty"`
	Reinforced       bool      `json:"reinforced"`
	UsefulnessBefore float64   `json:"usefulness_before"`
	UsefulnessAfter  float64   `json:"usefulness_after"`
	TrustBefore      float64   `json:"trust_before"`
	TrustAfter       float64   `json:"trust_after"`
	StatusAfter      string    `json:"status_after"`
	CreatedAt        time.Time `json:"created_at"`
}

// Explanation is the body of GET /v1/memories/{id}/explain: Memory for a
// memory or version id, Retrieval for a retrieval id.
type Explanation struct {
	Memory    *MemoryExplanation    `json:"memory,omitempty"`
	Retrieval *RetrievalExplanation `json:"retrieval,omitempty"`
}

// MemoryExplanation says why a memory is held.
type MemoryExplanation struct {
	Memory   *Memory               `json:"memory"`
	Versions []*VersionExplanation `json:"versions"`
	Chain    []string              `json:"chain"` // the superseded-by chain
	Episodes []*Episode            `json:"episodes"`
}

// VersionExplanation is why one version is held and how feedback moved it.
type VersionExplanation struct {
	Version     *Version          `json:"version"`
	Operation   string            `json:"operation"`
	Action      string            `json:"action"`
	Trust       float64           `json:"trust"`
	Uncertainty float64           `json:"uncertainty"`
	Why         []string          `json:"why"`
	Admissions  []*Admission      `json:"admissions"`
	Feedback    []*FeedbackRecord `json:"feedback"`
}

// RetrievalExplanation says why each candidate of a retrieval ranked.
type RetrievalExplanation struct {
	Trace    *Trace            `json:"trace"`
	Items    []RankedItem      `json:"items"`
	Feedback []*FeedbackRecord `json:"feedback"`
}

// RankedItem is one candidate of a retrieval with the reason of its rank.
type RankedItem struct {
	MemoryID    string  `json:"memory_id"`
	VersionID   string  `json:"version_id"`
	Rank        int     `json:"rank"`
	Final       float64 `json:"final"`
	Trust       float64 `json:"trust"`
	Uncertainty float64 `json:"uncertainty"`
	Action      string  `json:"action"`
	Packed      bool    `json:"packed"`
	Reason      string  `json:"reason"`
	Why         string  `json:"why"`
}

// LifecycleRunRequest is the body of POST /v1/lifecycle/run. Every field
// is optional.
type LifecycleRunRequest struct {
	DryRun          bool    `json:"dry_run,omitempty"`
	Dedupe          bool    `json:"dedupe,omitempty"`
	DedupeThreshold float64 `json:"dedupe_threshold,omitzero"` // 0: the server's default (0.92)
	Limit           int     `json:"limit,omitempty"`           // 0: the server's defaults
}

// LifecycleRunResponse reports a lifecycle run.
type LifecycleRunResponse struct {
	Lifecycle *LifecycleReport `json:"lifecycle"`
	Dedupe    *DedupeReport    `json:"dedupe,omitempty"` // with Dedupe
}

// LifecycleReport counts expiry, usefulness decay and contests resolved.
type LifecycleReport struct {
	Namespace        string            `json:"namespace"`
	DryRun           bool              `json:"dry_run"`
	Expired          int               `json:"expired"`
	Floored          int               `json:"floored"`
	Decayed          int               `json:"decayed"`
	ContestsResolved int               `json:"contests_resolved"`
	More             bool              `json:"more"`
	Changes          []LifecycleChange `json:"changes"`
}

// DedupeReport counts the duplicate clusters merged.
type DedupeReport struct {
	Namespace  string            `json:"namespace"`
	DryRun     bool              `json:"dry_run"`
	Threshold  float64           `json:"threshold"`
	Clusters   int               `json:"clusters"`
	Superseded int               `json:"superseded"`
	More       bool              `json:"more"`
	Changes    []LifecycleChange `json:"changes"`
	Judged     int               `json:"judged,omitempty"`
	JudgedSame int               `json:"judged_same,omitempty"`
}

// LifecycleChange is one version a lifecycle step changed (or would).
type LifecycleChange struct {
	MemoryID     string `json:"memory_id"`
	VersionID    string `json:"version_id"`
	From         string `json:"from"`
	To           string `json:"to"`
	Reason       string `json:"reason"`
	Detail       string `json:"detail"`
	SupersededBy string `json:"superseded_by,omitempty"`
}

// ConsolidateRequest is the body of POST /v1/sessions/{id}/consolidate.
type ConsolidateRequest struct {
	// Force summarises a session younger than the minimum age (7 days).
	Force bool `json:"force,omitempty"`
}

// ConsolidateResponse reports a session's consolidation.
type ConsolidateResponse struct {
	Sessions  []SessionOutcome   `json:"sessions"` // one entry
	Forgotten []ForgottenEpisode `json:"forgotten"`
	Purged    []string           `json:"purged"`
	More      bool               `json:"more"`
}

// SessionOutcome is what consolidation did to a session.
type SessionOutcome struct {
	SessionID        string    `json:"session_id"`
	Status           string    `json:"status"` // summarised, resummarised, unchanged or too_recent
	Episodes         int       `json:"episodes"`
	Summary          string    `json:"summary,omitempty"`
	SummaryMemoryID  string    `json:"summary_memory_id,omitempty"`
	SummaryVersionID string    `json:"summary_version_id,omitempty"`
	EligibleAt       time.Time `json:"eligible_at,omitzero"` // too_recent: when it becomes old enough
}

// ForgottenEpisode is a summarised episode that left retrieval.
type ForgottenEpisode struct {
	EpisodeID       string  `json:"episode_id"`
	SummaryMemoryID string  `json:"summary_memory_id"`
	Retention       float64 `json:"retention"`
	Accesses        int     `json:"accesses"`
}

// GraphOptions are the query parameters of GET /v1/graph/neighborhood.
type GraphOptions struct {
	Entity         string    // required: a subject or a value, in any case
	Hops           int       // 1 or 2; 0: the server's default (1)
	AsOf           time.Time // claims true at this valid time; zero: now
	IncludeHistory bool      // also superseded and expired claims (without AsOf)
	Limit          int       // at most this many claims; 0: the server's default (50)
	// Scope, as in retrieval: claims of memories scoped to an agent, user,
	// project or session are given only when it is named here.
	AgentID, UserID, ProjectID, SessionID string
}

// GraphResponse is an entity's neighbourhood in the knowledge graph.
type GraphResponse struct {
	Entity    string        `json:"entity"`
	Hops      int           `json:"hops"`
	AsOf      time.Time     `json:"as_of,omitzero"`
	Entities  []GraphEntity `json:"entities"`
	Claims    []GraphClaim  `json:"claims"`
	Truncated bool          `json:"truncated"`
}

// GraphEntity is an entity of a neighbourhood.
type GraphEntity struct {
	Name string `json:"name"`
	Hop  int    `json:"hop"`
}

// GraphClaim is one claim (a version read as subject, relation, object).
type GraphClaim struct {
	Subject   string    `json:"subject"`
	Relation  string    `json:"relation"`
	Object    string    `json:"object"`
	Key       string    `json:"key"`
	Value     string    `json:"value"`
	Content   string    `json:"content"`
	Hop       int       `json:"hop"`
	Status    string    `json:"status"`
	MemoryID  string    `json:"memory_id"`
	VersionID string    `json:"version_id"`
	ValidFrom time.Time `json:"valid_from"`
	ValidTo   time.Time `json:"valid_to,omitzero"`
}

// ProcedureList is the body of GET /v1/procedures.
type ProcedureList struct {
	Procedures []Procedure `json:"procedures"`
}

// Procedure is a live procedural memory with its steps.
type Procedure struct {
	MemoryID     string    `json:"memory_id"`
	VersionID    string    `json:"version_id"`
	Seq          int       `json:"seq"`
	TaskType     string    `json:"task_type,omitempty"`
	Scope        Scope     `json:"scope"`
	Content      string    `json:"content"`
	Steps        []string  `json:"steps"`
	EpisodeIDs   []string  `json:"episode_ids"` // task_result episodes it was distilled from
	Successes    int       `json:"successes"`
	FailureCount int       `json:"failure_count"`
	Trust        float64   `json:"trust"`
	Usefulness   float64   `json:"usefulness"`
	Status       string    `json:"status"`
	Stale        bool      `json:"stale"`
	StaleSince   time.Time `json:"stale_since,omitzero"`
	PromotedAt   time.Time `json:"promoted_at"`
	LastUsedAt   time.Time `json:"last_used_at,omitzero"`
}

// ProcedureReport reports a procedure promotion.
type ProcedureReport struct {
	Namespace    string             `json:"namespace"`
	TaskResults  int                `json:"task_results"`
	TracesRead   int                `json:"traces_read"`
	UsesRecorded int                `json:"uses_recorded"`
	Ignored      int                `json:"ignored"`
	Promoted     []ProcedureChange  `json:"promoted"`
	Reinforced   []ProcedureChange  `json:"reinforced"`
	Superseded   []ProcedureChange  `json:"superseded"`
	Failures     []ProcedureFailure `json:"failures"`
	Stale        []string           `json:"stale"`
	Waiting      []TaskTally        `json:"waiting"` // task types short of sessions
	More         bool               `json:"more"`
}

// ProcedureChange is a procedure promoted, reinforced or superseded.
type ProcedureChange struct {
	MemoryID  string   `json:"memory_id"`
	VersionID string   `json:"version_id"`
	TaskType  string   `json:"task_type"`
	Steps     []string `json:"steps"`
	Sessions  int      `json:"sessions"`
}

// ProcedureFailure is a failing session that used a procedure.
type ProcedureFailure struct {
	MemoryID  string `json:"memory_id"`
	VersionID string `json:"version_id"`
	SessionID string `json:"session_id"`
	EpisodeID string `json:"episode_id"`
}

// TaskTally counts a task type's sessions not yet promoted.
type TaskTally struct {
	TaskType  string `json:"task_type"`
	Scope     Scope  `json:"scope"`
	Successes int    `json:"successes"`
	Failures  int    `json:"failures"`
	Reason    string `json:"reason"`
}

// problem is an RFC 9457 problem document.
type problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Code      string `json:"code"`
	Detail    string `json:"detail,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}
