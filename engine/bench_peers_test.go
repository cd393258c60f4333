package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/internal/testutil"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// The peers workload (../shared/peers, gen_workload.py): short engineering
// notes, each stored with one Remember of its title and sentence and no key,
// as the load driver stores them over HTTP, then one- and two-word queries.
// It is generated, not kept in the repository: point MNEMON_PEERS_WORKLOAD at
// the directory gen_workload.py wrote (PEERS_WORKLOAD_DIR), with
// memories_100000.jsonl there for the 100k benchmark (--n 100000).
//
//	MNEMON_PEERS_WORKLOAD=/tmp/peers go test ./engine -run '^$' -bench RetrievePeersWorkload10k -benchtime 1x
//
// One op is the workload's 200 queries, each retrieved with the driver's
// defaults (limit 10, token budget 4000). The percentiles are per
// retrieval; structured_% is the structured channel's share of the
// retrievals' wall time, cpu_us the process's CPU time per retrieval
// (every goroutine's, the trace writer's included: on a shared machine the
// figure that measures the work rather than the neighbours' load),
// semantic_us the semantic channel's mean wall time
// per retrieval; hit@10 counts the queries whose source note's text
// is in the first 10 items (the driver's sanity check, not a quality score).

type peersNote struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

type peersQuery struct {
	Q        string `json:"q"`
	Kind     string `json:"kind"`
	SourceID int    `json:"source_id"`
}

func BenchmarkRetrievePeersWorkload10k(b *testing.B)  { benchPeers(b, 10_000) }
func BenchmarkRetrievePeersWorkload100k(b *testing.B) { benchPeers(b, 100_000) }

func benchPeers(b *testing.B, n int) {
	dir := os.Getenv("MNEMON_PEERS_WORKLOAD")
	if dir == "" {
		b.Skip("MNEMON_PEERS_WORKLOAD names no directory (see bench_peers_test.go)")
	}
	notes := testutil.ReadPeersJSONL[peersNote](b, filepath.Join(dir, fmt.Sprintf("memories_%d.jsonl", n)))
	queries := testutil.ReadPeersJSONL[peersQuery](b, filepath.Join(dir, "queries_200.jsonl"))
	if len(notes) < n {
		b.Fatalf("%d notes in the workload, want %d", len(notes), n)
	}
	ctx := context.Background()
	path := seedPeers(b, notes[:n])
	st, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(engine.Config{Store: st, Clock: clock.NewManual(t0.Add(time.Duration(n) * time.Second))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		e.Close()
		st.Close()
	})
	retrieve := func(q string) *engine.Result {
		res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "bench", Query: q, TokenBudget: 4000})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	// Warm the stem cache and the index as a running server would be, and
	// check the answers once: timing a ranking that lost the notes would
	// measure nothing.
	hits, pairHits, sources := 0, 0, 0
	for _, q := range queries {
		res := retrieve(q.Q)
		if q.Kind == "miss" {
			continue
		}
		sources++
		want := strings.ToLower(notes[q.SourceID].Text)
		top := res.Items[:min(10, len(res.Items))]
		if slices.ContainsFunc(top, func(it engine.Item) bool { return strings.Contains(strings.ToLower(it.Content), want) }) {
			hits++
			if q.Kind == "pair" {
				pairHits++
			}
		}
	}
	lat := make([]time.Duration, 0, b.N*len(queries))
	var total, structured, semantic time.Duration
	si := slices.Index(engine.Channels, engine.ChannelStructured)
	vi := slices.Index(engine.Channels, engine.ChannelSemantic)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		for _, q := range queries {
			start := time.Now()
			res := retrieve(q.Q)
			lat = append(lat, time.Since(start))
			total += res.Duration
			structured += res.ChannelDurations[si]
			semantic += res.ChannelDurations[vi]
		}
	}
	e.FlushTraces()
	cpu = processCPU() - cpu
	b.StopTimer()
	reportPercentiles(b, lat)
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(lat)), "cpu_us")
	b.ReportMetric(float64(structured.Microseconds())/float64(len(lat)), "structured_us")
	b.ReportMetric(100*float64(structured)/float64(total), "structured_%")
	b.ReportMetric(float64(semantic.Microseconds())/float64(len(lat)), "semantic_us")
	b.ReportMetric(float64(hits)/float64(sources), "hit@10")
	b.ReportMetric(float64(pairHits), "pair_hits")
}

// seedPeers stores each note with one Remember, as the driver does, into a
// fresh file. With MNEMON_BENCH_SEEDS set, the seeded file is kept there and
// copied on later runs, as seedCached does for the other corpora.
func seedPeers(b *testing.B, notes []peersNote) string {
	b.Helper()
	dir := os.Getenv("MNEMON_BENCH_SEEDS")
	kept := filepath.Join(dir, fmt.Sprintf("peers_%d.db", len(notes)))
	path := filepath.Join(b.TempDir(), "peers.db")
	if dir != "" {
		if _, err := os.Stat(kept); err == nil {
			copyFile(b, kept, path)
			return path
		}
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(engine.Config{Store: st, Clock: clock.NewManual(t0.Add(time.Duration(len(notes)) * time.Second))})
	if err != nil {
		b.Fatal(err)
	}
	for i, m := range notes {
		p := engine.RememberParams{Namespace: "bench", Text: m.Title + ": " + m.Text, ObservedAt: t0.Add(time.Duration(i) * time.Second)}
		if _, err := e.Remember(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	e.Close()
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		copyFile(b, path, kept+".tmp")
		if err := os.Rename(kept+".tmp", kept); err != nil {
			b.Fatal(err)
		}
	}
	return path
}

// BenchmarkRememberPeersDurable stores the peers workload's notes one per
// Remember, each its own transaction with synchronous=FULL (an fsync per
// acknowledged write), into a fresh store: what the driver's 10,000 stores
// cost without HTTP. One op is one remember (past the workload's end the
// notes repeat with a counter appended, so no text is stored twice).
// cpu_us is the process's CPU per remember (every goroutine's), steadier
// on a shared machine than the wall time; writes and write_KB are the
// process's write calls and bytes written per remember (Linux's
// /proc/self/io: the WAL frames a commit appends, two calls each, and the
// checkpoints' copies).
//
//	MNEMON_PEERS_WORKLOAD=/tmp/peers go test ./engine -run '^$' -bench RememberPeersDurable -benchtime 3000x
func BenchmarkRememberPeersDurable(b *testing.B) {
	dir := os.Getenv("MNEMON_PEERS_WORKLOAD")
	if dir == "" {
		b.Skip("MNEMON_PEERS_WORKLOAD names no directory (see bench_peers_test.go)")
	}
	notes := testutil.ReadPeersJSONL[peersNote](b, filepath.Join(dir, "memories_10000.jsonl"))
	ctx := context.Background()
	e := durableEngine(b)
	b.ReportAllocs()
	b.ResetTimer()
	calls, written := processWrites()
	start, cpu := time.Now(), processCPU()
	for i := 0; i < b.N; i++ {
		m := notes[i%len(notes)]
		text := m.Title + ": " + m.Text
		if i >= len(notes) {
			text += fmt.Sprintf(" (%d)", i/len(notes))
		}
		if _, err := e.Remember(ctx, engine.RememberParams{Namespace: "bench", Text: text}); err != nil {
			b.Fatal(err)
		}
	}
	cpu = processCPU() - cpu
	calls2, written2 := processWrites()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "remembers/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu_us")
	b.ReportMetric(float64(calls2-calls)/float64(b.N), "writes")
	b.ReportMetric(float64(written2-written)/1024/float64(b.N), "write_KB")
}

// processWrites reads the process's write calls and bytes written so far
// from /proc/self/io (Linux); zero where there is none.
func processWrites() (calls, bytes int64) {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		name, val, _ := strings.Cut(line, ": ")
		n, _ := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		switch name {
		case "syscw":
			calls = n
		case "wchar":
			bytes = n
		}
	}
	return calls, bytes
}

// BenchmarkRetrievePeersDump writes what the peers workload's 200 queries
// retrieve (at limits 10 and 3: items, context, tokens, candidates, one
// JSON line a retrieval) and then every retrieval's trace items, read back
// by id once written, to the file MNEMON_PEERS_DUMP names. Two builds'
// files compare byte for byte when a change keeps every result (ids are
// the store's, seeded once into MNEMON_BENCH_SEEDS, so both runs read the
// same notes):
//
//	MNEMON_PEERS_WORKLOAD=/tmp/peers MNEMON_BENCH_SEEDS=/tmp/pseeds MNEMON_PEERS_DUMP=/tmp/a.json \
//	  go test ./engine -run '^$' -bench RetrievePeersDump -benchtime 1x
func BenchmarkRetrievePeersDump(b *testing.B) {
	dir, out := os.Getenv("MNEMON_PEERS_WORKLOAD"), os.Getenv("MNEMON_PEERS_DUMP")
	if dir == "" || out == "" {
		b.Skip("MNEMON_PEERS_WORKLOAD or MNEMON_PEERS_DUMP names nothing (see bench_peers_test.go)")
	}
	notes := testutil.ReadPeersJSONL[peersNote](b, filepath.Join(dir, "memories_10000.jsonl"))
	queries := testutil.ReadPeersJSONL[peersQuery](b, filepath.Join(dir, "queries_200.jsonl"))
	if len(notes) < 10_000 {
		b.Fatalf("%d notes in the workload, want 10000", len(notes))
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, seedPeers(b, notes[:10_000]), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	e, err := engine.New(engine.Config{Store: st, Clock: clock.NewManual(t0.Add(10_000 * time.Second))})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	f, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	var ids []string
	for range b.N {
		ids = ids[:0]
		for _, q := range queries {
			for _, limit := range []int{10, 3} {
				res, err := e.Retrieve(ctx, engine.RetrieveParams{Namespace: "bench", Query: q.Q, TokenBudget: 4000, Limit: limit})
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, res.RetrievalID)
				if err := enc.Encode(map[string]any{"q": q.Q, "limit": limit, "items": res.Items, "context": res.Context, "tokens": res.TokensUsed, "candidates": res.Candidates}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	e.FlushTraces()
	for _, id := range ids {
		tr, err := e.Trace(ctx, "bench", id)
		if err != nil {
			b.Fatal(err)
		}
		if err := enc.Encode(tr.Items); err != nil {
			b.Fatal(err)
		}
	}
}
