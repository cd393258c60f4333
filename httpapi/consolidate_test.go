package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/memory"
)

func TestE2EConsolidateSession(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	auth := func(ns string, role memory.Role) []string {
		raw, _ := f.e2eKey(t, ns, role)
		return []string{"Authorization", "Bearer " + raw}
	}
	writerA, readerA, writerB := auth("a", memory.RoleWriter), auth("a", memory.RoleReader), auth("b", memory.RoleWriter)
	old := time.Now().UTC().Add(-10 * 24 * time.Hour)
	f.e2eCapture(t, "s-old", []map[string]any{
		e2eEvent("user_message", "I prefer Vim as my editor.", old),
		e2eEvent("user_message", "We decided to ship the release on Friday.", old.Add(time.Minute)),
		e2eEvent("user_message", "ok thanks", old.Add(2*time.Minute)),
	}, writerA...)
	f.e2eCapture(t, "s-new", []map[string]any{e2eEvent("user_message", "I live in Porto.", time.Now().UTC().Add(-time.Hour))}, writerA...)
	f.e2eCapture(t, "s-b", []map[string]any{e2eEvent("user_message", "I live in Braga.", old)}, writerB...)

	t.Run("summarises once", func(t *testing.T) {
		var res wire.ConsolidateResponse
		r := f.e2eDo(t, "POST", "/v1/sessions/s-old/consolidate", nil, writerA...)
		e2eJSON(t, r, http.StatusOK, &res)
		e2eSameKeys(t, "consolidate response", r.body, "sessions", "forgotten", "purged", "more")
		if len(res.Sessions) != 1 || res.Sessions[0].Status != "summarised" || res.Sessions[0].Episodes != 3 ||
			!strings.Contains(res.Sessions[0].Summary, "Vim") || strings.Contains(res.Sessions[0].Summary, "ok thanks") {
			t.Fatalf("consolidate: %s", r.body)
		}
		// The summary is a memory like any other: shown with its admission.
		var view wire.MemoryView
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories/"+res.Sessions[0].SummaryMemoryID, nil, readerA...), http.StatusOK, &view)
		if len(view.Versions) != 1 || view.Versions[0].Type != string(memory.TypeSummary) || len(view.Episodes) != 3 ||
			len(view.Admissions) != 1 || view.Admissions[0].Extractor != "consolidate" {
			t.Errorf("summary view %+v", view)
		}
		// Again, with a body: nothing changes.
		var again wire.ConsolidateResponse
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/sessions/s-old/consolidate", map[string]any{"force": false}, writerA...), http.StatusOK, &again)
		if again.Sessions[0].Status != "unchanged" || again.Sessions[0].SummaryVersionID != res.Sessions[0].SummaryVersionID {
			t.Errorf("second consolidate: %+v", again)
		}
	})

	t.Run("young session untouched unless forced", func(t *testing.T) {
		before := f.e2eState(t, "a")
		var res wire.ConsolidateResponse
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/sessions/s-new/consolidate", nil, writerA...), http.StatusOK, &res)
		if res.Sessions[0].Status != "too_recent" || res.Sessions[0].EligibleAt == "" || res.Sessions[0].SummaryMemoryID != "" {
			t.Errorf("young session: %+v", res)
		}
		if after := f.e2eState(t, "a"); after != before {
			t.Errorf("a young session changed the state:\n%s\n%s", before, after)
		}
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/sessions/s-new/consolidate", map[string]any{"force": true}, writerA...), http.StatusOK, &res)
		if res.Sessions[0].Status != "summarised" {
			t.Errorf("forced: %+v", res)
		}
	})

	t.Run("problems", func(t *testing.T) {
		for _, c := range []struct {
			name, path string
			body       any
			hdr        []string
			status     int
			code       string
		}{
			{"reader", "/v1/sessions/s-old/consolidate", nil, readerA, http.StatusForbidden, httpapi.CodeForbidden},
			{"unknown session", "/v1/sessions/s-none/consolidate", nil, writerA, http.StatusNotFound, httpapi.CodeSessionNotFound},
			{"another namespace's session", "/v1/sessions/s-b/consolidate", nil, writerA, http.StatusNotFound, httpapi.CodeSessionNotFound},
			{"control character", "/v1/sessions/s%01x/consolidate", nil, writerA, http.StatusBadRequest, httpapi.CodeInvalidSession},
			{"too long", "/v1/sessions/" + strings.Repeat("s", 300) + "/consolidate", nil, writerA, http.StatusBadRequest, httpapi.CodeInvalidSession},
			{"malformed body", "/v1/sessions/s-old/consolidate", `{"force": `, writerA, http.StatusBadRequest, httpapi.CodeMalformedJSON},
			{"unknown field", "/v1/sessions/s-old/consolidate", map[string]any{"forse": true}, writerA, http.StatusBadRequest, httpapi.CodeInvalidRequest},
			{"wrong type", "/v1/sessions/s-old/consolidate", map[string]any{"force": "yes"}, writerA, http.StatusBadRequest, httpapi.CodeInvalidRequest},
			{"wrong method", "/v1/sessions/s-old/consolidate", nil, append([]string{}, writerA...), http.StatusMethodNotAllowed, httpapi.CodeMethodNotAllowed},
		} {
			t.Run(c.name, func(t *testing.T) {
				method := "POST"
				if c.name == "wrong method" {
					method = "GET"
				}
				before := f.e2eState(t, "a", "b")
				r := f.e2eDo(t, method, c.path, c.body, c.hdr...)
				e2eProblem(t, r, c.status, c.code)
				if after := f.e2eState(t, "a", "b"); after != before {
					t.Errorf("state changed:\n%s\n%s", before, after)
				}
			})
		}
	})

	// Namespace b's session is its own.
	var res wire.ConsolidateResponse
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/sessions/s-b/consolidate", nil, writerB...), http.StatusOK, &res)
	if res.Sessions[0].Status != "summarised" || !strings.Contains(res.Sessions[0].Summary, "Braga") {
		t.Errorf("namespace b: %+v", res)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	sum, err := f.store.GetSessionSummary(ctx, memory.GetParams{Namespace: "a", ID: "s-b"})
	if err == nil {
		t.Errorf("namespace a holds b's summary: %+v", sum)
	}
}
