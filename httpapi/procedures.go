package httpapi

import (
	"net/http"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/httpapi/wireconv"
)

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
	return writeJSON(w, http.StatusOK, wire.ProcedureList{Procedures: wireconv.Procedures(ps)})
}

func (s *Server) promoteProcedures(w http.ResponseWriter, r *request) error {
	rep, err := s.cfg.Engine.PromoteProcedures(r.Context(), r.caller.ns)
	if err != nil {
		return err
	}
	res := wireconv.ProcedureReport(rep)
	s.reports.keep(r.caller.ns, func(k *wire.Reports) {
		k.Procedures = &wire.ProcedureRun{At: s.now(), Report: *res}
	})
	return writeJSON(w, http.StatusOK, res)
}
