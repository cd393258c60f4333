package httpapi

import (
	"net/http"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/httpapi/wireconv"
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

func (s *Server) feedback(w http.ResponseWriter, r *request) error {
	var body wire.FeedbackRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	res, err := s.cfg.Engine.Feedback(r.Context(), engine.FeedbackParams{
		Namespace: r.caller.ns, RetrievalID: r.PathValue("id"), Outcome: memory.FeedbackOutcome(body.Outcome), MemoryIDs: body.MemoryIDs,
		Severity: body.Severity, Source: memory.FeedbackSource(body.Source), Output: body.Output, TaskSucceeded: body.TaskSucceeded,
	})
	switch {
	case err == nil:
		return writeJSON(w, http.StatusOK, wireconv.FeedbackResult(res))
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
	return writeJSON(w, http.StatusOK, wireconv.Explanation(ex))
}
