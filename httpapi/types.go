package httpapi

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
)

// The request and response bodies of the API. Field tags are the wire
// format; `doc` tags feed the OpenAPI document; `required` marks fields a
// request must carry; nullable:"false" marks a slice or map the handler
// always fills, so the document promises it is never null. Other tools
// depend on these shapes: change them only with a new API version.

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
	OccurredAt string   `json:"occurred_at" required:"true" format:"date-time" doc:"When it happened (RFC 3339)."`
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
	EpisodeID string          `json:"episode_id" doc:"The episode that records the statement."`
	MemoryID  string          `json:"memory_id,omitempty" doc:"The memory written or reinforced."`
	Version   *memory.Version `json:"version,omitempty" doc:"The version now current for that memory."`
	Operation string          `json:"operation,omitempty" doc:"ADD, REINFORCE, SUPERSEDE, CONTEST or NOOP; absent when the text was kept only as an episode."`
	Decision  string          `json:"decision" doc:"accept, defer, reject or quarantine."`
	Reasons   []string        `json:"reasons" doc:"Reason codes for the decision."`
	Outcomes  []Outcome       `json:"outcomes" nullable:"false" doc:"Every candidate memory's fate."`
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

// ChannelHit is an item's rank and score in one retrieval channel.
type ChannelHit struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// MemoryList is the body of GET /v1/memories.
type MemoryList struct {
	Memories []*memory.Version `json:"memories" nullable:"false" doc:"Distilled memories (semantic and procedural), current first."`
}

// MemoryView is a memory with every version, its admission log and the
// episodes it cites; or an episode with the decisions about it.
type MemoryView = engine.MemoryView

// ForgetResponse says what a DELETE took out of retrieval.
type ForgetResponse = engine.ForgetResult

// Trace is a retrieval's trace.
type Trace = memory.Trace

// Job is a background job.
type Job = jobs.Job

// ImportResponse counts what an import carried.
type ImportResponse = engine.ExportStats

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

// timeField parses an optional RFC 3339 time field: absent is nil; a time
// outside the storable range, the zero time included, is refused.
func timeField(name, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, &apiError{status: 400, code: CodeInvalidTimestamp,
			detail: name + " " + quote(s) + " is not an RFC 3339 time such as 2026-05-01T12:00:00Z"}
	}
	t = t.UTC()
	if err := memory.CheckTime(name, t); err != nil {
		return nil, err
	}
	return &t, nil
}
