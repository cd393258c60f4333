package client_test

// The client's tests and examples run against a real mnemon server on
// loopback: a SQLite file in a temporary directory, the engine, the River
// queue with its workers and the HTTP API, as `mnemon serve` wires them.
// Nothing is mocked.

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"
	"go.uber.org/goleak"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/internal/apikey"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// runs numbers the namespaces the tests and examples make, so that they
// start empty however often they run against the one server (-count).
var runs atomic.Int64

// fresh returns a namespace named after base that no run has used yet.
func fresh(base string) string {
	return base + "-" + strconv.FormatInt(runs.Add(1), 10)
}

// serverURL is the open (keyless) server the examples talk to. Examples
// cannot take parameters, so TestMain leaves its address here; it is set
// once, before any test runs.
var serverURL string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mnemon-client-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv, err := startServer(dir, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	serverURL = srv.URL
	code := m.Run()
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "stop the server:", err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "leaked goroutines:", err)
			code = 1
		}
	}
	return code
}

// testServer is one mnemon server over its own database.
type testServer struct {
	URL   string
	store *sqlite.Store
	close func() error
}

func (s *testServer) Close() error { return s.close() }

// startServer starts a server over a new database in dir.
func startServer(dir string, requireKeys bool) (*testServer, error) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "mnemon.db"), sqlite.Options{})
	if err != nil {
		return nil, err
	}
	eng, err := engine.New(engine.Config{Store: st})
	if err != nil {
		return nil, errors.Join(err, st.Close())
	}
	q, err := jobs.Open(ctx, jobs.Config{
		Driver: riversqlite.New(st.WriterDB()), TxOf: sqlite.SQLTx, Engine: eng,
		Workers: 2, PollInterval: 10 * time.Millisecond,
	})
	if err == nil {
		err = q.Start(ctx)
	}
	if err != nil {
		return nil, errors.Join(err, eng.Close(), st.Close())
	}
	api, err := httpapi.New(httpapi.Config{
		Engine: eng, Keys: st, Queue: q, RequireKeys: requireKeys, Version: "test",
		Limits: httpapi.Limits{RatePerSecond: 1e6, RateBurst: 1e6, KeyCacheTTL: 50 * time.Millisecond,
			OpenModeCheckEvery: 20 * time.Millisecond},
	})
	if err != nil {
		return nil, errors.Join(err, q.Stop(ctx), eng.Close(), st.Close())
	}
	hs := httptest.NewServer(api) // 127.0.0.1
	return &testServer{URL: hs.URL, store: st, close: func() error {
		hs.Close()
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return errors.Join(q.Stop(stopCtx), eng.Close(), st.Close())
	}}, nil
}

// newServer starts a server of the test's own, for tests that change the
// server (API keys close open mode for every client).
func newServer(t *testing.T, requireKeys bool) *testServer {
	t.Helper()
	s, err := startServer(t.TempDir(), requireKeys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// key creates an API key and returns it raw.
func (s *testServer) key(t *testing.T, ns string, role memory.Role) string {
	t.Helper()
	raw, k, err := apikey.Generate(ns, role, "client test", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.CreateAPIKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return raw
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
