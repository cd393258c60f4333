package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
)

// TestE2EStorageFull fills the database for real (SQLite's page limit on
// the writer connection, the limit a full disk sets): a capture answers
// 507 storage_full and stores nothing, /readyz says the storage is full,
// and once there is room again the server is ready and the same capture
// is stored, without a restart.
func TestE2EStorageFull(t *testing.T) {
	f := e2eOpen(t, e2eOptions{})
	now := time.Now().Add(-time.Hour)
	f.e2eCapture(t, "s1", []map[string]any{e2eEvent("user_message", "I live in Lisbon.", now)})
	if r := f.e2eDo(t, "GET", "/readyz", nil); r.status != http.StatusOK || !strings.Contains(string(r.body), `"storage":"ok"`) {
		t.Fatalf("readyz before: %d %s", r.status, r.body)
	}

	// The database may not grow by a page: what is stored now is all
	// there is room for.
	db := f.store.WriterDB()
	var pages int
	if err := db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	before := f.e2eState(t, "default")
	big := strings.Repeat("My notes on the Atlas deployment say to run the migrations first. ", 800)
	body := map[string]any{"session_id": "s2", "events": []map[string]any{e2eEvent("user_message", big, now.Add(time.Minute))}}
	r := f.e2eDo(t, "POST", "/v1/episodes", body)
	e2eProblem(t, r, http.StatusInsufficientStorage, httpapi.CodeStorageFull)
	if after := f.e2eState(t, "default"); after != before {
		t.Fatalf("a capture refused for lack of space changed the store:\nbefore %s\nafter  %s", before, after)
	}
	var health wire.Health
	r = f.e2eDo(t, "GET", "/readyz", nil)
	if err := json.Unmarshal(r.body, &health); err != nil || r.status != http.StatusServiceUnavailable ||
		health.Status != "unavailable" || !strings.HasPrefix(health.Checks["storage"], "full") {
		t.Fatalf("readyz while full: %d %s", r.status, r.body)
	}
	// A read still works while writes cannot.
	if rr := f.e2eRetrieve(t, "where do I live?"); len(rr.Items) == 0 {
		t.Fatal("retrieve while full found nothing")
	}

	// Space returns: the server is ready again by itself, and the same
	// capture is stored.
	if _, err := db.Exec("PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	r = f.e2eDo(t, "GET", "/readyz", nil)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"storage":"ok"`) {
		t.Fatalf("readyz once there is room: %d %s", r.status, r.body)
	}
	r = f.e2eDo(t, "POST", "/v1/episodes?wait=true", body)
	if r.status != http.StatusOK {
		t.Fatalf("capture once there is room: %d %s", r.status, r.body)
	}
	if after := f.e2eState(t, "default"); after == before {
		t.Fatal("the capture sent again stored nothing")
	}

	// The store itself: full after a write fails for lack of space, and
	// clear again after a write commits.
	if err := db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	body["session_id"] = "s3"
	e2eProblem(t, f.e2eDo(t, "POST", "/v1/episodes", body), http.StatusInsufficientStorage, httpapi.CodeStorageFull)
	if err := f.store.StorageFull(context.Background()); err == nil {
		t.Fatal("StorageFull: nil right after a write failed for lack of space")
	}
	if _, err := db.Exec("PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	f.e2eRemember(t, map[string]any{"text": "I prefer tea."})
	if err := f.store.StorageFull(context.Background()); err != nil {
		t.Fatalf("StorageFull after a write committed: %v", err)
	}
}
