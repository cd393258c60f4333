package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/mnemon-dev/mnemon/internal/testutil"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// serveChildEnv holds the JSON array of arguments with which TestMain runs
// this test binary as mnemon (as cmd/mnemon does: SIGTERM cancels).
const serveChildEnv = "MNEMON_TEST_CHILD_ARGS"

func mnemonChild(argsJSON string) int {
	var args []string
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		fmt.Fprintln(os.Stderr, "child arguments:", err)
		return 3
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Main(ctx, args, Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
}

// child is mnemon running in a child process.
type child struct {
	cmd    *exec.Cmd
	url    string
	stderr *testutil.SyncBuffer
	done   chan struct{}
}

// startChild runs mnemon args in a child process and waits until it
// listens.
func startChild(t *testing.T, addrFile string, args ...string) *child {
	t.Helper()
	argsJSON, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c := &child{stderr: &testutil.SyncBuffer{}, done: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MNEMON_") {
			c.cmd.Env = append(c.cmd.Env, kv)
		}
	}
	c.cmd.Env = append(c.cmd.Env, serveChildEnv+"="+string(argsJSON), "MNEMON_ADDR_FILE="+addrFile)
	c.cmd.Stderr = c.stderr
	if err := os.Remove(addrFile); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		<-c.done
	})
	addr, err := waitAddr(addrFile, time.Minute, c.done) // a bound: startup has taken over 30 s on a busy machine
	if err != nil {
		t.Fatalf("child mnemon %v: %v; stderr:\n%s", args, err, c.stderr.String())
	}
	c.url = "http://" + addr
	return c
}

// ackedCapture is a capture the server answered 202.
type ackedCapture struct {
	captureAck
	contents []string
}

// TestServeSIGKILLDuringCaptureLoad kills the server while clients capture,
// restarts it on the same database, and checks that every acknowledged
// capture survived: its episodes are stored and its extraction job
// completes, exactly once.
func TestServeSIGKILLDuringCaptureLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("SIGKILLs a mnemon serve child process under load and waits for River to rescue its jobs (about 20 s)")
	}
	// Mostly waiting for River's rescuer: let the other tests run meanwhile.
	t.Parallel()
	began := time.Now()
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))
	cfg := filepath.Join(dir, "mnemon.json")
	addrFile := filepath.Join(dir, "addr")
	// Jobs cut off by the kill are taken for dead 6 s after they started,
	// not 2 minutes; the rate limit would only slow the load down.
	config := fmt.Sprintf(`{"db": %q, "addr": "127.0.0.1:0", "workers": 2, "log_level": "warn",
		"job_timeout": "5s", "job_rescue_after": "6s", "shutdown_timeout": "15s",
		"rate_per_second": 100000, "rate_burst": 100000}`, db)
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startChild(t, addrFile, "serve", "--config", cfg)

	// Load: 4 clients, each capturing 1 to 3 distinct statements at a time.
	const clients, killAfter = 4, 24
	var (
		mu         sync.Mutex
		acks       []ackedCapture
		unexpected []string
		killed     atomic.Bool
		wg         sync.WaitGroup
	)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	httpc := &http.Client{Timeout: 20 * time.Second}
	loadBegan := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !killed.Load(); n++ {
				var contents []string
				for e := range 1 + (c+n)%3 {
					contents = append(contents, fmt.Sprintf("Projc%dn%de%d uses pnpm.", c, n, e))
				}
				body, err := json.Marshal(captureOf(fmt.Sprintf("client-%d", c), base.Add(time.Duration(c*100000+n*10)*time.Second), contents...))
				if err != nil {
					panic(err)
				}
				res, err := httpc.Post(srv.url+"/v1/episodes", "application/json", bytes.NewReader(body))
				var data []byte
				if err == nil {
					data, err = io.ReadAll(res.Body)
					res.Body.Close()
				}
				if err != nil {
					if !killed.Load() {
						mu.Lock()
						unexpected = append(unexpected, err.Error())
						mu.Unlock()
					}
					return // the server is gone
				}
				var ack captureAck
				if res.StatusCode != http.StatusAccepted || json.Unmarshal(data, &ack) != nil || len(ack.EpisodeIDs) != len(contents) || ack.JobID == "" {
					mu.Lock()
					unexpected = append(unexpected, fmt.Sprintf("%d %s", res.StatusCode, data))
					mu.Unlock()
					return
				}
				mu.Lock()
				acks = append(acks, ackedCapture{ack, contents})
				mu.Unlock()
			}
		}()
	}
	count := func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return len(acks), len(unexpected)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		n, bad := count()
		if (n >= killAfter && time.Since(loadBegan) >= time.Second) || bad > 0 || time.Now().After(deadline) {
			break
		}
	}
	// Kill it mid-load, once some jobs have run: captures are being
	// acknowledged and extracted.
	killed.Store(true)
	if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-srv.done
	killedAt := time.Now()
	wg.Wait()
	if len(unexpected) > 0 {
		t.Fatalf("before the kill: %d unexpected answers, first %s\nserver stderr:\n%s", len(unexpected), unexpected[0], srv.stderr.String())
	}
	if len(acks) < 10 {
		t.Fatalf("only %d captures acknowledged in %s", len(acks), killedAt.Sub(loadBegan))
	}
	events := 0
	for _, a := range acks {
		events += len(a.contents)
	}

	// Every acknowledged episode is on disk before anything restarts.
	states := onDiskAfterKill(t, db, acks)

	// Restart on the same file: every acknowledged job completes.
	restarted := time.Now()
	srv = startChild(t, addrFile, "serve", "--config", cfg)
	waiting := map[string]bool{}
	for _, a := range acks {
		waiting[a.JobID] = true
	}
	deadline := restarted.Add(90 * time.Second) // generous: CI runs packages in parallel under -race on 2 cores
	for len(waiting) > 0 {
		for id := range waiting {
			state, body := jobState(t, srv.url, id)
			switch state {
			case jobs.StateSucceeded:
				delete(waiting, id)
			case jobs.StateFailed:
				t.Fatalf("job %s failed after the restart: %s", id, body)
			}
		}
		if len(waiting) == 0 {
			break
		}
		if time.Now().After(deadline) {
			var sample string
			for id := range waiting {
				_, body := jobState(t, srv.url, id)
				sample = string(body)
				break
			}
			t.Fatalf("%d of %d acknowledged jobs unfinished %s after the restart (jobs at the kill: %v), e.g. %s\nserver stderr:\n%s",
				len(waiting), len(acks), time.Since(restarted).Round(time.Millisecond), states, sample, srv.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	recovery := time.Since(restarted)

	// A graceful stop, then the database: each statement extracted once.
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("no exit 20 s after SIGTERM; stderr:\n%s", srv.stderr.String())
	}
	if code := srv.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM; stderr:\n%s", code, srv.stderr.String())
	}
	st, err := sqlite.Open(t.Context(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	facts := map[string][]*memory.Version{}    // by subject
	episodic := map[string][]*memory.Version{} // by key: episode:ID
	err = st.ScanVersions(t.Context(), memory.ScanParams{Namespace: memory.DefaultNamespace}, func(v *memory.Version) error {
		switch v.Kind {
		case memory.KindSemantic:
			facts[v.Subject] = append(facts[v.Subject], v)
		case memory.KindEpisodic:
			episodic[v.Key] = append(episodic[v.Key], v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acks {
		for i, id := range a.EpisodeIDs {
			if eps := episodic["episode:"+id]; len(eps) != 1 {
				t.Fatalf("episode %s (%q) has %d episodic versions, want 1", id, a.contents[i], len(eps))
			}
			subject := strings.ToLower(strings.Fields(a.contents[i])[0])
			vs := facts[subject]
			if len(vs) != 1 || vs[0].Key != "uses:package_manager" || vs[0].Value != "pnpm" {
				t.Fatalf("%q yielded %d facts, want 1: %+v", a.contents[i], len(vs), vs)
			}
			if v := vs[0]; v.ReinforcementCount != 0 || v.Seq != 1 || len(v.EvidenceEpisodeIDs) != 1 || v.EvidenceEpisodeIDs[0] != id {
				t.Fatalf("%q was extracted more than once: reinforcement %d, seq %d, evidence %v", a.contents[i], v.ReinforcementCount, v.Seq, v.EvidenceEpisodeIDs)
			}
		}
	}
	// Captures answered by nothing (cut off by the kill) may or may not
	// have committed; either way nothing was extracted twice.
	for subject, vs := range facts {
		if len(vs) != 1 || vs[0].ReinforcementCount != 0 {
			t.Fatalf("subject %s: %d versions, reinforcement %d", subject, len(vs), vs[0].ReinforcementCount)
		}
	}
	t.Logf("%d captures (%d events) acknowledged in %s before SIGKILL; jobs at the kill: %v; "+
		"%d episodes on disk; all %d acknowledged jobs succeeded %s after the restart (%s after the kill); test took %s",
		len(acks), events, killedAt.Sub(loadBegan).Round(time.Millisecond), states, len(episodic),
		len(acks), recovery.Round(time.Millisecond), time.Since(killedAt).Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
}

// onDiskAfterKill checks that every acknowledged episode is stored and
// counts the jobs in each state.
func onDiskAfterKill(t *testing.T, db string, acks []ackedCapture) map[string]int {
	t.Helper()
	ctx := t.Context()
	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer st.Close()
	for _, a := range acks {
		for i, id := range a.EpisodeIDs {
			ep, err := st.GetEpisode(ctx, memory.GetParams{Namespace: memory.DefaultNamespace, ID: id})
			if err != nil || ep.Content != a.contents[i] {
				t.Fatalf("acknowledged episode %s (%q) after the kill: %v", id, a.contents[i], err)
			}
		}
	}
	q, err := jobs.Open(ctx, jobs.Config{Driver: riversqlite.New(st.WriterDB()), TxOf: sqlite.SQLTx})
	if err != nil {
		t.Fatal(err)
	}
	list, err := q.List(ctx, jobs.ListParams{Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, j := range list {
		states[j.State]++
	}
	return states
}
