package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi"
)

// TestE2EReadOnly serves a SQLite database opened read-only (serve
// --read-only): every write, over HTTP or MCP, is refused with the code
// store_read_only (HTTP 409), and the database stays empty.
func TestE2EReadOnly(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{readOnly: true, mcp: true})
	now := time.Now().UTC()
	for _, w := range []struct {
		path string
		body any
	}{
		{"/v1/memories", map[string]any{"text": "I like figs."}},
		{"/v1/episodes", map[string]any{"session_id": "s", "events": []map[string]any{e2eEvent("user_message", "I like figs.", now)}}},
	} {
		e2eProblem(t, f.e2eDo(t, "POST", w.path, w.body), http.StatusConflict, httpapi.CodeStoreReadOnly)
	}
	s, err := mcpConnect(t, f, "")
	if err != nil {
		t.Fatal(err)
	}
	out, isErr := mcpCall(t, s, "remember", map[string]any{"text": "I like figs."})
	if !isErr || !strings.HasPrefix(out, httpapi.CodeStoreReadOnly+":") {
		t.Errorf("MCP remember on a read-only server: error %v, %q; want store_read_only", isErr, out)
	}
	// Nothing was stored: the namespace does not exist.
	e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories", nil), http.StatusNotFound, httpapi.CodeNamespaceNotFound)
}
