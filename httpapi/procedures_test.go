package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// TestE2EProcedures captures three successful sessions of one task type,
// promotes them over HTTP and lists the procedure; a reader may list but
// not promote.
func TestE2EProcedures(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	at := time.Now().Add(-time.Hour)
	for i := range 3 {
		next := func() time.Time { at = at.Add(time.Second); return at }
		events := []map[string]any{
			e2eEvent("user_message", "Please deploy atlas.", next()),
			e2eEvent("tool_call", "pnpm install --frozen-lockfile", next()),
			e2eEvent("tool_call", "pnpm run deploy --tag v"+fmt.Sprint(i), next()),
			e2eEvent("task_result", "atlas deployed", next()),
		}
		events[3]["metadata"] = map[string]string{"task_type": "deploy_atlas", "outcome": "success"}
		f.e2eCapture(t, fmt.Sprintf("s%d", i), events)
	}
	type procedure struct {
		MemoryID   string   `json:"memory_id"`
		TaskType   string   `json:"task_type"`
		Steps      []string `json:"steps"`
		EpisodeIDs []string `json:"episode_ids"`
		Stale      bool     `json:"stale"`
	}
	var rep struct {
		Promoted []struct {
			TaskType string `json:"task_type"`
			Sessions int    `json:"sessions"`
		} `json:"promoted"`
	}
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/procedures/promote", nil), http.StatusOK, &rep)
	if len(rep.Promoted) != 1 || rep.Promoted[0].TaskType != "deploy_atlas" || rep.Promoted[0].Sessions != 3 {
		t.Fatalf("promote: %s", f.e2eDo(t, "POST", "/v1/procedures/promote", nil))
	}
	var list struct {
		Procedures []procedure `json:"procedures"`
	}
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/procedures", nil), http.StatusOK, &list)
	if len(list.Procedures) != 1 {
		t.Fatalf("procedures: %+v", list)
	}
	p := list.Procedures[0]
	if p.TaskType != "deploy_atlas" || len(p.EpisodeIDs) != 3 || p.Stale ||
		fmt.Sprint(p.Steps) != "[Run pnpm install Run pnpm run deploy]" {
		t.Errorf("procedure: %+v", p)
	}
	// Promoting again writes nothing.
	e2eJSON(t, f.e2eDo(t, "POST", "/v1/procedures/promote", nil), http.StatusOK, &rep)
	if len(rep.Promoted) != 0 {
		t.Errorf("second promote: %+v", rep)
	}

	reader, _ := f.e2eKey(t, "default", memory.RoleReader)
	auth := []string{"Authorization", "Bearer " + reader}
	e2eEventually(t, 5*time.Second, "keys required", func() bool {
		return f.e2eDo(t, "POST", "/v1/procedures/promote", nil).status == http.StatusUnauthorized
	})
	e2eProblem(t, f.e2eDo(t, "POST", "/v1/procedures/promote", nil, auth...), http.StatusForbidden, "forbidden")
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/procedures", nil, auth...), http.StatusOK, &list)
	if len(list.Procedures) != 1 {
		t.Errorf("reader's list: %+v", list)
	}
}
