package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/internal/clock"
)

// GET /v1/graph/neighborhood end to end: remembered facts become claims,
// hops reach neighbours, history and as_of follow validity, an unknown
// entity is an empty 200, and bad parameters are 400 problems.
func TestGraphNeighborhoodHTTP(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	f := e2eOpen(t, e2eOptions{clock: clk})
	ns := []string{"X-Mnemon-Namespace", "graphs"}
	before := clk.Now().Add(-time.Second)
	for _, text := range []string{"Bob uses pnpm.", "Bob works at Acme.", "Bob lives in Berlin."} {
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories", map[string]any{"text": text}, ns...), http.StatusCreated, nil)
	}
	clk.Advance(time.Minute)
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories", map[string]any{"text": "Bob moved to Paris."}, ns...), http.StatusCreated, nil)

	get := func(query string) wire.GraphResponse {
		t.Helper()
		var res wire.GraphResponse
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/graph/neighborhood?"+query, nil, ns...), http.StatusOK, &res)
		return res
	}
	one := get("entity=PNPM")
	if len(one.Claims) != 1 || one.Claims[0].Subject != "bob" || one.Claims[0].Relation != "uses package manager" || one.Claims[0].Hop != 1 {
		t.Fatalf("one hop: %+v", one)
	}
	two := get("entity=pnpm&hops=2")
	objects := map[string]string{}
	for _, c := range two.Claims {
		objects[c.Object] = c.Status
	}
	if objects["acme"] != "active" || objects["paris"] != "active" || len(two.Claims) != 3 {
		t.Fatalf("two hops: %+v", two.Claims)
	}
	if _, ok := objects["berlin"]; ok {
		t.Fatalf("a superseded claim is current: %+v", two.Claims)
	}
	hist := get("entity=berlin&include_history=true")
	if len(hist.Claims) != 1 || hist.Claims[0].Status != "superseded" || hist.Claims[0].ValidTo == nil {
		t.Fatalf("history: %+v", hist)
	}
	at := hist.Claims[0].ValidTo.Add(-time.Nanosecond).Format(time.RFC3339Nano)
	if asOf := get("entity=bob&as_of=" + url.QueryEscape(at)); !hasObject(asOf, "berlin") || hasObject(asOf, "paris") {
		t.Fatalf("as of %s: %+v", at, asOf.Claims)
	}
	if asOf := get("entity=bob&as_of=" + url.QueryEscape(before.Add(-time.Hour).Format(time.RFC3339))); len(asOf.Claims) != 0 {
		t.Fatalf("as of before anything: %+v", asOf.Claims)
	}
	// With a scope, a user's memory is in the graph only for a request that
	// names the user, as in retrieval; without one, the whole namespace.
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories", map[string]any{"text": "Carol works at Initech.", "user_id": "u1"}, ns...), http.StatusCreated, nil)
	if wide := get("entity=carol"); len(wide.Claims) != 1 {
		t.Fatalf("an unscoped request browses the whole namespace: %+v", wide.Claims)
	}
	if other := get("entity=carol&user_id=u2"); len(other.Claims) != 0 {
		t.Fatalf("another user's request sees u1's claim: %+v", other.Claims)
	}
	if mine := get("entity=carol&user_id=u1"); len(mine.Claims) != 1 || mine.Claims[0].Object != "initech" {
		t.Fatalf("the user's own claim: %+v", mine.Claims)
	}
	if lim := get("entity=bob&limit=2"); len(lim.Claims) != 2 || !lim.Truncated {
		t.Fatalf("limit 2: %+v", lim)
	}
	if unknown := get("entity=nobody"); unknown.Entity != "nobody" || len(unknown.Claims) != 0 || len(unknown.Entities) != 0 {
		t.Fatalf("unknown entity: %+v", unknown)
	}

	for _, tc := range []struct {
		query  string
		status int
		code   string
	}{
		{"", 400, httpapi.CodeInvalidRequest},
		{"entity=bob&hops=3", 400, httpapi.CodeInvalidRequest},
		{"entity=bob&hops=0", 400, httpapi.CodeInvalidRequest},
		{"entity=bob&hops=two", 400, httpapi.CodeInvalidRequest},
		{"entity=bob&limit=501", 400, httpapi.CodeInvalidRequest},
		{"entity=bob&limit=-1", 400, httpapi.CodeInvalidRequest},
		{"entity=bob&as_of=yesterday", 400, httpapi.CodeInvalidTimestamp},
		{"entity=bob&include_history=maybe", 400, httpapi.CodeInvalidRequest},
	} {
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/graph/neighborhood?"+tc.query, nil, ns...), tc.status, tc.code)
	}
	// Another namespace sees nothing of this one's graph.
	e2eProblem(t, f.e2eDo(t, "GET", "/v1/graph/neighborhood?entity=bob", nil, "X-Mnemon-Namespace", "empty-one"),
		http.StatusNotFound, httpapi.CodeNamespaceNotFound)
}

func hasObject(res wire.GraphResponse, object string) bool {
	for _, c := range res.Claims {
		if c.Object == object {
			return true
		}
	}
	return false
}
