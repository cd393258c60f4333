package httpapi

import (
	"net/http"

	"github.com/mnemon-dev/mnemon/engine"
)

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

func (s *Server) consolidateSession(w http.ResponseWriter, r *request) error {
	var body ConsolidateRequest
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
	return writeJSON(w, http.StatusOK, consolidateResponse(rep))
}

func consolidateResponse(rep *engine.ConsolidateReport) ConsolidateResponse {
	out := ConsolidateResponse{Sessions: make([]SessionOutcome, len(rep.Sessions)),
		Forgotten: make([]ForgottenEpisode, len(rep.Forgotten)), Purged: append([]string{}, rep.Purged...), More: rep.More}
	for i, s := range rep.Sessions {
		out.Sessions[i] = SessionOutcome{SessionID: s.SessionID, Status: s.Status, Episodes: s.Episodes,
			SummaryMemoryID: s.SummaryMemoryID, SummaryVersionID: s.SummaryVersionID, Summary: s.Summary}
		if s.EligibleAt != nil {
			out.Sessions[i].EligibleAt = s.EligibleAt.UTC().Format("2006-01-02T15:04:05.999999999Z07:00")
		}
	}
	for i, f := range rep.Forgotten {
		out.Forgotten[i] = ForgottenEpisode(f)
	}
	return out
}
