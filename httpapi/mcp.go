package httpapi

import (
	"net/http"

	"github.com/mnemon-dev/mnemon/mcpserver"
	"github.com/mnemon-dev/mnemon/memory"
)

// mcpRoute is /mcp: the MCP server (streamable HTTP, stateless) behind
// the API's own authentication, rate limit, body limit, logs and metrics.
// It is not part of the REST API's document. The caller's key decides the
// namespace its tools act in, and a reader's key lists only reading tools.
func (s *Server) mcpRoute(method string) *route {
	return &route{Method: method, Path: "/mcp", Role: memory.RoleReader, handle: s.serveMCP}
}

func (s *Server) serveMCP(w http.ResponseWriter, r *request) error {
	b := mcpserver.Binding{Namespace: r.caller.ns, CanWrite: r.caller.role.Allows(memory.RoleWriter)}
	s.cfg.MCP.ServeHTTP(w, r.Request.WithContext(mcpserver.WithBinding(r.Context(), b)))
	return nil
}
