// Package scale measures how mnemon behaves as memory grows: ingest
// throughput, retrieval latency, storage and resident memory at growing
// numbers of memories in one namespace, and latency and storage as a user's
// sessions accumulate (with and without consolidation).
package scale

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"time"

	"github.com/mnemon-dev/mnemon/bench"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search/searchtest"
)

// Opener opens an engine over a fresh SQLite file at path with cfg (the
// bench sets its clock and consolidation settings; the opener adds the
// store); close releases the engine and its store.
type Opener func(ctx context.Context, path string, cfg engine.Config) (eng *engine.Engine, close func() error, err error)

// Options configure a run. Zero values take the defaults noted.
type Options struct {
	Sizes    []int // memories in one namespace, ascending; none: skip
	Sessions []int // session counts, ascending; none: skip
	Turns    int   // turns per session; default 20
	Queries  int   // timed retrievals per point; default 500
	Seed     uint64
	Batch    int    // statements per RememberBatch; default 1000
	Runs     int    // whole runs, reported as per-point medians; default 1
	Dir      string // where the databases go (required)
	Open     Opener // required
	// DataBytes measures what the database at path holds (pages in use;
	// see Resources.DataBytes); nil leaves it unmeasured.
	DataBytes func(ctx context.Context, path string) (int64, error)
	// TraceBytes measures how much of that the retrieval traces take;
	// nil leaves it unmeasured.
	TraceBytes func(ctx context.Context, path string) (int64, error)
	Progress   io.Writer // nil: no progress
}

// Latency is a retrieval latency distribution in milliseconds.
type Latency struct {
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	P99 float64 `json:"p99_ms"`
}

// Resources is what a point costs on disk and in memory.
type Resources struct {
	DBBytes  int64 `json:"db_bytes"`
	WALBytes int64 `json:"wal_bytes"`
	// DataBytes is what the database holds: its pages in use, read
	// through the WAL (0: not measured). The files' sizes are high-water
	// marks: the WAL's until the checkpointer empties it, the database's
	// because pages freed by purges are reused, never returned.
	DataBytes int64 `json:"data_bytes,omitempty"`
	// TraceBytes is the part of DataBytes that retrieval traces take:
	// mostly the bench's own timed retrievals, kept for the access
	// horizon (a year), so they follow how often and how long the bench
	// has measured, not what the memory holds (0: not measured).
	TraceBytes int64 `json:"trace_bytes,omitempty"`
	// RSSBytes is the process's resident set now (VmRSS); RSSPeakBytes its
	// peak so far (VmHWM), which only grows, so a point's peak may be an
	// earlier, larger phase's. Both read /proc/self/status: 0 elsewhere.
	RSSBytes     int64 `json:"rss_bytes"`
	RSSPeakBytes int64 `json:"rss_peak_bytes"`
	// HeapLiveBytes is the Go heap marked live by the last GC
	// (runtime/metrics /gc/heap/live:bytes): the engine's index, mostly.
	HeapLiveBytes int64 `json:"heap_live_bytes"`
}

// StorageBytes is the database file plus its write-ahead log.
func (r Resources) StorageBytes() int64 { return r.DBBytes + r.WALBytes }

// HeldBytes is what the storage target judges: the data the database
// holds without the retrieval traces when measured, else its files.
func (r Resources) HeldBytes() int64 {
	if r.DataBytes > 0 {
		return r.DataBytes - r.TraceBytes
	}
	return r.StorageBytes()
}

// SizePoint is one size of the one-namespace arm.
type SizePoint struct {
	Memories   int `json:"memories"`   // memory items asked for
	Indexed    int `json:"indexed"`    // memory items in the index after ingest
	Statements int `json:"statements"` // statements ingested to get here, in all
	// Ingest rates are over this point's own segment (from the previous
	// size to this one), so they show how writes slow as the store grows.
	IngestSeconds       float64 `json:"ingest_seconds"`
	StatementsPerSecond float64 `json:"statements_per_second"`
	MemoriesPerSecond   float64 `json:"memories_per_second"`
	Retrieve            Latency `json:"retrieve"`
	Resources
}

// SessionPoint is one session count of a sessions arm.
type SessionPoint struct {
	Sessions       int     `json:"sessions"`
	Turns          int     `json:"turns"` // captured in all
	Episodes       int     `json:"episodes"`
	Memories       int     `json:"memories"`
	CaptureSeconds float64 `json:"capture_seconds"` // this point's segment
	TurnsPerSecond float64 `json:"turns_per_second"`
	Retrieve       Latency `json:"retrieve"`
	Resources
}

// SessionArm is the sessions curve under one consolidation setting.
type SessionArm struct {
	Name      string         `json:"name"`
	Available bool           `json:"available"`
	Note      string         `json:"note,omitempty"`
	Points    []SessionPoint `json:"points,omitempty"`
}

// Target is one stated goal and how this run fared against it.
type Target struct {
	Goal     string `json:"goal"`
	Measured string `json:"measured"`
	Status   string `json:"status"` // met, missed, not measured, not available
}

// Report is a run's result.
type Report struct {
	Seed      uint64       `json:"seed"`
	Queries   int          `json:"queries"`
	Turns     int          `json:"turns_per_session"`
	Batch     int          `json:"batch"`
	Runs      int          `json:"runs"` // points are medians over this many runs
	Sizes     []SizePoint  `json:"sizes,omitempty"`
	Sessions  []SessionArm `json:"sessions,omitempty"`
	Targets   []Target     `json:"targets"`
	RSSSource string       `json:"rss_source"`
}

// sessionArm is one consolidation setting. consolidate runs after every
// session; nil with a note means the arm cannot run.
type sessionArm struct {
	name        string
	consolidate func(ctx context.Context, eng *engine.Engine, ns string) error
	settings    engine.Consolidation
	unavailable string
}

func sessionArms() []sessionArm {
	return []sessionArm{
		{name: "without consolidation"},
		// Sessions a day apart arrive here within seconds of wall time,
		// so the purge window (30 days after an episode is forgotten, by
		// the clock) is shortened to nothing: a forgotten episode is
		// purged by the next run. Everything else is the default.
		{name: "with consolidation", consolidate: consolidateDue, settings: engine.Consolidation{PurgeAfter: time.Nanosecond}},
	}
}

// consolidateDue runs the periodic maintenance (lifecycle, dedupe,
// consolidation, procedures, compaction) until consolidation has nothing
// left: the sessions quiet for 7 days are summarised, the summarised
// episodes past their retention forgotten, those forgotten 30 days ago
// purged, and change log entries older than a day pruned.
func consolidateDue(ctx context.Context, eng *engine.Engine, ns string) error {
	for {
		rep, err := eng.Maintain(ctx, ns)
		if err != nil {
			return err
		}
		if rep.Consolidation == nil || !rep.Consolidation.More {
			return nil
		}
	}
}

const namespace = "scale"

// sessionsStart is when the first generated session begins: fixed, so a
// seed gives the same conversations, times included.
var sessionsStart = time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)

// Run measures every configured point.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Open == nil || o.Dir == "" {
		return nil, fmt.Errorf("scale: Open and Dir are required")
	}
	if o.Turns <= 0 {
		o.Turns = 20
	}
	if o.Queries <= 0 {
		o.Queries = 500
	}
	if o.Batch <= 0 {
		o.Batch = 1000
	}
	o.Runs = max(1, o.Runs)
	var runs []*Report
	for i := range o.Runs {
		ro := o
		ro.Dir = filepath.Join(o.Dir, "run-"+strconv.Itoa(i+1))
		if err := os.MkdirAll(ro.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("scale: %w", err)
		}
		r, err := runOnce(ctx, ro)
		if err != nil {
			return nil, err
		}
		// Each run's databases go once it is measured: 1M memories take
		// gigabytes.
		_ = os.RemoveAll(ro.Dir)
		runs = append(runs, r)
	}
	rep := medianOf(runs)
	rep.Runs = o.Runs
	rep.ScoreTargets()
	return rep, nil
}

func runOnce(ctx context.Context, o Options) (*Report, error) {
	rep := &Report{Seed: o.Seed, Queries: o.Queries, Turns: o.Turns, Batch: o.Batch,
		RSSSource: "/proc/self/status VmRSS (now) and VmHWM (peak); Go heap from runtime/metrics /gc/heap/live:bytes"}
	if len(o.Sizes) > 0 {
		pts, err := runSizes(ctx, o)
		if err != nil {
			return nil, err
		}
		rep.Sizes = pts
	}
	if len(o.Sessions) > 0 {
		for _, a := range sessionArms() {
			arm := SessionArm{Name: a.name, Available: a.unavailable == "", Note: a.unavailable}
			if arm.Available {
				pts, err := runSessions(ctx, o, a)
				if err != nil {
					return nil, err
				}
				arm.Points = pts
			}
			rep.Sessions = append(rep.Sessions, arm)
		}
	}
	return rep, nil
}

// runSizes grows one namespace through every size in turn, measuring at
// each: one store serves all sizes, as a server's store grows.
// Statements are keyed, so each is stored as exactly one fact (extraction
// skipped) and adds two memory items: the fact and its episode, as in the
// engine's and the HTTP API's benchmarks.
func runSizes(ctx context.Context, o Options) ([]SizePoint, error) {
	path := filepath.Join(o.Dir, "sizes.db")
	eng, closeEng, err := o.Open(ctx, path, engine.Config{})
	if err != nil {
		return nil, fmt.Errorf("scale: %w", err)
	}
	defer closeEng()
	g := searchtest.NewGenerator(o.Seed)
	queries := Queries(o.Seed, o.Queries)
	total := o.Sizes[len(o.Sizes)-1] / 2
	first := time.Now().UTC().Add(-time.Duration(total+60) * time.Minute)
	var out []SizePoint
	done, indexed := 0, 0
	for _, size := range o.Sizes {
		want := size / 2
		progress := bench.NewProgress(o.Progress, fmt.Sprintf("ingest to %s", human(size)), want-done)
		var spent time.Duration
		for done < want {
			// A fresh slice per call: the engine may keep what it is given.
			ps := make([]engine.RememberParams, 0, o.Batch)
			for j := done; j < want && len(ps) < o.Batch; j++ {
				ps = append(ps, engine.RememberParams{
					Namespace: namespace, Text: g.Sentence(), Key: "seed:" + strconv.Itoa(j),
					ObservedAt: first.Add(time.Duration(j) * time.Minute),
				})
			}
			began := time.Now()
			if _, err := eng.RememberBatch(ctx, ps); err != nil {
				return nil, fmt.Errorf("scale: ingest at %d: %w", done, err)
			}
			spent += time.Since(began)
			done += len(ps)
			progress.Add(len(ps))
		}
		progress.Done()
		st, err := eng.Stats(ctx, namespace)
		if err != nil {
			return nil, fmt.Errorf("scale: %w", err)
		}
		p := SizePoint{Memories: size, Indexed: st.Indexed, Statements: done, IngestSeconds: spent.Seconds()}
		if secs := spent.Seconds(); secs > 0 {
			p.StatementsPerSecond = float64(done-prevStatements(out)) / secs
			p.MemoriesPerSecond = float64(st.Indexed-indexed) / secs
		}
		indexed = st.Indexed
		if p.Retrieve, err = retrieve(ctx, eng, queries, o.Progress, fmt.Sprintf("retrieve at %s", human(size))); err != nil {
			return nil, err
		}
		if p.Resources, err = o.resources(ctx, path); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func prevStatements(out []SizePoint) int {
	if len(out) == 0 {
		return 0
	}
	return out[len(out)-1].Statements
}

// runSessions captures one user's sessions into one namespace, turn by
// turn through the capture path with extraction, measuring at each
// session count.
func runSessions(ctx context.Context, o Options, a sessionArm) ([]SessionPoint, error) {
	path := filepath.Join(o.Dir, "sessions-"+slug(a.name)+".db")
	// The engine's clock follows the conversation: each session is
	// captured, consolidated and queried a minute after its last turn, as
	// if the user had come back every day for n days. (On the wall clock
	// every session but the last few would be years old at once, and
	// retention, which counts days, would forget them all.)
	start := sessionsStart
	clk := clock.NewManual(start)
	eng, closeEng, err := o.Open(ctx, path, engine.Config{Clock: clk, Consolidation: a.settings})
	if err != nil {
		return nil, fmt.Errorf("scale: %w", err)
	}
	defer closeEng()
	conv := NewConversations(o.Seed, o.Turns, start)
	queries := Queries(o.Seed+1, o.Queries)
	var out []SessionPoint
	done, turns := 0, 0
	for _, n := range o.Sessions {
		progress := bench.NewProgress(o.Progress, fmt.Sprintf("capture %d sessions", n), (n-done)*o.Turns)
		var spent time.Duration
		segTurns := 0
		for ; done < n; done++ {
			s := conv.Next()
			evs := make([]engine.Event, len(s.Turns))
			for i, t := range s.Turns {
				kind := memory.EpisodeUserMessage
				if t.Speaker != "user" {
					kind = memory.EpisodeAgentMessage
				}
				evs[i] = engine.Event{Kind: kind, Content: t.Text, OccurredAt: t.At, Speaker: t.Speaker,
					Metadata: map[string]string{"session": s.ID}}
			}
			clk.Set(s.Turns[len(s.Turns)-1].At.Add(time.Minute))
			began := time.Now()
			// Captured with their session, as the API requires: consolidation
			// works per session.
			if _, err := eng.Capture(ctx, engine.CaptureParams{Namespace: namespace, Scope: memory.Scope{SessionID: s.ID}, Events: evs}); err != nil {
				return nil, fmt.Errorf("scale: capture %s: %w", s.ID, err)
			}
			if a.consolidate != nil {
				if err := a.consolidate(ctx, eng, namespace); err != nil {
					return nil, fmt.Errorf("scale: consolidate after %s: %w", s.ID, err)
				}
			}
			spent += time.Since(began)
			segTurns += len(evs)
			progress.Add(len(evs))
		}
		progress.Done()
		turns += segTurns
		st, err := eng.Stats(ctx, namespace)
		if err != nil {
			return nil, fmt.Errorf("scale: %w", err)
		}
		p := SessionPoint{Sessions: n, Turns: turns, Episodes: st.Episodes, Memories: st.Indexed, CaptureSeconds: spent.Seconds()}
		if spent > 0 {
			p.TurnsPerSecond = float64(segTurns) / spent.Seconds()
		}
		if p.Retrieve, err = retrieve(ctx, eng, queries, o.Progress, fmt.Sprintf("retrieve at %d sessions", n)); err != nil {
			return nil, err
		}
		if p.Resources, err = o.resources(ctx, path); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// retrieve times every query once, after a warm-up of a tenth of them
// (stem caches and the index's lazily built parts, as a running server
// would have them).
func retrieve(ctx context.Context, eng *engine.Engine, queries []string, w io.Writer, phase string) (Latency, error) {
	for _, q := range queries[:max(1, len(queries)/10)] {
		if _, err := eng.Retrieve(ctx, engine.RetrieveParams{Namespace: namespace, Query: q}); err != nil {
			return Latency{}, fmt.Errorf("scale: retrieve %q: %w", q, err)
		}
	}
	progress := bench.NewProgress(w, phase, len(queries))
	lat := make([]time.Duration, 0, len(queries))
	for _, q := range queries {
		began := time.Now()
		if _, err := eng.Retrieve(ctx, engine.RetrieveParams{Namespace: namespace, Query: q, TokenBudget: 1000}); err != nil {
			return Latency{}, fmt.Errorf("scale: retrieve %q: %w", q, err)
		}
		lat = append(lat, time.Since(began))
		progress.Add(1)
	}
	progress.Done()
	eng.FlushTraces()
	ms := bench.Millis(lat)
	return Latency{P50: bench.Percentile(ms, 50), P95: bench.Percentile(ms, 95), P99: bench.Percentile(ms, 99)}, nil
}

func (o Options) resources(ctx context.Context, path string) (Resources, error) {
	r := resources(path)
	if o.DataBytes != nil {
		n, err := o.DataBytes(ctx, path)
		if err != nil {
			return r, fmt.Errorf("scale: %w", err)
		}
		r.DataBytes = n
	}
	if o.TraceBytes != nil {
		n, err := o.TraceBytes(ctx, path)
		if err != nil {
			return r, fmt.Errorf("scale: %w", err)
		}
		r.TraceBytes = n
	}
	return r, nil
}

func resources(path string) Resources {
	var r Resources
	if fi, err := os.Stat(path); err == nil {
		r.DBBytes = fi.Size()
	}
	if fi, err := os.Stat(path + "-wal"); err == nil {
		r.WALBytes = fi.Size()
	}
	r.RSSBytes, r.RSSPeakBytes = procRSS()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		r.HeapLiveBytes = int64(s[0].Value.Uint64())
	}
	return r
}

// procRSS reads VmRSS and VmHWM from /proc/self/status; zeros where there
// is no such file.
func procRSS() (now, peak int64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var key string
		var kb int64
		if _, err := fmt.Sscanf(sc.Text(), "%s %d kB", &key, &kb); err != nil {
			continue
		}
		switch key {
		case "VmRSS:":
			now = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return now, peak
}

func slug(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == ' ' {
			b[i] = '-'
		}
	}
	return string(b)
}

// human writes 1000 as 1k and 1000000 as 1M.
func human(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}
