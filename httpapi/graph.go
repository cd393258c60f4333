package httpapi

import (
	"net/http"
	"strconv"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
)

// graphParams documents the query of GET /v1/graph/neighborhood.
var graphParams = []Param{
	{Name: "entity", In: "query", Type: "string", Required: true, Doc: "The entity: a subject (user, bob, atlas) or a value (pnpm, berlin), in any case."},
	{Name: "hops", In: "query", Type: "integer", Doc: "1 (default) or 2."},
	{Name: "as_of", In: "query", Type: "string", Doc: "Claims true at this valid time (RFC 3339), current or history."},
	{Name: "include_history", In: "query", Type: "boolean", Doc: "Also superseded and expired claims (without as_of)."},
	{Name: "limit", In: "query", Type: "integer", Doc: "At most this many claims (1-500; 0 or absent: the default, 50)."},
	{Name: "agent_id", In: "query", Type: "string", Doc: "Scope: with any of agent_id, user_id, project_id, only claims of memories visible to that scope (namespace-wide ones and the named owners'), as in retrieval; with none, the whole namespace."},
	{Name: "user_id", In: "query", Type: "string", Doc: "Scope: the user whose memories may be shown."},
	{Name: "project_id", In: "query", Type: "string", Doc: "Scope: the project whose memories may be shown."},
	{Name: "session_id", In: "query", Type: "string", Doc: "The current conversation; accepted as in retrieval, where a session ranks but never hides: it narrows nothing here."},
}

// graphNeighborhood answers GET /v1/graph/neighborhood. An entity no
// served claim names gets 200 with empty lists, not 404: the graph
// changes with time, and an entity unknown as of one time is known as of
// another.
func (s *Server) graphNeighborhood(w http.ResponseWriter, r *request) error {
	q := r.URL.Query()
	p := engine.GraphParams{Namespace: r.caller.ns, Entity: q.Get("entity"),
		Scope: scopeOf(q.Get("agent_id"), q.Get("user_id"), q.Get("project_id"), q.Get("session_id"))}
	if p.Entity == "" {
		return problemf(http.StatusBadRequest, CodeInvalidRequest, "entity is required: name a subject or a value, such as entity=user")
	}
	var err error
	if p.Hops, err = intParam(r, "hops", "use 1 or 2"); err != nil {
		return err
	}
	if p.Hops != 0 && p.Hops != 1 && p.Hops != 2 {
		return problemf(http.StatusBadRequest, CodeInvalidRequest, "hops "+quote(q.Get("hops"))+": use 1 or 2")
	}
	if p.Limit, err = limitParam(r, engine.MaxGraphLimit, 0); err != nil {
		return err
	}
	if p.AsOf, err = timeField("as_of", q.Get("as_of")); err != nil {
		return err
	}
	if p.IncludeHistory, err = boolParam(r, "include_history"); err != nil {
		return err
	}
	if err := s.knownNamespace(r); err != nil {
		return err
	}
	res, err := s.cfg.Engine.Neighborhood(r.Context(), p)
	if err != nil {
		return err
	}
	out := wire.GraphResponse{Entity: res.Entity, Hops: res.Hops, AsOf: res.AsOf, Truncated: res.Truncated,
		Entities: make([]wire.GraphEntity, len(res.Entities)), Claims: make([]wire.GraphClaim, len(res.Claims))}
	for i, en := range res.Entities {
		out.Entities[i] = wire.GraphEntity{Name: en.Name, Hop: en.Hop}
	}
	for i, c := range res.Claims {
		out.Claims[i] = wire.GraphClaim{Subject: c.Subject, Relation: c.Relation, Key: c.Key, Object: c.Object, Value: c.Value,
			Content: c.Content, MemoryID: c.MemoryID, VersionID: c.VersionID, Status: string(c.Status),
			ValidFrom: c.ValidFrom, ValidTo: c.ValidTo, Hop: c.Hop}
	}
	return writeJSON(w, http.StatusOK, out)
}

// intParam reads an optional integer query parameter (0 when absent).
func intParam(r *request, name, hint string) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, problemf(http.StatusBadRequest, CodeInvalidRequest, name+" "+quote(v)+": "+hint)
	}
	return n, nil
}
