package httpapi

import (
	"net/http"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// Problem codes of feedback and explain. Stable, like those in problem.go.
const (
	CodeRetrievalNotFound = "retrieval_not_found"
	CodeNotInRetrieval    = memory.CodeNotInRetrieval
	CodeInvalidOutcome    = memory.CodeInvalidOutcome
	CodeInvalidSeverity   = memory.CodeInvalidSeverity
	CodeInvalidSource     = memory.CodeInvalidSource
)

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

// FeedbackResponse lists the feedback events recorded and the repeats
// that changed nothing.
type FeedbackResponse = engine.FeedbackResult

// Explanation explains a memory or a retrieval.
type Explanation = engine.Explanation

func (s *Server) feedback(w http.ResponseWriter, r *request) error {
	var body FeedbackRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	res, err := s.cfg.Engine.Feedback(r.Context(), engine.FeedbackParams{
		Namespace: r.caller.ns, RetrievalID: r.PathValue("id"), Outcome: memory.FeedbackOutcome(body.Outcome), MemoryIDs: body.MemoryIDs,
		Severity: body.Severity, Source: memory.FeedbackSource(body.Source), Output: body.Output, TaskSucceeded: body.TaskSucceeded,
	})
	switch {
	case err == nil:
		return writeJSON(w, http.StatusOK, res)
	case engine.IsNotFound(err):
		return problemf(http.StatusNotFound, CodeRetrievalNotFound, "no retrieval "+quote(r.PathValue("id"))+" in this namespace")
	}
	return err
}

func (s *Server) explainMemory(w http.ResponseWriter, r *request) error {
	ex, err := s.cfg.Engine.Explain(r.Context(), r.caller.ns, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, ex)
}
