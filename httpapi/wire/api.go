// Package wire holds the bodies of mnemon's HTTP API: what a request
// carries and what a response says, field for field. The server (httpapi)
// converts its domain values to these types at the edge (see wireconv);
// the OpenAPI document, and from it the TypeScript SDK's types, are
// generated from them; the Go client's own types are checked against them.
// It imports nothing of mnemon, so a client can use it without compiling
// in the server.
//
// Field tags are the wire format; `doc` tags feed the OpenAPI document;
// `required` marks fields a request must carry; nullable:"false" marks a
// slice or map the server always fills, so the document promises it is
// never null. Other tools depend on these shapes: change them only with a
// new API version.
package wire

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"time"
)

// CaptureRequest is the body of POST /v1/episodes.
type CaptureRequest struct {
	SessionID string       `json:"session_id,omitempty" doc:"The conversation the events belong to (at most 256 bytes); absent: none. A session is not a wall: its turns are recalled from later sessions of the same agent, user and project; a retrieval naming it ranks them a little higher."`
	AgentID   string       `json:"agent_id,omitempty" doc:"Agent scope."`
	UserID    string       `json:"user_id,omitempty" doc:"User scope."`
	ProjectID string       `json:"project_id,omitempty" doc:"Project scope."`
	Events    []EventInput `json:"events" required:"true" doc:"Raw events in the order they happened."`
}

// EventInput is one raw event of a capture.
type EventInput struct {
	Kind       string   `json:"kind" required:"true" doc:"user_message, agent_message, tool_call, tool_result, user_feedback, task_result or observation."`
	Content    string   `json:"content" required:"true" doc:"The event's text (UTF-8, at most 64 KiB)."`
	OccurredAt string   `json:"occurred_at,omitempty" format:"date-time" doc:"When it happened (RFC 3339); default the server's time when it receives the capture. A retried capture is recognised only with the same time, so send it when a retry must not store the event twice."`
	Speaker    string   `json:"speaker,omitempty" doc:"Who said it; default user."`
	Metadata   Metadata `json:"metadata,omitempty" doc:"Free-form string metadata; source=mnemon marks text mnemon itself returned. A task_result says how its session's task ended with task_type (e.g. deploy_atlas) and outcome (success or failure): procedures are distilled from them."`
}

// Metadata is an event's free-form metadata: string values only. It
// decodes itself so that a value of another kind is refused by its key
// ("field events.metadata.team must be a string, not an object"), which
// a plain map's decoding error leaves out.
type Metadata map[string]string

// UnmarshalJSON reads a JSON object of strings; a null value is "", as
// for a plain map.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw == nil {
		*m = nil
		return nil
	}
	keys := slices.Sorted(maps.Keys(raw)) // the first bad key, the same every time
	out := make(Metadata, len(raw))
	for _, k := range keys {
		var v string
		if err := json.Unmarshal(raw[k], &v); err != nil {
			// The decoder prefixes Field with the path to this map.
			return &json.UnmarshalTypeError{Value: jsonKindOf(raw[k]), Type: reflect.TypeFor[string](), Field: k}
		}
		out[k] = v
	}
	*m = out
	return nil
}

// jsonKindOf names a JSON value's kind as UnmarshalTypeError.Value does.
func jsonKindOf(v json.RawMessage) string {
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

// CaptureResponse acknowledges a capture: the episodes are stored and their
// extraction is queued (or, with wait=true, finished).
type CaptureResponse struct {
	EpisodeIDs []string `json:"episode_ids" nullable:"false" doc:"Stored episode ids, in event order."`
	JobID      string   `json:"job_id" doc:"The extraction job; see GET /v1/jobs/{id}."`
	JobState   string   `json:"job_state,omitempty" doc:"With wait=true: the job's final state."`
}

// RememberRequest is the body of POST /v1/memories.
type RememberRequest struct {
	Text        string   `json:"text" required:"true" doc:"The statement to remember. With key set, stored as exactly one fact. A statement no rule reads is kept as a note (key note:...); text that states nothing to keep (a question, a hypothetical, what someone else said, small talk) is kept only as said, an episodic memory recall finds: its outcome is accepted, without an operation, its reasons saying why (not_a_statement:..., gate:...)."`
	SessionID   string   `json:"session_id,omitempty" doc:"The conversation it was said in (at most 256 bytes); facts hold beyond it."`
	AgentID     string   `json:"agent_id,omitempty" doc:"Agent scope."`
	UserID      string   `json:"user_id,omitempty" doc:"User scope."`
	ProjectID   string   `json:"project_id,omitempty" doc:"Project scope."`
	Speaker     string   `json:"speaker,omitempty" doc:"Who states it; default user."`
	ObservedAt  string   `json:"observed_at,omitempty" format:"date-time" doc:"When it was said (RFC 3339); default now."`
	Type        string   `json:"type,omitempty" doc:"fact, preference, decision, constraint, goal, lesson, procedure or summary (with key)."`
	Subject     string   `json:"subject,omitempty" doc:"Whom the fact is about (with key); default the speaker."`
	Key         string   `json:"key,omitempty" doc:"Slot key such as prefers:editor; skips extraction."`
	Value       string   `json:"value,omitempty" doc:"The slot's value (with key)."`
	Criticality string   `json:"criticality,omitempty" doc:"normal, high or must_include."`
	Confidence  *float64 `json:"confidence,omitempty" doc:"0 to 1; default 0.9 for keyed facts."`
	ValidFrom   string   `json:"valid_from,omitempty" format:"date-time" doc:"Start of validity (RFC 3339)."`
	ValidTo     string   `json:"valid_to,omitempty" format:"date-time" doc:"End of validity (RFC 3339)."`
}

// RememberResponse says what a remember wrote: the version of its first
// accepted memory with the admission decision and reconciliation
// operation, and every candidate's outcome.
type RememberResponse struct {
	EpisodeID string    `json:"episode_id" doc:"The episode that records the statement."`
	MemoryID  string    `json:"memory_id,omitempty" doc:"The memory written or reinforced."`
	Version   *Version  `json:"version,omitempty" doc:"The version now current for that memory."`
	Operation string    `json:"operation,omitempty" doc:"ADD, REINFORCE, SUPERSEDE, CONTEST or NOOP; absent when the text was kept only as an episode."`
	Decision  string    `json:"decision" doc:"accept, defer, reject or quarantine."`
	Reasons   []string  `json:"reasons" doc:"Reason codes for the decision."`
	Outcomes  []Outcome `json:"outcomes" nullable:"false" doc:"Every candidate memory's fate."`
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
	Query          string `json:"query" required:"true" doc:"The task or question (at most 4096 bytes)."`
	Limit          int    `json:"limit,omitempty" doc:"Items at most (1-100; 0 or absent: the default, 10). must_include items come on top."`
	TokenBudget    int    `json:"token_budget,omitempty" doc:"Tokens the context may use (1-200000; 0 or absent: the default, 1000)."`
	TaskType       string `json:"task_type,omitempty" doc:"Task type, for procedures and task-specific memories."`
	AgentID        string `json:"agent_id,omitempty" doc:"Agent scope: memories of other agents are never served."`
	UserID         string `json:"user_id,omitempty" doc:"User scope: memories of other users are never served."`
	ProjectID      string `json:"project_id,omitempty" doc:"Project scope: memories of other projects are never served."`
	SessionID      string `json:"session_id,omitempty" doc:"The current conversation: its items rank a little higher; other sessions' items are still served."`
	SessionOnly    bool   `json:"session_only,omitempty" doc:"Serve only items said in session_id (which it needs): that conversation's turns, no facts."`
	AsOf           string `json:"as_of,omitempty" format:"date-time" doc:"Answer as of this valid time (RFC 3339)."`
	KnownAt        string `json:"known_at,omitempty" format:"date-time" doc:"Answer with what mnemon held at this record time (RFC 3339): later facts left out, values superseded since shown as current."`
	IncludeHistory bool   `json:"include_history,omitempty" doc:"Also serve superseded and expired versions."`
	ContextTurns   *int   `json:"context_turns,omitempty" doc:"Turns shown before and after each packed episode the ranking is confident of (one of the two best items, or scoring at least 0.55 of the best), from the same conversation (0-3; 0 none; default 2); an episode asking a question also brings the turn after it. Their tokens count against the budget."`
}

// RetrieveResponse is a packed context and its items in final rank order.
type RetrieveResponse struct {
	RetrievalID string         `json:"retrieval_id" doc:"Trace id; see GET /v1/retrievals/{id}. Empty when the namespace holds nothing yet: nothing was retrieved, no trace was written, and there is nothing to send feedback on."`
	Context     string         `json:"context" doc:"The packed context, ready for a prompt."`
	TokensUsed  int            `json:"tokens_used"`
	Items       []RetrieveItem `json:"items" nullable:"false"`
	Hint        string         `json:"hint,omitempty" doc:"Set when the namespace holds nothing yet (items is empty): what to do first."`
	Notes       []string       `json:"notes,omitempty" doc:"Where the retrieval left its usual path, each 'code: detail': models.embedder_fallback when the embeddings provider failed or ran out of its budget and the built-in embedder embedded the query; models.reembed_incomplete while the namespace is being re-embedded and its old vectors were searched too; store.read_only when the server opened the database read-only (serve --read-only) and stored no trace, so the retrieval_id takes no feedback."`
}

// RetrieveItem is one packed memory with its citation and reason.
type RetrieveItem struct {
	MemoryID    string                `json:"memory_id"`
	VersionID   string                `json:"version_id"`
	Kind        string                `json:"kind" doc:"episodic, semantic or procedural."`
	Type        string                `json:"type"`
	Content     string                `json:"content"`
	Score       float64               `json:"score"`
	Tokens      int                   `json:"tokens"`
	Trust       float64               `json:"trust" doc:"0 to 1: how far to act on it (FOLLOW at 0.75, HINT at 0.45 by default)."`
	Uncertainty float64               `json:"uncertainty" doc:"0 to 1: how little the outcomes so far settle its trust."`
	Action      string                `json:"action" doc:"FOLLOW, HINT or IGNORE."`
	EpisodeIDs  []string              `json:"episode_ids" nullable:"false" doc:"The episode it is (episodic) or cites (semantic, procedural)."`
	Channels    map[string]ChannelHit `json:"channels" nullable:"false" doc:"Each channel that found it, by name."`
	Explanation string                `json:"explanation"`
}

// RespondRequest asks the chat model for an answer from the memories
// retrieved for the question.
type RespondRequest struct {
	Query        string `json:"query" required:"true" doc:"The question or task to answer (at most 4096 bytes)."`
	Limit        int    `json:"limit,omitempty" doc:"Items retrieved for the answer at most (1-100; 0 or absent: the default, 10)."`
	TokenBudget  int    `json:"token_budget,omitempty" doc:"Tokens the packed context may use (1-200000; 0 or absent: the default, 1000)."`
	TaskType     string `json:"task_type,omitempty" doc:"Task type, for procedures and task-specific memories."`
	AgentID      string `json:"agent_id,omitempty" doc:"Agent scope: memories of other agents are never served."`
	UserID       string `json:"user_id,omitempty" doc:"User scope: memories of other users are never served."`
	ProjectID    string `json:"project_id,omitempty" doc:"Project scope: memories of other projects are never served."`
	SessionID    string `json:"session_id,omitempty" doc:"The current conversation: its items rank a little higher."`
	ContextTurns *int   `json:"context_turns,omitempty" doc:"Turns shown around packed episodes, as for retrieve (0-3; default 2)."`
	MaxTokens    int    `json:"max_tokens,omitempty" doc:"Tokens the answer may use (1-8192; 0 or absent: 512)."`
}

// RespondResponse is the chat model's answer and the retrieval it used.
type RespondResponse struct {
	Answer      string         `json:"answer" doc:"The chat model's answer, from the packed context only."`
	RetrievalID string         `json:"retrieval_id" doc:"The retrieval the answer was given; send feedback on it (POST /v1/retrievals/{id}/feedback). Its trace marks the items the answer used. Empty when the namespace holds nothing yet."`
	Used        []RespondUse   `json:"used" nullable:"false" doc:"The packed items the answer cited, in rank order."`
	Context     string         `json:"context" doc:"The packed context the model was given."`
	TokensUsed  int            `json:"tokens_used" doc:"Tokens of the packed context."`
	Items       []RetrieveItem `json:"items" nullable:"false" doc:"Every packed item, as retrieve returns them."`
	Model       string         `json:"model" doc:"The chat model that answered, as the provider names it."`
	Usage       ModelUsage     `json:"usage" doc:"The tokens of the chat call, as the provider reports them; they count against the namespace's daily model budget."`
	Notes       []string       `json:"notes,omitempty" doc:"Where the answer or its retrieval left the usual path, each 'code: detail' (retrieve's notes; models.respond_citation when the model cited an item it was not given)."`
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

// ChannelHit is an item's rank and score in one retrieval channel.
type ChannelHit struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// MemoryList is the body of GET /v1/memories.
type MemoryList struct {
	Memories []*Version `json:"memories" nullable:"false" doc:"Distilled memories (semantic and procedural), current first."`
}

// Health is the body of /healthz and /readyz.
type Health struct {
	Status string            `json:"status" doc:"ok or unavailable."`
	Checks map[string]string `json:"checks,omitempty" doc:"Each readiness check and its result."`
}

// Problem is an RFC 9457 problem document, served as
// application/problem+json for every error.
type Problem struct {
	Type      string `json:"type" doc:"URI naming the problem type."`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Code      string `json:"code" doc:"Stable machine-readable code."`
	Detail    string `json:"detail,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

// GraphResponse is the body of GET /v1/graph/neighborhood.
type GraphResponse struct {
	Entity    string        `json:"entity" doc:"The entity asked about, lower-cased."`
	Hops      int           `json:"hops" doc:"1: the entity's own claims; 2: also its neighbours' claims."`
	AsOf      *time.Time    `json:"as_of,omitempty" format:"date-time" doc:"The valid time asked for, if any."`
	Entities  []GraphEntity `json:"entities" nullable:"false" doc:"The entity (hop 0) and those its claims name, nearest first. Empty for an entity no served claim names."`
	Claims    []GraphClaim  `json:"claims" nullable:"false" doc:"Claims by hop, current first, then by subject and relation."`
	Truncated bool          `json:"truncated" doc:"More claims were in reach than limit allowed."`
}

// GraphEntity is one entity of a neighbourhood.
type GraphEntity struct {
	Name string `json:"name" doc:"The entity's name, lower-cased."`
	Hop  int    `json:"hop" doc:"Hops from the entity asked about (0: that entity)."`
}

// GraphClaim is one claim of a neighbourhood: subject -relation-> object,
// projected from one accepted memory version.
type GraphClaim struct {
	Subject   string     `json:"subject" doc:"The subject entity (user, a person, a project)."`
	Relation  string     `json:"relation" doc:"The memory's key in words: works at, uses package manager."`
	Key       string     `json:"key" doc:"The memory's key: works_at, uses:package_manager."`
	Object    string     `json:"object" doc:"The object entity: the value, lower-cased."`
	Value     string     `json:"value" doc:"The value as stated."`
	Content   string     `json:"content" doc:"The memory's sentence."`
	MemoryID  string     `json:"memory_id" doc:"The memory (mem_...)."`
	VersionID string     `json:"version_id" doc:"The version the claim is projected from (ver_...)."`
	Status    string     `json:"status" doc:"The version's status: active, contested, superseded or expired."`
	ValidFrom time.Time  `json:"valid_from" format:"date-time" doc:"Since when the claim is true."`
	ValidTo   *time.Time `json:"valid_to,omitempty" format:"date-time" doc:"Until when it was true (superseded or expired claims)."`
	Hop       int        `json:"hop" doc:"1 for the entity's own claims, 2 for its neighbours'."`
}

// ConsolidateRequest is the optional body of POST /v1/sessions/{id}/consolidate.
type ConsolidateRequest struct {
	Force bool `json:"force,omitempty" doc:"Summarise the session even if its last event is younger than the minimum age (7 days by default). Forgetting still follows retention."`
}

// ConsolidateResponse says what consolidating a session did.
type ConsolidateResponse struct {
	Sessions  []SessionOutcome   `json:"sessions" nullable:"false" doc:"The session consolidated (one entry)."`
	Forgotten []ForgottenEpisode `json:"forgotten" nullable:"false" doc:"Summarised episodes whose retention fell below the threshold: they left retrieval; their stubs remain."`
	Purged    []string           `json:"purged" nullable:"false" doc:"Forgotten episodes whose text was purged now (past the purge window)."`
	More      bool               `json:"more" doc:"A per-run bound was reached; consolidating again has work left."`
}

// SessionOutcome is what consolidation did with one session.
type SessionOutcome struct {
	SessionID        string `json:"session_id" doc:"The session."`
	Status           string `json:"status" doc:"summarised, resummarised (episodes came since: a new summary version supersedes the old), unchanged (its summary covers every episode) or too_recent (untouched)."`
	Episodes         int    `json:"episodes" doc:"Episodes in the session."`
	SummaryMemoryID  string `json:"summary_memory_id,omitempty" doc:"The summary memory (kind semantic, type summary) citing the session's episodes."`
	SummaryVersionID string `json:"summary_version_id,omitempty" doc:"Its current version."`
	Summary          string `json:"summary,omitempty" doc:"The summary's text (when written now)."`
	EligibleAt       string `json:"eligible_at,omitempty" format:"date-time" doc:"too_recent: when the session becomes old enough."`
}

// ForgottenEpisode is an episode consolidation took out of retrieval.
type ForgottenEpisode struct {
	EpisodeID       string  `json:"episode_id" doc:"The episode; its stub keeps id, content hash, time and summary link."`
	SummaryMemoryID string  `json:"summary_memory_id" doc:"The summary that covers it."`
	Retention       float64 `json:"retention" doc:"Its retention when forgotten: 2^(-age/half-life), age from its last access, half-life 30 days grown by access."`
	Accesses        int     `json:"accesses" doc:"Retrievals that served it within the access horizon."`
}

// FeedbackRequest is the body of POST /v1/retrievals/{id}/feedback.
type FeedbackRequest struct {
	Outcome   string   `json:"outcome" required:"true" doc:"helpful, unused or harmful."`
	MemoryIDs []string `json:"memory_ids,omitempty" doc:"The items judged, by memory (mem_...) or version (ver_...) id; each must be an item the retrieval returned. Default: every item it returned."`
	Severity  *float64 `json:"severity,omitempty" doc:"0 to 1: how much a harmful outcome weighs (default 1). Recorded, not used, for other outcomes."`
	Source    string   `json:"source,omitempty" doc:"Who judged: user, agent (default), tool or evaluator."`
	Output    string   `json:"output,omitempty" doc:"The agent's output. When given, a memory counts as used only if the output holds every term of its value or at least half the terms of its content; helpful reinforces only used memories, and harmful is not blamed on unused ones. Without it, memory_ids named count as used."`
	// TaskSucceeded is a pointer: absent means the task succeeded.
	TaskSucceeded *bool `json:"task_succeeded,omitempty" doc:"Whether the task succeeded (default true). A failed task reinforces nothing."`
}

// LifecycleRunRequest is the body of POST /v1/lifecycle/run. An empty body
// runs the lifecycle policy with its defaults.
type LifecycleRunRequest struct {
	DryRun bool `json:"dry_run,omitempty" doc:"Report what would change without writing anything."`
	Limit  int  `json:"limit,omitempty" doc:"At most this many versions changed by each step (default 1000 for lifecycle, 500 for dedupe); the report says when more remains."`
	Dedupe bool `json:"dedupe,omitempty" doc:"Also merge duplicate facts (cosine at or above the threshold, never contradictions) into their strongest."`
	// DedupeThreshold is a pointer so 0 (absent) is told from a bad value.
	DedupeThreshold *float64 `json:"dedupe_threshold,omitempty" doc:"With dedupe: the cosine at which two facts are duplicates, in (0, 1] (default 0.92)."`
}

// LifecycleRunResponse says what a run changed.
type LifecycleRunResponse struct {
	Lifecycle *LifecycleReport `json:"lifecycle" doc:"Expiry (valid_to, usefulness floor), usefulness decay and contests resolved."`
	Dedupe    *DedupeReport    `json:"dedupe,omitempty" doc:"With dedupe: the duplicate clusters merged."`
}

// ProcedureList is the body of GET /v1/procedures.
type ProcedureList struct {
	Procedures []*Procedure `json:"procedures" nullable:"false" doc:"Live procedural memories by task type, each with its steps, the task_result episodes of the sessions it was distilled from, when a retrieval last packed it and whether it is stale (unpacked for 90 days)."`
}
