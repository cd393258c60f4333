package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/engine/enginetest"
	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/jobs/jobstest"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// A server whose index has missed another process's committed write for
// longer than MaxIndexLag answers /readyz with 503 and says which
// namespace is behind; once it has applied the change log it is ready
// again. Two engines share one real SQLite file, as a worker and a server
// do; the server's follower is not running, so it falls behind.
func TestReadyzReportsIndexBehind(t *testing.T) {
	ctx := context.Background()
	path := jobstest.Path(t)
	open := func() (*sqlite.Store, *engine.Engine) {
		return enginetest.Open(t, path, sqlite.Options{}, engine.Config{})
	}
	_, writer := open()
	st, eng := open()
	q, err := jobs.Open(ctx, jobs.Config{Driver: riversqlite.New(st.WriterDB()), TxOf: sqlite.SQLTx, Engine: eng, Workers: 0})
	if err != nil {
		t.Fatal(err)
	}
	api, err := httpapi.New(httpapi.Config{Engine: eng, Keys: st, Queue: q, MaxIndexLag: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api)
	defer srv.Close()
	ready := func() (int, wire.Health) {
		t.Helper()
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h wire.Health
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, h
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, err := writer.Remember(ctx, engine.RememberParams{Namespace: "team", Text: "I live in Lisbon.", ObservedAt: at}); err != nil {
		t.Fatal(err)
	}
	if err := eng.Warm(ctx); err != nil { // the server holds the namespace
		t.Fatal(err)
	}
	if code, h := ready(); code != http.StatusOK || h.Checks["index"] != "ok" {
		t.Fatalf("a current index: %d %+v", code, h)
	}
	if _, err := writer.Remember(ctx, engine.RememberParams{Namespace: "team", Text: "I moved to Porto.", ObservedAt: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	// Past max_index_lag (50 ms) the index is behind: wait for that,
	// not for a fixed time.
	code, h := ready()
	for deadline := time.Now().Add(10 * time.Second); code == http.StatusOK && time.Now().Before(deadline); code, h = ready() {
		time.Sleep(10 * time.Millisecond)
	}
	if code != http.StatusServiceUnavailable || h.Status != "unavailable" || !strings.Contains(h.Checks["index"], `behind: the index of namespace "team"`) {
		t.Fatalf("an index behind past max_index_lag: %d %+v", code, h)
	}
	if err := eng.SyncChanges(ctx); err != nil {
		t.Fatal(err)
	}
	if code, h := ready(); code != http.StatusOK || h.Checks["index"] != "ok" {
		t.Fatalf("after applying the change log: %d %+v", code, h)
	}
}
