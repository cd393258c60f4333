package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/internal/apikey"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search/searchtest"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// Load benchmarks: the whole service on loopback, as 'mnemon serve' runs
// it: a real SQLite file opened with the server's options (synchronous
// NORMAL, serve's default --sync), the index warmed, a River queue with the default 2 workers on the
// store's writer connection, the API behind an http.Server with serve's
// timeouts, and API keys. Clients are net/http with keep-alive, one
// Transport (so one connection) per client, sending requests back to back;
// latency is end to end, from Do to the last byte of the body.
//
//	go test ./httpapi -run '^$' -bench HTTP -benchtime 1x
//
// Each run sends a fixed number of requests, independent of b.N, so that
// -benchtime 1x yields percentiles over thousands of requests; a larger N
// repeats the workload and pools the latencies. Metrics: p50_ms, p95_ms,
// p99_ms per request and req/s over the timed part.
//
// Clients and server share the machine's cores, so on a small machine the
// concurrent numbers include the clients' own CPU use and scheduling
// waits.
//
// The 100k store is seeded once and cached in
// $TMPDIR/mnemon-httpapi-loadbench, keyed by a hash of the test binary (a
// changed build re-seeds and deletes the old file); each benchmark works
// on its own copy. "memories" counts indexed memory items, as in the
// engine's benchmarks: each seeded statement adds a semantic fact and its
// episode's episodic memory.

const (
	loadNamespace = "bench"
	loadClients   = 8
	loadWorkers   = 2    // serve's default
	loadWarmup    = 100  // untimed requests per client first
	loadRetrieves = 2000 // timed retrievals with one client
	loadConcRet   = 4000 // timed retrievals across the 8 clients
	loadCaptures  = 2000 // timed captures across the 8 clients
)

func BenchmarkHTTPRetrieve10k(b *testing.B) {
	t := loadStart(b, loadSeeded(b, 10_000), 1)
	queries := loadQueries(1, 512)
	loadRun(b, t, func(c *loadClient, i int) (time.Duration, error) {
		return c.retrieve(queries[i%len(queries)])
	}, 1, loadRetrieves)
}

func BenchmarkHTTPRetrieve100kConcurrent8(b *testing.B) {
	t := loadStart(b, loadSeeded(b, 100_000), loadClients)
	queries := loadQueries(2, 2048)
	loadRun(b, t, func(c *loadClient, i int) (time.Duration, error) {
		// Clients walk the queries at different offsets: no two send
		// the same query at the same moment.
		return c.retrieve(queries[(i+c.n*len(queries)/loadClients)%len(queries)])
	}, loadClients, loadConcRet)
}

// BenchmarkHTTPCapture8 captures into the 100k store, in the namespace the
// 100k memories are in: acknowledging a capture checks for duplicates
// among the stored episodes and competes for the single writer connection
// with extraction jobs that reconcile against a full index, which a fresh
// store would hide. The workers extract in the background while clients
// capture, as in production; after the timed part the benchmark reports
// how much was still queued (jobs_backlog, episodes_backlog) and how fast the workers
// drained them (jobs/s, waiting at most 30 s).
// BenchmarkHTTPCapture8 saturates the server: 8 clients send captures back
// to back, so it measures throughput, and latency is what 8 requests in
// flight on two cores cost (Little's law). BenchmarkHTTPCapture8Paced
// offers a fixed load instead, as agents do.
func BenchmarkHTTPCapture8(b *testing.B) {
	t := loadStart(b, loadSeeded(b, 100_000), loadClients)
	bodies := loadCaptureBodies(loadClients*loadWarmup + b.N*loadCaptures)
	var mu sync.Mutex
	next := 0
	loadRun(b, t, func(c *loadClient, _ int) (time.Duration, error) {
		mu.Lock()
		body := bodies[next]
		next++
		mu.Unlock()
		return c.capture(body)
	}, loadClients, loadCaptures)

	// Drain: how long the 2 workers need for what the clients queued.
	ctx := context.Background()
	counts, err := t.queue.Counts(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(counts[jobs.StatePending]+counts[jobs.StateRunning]), "jobs_backlog")
	loadReportBacklog(b, t)
	began, deadline := time.Now(), time.Now().Add(30*time.Second)
	for time.Now().Before(deadline) {
		if counts, err = t.queue.Counts(ctx); err != nil {
			b.Fatal(err)
		}
		if counts[jobs.StatePending]+counts[jobs.StateRunning] == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if counts[jobs.StateFailed] > 0 {
		b.Errorf("%d extraction jobs failed", counts[jobs.StateFailed])
	}
	done := counts[jobs.StateSucceeded]
	b.ReportMetric(float64(done)/(time.Since(began)+t.timed).Seconds(), "jobs/s")
	b.Logf("jobs: %v after draining for %s", counts, time.Since(began).Round(time.Millisecond))
}

// loadTarget is a running server and what its clients need.
type loadTarget struct {
	url   string
	keys  []string // one writer key per client
	queue *jobs.Queue
	eng   *engine.Engine
	timed time.Duration // the timed part of the last loadRun
}

// loadPacedRate is the offered load of BenchmarkHTTPCapture8Paced:
// captures per second across the 8 clients.
const loadPacedRate = 400

// BenchmarkHTTPCapture8Paced: the same 8 clients and captures, each client
// sending at loadPacedRate/8 per second on average with exponentially
// distributed gaps (independent agents, not a saturating loop; open loop:
// a slow answer does not delay the next send's schedule), so the latency
// is that of a server under a steady load.
func BenchmarkHTTPCapture8Paced(b *testing.B) {
	t := loadStart(b, loadSeeded(b, 100_000), loadClients)
	bodies := loadCaptureBodies(loadClients*loadWarmup + b.N*loadCaptures)
	var mu sync.Mutex
	next := 0
	mean := float64(time.Second) * loadClients / loadPacedRate
	type pace struct {
		slot time.Time
		rnd  *rand.Rand
	}
	paces := make(map[*loadClient]*pace)
	loadRun(b, t, func(c *loadClient, _ int) (time.Duration, error) {
		mu.Lock()
		body := bodies[next]
		next++
		p, ok := paces[c]
		if !ok {
			p = &pace{rnd: rand.New(rand.NewPCG(uint64(len(paces)+1), 7))}
			p.slot = time.Now().Add(time.Duration(p.rnd.ExpFloat64() * mean))
			paces[c] = p
		}
		slot := p.slot
		p.slot = slot.Add(time.Duration(p.rnd.ExpFloat64() * mean))
		mu.Unlock()
		if wait := time.Until(slot); wait > 0 {
			time.Sleep(wait)
		}
		return c.capture(body)
	}, loadClients, loadCaptures)
	b.ReportMetric(loadPacedRate, "offered_req/s")
	// Whether extraction kept up with the offered load.
	counts, err := t.queue.Counts(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(counts[jobs.StatePending]+counts[jobs.StateRunning]), "jobs_backlog")
	loadReportBacklog(b, t)
}

// loadStart serves a copy of the database at seed as 'mnemon serve' would,
// with a key for each of clients.
func loadStart(b *testing.B, seed string, clients int) *loadTarget {
	b.Helper()
	if testing.Short() {
		b.Skip("load benchmark: skipped with -short")
	}
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "mnemon.db")
	loadCopy(b, seed, path)
	// Request logs are formatted as serve's default logger formats them,
	// then dropped.
	log := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	st, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Store: st, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	if err := eng.Warm(ctx); err != nil {
		b.Fatal(err)
	}
	q, err := jobs.Open(ctx, jobs.Config{Driver: riversqlite.New(st.WriterDB()), TxOf: sqlite.SQLTx,
		Engine: eng, Workers: loadWorkers, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		b.Fatal(err)
	}
	// As serve does: follow what other processes write.
	fctx, stopFollow := context.WithCancel(context.Background())
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		eng.Follow(fctx, 500*time.Millisecond)
	}()
	b.Cleanup(func() {
		stopFollow()
		<-followed
	})
	t := &loadTarget{queue: q, eng: eng}
	for i := range clients {
		raw, k, err := apikey.Generate(loadNamespace, memory.RoleWriter, fmt.Sprintf("load client %d", i), time.Now())
		if err != nil {
			b.Fatal(err)
		}
		if err := st.CreateAPIKey(ctx, k); err != nil {
			b.Fatal(err)
		}
		t.keys = append(t.keys, raw)
	}
	api, err := httpapi.New(httpapi.Config{Engine: eng, Keys: st, Queue: q, Logger: log, Version: "bench",
		// The limiter must not shape the load.
		Limits: httpapi.Limits{RatePerSecond: 1e9, RateBurst: 1e9}})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{ // serve's settings
		Handler:           api,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go func() { _ = srv.Serve(ln) }()
	t.url = "http://" + ln.Addr().String()
	b.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = q.Stop(sctx)
		eng.FlushTraces()
		eng.Close()
		_ = st.Close()
	})
	return t
}

// loadRun has clients send loadWarmup untimed requests each, then total
// timed requests between them (each client its share, back to back), and
// reports the latency percentiles and the request rate.
func loadRun(b *testing.B, t *loadTarget, send func(c *loadClient, i int) (time.Duration, error), clients, total int) {
	b.Helper()
	cs := make([]*loadClient, clients)
	for i := range cs {
		cs[i] = newLoadClient(t, i)
		defer cs[i].close()
	}
	each := func(from, n int, keep bool) error {
		errs := make(chan error, clients)
		var wg sync.WaitGroup
		for _, c := range cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := from; i < from+n; i++ {
					d, err := send(c, i)
					if err != nil {
						errs <- err
						return
					}
					if keep {
						c.lat = append(c.lat, d)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		return <-errs
	}
	if err := each(0, loadWarmup, false); err != nil {
		b.Fatal(err)
	}
	per := total / clients
	var timed time.Duration
	cpu0, cpuOK := loadCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		began := time.Now()
		if err := each(loadWarmup+i*per, per, true); err != nil {
			b.Fatal(err)
		}
		timed += time.Since(began)
	}
	b.StopTimer()
	cpu1, _ := loadCPU()
	t.timed = timed
	var lat []time.Duration
	empty := 0
	for _, c := range cs {
		lat = append(lat, c.lat...)
		empty += c.empty
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50_ms")
	b.ReportMetric(pct(0.95), "p95_ms")
	b.ReportMetric(pct(0.99), "p99_ms")
	b.ReportMetric(float64(len(lat))/timed.Seconds(), "req/s")
	if cpuOK {
		// Server and clients together: what a request costs whatever
		// else the machine is doing.
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/float64(len(lat)), "cpu_ms/req")
	}
	if avg, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("load average after the run: %s", strings.TrimSpace(string(avg)))
	}
	if empty > 0 {
		b.Logf("%d of %d retrievals found nothing", empty, len(lat)+clients*loadWarmup)
	}
}

// loadClient is one API client with its own connection.
type loadClient struct {
	n     int
	url   string
	key   string
	tr    *http.Transport
	hc    *http.Client
	buf   bytes.Buffer
	lat   []time.Duration
	empty int // retrievals that found nothing
}

func newLoadClient(t *loadTarget, n int) *loadClient {
	tr := &http.Transport{MaxIdleConns: 1, MaxIdleConnsPerHost: 1, IdleConnTimeout: time.Minute}
	return &loadClient{n: n, url: t.url, key: t.keys[n], tr: tr, hc: &http.Client{Transport: tr, Timeout: time.Minute}}
}

func (c *loadClient) close() { c.tr.CloseIdleConnections() }

// post sends body to path and reads the whole answer, which must have
// status want. The time is from sending to the last byte.
func (c *loadClient) post(path string, body []byte, want int) (time.Duration, error) {
	req, err := http.NewRequest(http.MethodPost, c.url+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.key)
	began := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	c.buf.Reset()
	_, err = c.buf.ReadFrom(resp.Body)
	resp.Body.Close()
	took := time.Since(began)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != want {
		return 0, fmt.Errorf("POST %s: %s: %s", path, resp.Status, c.buf.String())
	}
	return took, nil
}

func (c *loadClient) retrieve(query string) (time.Duration, error) {
	body, _ := json.Marshal(wire.RetrieveRequest{Query: query})
	d, err := c.post("/v1/memories/retrieve", body, http.StatusOK)
	if err == nil && bytes.Contains(c.buf.Bytes(), []byte(`"items":[]`)) {
		c.empty++
	}
	return d, err
}

func (c *loadClient) capture(body []byte) (time.Duration, error) {
	return c.post("/v1/episodes", body, http.StatusAccepted)
}

// loadQueries returns n queries of the kind an agent sends: a window of
// 3-7 words from sentences like the seeded ones (but not among them), or
// a question built from their vocabulary.
func loadQueries(seed uint64, n int) []string {
	g := searchtest.NewGenerator(1000 + seed)
	r := rand.New(rand.NewPCG(seed, 77))
	out := make([]string, n)
	for i := range out {
		switch r.IntN(4) {
		case 0:
			out[i] = fmt.Sprintf("what does %s prefer to drink in the morning?", g.Word("name"))
		case 1:
			out[i] = fmt.Sprintf("which editor does %s use for %s", g.Word("name"), g.Word("lang"))
		default:
			w := strings.Fields(g.Sentence())
			size := min(len(w), 3+r.IntN(5))
			start := r.IntN(len(w) - size + 1)
			out[i] = strings.Join(w[start:start+size], " ")
		}
	}
	return out
}

// loadCaptureBodies returns n capture requests of 1-3 events each, every
// event distinct, spread over 8 sessions.
func loadCaptureBodies(n int) [][]byte {
	g := searchtest.NewGenerator(4242)
	r := rand.New(rand.NewPCG(42, 43))
	now := time.Now().UTC()
	out := make([][]byte, n)
	for i := range out {
		req := wire.CaptureRequest{SessionID: fmt.Sprintf("load-session-%d", i%8), AgentID: "load-agent"}
		for j := range 1 + r.IntN(3) {
			kind, speaker := "user_message", "user"
			if j%2 == 1 {
				kind, speaker = "agent_message", "assistant"
			}
			req.Events = append(req.Events, wire.EventInput{
				Kind: kind, Speaker: speaker,
				Content:    fmt.Sprintf("%s (capture %d.%d)", g.Sentence(), i, j),
				OccurredAt: now.Add(time.Duration(i*3+j) * time.Millisecond).Format(time.RFC3339Nano),
			})
		}
		out[i], _ = json.Marshal(req)
	}
	return out
}

var loadSeedMu sync.Mutex

// loadSeeded returns the path of a database holding n memories in
// loadNamespace, seeding it on first use. Seeded files are cached across
// runs of the same test binary (see the comment at the top); a benchmark
// must not open the cached file itself but a copy (loadStart does).
func loadSeeded(b *testing.B, n int) string {
	b.Helper()
	if testing.Short() {
		b.Skip("load benchmark: skipped with -short")
	}
	loadSeedMu.Lock()
	defer loadSeedMu.Unlock()
	dir := filepath.Join(os.TempDir(), "mnemon-httpapi-loadbench")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	build, err := loadBuildHash()
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("seed-%d-%s.db", n, build))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	// Files of other builds are stale.
	old, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("seed-%d-*", n)))
	for _, f := range old {
		_ = os.Remove(f)
	}
	began := time.Now()
	tmp := filepath.Join(dir, fmt.Sprintf("seeding-%d-%d.db", n, os.Getpid()))
	if err := loadSeed(tmp, n); err != nil {
		for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
			_ = os.Remove(f)
		}
		b.Fatal(err)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(tmp + ext); err == nil {
			b.Fatalf("seeded file left %s behind", tmp+ext)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d memories in %s (cached at %s)", n, time.Since(began).Round(time.Millisecond), path)
	return path
}

// loadSeed writes n memories (n/2 keyed statements, observed over the
// minutes before now) into a new database at path.
func loadSeed(path string, n int) error {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		return err
	}
	eng, err := engine.New(engine.Config{Store: st})
	if err != nil {
		st.Close()
		return err
	}
	g := searchtest.NewGenerator(1)
	first := time.Now().UTC().Add(-time.Duration(n/2+60) * time.Minute)
	const batch = 1000
	for i := 0; i < n/2 && err == nil; i += batch {
		ps := make([]engine.RememberParams, 0, batch)
		for j := i; j < i+batch && j < n/2; j++ {
			ps = append(ps, engine.RememberParams{
				Namespace: loadNamespace, Text: g.Sentence(), Key: fmt.Sprintf("seed:%d", j),
				ObservedAt: first.Add(time.Duration(j) * time.Minute),
			})
		}
		_, err = eng.RememberBatch(ctx, ps)
	}
	eng.Close()
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

// loadBuildHash names this test binary's build.
func loadBuildHash() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// loadCPU returns the CPU time this process has used (Linux only).
func loadCPU() (time.Duration, bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	// Fields after the command name, which is in parentheses: utime and
	// stime are the 12th and 13th, in clock ticks of 1/100 s.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	var user, sys int64
	if _, err := fmt.Sscan(f[11], &user); err != nil {
		return 0, false
	}
	if _, err := fmt.Sscan(f[12], &sys); err != nil {
		return 0, false
	}
	return time.Duration(user+sys) * 10 * time.Millisecond, true
}

// loadCopy copies the database at src to dst.
func loadCopy(b *testing.B, src, dst string) {
	b.Helper()
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}

// loadReportBacklog reports the episodes captured and not yet extracted.
func loadReportBacklog(b *testing.B, t *loadTarget) {
	sizes, err := t.eng.ExtractionBacklogs(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(sizes[loadNamespace]), "episodes_backlog")
}
