package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/internal/pgtest"
	"github.com/mnemon-dev/mnemon/internal/testutil"
)

// childArgs holds the JSON array of arguments with which TestMain runs this
// test binary as mnemon itself: main() of this package, so the processes
// the tests kill are cmd/mnemon, built from this directory.
const childArgs = "MNEMON_TEST_MAIN_ARGS"

func TestMain(m *testing.M) {
	if raw := os.Getenv(childArgs); raw != "" {
		var args []string
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			fmt.Fprintln(os.Stderr, "child arguments:", err)
			os.Exit(3)
		}
		os.Args = append([]string{"mnemon"}, args...)
		main() // exits
	}
	os.Exit(m.Run())
}

// server is a 'mnemon serve' child process.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *testutil.SyncBuffer
	done   chan struct{}
}

// serve starts 'mnemon serve' on db in a child process and waits until it
// listens.
func serve(t *testing.T, db string) *server {
	t.Helper()
	return serveWith(t, db, "--workers", "1")
}

// serveWith starts 'mnemon serve' on db with the flags extra, as serve.
func serveWith(t *testing.T, db string, extra ...string) *server {
	t.Helper()
	args, _ := json.Marshal(append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--log-level", "warn"}, extra...))
	addrFile := filepath.Join(t.TempDir(), "addr")
	s := &server{stderr: &testutil.SyncBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MNEMON_") {
			s.cmd.Env = append(s.cmd.Env, kv)
		}
	}
	// A job a killed server left running is taken for dead 6 s after it
	// started (River's default is far longer): the other server rescues it.
	s.cmd.Env = append(s.cmd.Env, childArgs+"="+string(args), "MNEMON_ADDR_FILE="+addrFile,
		"MNEMON_JOB_TIMEOUT=5s", "MNEMON_JOB_RESCUE_AFTER=6s")
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(s.kill)
	deadline := time.Now().Add(time.Minute) // startup has taken tens of seconds on a loaded machine
	for {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			if _, port, err := net.SplitHostPort(string(b)); err == nil {
				s.url = "http://127.0.0.1:" + port
				return s
			}
		}
		select {
		case <-s.done:
			t.Fatalf("mnemon serve exited before listening:\n%s", s.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("mnemon serve did not listen within a minute:\n%s", s.stderr.String())
		}
	}
}

// kill sends SIGKILL, as kill -9 does, and waits for the process to go.
func (s *server) kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

var client = &http.Client{Timeout: 10 * time.Second}

// post sends body as JSON and returns the status (0 when the connection
// failed, as it does to a killed server) and the response.
func post(url string, body any) (int, []byte) {
	data, _ := json.Marshal(body)
	res, err := client.Post(url, "application/json", bytes.NewReader(data))
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// capture is the body of POST /v1/episodes: three turns, each naming the
// capture's own token, so the store can be checked for a capture that is
// partly stored.
func capture(token string) map[string]any {
	at := time.Now().UTC()
	var events []map[string]any
	for i, what := range []string{"The release codename is %s.", "Deploys of %s go out on Tuesdays.", "Ask Dana before changing %s."} {
		events = append(events, map[string]any{"kind": "user_message", "content": fmt.Sprintf(what, token),
			"occurred_at": at.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)})
	}
	return map[string]any{"session_id": "s-" + token, "events": events}
}

// foundByWord reports whether a retrieval's items hold token as found by
// the lexical channel: an item the index holds, not one that is only
// recent.
func foundByWord(t *testing.T, body []byte, token string) bool {
	var r struct {
		Items []struct {
			Content  string                     `json:"content"`
			Channels map[string]json.RawMessage `json:"channels"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("retrieve: %v: %s", err, body)
	}
	for _, it := range r.Items {
		if _, ok := it.Channels["lexical"]; ok && strings.Contains(it.Content, token) {
			return true
		}
	}
	return false
}

// word is prefix followed by n spelt in letters (digits split words in the
// analyzer): a word no other capture has, for the lexical channel to find.
func word(prefix string, n int) string {
	digits := fmt.Sprint(n)
	b := []byte(prefix)
	for _, d := range digits {
		b = append(b, byte('a'+d-'0'))
	}
	return string(b)
}

// sees polls s's retrieval for token until it is served or the deadline
// passes, and returns how long that took.
func sees(t *testing.T, s *server, token string, within time.Duration) time.Duration {
	t.Helper()
	began := time.Now()
	for {
		code, body := post(s.url+"/v1/memories/retrieve", map[string]any{"query": "what is " + token + "?"})
		if code == http.StatusOK && foundByWord(t, body, token) {
			return time.Since(began)
		}
		if time.Since(began) > within {
			t.Fatalf("%s never served %s within %s (last answer %d %s); its log:\n%s", s.url, token, within, code, body, s.stderr.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestTwoServesOnePostgres runs two 'mnemon serve' processes on one
// PostgreSQL database. A capture acknowledged by A is served by B (woken by
// NOTIFY; the time is logged, not asserted). Then A is killed with SIGKILL
// while clients capture on it: B goes on serving and capturing, every
// capture A acknowledged is stored whole, none is stored in part, and A,
// started again, catches up with what B stored while it was down.
func TestTwoServesOnePostgres(t *testing.T) {
	db := pgtest.Schema(t)
	ctx := context.Background()
	a := serve(t, db)
	b := serve(t, db)

	// Warm both indexes, so the next capture's visibility is the
	// follower's, not a first load's.
	for _, s := range []*server{a, b} {
		if code, body := post(s.url+"/v1/memories/retrieve", map[string]any{"query": "warm up"}); code != http.StatusOK {
			t.Fatalf("retrieve: %d %s", code, body)
		}
	}
	var lags []time.Duration
	for i := range 5 {
		token := word("probe", i)
		if code, body := post(a.url+"/v1/episodes", capture(token)); code != http.StatusAccepted {
			t.Fatalf("capture on A: %d %s", code, body)
		}
		lags = append(lags, sees(t, b, token, 10*time.Second))
	}
	t.Logf("a capture acknowledged by A was served by B after %v (polling B's retrieval every 2 ms)", lags)

	// Load on A, then kill -9 it mid-write.
	var (
		mu     sync.Mutex
		acked  []string
		tried  []string
		failed atomic.Int64
		n      atomic.Int64
		wg     sync.WaitGroup
		stop   = make(chan struct{})
	)
	for w := range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				token := word(word("load", w)+"x", int(n.Add(1)))
				mu.Lock()
				tried = append(tried, token)
				mu.Unlock()
				code, _ := post(a.url+"/v1/episodes", capture(token))
				if code == http.StatusAccepted {
					mu.Lock()
					acked = append(acked, token)
					mu.Unlock()
				} else {
					failed.Add(1)
					time.Sleep(5 * time.Millisecond) // A is gone
				}
			}
		})
	}
	for {
		mu.Lock()
		k := len(acked)
		mu.Unlock()
		if k >= 20 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	a.kill()
	time.Sleep(50 * time.Millisecond) // let the writers see A gone
	close(stop)
	wg.Wait()
	if failed.Load() == 0 {
		t.Fatal("no capture failed: A was not killed mid-write")
	}
	t.Logf("A killed after %d acknowledged captures, %d sent, %d failed", len(acked), len(tried), failed.Load())

	// B goes on: it serves A's last acknowledged capture and takes new ones.
	// The capture is stored, but another replica indexes it once it is
	// extracted; when A died in the middle of that job, B's worker rescues
	// it (6 s after it started, when River's rescuer next runs).
	sees(t, b, acked[len(acked)-1], 60*time.Second)
	if code, body := post(b.url+"/v1/episodes", capture("afterkill")); code != http.StatusAccepted {
		t.Fatalf("capture on B after A's death: %d %s", code, body)
	}
	sees(t, b, "afterkill", 10*time.Second)

	// Nothing half-written: each capture's three turns are all stored or
	// none is; every acknowledged one is stored.
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	stored := map[string]int{}
	rows, err := conn.Query(ctx, `SELECT session_id, count(*) FROM episodes WHERE namespace = 'default' GROUP BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		var c int
		if err := rows.Scan(&s, &c); err != nil {
			t.Fatal(err)
		}
		stored[strings.TrimPrefix(s, "s-")] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, token := range tried {
		if c := stored[token]; c != 0 && c != 3 {
			t.Errorf("capture %s is stored in part: %d of 3 turns", token, c)
		}
	}
	for _, token := range acked {
		if stored[token] != 3 {
			t.Errorf("capture %s was acknowledged by A but %d of its 3 turns are stored", token, stored[token])
		}
	}

	// A again: it loads from the database and serves what B stored while
	// it was down.
	a2 := serve(t, db)
	sees(t, a2, "afterkill", 10*time.Second)
	if code, body := post(b.url+"/v1/episodes", capture("afterrestart")); code != http.StatusAccepted {
		t.Fatalf("capture on B: %d %s", code, body)
	}
	sees(t, a2, "afterrestart", 10*time.Second)
	res, err := client.Get(a2.url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/readyz on the restarted A: %d %s", res.StatusCode, body)
	}
}
