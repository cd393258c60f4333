package httpapi

import (
	"net/http"

	"github.com/mnemon-dev/mnemon/engine"
)

// ProcedureList is the body of GET /v1/procedures.
type ProcedureList struct {
	Procedures []*engine.Procedure `json:"procedures" nullable:"false" doc:"Live procedural memories by task type, each with its steps, the task_result episodes of the sessions it was distilled from, when a retrieval last packed it and whether it is stale (unpacked for 90 days)."`
}

// ProcedureReport is the body of POST /v1/procedures/promote.
type ProcedureReport = engine.ProcedureReport

func (s *Server) listProcedures(w http.ResponseWriter, r *request) error {
	if err := s.knownNamespace(r); err != nil {
		return err
	}
	ps, err := s.cfg.Engine.Procedures(r.Context(), r.caller.ns)
	if err != nil {
		return err
	}
	if ps == nil {
		ps = []*engine.Procedure{}
	}
	return writeJSON(w, http.StatusOK, ProcedureList{Procedures: ps})
}

func (s *Server) promoteProcedures(w http.ResponseWriter, r *request) error {
	rep, err := s.cfg.Engine.PromoteProcedures(r.Context(), r.caller.ns)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}
