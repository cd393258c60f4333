package wire

import "time"

// The records the API shows: memories, versions, episodes, traces, jobs and
// the reports of the maintenance operations. Each mirrors, field for field,
// the domain type of the same name in memory, engine or jobs, which
// wireconv converts; the embedding of a version is never sent, so it has no
// field here.

// Version is one immutable claim of a memory. Its claim (kind, type, subject,
// key, value, content, observed_at, valid_from, provenance) never
// changes after it is written; its lifecycle state (status, valid_to,
// superseded_by, confidence, usefulness, trust, counters and evidence) moves
// as reconciliation, feedback and lifecycle jobs act on it.
type Version struct {
	ID                 string     `json:"id"`
	MemoryID           string     `json:"memory_id"`
	Namespace          string     `json:"namespace"`
	Seq                int        `json:"seq"` // 1-based within its memory
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
	ValidTo            *time.Time `json:"valid_to,omitempty"`
	UpdatedAt          time.Time  `json:"updated_at"`
	EvidenceEpisodeIDs []string   `json:"evidence_episode_ids,omitempty"`
	EvidenceSpans      []Span     `json:"evidence_spans,omitempty"`
	Provenance         Provenance `json:"provenance"`
	// Tokens is the content's length in cl100k tokens, counted once at write.
	Tokens int `json:"tokens"`
	// SearchText is extra text indexed with the content but never shown,
	// such as the keys an extracted fact lends to the episode it came from.
	SearchText string `json:"search_text,omitempty"`
}

// MemoryView is a memory with every version and its admission log; or, for
// an episode id, the episode and the decisions about it (Memory nil).
type MemoryView struct {
	Memory     *Memory      `json:"memory"`
	Versions   []*Version   `json:"versions"`
	Admissions []*Admission `json:"admissions"`
	Episodes   []*Episode   `json:"episodes"`
	Episode    *Episode     `json:"episode,omitempty" doc:"Set when the id names an episode (ep_...): the episode, with the admission decisions about it in admissions; memory is then null."`
}

// ForgetResult says what a forget did.
type ForgetResult struct {
	MemoryID string   `json:"memory_id"`
	Versions []string `json:"versions"` // its version ids marked deleted now
	// Episodes lists the episodic memories of the statements it came
	// from, which left retrieval with it.
	Episodes []string `json:"episodes"`
}

// Trace is the persisted record of one retrieval.
type Trace struct {
	ID             string       `json:"id"`
	Namespace      string       `json:"namespace"`
	Query          string       `json:"query"`
	Scope          Scope        `json:"scope"`
	TaskType       string       `json:"task_type,omitempty"`
	Limit          int          `json:"limit"`
	TokenBudget    int          `json:"token_budget"`
	TokensUsed     int          `json:"tokens_used"`
	AsOf           *time.Time   `json:"as_of,omitempty"`
	KnownAt        *time.Time   `json:"known_at,omitempty"`
	IncludeHistory bool         `json:"include_history"`
	Items          []TraceItem  `json:"items"`
	CreatedAt      time.Time    `json:"created_at"`
	DurationMicros int64        `json:"duration_us"`
	Notes          []string     `json:"notes,omitempty" doc:"Where the retrieval left its usual path, as its response said (\"code: detail\"): models.embedder_fallback, models.reembed_incomplete, models.budget_exceeded, models.reranked, models.rerank_fallback. Absent when none, and on traces written before mnemon kept them."`
	Models         []ModelCalls `json:"models,omitempty" doc:"What the retrieval's model calls cost, per model and endpoint: the query's embedding, the reranker, and for POST /v1/agent/respond the answer. Absent when it called no model."`
}

// ModelCalls is what the calls to one model, at one endpoint kind, cost
// one retrieval or extraction.
type ModelCalls struct {
	Model          string `json:"model"`
	Endpoint       string `json:"endpoint" doc:"embeddings, chat or rerank."`
	Calls          int    `json:"calls"`
	Errors         int    `json:"errors,omitempty" doc:"Calls that failed or answered late (their time counts in duration_us)."`
	TokensIn       int    `json:"tokens_in,omitempty" doc:"As the provider reported them."`
	TokensOut      int    `json:"tokens_out,omitempty"`
	DurationMicros int64  `json:"duration_us" doc:"Time spent waiting for the calls, in microseconds."`
}

// Job is a job as mnemon reports it.
type Job struct {
	ID          string     `json:"id"`
	Kind        string     `json:"kind"`
	Namespace   string     `json:"namespace"`
	State       string     `json:"state"`
	Attempt     int        `json:"attempt"`
	MaxAttempts int        `json:"max_attempts"`
	Error       string     `json:"error,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	ScheduledAt time.Time  `json:"scheduled_at"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
}

// ExportStats counts what an export or import carried.
type ExportStats struct {
	Memories         int `json:"memories"`
	Versions         int `json:"versions"`
	Episodes         int `json:"episodes"`
	Admissions       int `json:"admissions"`
	Traces           int `json:"traces"`
	Feedback         int `json:"feedback"`          // feedback events
	SessionSummaries int `json:"session_summaries"` // consolidation records of summarised sessions
	EpisodeStubs     int `json:"episode_stubs"`     // consolidation records of summarised episodes not purged
	ProcedureUses    int `json:"procedure_uses"`
	// Extracted counts episodes an import found unextracted (exported
	// while waiting in a backlog) and extracted after committing.
	Extracted int `json:"extracted,omitempty"`
}

// FeedbackResult lists what a feedback did to each item it judged.
type FeedbackResult struct {
	RetrievalID string `json:"retrieval_id"`
	// Applied are the events recorded now, one per version judged.
	Applied []*Feedback `json:"applied"`
	// Duplicates are the versions this source had already judged so for
	// this retrieval: the repeat changed nothing.
	Duplicates []string `json:"duplicates"`
	// Gone are versions the retrieval served that the store no longer
	// holds (history pruned by compaction, an episode purged): nothing
	// left to learn about them.
	Gone []string `json:"gone,omitempty"`
}

// Explanation says why mnemon holds a memory and how its standing moved,
// or why a retrieval ranked what it did. Exactly one of Memory and
// Retrieval is set.
type Explanation struct {
	Memory    *MemoryExplanation    `json:"memory,omitempty"`
	Retrieval *RetrievalExplanation `json:"retrieval,omitempty"`
}

// LifecycleReport says what one lifecycle run changed. A second run right
// after the first reports all zeros.
type LifecycleReport struct {
	Namespace string `json:"namespace"`
	DryRun    bool   `json:"dry_run"`
	// Expired counts versions past their valid_to, now expired.
	Expired int `json:"expired"`
	// Floored counts versions whose usefulness fell to the floor, now expired.
	Floored int `json:"floored"`
	// Decayed counts versions whose usefulness moved toward 0.5.
	Decayed int `json:"decayed"`
	// ContestsResolved counts contests one side won; each winner is
	// active and the other sides superseded by it.
	ContestsResolved int `json:"contests_resolved"`
	// More says the run stopped at its limit: run it again.
	More    bool              `json:"more"`
	Changes []LifecycleChange `json:"changes" nullable:"false"`
}

// DedupeReport says what one dedupe run did. A second run right after the
// first reports all zeros.
type DedupeReport struct {
	Namespace string  `json:"namespace"`
	DryRun    bool    `json:"dry_run"`
	Threshold float64 `json:"threshold"`
	// Clusters counts groups of duplicates merged into their strongest member.
	Clusters int `json:"clusters"`
	// Superseded counts the weaker members superseded (duplicate_of).
	Superseded int `json:"superseded"`
	// More says the run stopped at its limit or left part of a scope
	// uncompared: run it again.
	More    bool              `json:"more"`
	Changes []LifecycleChange `json:"changes" nullable:"false"`
	// Judged counts the ambiguous pairs the chat model was asked about
	// (models.duplicate_judge); JudgedSame those it called the same.
	Judged     int `json:"judged,omitempty"`
	JudgedSame int `json:"judged_same,omitempty"`
}

// Procedure is a procedural memory as Procedures lists it.
type Procedure struct {
	MemoryID  string   `json:"memory_id"`
	VersionID string   `json:"version_id"`
	Seq       int      `json:"seq"`
	TaskType  string   `json:"task_type,omitempty"` // "" for a procedure remembered directly
	Scope     Scope    `json:"scope"`
	Content   string   `json:"content"`
	Steps     []string `json:"steps"`
	// EpisodeIDs are the task_result episodes of the successful sessions
	// it was distilled from (its evidence).
	EpisodeIDs   []string  `json:"episode_ids"`
	Successes    int       `json:"successes"`
	FailureCount int       `json:"failure_count"`
	Usefulness   float64   `json:"usefulness"`
	Trust        float64   `json:"trust"`
	Status       string    `json:"status"`
	PromotedAt   time.Time `json:"promoted_at"`
	// LastUsedAt is the last retrieval that packed it; nil when none has.
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	// Stale: no retrieval packed it for ProcedureStaleAfter (counted from
	// its last use, or from its promotion when never used).
	Stale      bool       `json:"stale"`
	StaleSince *time.Time `json:"stale_since,omitempty"`
}

// ProcedureReport says what one PromoteProcedures run did.
type ProcedureReport struct {
	Namespace string `json:"namespace"`
	// TaskResults is how many task_result episodes were read; Ignored
	// how many of them lacked a task type, an outcome or a session.
	TaskResults int `json:"task_results"`
	Ignored     int `json:"ignored"`
	// Promoted, Reinforced and Superseded list the procedures written:
	// a new slot, new sessions confirming the same steps, new steps.
	Promoted   []ProcedureChange `json:"promoted"`
	Reinforced []ProcedureChange `json:"reinforced"`
	Superseded []ProcedureChange `json:"superseded"`
	// Waiting lists task types with successful sessions but fewer than
	// ProcedureMinSessions, or no steps in common.
	Waiting []TaskTally `json:"waiting"`
	// TracesRead and UsesRecorded: retrievals read since the last run,
	// and the (procedure, session) uses found in them.
	TracesRead   int `json:"traces_read"`
	UsesRecorded int `json:"uses_recorded"`
	// Failures lists failing sessions counted against a procedure now.
	Failures []ProcedureFailure `json:"failures"`
	// Stale lists the procedures flagged stale by this run.
	Stale []string `json:"stale"`
	// More says a bound was reached: run again for the rest.
	More bool `json:"more"`
}

// Scope narrows a memory inside a namespace. Empty fields mean "any".
type Scope struct {
	AgentID   string `json:"agent_id,omitempty"`
	UserID    string `json:"user_id,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// Span locates evidence inside an episode's content (byte offsets).
type Span struct {
	EpisodeID string `json:"episode_id"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
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

// Memory is a canonical slot, keyed by subject and key inside a namespace and
// scope. What it says lives in its versions.
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

// Admission is one entry of the admission log: a candidate memory, the
// decision taken on it and why.
type Admission struct {
	ID        string       `json:"id"`
	Namespace string       `json:"namespace"`
	EpisodeID string       `json:"episode_id,omitempty"`
	MemoryID  string       `json:"memory_id,omitempty"`
	VersionID string       `json:"version_id,omitempty"`
	Decision  string       `json:"decision"`
	Reasons   []string     `json:"reasons"`
	Operation string       `json:"operation,omitempty"`
	Content   string       `json:"content"`
	Extractor string       `json:"extractor"`
	CreatedAt time.Time    `json:"created_at"`
	Models    []ModelCalls `json:"models,omitempty" doc:"What the model extraction of the episode cost, on the episode's own admission (extractor \"episode\", or the one whose reasons say it stands in for the episode). Absent when no model ran."`
}

// Episode is one immutable raw event. Episodes are evidence; never edited.
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

// TraceItem is one candidate of a retrieval, packed or not.
type TraceItem struct {
	MemoryID    string                `json:"memory_id"`
	VersionID   string                `json:"version_id"`
	Channels    map[string]ChannelHit `json:"channels"`
	Fused       float64               `json:"fused"`
	Terms       map[string]float64    `json:"terms"` // utility terms added to Fused
	Final       float64               `json:"final"`
	Rank        int                   `json:"rank"` // 1-based final rank
	Tokens      int                   `json:"tokens"`
	Trust       float64               `json:"trust"`
	Action      string                `json:"action"`
	Packed      bool                  `json:"packed"`
	Reason      string                `json:"reason"`
	Explanation string                `json:"explanation,omitempty"`
	Used        bool                  `json:"used,omitempty" doc:"The answer of POST /v1/agent/respond relied on this item."`
}

// Feedback is one outcome applied to one version served by a retrieval,
// with the usefulness and trust it had before and after: the history
// explain shows. Feedback rows are never edited.
type Feedback struct {
	ID          string  `json:"id"`
	Namespace   string  `json:"namespace"`
	RetrievalID string  `json:"retrieval_id"`
	MemoryID    string  `json:"memory_id"`
	VersionID   string  `json:"version_id"`
	Outcome     string  `json:"outcome"`
	Severity    float64 `json:"severity"`
	Source      string  `json:"source"`
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
	StatusAfter      string    `json:"status_after"`
	CreatedAt        time.Time `json:"created_at"`
}

// MemoryExplanation explains a memory: every version, why it was stored,
// what replaced it and how feedback moved it.
type MemoryExplanation struct {
	Memory *Memory `json:"memory"`
	// Versions are oldest first.
	Versions []VersionExplanation `json:"versions"`
	// Chain follows superseded_by pointers from the first version (or the
	// version asked about) to the one that replaced it last, which may
	// belong to another memory (a merged duplicate).
	Chain    []string   `json:"chain"`
	Episodes []*Episode `json:"episodes"`
}

// RetrievalExplanation explains a retrieval: every candidate in final
// rank order, and the feedback it received.
type RetrievalExplanation struct {
	Trace    *Trace       `json:"trace"`
	Items    []RankedItem `json:"items"`
	Feedback []*Feedback  `json:"feedback"`
}

// LifecycleChange is one version a lifecycle or dedupe run changed.
type LifecycleChange struct {
	MemoryID  string `json:"memory_id"`
	VersionID string `json:"version_id"`
	Reason    string `json:"reason"`
	From      string `json:"from"`
	To        string `json:"to"`
	// Detail says what moved, for people: "usefulness 0.900 → 0.700 after 30.0 days".
	Detail string `json:"detail"`
	// SupersededBy is the version that now stands for this one.
	SupersededBy string `json:"superseded_by,omitempty"`
}

// ProcedureChange is one procedure written by a run.
type ProcedureChange struct {
	TaskType  string   `json:"task_type"`
	MemoryID  string   `json:"memory_id"`
	VersionID string   `json:"version_id"`
	Sessions  int      `json:"sessions"` // successful sessions it cites
	Steps     []string `json:"steps"`
}

// TaskTally counts a task type's sessions.
type TaskTally struct {
	TaskType  string `json:"task_type"`
	Scope     Scope  `json:"scope"`
	Successes int    `json:"successes"`
	Failures  int    `json:"failures"`
	Reason    string `json:"reason"` // too_few_successes or no_common_steps
}

// ProcedureFailure is a failing session that used a procedure.
type ProcedureFailure struct {
	MemoryID  string `json:"memory_id"`
	VersionID string `json:"version_id"`
	SessionID string `json:"session_id"`
	EpisodeID string `json:"episode_id"` // its failing task_result
}

// VersionExplanation is one version with the reasons behind it.
type VersionExplanation struct {
	Version *Version `json:"version"` // the server never sends embeddings
	// Operation is the reconciliation operation that produced it (ADD,
	// SUPERSEDE, CONTEST) or last touched it (REINFORCE).
	Operation string `json:"operation"`
	// Admissions are the admission decisions naming it, oldest first,
	// with their reason codes.
	Admissions []*Admission `json:"admissions"`
	// Feedback is every outcome applied to it, oldest first, with the
	// usefulness and trust before and after.
	Feedback []*Feedback `json:"feedback"`
	// Trust is what retrieval acts on now; Uncertainty how little the
	// outcomes so far settle it; Action what the agent is told.
	Trust       float64 `json:"trust"`
	Uncertainty float64 `json:"uncertainty"`
	Action      string  `json:"action"`
	// Why says it in sentences.
	Why []string `json:"why"`
}

// RankedItem is one candidate of a retrieval and why it ranked there.
type RankedItem struct {
	Rank      int     `json:"rank"`
	MemoryID  string  `json:"memory_id"`
	VersionID string  `json:"version_id"`
	Packed    bool    `json:"packed"`
	Reason    string  `json:"reason"`
	Final     float64 `json:"final"`
	Trust     float64 `json:"trust"` // at the retrieval
	Action    string  `json:"action"`
	// Uncertainty is the version's now (traces do not record it).
	Uncertainty float64 `json:"uncertainty"`
	Why         string  `json:"why"`
}
