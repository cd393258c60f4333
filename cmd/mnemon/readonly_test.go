package main

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/pgtest"
)

// TestReadOnlyServeBesideWriter runs a read-write 'mnemon serve' (A) and a
// 'mnemon serve --read-only' (B) on one PostgreSQL database. What A
// acknowledges, B serves, saying in its notes that it stored no trace.
// Every write sent to B (capture, remember, feedback) is refused with 409
// store_read_only, and the database holds nothing of them: no episode,
// memory, version, trace, feedback row or job.
func TestReadOnlyServeBesideWriter(t *testing.T) {
	db := pgtest.Schema(t)
	ctx := context.Background()
	a := serve(t, db) // migrates the schema, as the primary's deploy does
	b := serveWith(t, db, "--read-only")

	if code, body := post(a.url+"/v1/episodes", capture("orchid")); code != http.StatusAccepted {
		t.Fatalf("capture on A: %d %s", code, body)
	}
	sees(t, b, "orchid", 10*time.Second)
	code, body := post(b.url+"/v1/memories/retrieve", map[string]any{"query": "what is orchid?"})
	var got struct {
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(body, &got); code != http.StatusOK || err != nil {
		t.Fatalf("retrieve on B: %d %s", code, body)
	}
	if !slices.Contains(got.Notes, engine.NoteTraceNotStored) {
		t.Errorf("retrieve on B: notes %q, want the note that no trace was stored", got.Notes)
	}

	// A retrieval on A, whose trace A stores: feedback on it sent to B.
	code, body = post(a.url+"/v1/memories/retrieve", map[string]any{"query": "what is orchid?"})
	var onA struct {
		RetrievalID string `json:"retrieval_id"`
	}
	if err := json.Unmarshal(body, &onA); code != http.StatusOK || err != nil || onA.RetrievalID == "" {
		t.Fatalf("retrieve on A: %d %s", code, body)
	}

	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tables := []string{"episodes", "memories", "versions", "traces", "feedback", "river_job"}
	count := func() map[string]int {
		n := map[string]int{}
		for _, table := range tables {
			var c int
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&c); err != nil {
				t.Fatal(err)
			}
			n[table] = c
		}
		return n
	}
	// A writes its traces in the background: wait for this one, so the
	// counts below are not moved by it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var c int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM traces WHERE id = $1", onA.RetrievalID).Scan(&c); err != nil {
			t.Fatal(err)
		}
		if c == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("A did not store the trace of %s", onA.RetrievalID)
		}
		time.Sleep(10 * time.Millisecond)
	}
	before := count()

	writes := []struct {
		name, path string
		body       any
	}{
		{"capture", "/v1/episodes", capture("tulip")},
		{"remember", "/v1/memories", map[string]any{"text": "I live in Lisbon."}},
		{"feedback", "/v1/retrievals/" + onA.RetrievalID + "/feedback", map[string]any{"outcome": "helpful"}},
	}
	for _, w := range writes {
		code, body := post(b.url+w.path, w.body)
		var p struct {
			Code   string `json:"code"`
			Detail string `json:"detail"`
		}
		_ = json.Unmarshal(body, &p)
		if code != http.StatusConflict || p.Code != "store_read_only" || !strings.Contains(p.Detail, "read-only") {
			t.Errorf("%s on B: %d %s, want 409 store_read_only", w.name, code, body)
		}
	}
	if after := count(); !maps.Equal(before, after) {
		t.Errorf("refused writes on B changed the database: %v -> %v", before, after)
	}

	// B is ready: no workers to wait for, an index that keeps up.
	res, err := client.Get(b.url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("/readyz on B: %d", res.StatusCode)
	}
	// A went on writing; B follows.
	if code, body := post(a.url+"/v1/episodes", capture("peony")); code != http.StatusAccepted {
		t.Fatalf("capture on A: %d %s", code, body)
	}
	sees(t, b, "peony", 10*time.Second)
}
