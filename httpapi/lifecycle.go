package httpapi

import (
	"net/http"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/httpapi/wireconv"
)

// lifecycleRun runs the lifecycle policy (and dedupe when asked) over the
// caller's namespace now, as the periodic maintenance job does.
func (s *Server) lifecycleRun(w http.ResponseWriter, r *request) error {
	var body wire.LifecycleRunRequest
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
	res := wire.LifecycleRunResponse{Lifecycle: wireconv.LifecycleReport(lc)}
	if body.Dedupe {
		p := engine.DedupeParams{Namespace: r.caller.ns, DryRun: body.DryRun, Limit: body.Limit}
		if body.DedupeThreshold != nil {
			if p.Threshold = *body.DedupeThreshold; p.Threshold == 0 {
				return problemf(http.StatusBadRequest, CodeInvalidRequest, "dedupe_threshold 0: use a cosine in (0, 1], like 0.92")
			}
		}
		dd, err := s.cfg.Engine.Dedupe(r.Context(), p)
		if err != nil {
			return err
		}
		res.Dedupe = wireconv.DedupeReport(dd)
	}
	s.reports.keep(r.caller.ns, func(k *wire.Reports) {
		k.Lifecycle = &wire.LifecycleRun{At: s.now(), DryRun: body.DryRun, Report: res}
	})
	return writeJSON(w, http.StatusOK, res)
}
