package httpapi

import (
	"net/http"

	"github.com/mnemon-dev/mnemon/engine"
)

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
	Lifecycle *engine.LifecycleReport `json:"lifecycle" doc:"Expiry (valid_to, usefulness floor), usefulness decay and contests resolved."`
	Dedupe    *engine.DedupeReport    `json:"dedupe,omitempty" doc:"With dedupe: the duplicate clusters merged."`
}

// lifecycleRun runs the lifecycle policy (and dedupe when asked) over the
// caller's namespace now, as the periodic maintenance job does.
func (s *Server) lifecycleRun(w http.ResponseWriter, r *request) error {
	var body LifecycleRunRequest
	if r.ContentLength != 0 {
		if err := decode(r, &body); err != nil {
			return err
		}
	}
	if err := s.knownNamespace(r); err != nil {
		return err
	}
	if !body.Dedupe && body.DedupeThreshold != nil {
		return problemf(http.StatusBadRequest, CodeInvalidRequest, "dedupe_threshold needs dedupe: true")
	}
	lc, err := s.cfg.Engine.Lifecycle(r.Context(), engine.LifecycleParams{Namespace: r.caller.ns, DryRun: body.DryRun, Limit: body.Limit})
	if err != nil {
		return err
	}
	res := LifecycleRunResponse{Lifecycle: lc}
	if body.Dedupe {
		p := engine.DedupeParams{Namespace: r.caller.ns, DryRun: body.DryRun, Limit: body.Limit}
		if body.DedupeThreshold != nil {
			if p.Threshold = *body.DedupeThreshold; p.Threshold == 0 {
				return problemf(http.StatusBadRequest, CodeInvalidRequest, "dedupe_threshold 0: use a cosine in (0, 1], like 0.92")
			}
		}
		if res.Dedupe, err = s.cfg.Engine.Dedupe(r.Context(), p); err != nil {
			return err
		}
	}
	return writeJSON(w, http.StatusOK, res)
}
