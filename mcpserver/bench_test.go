package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/testutil"
	"github.com/mnemon-dev/mnemon/mcpserver"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// BenchmarkRecallStdio measures one recall tool call over the stdio
// transport `mnemon mcp` uses (newline-delimited JSON-RPC on pipes), from
// writing the request line to reading the whole answer, against the same
// retrieval made in process: mcp_cpu_us - engine_cpu_us is what MCP adds
// (decoding and checking the arguments, encoding the structured result and
// its text, the transport). One op is one query of each kind.
//
// With MNEMON_PEERS_WORKLOAD naming the peers workload directory (see
// ../shared/peers) it stores its 10,000 notes and runs its queries;
// otherwise 2,000 generated notes and queries of their words.
//
//	MNEMON_PEERS_WORKLOAD=/tmp/peers go test ./mcpserver -run '^$' -bench RecallStdio -benchtime 2000x
func BenchmarkRecallStdio(b *testing.B) {
	ctx := context.Background()
	notes, queries := benchCorpus(b)
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "m.db"), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		eng.Close()
		st.Close()
	})
	for batch := range slices.Chunk(notes, 500) {
		ps := make([]engine.RememberParams, len(batch))
		for i, n := range batch {
			ps[i] = engine.RememberParams{Namespace: "bench", Text: n}
		}
		if _, err := eng.RememberBatch(ctx, ps); err != nil {
			b.Fatal(err)
		}
	}

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := mcpserver.New(eng, mcpserver.Binding{Namespace: "bench"}, mcpserver.Options{})
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(sctx, mcpserver.StdioTransport(inR, outW)) }()
	b.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
	})
	replies := bufio.NewReaderSize(outR, 1<<20)
	id := 0
	call := func(method string, params any) []byte {
		id++
		msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := inW.Write(append(msg, '\n')); err != nil {
			b.Fatal(err)
		}
		line, err := replies.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		return line
	}
	call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "0"}})
	if _, err := inW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		b.Fatal(err)
	}
	recall := func(q string) []byte {
		line := call("tools/call", map[string]any{"name": "recall",
			"arguments": map[string]any{"query": q, "limit": 10, "token_budget": 4000}})
		if !strings.Contains(string(line), `"structuredContent"`) {
			b.Fatalf("recall %q: %s", q, line)
		}
		return line
	}
	for _, q := range queries { // warm both paths
		recall(q)
	}

	// The two paths run in separate loops, so that each one's CPU time
	// (every goroutine's: the server's, the transport's, the trace
	// writer's) can be read from the process's.
	var lat [2][]time.Duration
	var cpu [2]time.Duration
	paths := [2]func(q string){
		func(q string) { recall(q) },
		func(q string) {
			if _, err := eng.Retrieve(ctx, engine.RetrieveParams{Namespace: "bench", Query: q, Limit: 10, TokenBudget: 4000}); err != nil {
				b.Fatal(err)
			}
		},
	}
	b.ReportAllocs()
	b.ResetTimer()
	for p, run := range paths {
		c := testutil.ProcessCPU()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			run(queries[i%len(queries)])
			lat[p] = append(lat[p], time.Since(start))
		}
		eng.FlushTraces()
		cpu[p] = testutil.ProcessCPU() - c
	}
	b.StopTimer()
	for p, name := range []string{"mcp", "engine"} {
		slices.Sort(lat[p])
		b.ReportMetric(float64(lat[p][len(lat[p])/2].Microseconds()), name+"_p50_us")
		b.ReportMetric(float64(cpu[p].Microseconds())/float64(b.N), name+"_cpu_us")
	}
}

// benchCorpus returns the notes and queries of the peers workload when
// MNEMON_PEERS_WORKLOAD names it, else generated ones.
func benchCorpus(b *testing.B) (notes, queries []string) {
	if dir := os.Getenv("MNEMON_PEERS_WORKLOAD"); dir != "" {
		for _, n := range testutil.ReadPeersJSONL[struct{ Title, Text string }](b, filepath.Join(dir, "memories_10000.jsonl")) {
			notes = append(notes, n.Title+": "+n.Text)
		}
		for _, q := range testutil.ReadPeersJSONL[struct{ Q string }](b, filepath.Join(dir, "queries_200.jsonl")) {
			queries = append(queries, q.Q)
		}
		return notes, queries
	}
	words := strings.Fields("cache queue replica index shard backup deploy rollout token session " +
		"schema migration latency budget alert pager runbook quota bucket ledger invoice tenant " +
		"cluster gateway proxy certificate secret vault lease lock retry timeout")
	r := rand.New(rand.NewPCG(7, 11))
	pick := func() string { return words[r.IntN(len(words))] }
	for i := range 2000 {
		notes = append(notes, fmt.Sprintf("note %d: the %s %s moved behind the %s after the %s review", i, pick(), pick(), pick(), pick()))
	}
	for range 200 {
		queries = append(queries, pick()+" "+pick())
	}
	return notes, queries
}
