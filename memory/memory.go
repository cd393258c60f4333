// Package memory holds mnemon's domain: namespaces, scopes, episodes, memories
// with immutable versions, the admission log and retrieval traces, and the
// Store interface every storage backend implements.
//
// It imports nothing else of mnemon, so backends, the engine and transports
// can all depend on it.
package memory

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// DefaultNamespace is used when the caller names none.
const DefaultNamespace = "default"

// Kind says what sort of memory a version is.
type Kind string

const (
	KindEpisodic   Kind = "episodic"   // a raw event, searchable as it happened
	KindSemantic   Kind = "semantic"   // a fact distilled from events
	KindProcedural Kind = "procedural" // how to do something
)

// Type classifies a version's content.
type Type string

const (
	TypeFact       Type = "fact"
	TypePreference Type = "preference"
	TypeDecision   Type = "decision"
	TypeConstraint Type = "constraint"
	TypeGoal       Type = "goal"
	TypeLesson     Type = "lesson"
	TypeProcedure  Type = "procedure"
	TypeSummary    Type = "summary"
	TypeEvent      Type = "event" // the type of every episodic memory
)

// Criticality marks memories that must reach the agent even at small budgets.
type Criticality string

const (
	CriticalityNormal      Criticality = "normal"
	CriticalityHigh        Criticality = "high"
	CriticalityMustInclude Criticality = "must_include"
)

// Status is a version's place in its lifecycle.
type Status string

const (
	StatusCandidate   Status = "candidate"
	StatusActive      Status = "active"
	StatusSuperseded  Status = "superseded"
	StatusContested   Status = "contested"
	StatusExpired     Status = "expired"
	StatusDeleted     Status = "deleted"
	StatusQuarantined Status = "quarantined"
)

// Live reports whether a version in this status is served by default
// retrieval (active and contested; everything else is history or hidden).
func (s Status) Live() bool { return s == StatusActive || s == StatusContested }

// History reports whether a version in this status is kept as history and
// served when history is asked for.
func (s Status) History() bool { return s == StatusSuperseded || s == StatusExpired }

// Operation is the reconciliation outcome that produced or touched a version.
type Operation string

const (
	OpAdd       Operation = "ADD"
	OpReinforce Operation = "REINFORCE"
	OpSupersede Operation = "SUPERSEDE"
	OpContest   Operation = "CONTEST"
	OpNoop      Operation = "NOOP"
)

// EpisodeKind names the raw event types an agent can capture.
type EpisodeKind string

const (
	EpisodeUserMessage  EpisodeKind = "user_message"
	EpisodeAgentMessage EpisodeKind = "agent_message"
	EpisodeToolCall     EpisodeKind = "tool_call"
	EpisodeToolResult   EpisodeKind = "tool_result"
	EpisodeUserFeedback EpisodeKind = "user_feedback"
	EpisodeTaskResult   EpisodeKind = "task_result"
	EpisodeObservation  EpisodeKind = "observation"
)

// EpisodeKinds lists every valid episode kind, in documentation order.
var EpisodeKinds = []EpisodeKind{
	EpisodeUserMessage, EpisodeAgentMessage, EpisodeToolCall, EpisodeToolResult,
	EpisodeUserFeedback, EpisodeTaskResult, EpisodeObservation,
}

// Valid reports whether k is one of EpisodeKinds.
func (k EpisodeKind) Valid() bool {
	for _, v := range EpisodeKinds {
		if k == v {
			return true
		}
	}
	return false
}

// Scope narrows a memory inside a namespace. Empty fields mean "any".
type Scope struct {
	AgentID   string `json:"agent_id,omitempty"`
	UserID    string `json:"user_id,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// MaxScopeIDBytes bounds each scope field (agent, user, project and
// session ids): one limit for every call that names a scope.
const MaxScopeIDBytes = 256

// Visible reports whether a memory scoped m is visible to a request scoped r.
// Agent, user and project are ownership, hard filters: every one of them the
// memory sets must equal the request's, so namespace-wide memories are
// visible to everyone and a memory of agent A only to A. The session is not
// a wall: a session is one conversation of its owners, and what was said in
// it is recalled from any later conversation (a request naming the session
// ranks it a little higher, and may ask for it alone).
func (r Scope) Visible(m Scope) bool {
	return (m.AgentID == "" || m.AgentID == r.AgentID) &&
		(m.UserID == "" || m.UserID == r.UserID) &&
		(m.ProjectID == "" || m.ProjectID == r.ProjectID)
}

// Owned reports whether s names an owner: an agent, a user or a project.
// A session alone owns nothing (see Visible).
func (s Scope) Owned() bool {
	return s.AgentID != "" || s.UserID != "" || s.ProjectID != ""
}

// Validate checks the ids a caller named: each at most MaxScopeIDBytes of
// valid UTF-8 without control characters, and not only spaces. Empty
// fields name nothing and are fine.
func (s Scope) Validate() error {
	for _, f := range []struct{ name, v string }{
		{"agent_id", s.AgentID}, {"user_id", s.UserID}, {"project_id", s.ProjectID}, {"session_id", s.SessionID},
	} {
		if err := ValidateScopeID(f.name, f.v); err != nil {
			return err
		}
	}
	return nil
}

// ValidateScopeID checks one scope id (see Scope.Validate); field names it
// in the message.
func ValidateScopeID(field, id string) error {
	switch {
	case id == "":
		return nil
	case strings.TrimSpace(id) == "":
		return FieldInvalidf(CodeInvalid, field, "%s is only spaces: leave it out or name one", field)
	case len(id) > MaxScopeIDBytes:
		return FieldInvalidf(CodeInvalid, field, "%s is %d bytes; the limit is %d", field, len(id), MaxScopeIDBytes)
	case !utf8.ValidString(id):
		return FieldInvalidf(CodeInvalid, field, "%s is not valid UTF-8", field)
	case strings.IndexFunc(id, unicode.IsControl) >= 0:
		return FieldInvalidf(CodeInvalid, field, "%s contains control characters", field)
	}
	return nil
}

// Episode is one immutable raw event. Episodes are evidence; never edited.
type Episode struct {
	ID          string            `json:"id"`
	Namespace   string            `json:"namespace"`
	Scope       Scope             `json:"scope"`
	Kind        EpisodeKind       `json:"kind"`
	Speaker     string            `json:"speaker,omitempty"`
	Content     string            `json:"content"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	OccurredAt  time.Time         `json:"occurred_at"`
	RecordedAt  time.Time         `json:"recorded_at"`
	ContentHash string            `json:"content_hash"`
}

// Memory is a canonical slot, keyed by subject and key inside a namespace and
// scope. What it says lives in its versions.
type Memory struct {
	ID        string    `json:"id"`
	Namespace string    `json:"namespace"`
	Scope     Scope     `json:"scope"`
	Kind      Kind      `json:"kind"`
	Subject   string    `json:"subject"`
	Key       string    `json:"key"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Provenance records who produced a version and with what.
type Provenance struct {
	Extractor     string `json:"extractor"`
	Model         string `json:"model,omitempty"`
	PromptVersion string `json:"prompt_version,omitempty"`
	Embedder      string `json:"embedder"`
	EmbedderDim   int    `json:"embedder_dim"`
	// Source is "remember" (a direct fact), "capture" (extracted from an
	// episode), "episode" (the episode itself) or "import".
	Source string `json:"source"`
}

// Span locates evidence inside an episode's content (byte offsets).
type Span struct {
	EpisodeID string `json:"episode_id"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
}

// NeutralUsefulness is where a version's usefulness starts and where,
// untouched, it decays back to: feedback moves it away, the lifecycle
// brings it home.
const NeutralUsefulness = 0.5

// Version is one immutable claim of a memory. Its claim (kind, type, subject,
// key, value, content, observed_at, valid_from, provenance, embedding) never
// changes after it is written; its lifecycle state (status, valid_to,
// superseded_by, confidence, usefulness, trust, counters and evidence) moves
// as reconciliation, feedback and lifecycle jobs act on it.
type Version struct {
	ID          string      `json:"id"`
	MemoryID    string      `json:"memory_id"`
	Namespace   string      `json:"namespace"`
	Seq         int         `json:"seq"` // 1-based within its memory
	Scope       Scope       `json:"scope"`
	Kind        Kind        `json:"kind"`
	Type        Type        `json:"type"`
	Subject     string      `json:"subject"`
	Key         string      `json:"key"`
	Value       string      `json:"value"`
	Content     string      `json:"content"`
	Criticality Criticality `json:"criticality"`

	Confidence         float64 `json:"confidence"`
	Usefulness         float64 `json:"usefulness"`
	Trust              float64 `json:"trust"`
	ReinforcementCount int     `json:"reinforcement_count"`
	FailureCount       int     `json:"failure_count"`

	Status       Status    `json:"status"`
	Operation    Operation `json:"operation"`
	SupersededBy string    `json:"superseded_by,omitempty"`

	ObservedAt time.Time  `json:"observed_at"`
	RecordedAt time.Time  `json:"recorded_at"`
	ValidFrom  time.Time  `json:"valid_from"`
	ValidTo    *time.Time `json:"valid_to,omitempty"`
	UpdatedAt  time.Time  `json:"updated_at"`

	EvidenceEpisodeIDs []string   `json:"evidence_episode_ids,omitempty"`
	EvidenceSpans      []Span     `json:"evidence_spans,omitempty"`
	Provenance         Provenance `json:"provenance"`

	// Tokens is the content's length in cl100k tokens, counted once at write.
	Tokens int `json:"tokens"`
	// SearchText is extra text indexed with the content but never shown,
	// such as the keys an extracted fact lends to the episode it came from.
	SearchText string `json:"search_text,omitempty"`
	// Embedding is the encoded vector (see the embed package); opaque here.
	Embedding []byte `json:"embedding,omitempty"`
}

// ValidAt reports whether the version was true in the world at t.
func (v *Version) ValidAt(t time.Time) bool {
	if t.Before(v.ValidFrom) {
		return false
	}
	return v.ValidTo == nil || t.Before(*v.ValidTo)
}

// AdmissionDecision is what the admission policy did with a candidate.
type AdmissionDecision string

const (
	AdmitAccept     AdmissionDecision = "accept"
	AdmitDefer      AdmissionDecision = "defer"
	AdmitReject     AdmissionDecision = "reject"
	AdmitQuarantine AdmissionDecision = "quarantine"
)

// Admission is one entry of the admission log: a candidate memory, the
// decision taken on it and why.
type Admission struct {
	ID        string            `json:"id"`
	Namespace string            `json:"namespace"`
	EpisodeID string            `json:"episode_id,omitempty"`
	MemoryID  string            `json:"memory_id,omitempty"`
	VersionID string            `json:"version_id,omitempty"`
	Decision  AdmissionDecision `json:"decision"`
	Reasons   []string          `json:"reasons"`
	Operation Operation         `json:"operation,omitempty"`
	Content   string            `json:"content"`
	Extractor string            `json:"extractor"`
	CreatedAt time.Time         `json:"created_at"`
	// Models is what the model extraction of the episode cost, on the
	// episode's own admission (extractor "episode", or the one that
	// stands in for it); nil when no model ran.
	Models []ModelUsage `json:"models,omitempty"`
}

// ModelUsage is what one model, at one endpoint kind, cost one request
// (a retrieval or an extraction): calls, failed calls, tokens in and out
// as the provider reported them, and the time spent waiting for it.
type ModelUsage struct {
	Model          string `json:"model"`
	Endpoint       string `json:"endpoint"` // embeddings, chat, rerank
	Calls          int    `json:"calls"`
	Errors         int    `json:"errors,omitempty"`
	TokensIn       int    `json:"tokens_in,omitempty"`
	TokensOut      int    `json:"tokens_out,omitempty"`
	DurationMicros int64  `json:"duration_us"`
}

// Action tells the agent how far to trust a retrieved item.
type Action string

const (
	ActionFollow Action = "FOLLOW"
	ActionHint   Action = "HINT"
	ActionIgnore Action = "IGNORE"
)

// ChannelHit is one channel's opinion of a candidate.
type ChannelHit struct {
	Rank  int     `json:"rank"` // 1-based
	Score float64 `json:"score"`
}

// TraceItem is one candidate of a retrieval, packed or not.
type TraceItem struct {
	MemoryID    string      `json:"memory_id"`
	VersionID   string      `json:"version_id"`
	Channels    ChannelHits `json:"channels"`
	Fused       float64     `json:"fused"`
	Terms       Terms       `json:"terms"` // utility terms added to Fused
	Final       float64     `json:"final"`
	Rank        int         `json:"rank"` // 1-based final rank
	Tokens      int         `json:"tokens"`
	Trust       float64     `json:"trust"`
	Action      Action      `json:"action"`
	Packed      bool        `json:"packed"`
	Reason      string      `json:"reason"`
	Explanation string      `json:"explanation,omitempty"`
	// Used says the answer of POST /v1/agent/respond relied on this item
	// (the chat model cited it); false for a plain retrieval.
	Used bool `json:"used,omitempty"`
}

// Trace is the persisted record of one retrieval.
type Trace struct {
	ID             string     `json:"id"`
	Namespace      string     `json:"namespace"`
	Query          string     `json:"query"`
	Scope          Scope      `json:"scope"`
	TaskType       string     `json:"task_type,omitempty"`
	Limit          int        `json:"limit"`
	TokenBudget    int        `json:"token_budget"`
	TokensUsed     int        `json:"tokens_used"`
	AsOf           *time.Time `json:"as_of,omitempty"`
	KnownAt        *time.Time `json:"known_at,omitempty"`
	IncludeHistory bool       `json:"include_history"`
	Items          TraceItems `json:"items"`
	CreatedAt      time.Time  `json:"created_at"`
	DurationMicros int64      `json:"duration_us"`
	// Notes say where the retrieval left its usual path, as its response
	// did ("code: detail": an embedder that fell back, a namespace being
	// re-embedded, a spent token budget, a reranker that fell back).
	Notes []string `json:"notes,omitempty"`
	// Models is what the retrieval's model calls cost (the query's
	// embedding, the reranker, the answer of POST /v1/agent/respond);
	// nil when it called none.
	Models []ModelUsage `json:"models,omitempty"`
}

// NormalizeNamespace trims a namespace name and applies the default.
func NormalizeNamespace(ns string) string {
	ns = strings.TrimSpace(ns)
	if ns == "" {
		return DefaultNamespace
	}
	return ns
}

// NextSeq is the position of the next version of a memory whose versions
// are vs: one past the highest. (Not len+1: Compact deletes old history,
// so positions have gaps.)
func NextSeq(vs []*Version) int {
	n := 0
	for _, v := range vs {
		n = max(n, v.Seq)
	}
	return n + 1
}
