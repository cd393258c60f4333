package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// Agent adds memory to an existing agent loop in two calls:
//
//	pack, err := agent.PreTask(ctx, prompt)   // before: what memory knows
//	output := runMyAgent(pack.Context + "\n\n" + prompt)
//	_, err = agent.PostTask(ctx, client.TaskResult{Output: output, Succeeded: true}) // after: what happened
//
// PreTask retrieves the memories that matter for the prompt, packed into a
// token budget, and notes the prompt; PostTask captures the task as one
// session (the prompt, anything recorded with Record, and the result as a
// task_result event) so mnemon extracts what is worth keeping, and then
// hands the outcome to Feedback, when set.
//
// An Agent runs one task at a time: PreTask starts a task and PostTask
// ends it. Use one Agent per concurrent task.
type Agent struct {
	Client *Client
	// Scope of the memories retrieved and of the session captured.
	// With SessionID empty each task is its own session (ses_<random>).
	Scope Scope
	// TaskType selects procedures and task-specific memories.
	TaskType string
	// TokenBudget and Limit bound the packed context (0: the server's
	// defaults, 1000 tokens and 10 items).
	TokenBudget int
	Limit       int
	// Feedback, when set, is called by PostTask once the session is
	// captured, with the retrieval the task started from and how the task
	// went, so that the memories it used can be rated. It is not called
	// when PreTask retrieved nothing (no retrieval id). Nil sends no
	// feedback; to send it to the server, opt in with
	//
	//	agent.Feedback = agent.SendFeedback
	Feedback func(ctx context.Context, retrievalID string, result TaskResult) error

	mu   sync.Mutex
	task *task
}

// task is the task between PreTask and PostTask.
type task struct {
	sessionID   string
	retrievalID string
	events      []Event
}

// Pack is what PreTask hands the agent.
type Pack struct {
	// Context is the packed memory, ready to put before the prompt; empty
	// when nothing is known yet.
	Context string
	// RetrievalID names the retrieval (see GetTrace); empty when the
	// namespace held nothing to retrieve.
	RetrievalID string
	SessionID   string         // the session PostTask captures into
	Items       []RetrieveItem // the packed memories with their reasons
}

// TaskResult is how a task went.
type TaskResult struct {
	Output    string // what the agent produced
	Succeeded bool
	// Severity is how bad a failure was, from 0 (unstated) to 1.
	Severity float64
	// UsedMemoryIDs are the packed memories the output actually relied
	// on, when the agent can tell.
	UsedMemoryIDs []string
	// Metadata goes on the task_result event.
	Metadata map[string]string
}

// PostTaskResult is what PostTask stored.
type PostTaskResult struct {
	SessionID   string
	RetrievalID string
	Capture     *CaptureResponse
}

// errNoTask is PostTask without PreTask.
var errNoTask = errors.New("mnemon: PostTask without PreTask: no task is running")

// PreTask starts a task: it retrieves the memories that matter for prompt
// and notes the prompt for PostTask. A namespace that holds nothing yet
// gives an empty Pack, not an error. A prompt longer than the server takes
// as a query (4096 bytes) is cut for the retrieval, and kept whole for
// the capture.
func (a *Agent) PreTask(ctx context.Context, prompt string) (*Pack, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.task != nil {
		return nil, fmt.Errorf("mnemon: PreTask: task of session %s has not ended; call PostTask first", a.task.sessionID)
	}
	sid := a.Scope.SessionID
	if sid == "" {
		sid = newSessionID()
	}
	now := a.Client.opts.Now().UTC()
	res, err := a.Client.Retrieve(ctx, RetrieveRequest{
		Query: cut(prompt, maxQueryBytes), Limit: a.Limit, TokenBudget: a.TokenBudget, TaskType: a.TaskType,
		AgentID: a.Scope.AgentID, UserID: a.Scope.UserID, ProjectID: a.Scope.ProjectID, SessionID: a.Scope.SessionID,
	})
	if errors.Is(err, ErrNamespaceNotFound) {
		// An older server's answer for a namespace that holds nothing
		// yet; newer ones answer an empty retrieval.
		res, err = &RetrieveResponse{}, nil
	}
	if err != nil {
		return nil, err
	}
	a.task = &task{sessionID: sid, retrievalID: res.RetrievalID,
		events: []Event{{Kind: KindUserMessage, Content: prompt, OccurredAt: now}}}
	return &Pack{Context: res.Context, RetrievalID: res.RetrievalID, SessionID: sid, Items: res.Items}, nil
}

// Record adds an event of the running task (a tool call, an agent
// message...) to the session PostTask captures. An event without a time
// is dated now.
func (a *Agent) Record(ev Event) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.task == nil {
		return errors.New("mnemon: Record without PreTask: no task is running")
	}
	if ev.OccurredAt.IsZero() {
		ev.OccurredAt = a.Client.opts.Now().UTC()
	}
	a.task.events = append(a.task.events, ev)
	return nil
}

// PostTask ends the task: it captures the session log (the prompt, the
// recorded events and the result as a task_result event) and then calls
// Feedback, when set. If the capture fails the task stays open, so
// PostTask can be called again; once the capture is stored the task has
// ended, even if Feedback fails.
func (a *Agent) PostTask(ctx context.Context, result TaskResult) (*PostTaskResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.task
	if t == nil {
		return nil, errNoTask
	}
	meta := map[string]string{}
	for k, v := range result.Metadata {
		meta[k] = v
	}
	meta["outcome"] = "failure"
	if result.Succeeded {
		meta["outcome"] = "success"
	}
	if t.retrievalID != "" {
		meta["retrieval_id"] = t.retrievalID
	}
	events := append(t.events[:len(t.events):len(t.events)], Event{
		Kind: KindTaskResult, Content: result.Output, Speaker: "agent",
		OccurredAt: a.Client.opts.Now().UTC(), Metadata: meta,
	})
	if result.Output == "" {
		events[len(events)-1].Content = "(no output; outcome " + meta["outcome"] + ")"
	}
	capture, err := a.Client.Capture(ctx, CaptureRequest{SessionID: t.sessionID,
		AgentID: a.Scope.AgentID, UserID: a.Scope.UserID, ProjectID: a.Scope.ProjectID, Events: events})
	if err != nil {
		return nil, err
	}
	a.task = nil
	out := &PostTaskResult{SessionID: t.sessionID, RetrievalID: t.retrievalID, Capture: capture}
	if a.Feedback != nil && t.retrievalID != "" {
		if err := a.Feedback(ctx, t.retrievalID, result); err != nil {
			return out, fmt.Errorf("mnemon: PostTask: feedback for %s: %w", t.retrievalID, err)
		}
	}
	return out, nil
}

// SendFeedback rates the memories of a retrieval on the server through
// Client.Feedback; it has the signature of the Feedback hook, so that
// agent.Feedback = agent.SendFeedback makes PostTask send it. A task that
// succeeded is helpful, one that failed harmful with result.Severity (0:
// the server's default, 1). result.Output, when set, lets the server tell
// which packed memories the output used (only those are reinforced or
// blamed); result.UsedMemoryIDs, when set, names the items judged (else
// every item of the retrieval). The server ignores a judgement it holds
// already, so calling it again is harmless.
func (a *Agent) SendFeedback(ctx context.Context, retrievalID string, result TaskResult) error {
	_, err := a.Client.Feedback(ctx, retrievalID, feedbackFor(result))
	return err
}

// feedbackFor is the feedback SendFeedback sends for a task's result.
func feedbackFor(result TaskResult) FeedbackRequest {
	succeeded := result.Succeeded
	req := FeedbackRequest{Outcome: OutcomeHelpful, Source: "agent", Output: result.Output,
		MemoryIDs: result.UsedMemoryIDs, TaskSucceeded: &succeeded}
	if !succeeded {
		req.Outcome, req.Severity = OutcomeHarmful, result.Severity
	}
	return req
}

// maxQueryBytes is the server's limit on a retrieval query.
const maxQueryBytes = 4096

// cut shortens s to at most n bytes without splitting a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func newSessionID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return "ses_" + time.Now().UTC().Format("20060102") + "_" + hex.EncodeToString(b[:])
}
