package httpapi

import (
	"net/http"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
)

func (s *Server) consolidateSession(w http.ResponseWriter, r *request) error {
	var body wire.ConsolidateRequest
	if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		if err := decode(r, &body); err != nil {
			return err
		}
	}
	id := r.PathValue("id")
	rep, err := s.cfg.Engine.ConsolidateSession(r.Context(), r.caller.ns, id, engine.ConsolidateOptions{Force: body.Force})
	if engine.IsNotFound(err) {
		return problemf(http.StatusNotFound, CodeSessionNotFound, "no session "+quote(id)+" in this namespace: capture its events first")
	}
	if err != nil {
		return err
	}
	res := consolidateResponse(rep)
	s.reports.keep(r.caller.ns, func(k *wire.Reports) {
		k.Consolidation = &wire.ConsolidationRun{At: s.now(), SessionID: id, Report: res}
	})
	return writeJSON(w, http.StatusOK, res)
}

func consolidateResponse(rep *engine.ConsolidateReport) wire.ConsolidateResponse {
	out := wire.ConsolidateResponse{Sessions: make([]wire.SessionOutcome, len(rep.Sessions)),
		Forgotten: make([]wire.ForgottenEpisode, len(rep.Forgotten)), Purged: append([]string{}, rep.Purged...), More: rep.More}
	for i, s := range rep.Sessions {
		out.Sessions[i] = wire.SessionOutcome{SessionID: s.SessionID, Status: s.Status, Episodes: s.Episodes,
			SummaryMemoryID: s.SummaryMemoryID, SummaryVersionID: s.SummaryVersionID, Summary: s.Summary}
		if s.EligibleAt != nil {
			out.Sessions[i].EligibleAt = s.EligibleAt.UTC().Format("2006-01-02T15:04:05.999999999Z07:00")
		}
	}
	for i, f := range rep.Forgotten {
		out.Forgotten[i] = wire.ForgottenEpisode{EpisodeID: f.EpisodeID, SummaryMemoryID: f.SummaryMemoryID,
			Retention: f.Retention, Accesses: f.Accesses}
	}
	return out
}
