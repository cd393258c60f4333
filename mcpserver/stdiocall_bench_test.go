package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/engine/enginetest"
)

// BenchmarkToolCallStdio measures what a recall call, and a remember of
// a new note, cost over stdio, request line to answer line, with the
// results and responses written once (ours: StdioTransport) and written
// by the SDK (sdk: encodeViaSDK on the SDK's IOTransport, without the line
// filter `mnemon mcp` had in front of it, so the difference understates
// what the stdio path saved). Each arm serves an engine of its own, of
// the same 1,000 notes; a recall op is the same ten queries, a remember
// op ten new notes. Run it several times (-count 1) to interleave arms:
//
//	go test ./mcpserver -run '^$' -bench ToolCallStdio -benchtime 100x
func BenchmarkToolCallStdio(b *testing.B) {
	ctx := context.Background()
	words := strings.Fields("ledger shard replica quota pager lease vault bucket gateway rollout invoice tenant")
	notes := 0
	for _, bench := range []string{"recall/sdk", "recall/ours", "remember/sdk", "remember/ours"} {
		tool, arm, _ := strings.Cut(bench, "/")
		b.Run(bench, func(b *testing.B) {
			eng := enginetest.Temp(b)
			ps := make([]engine.RememberParams, 1000)
			for i := range ps {
				ps[i] = engine.RememberParams{Namespace: "team", Text: fmt.Sprintf("note %d: the %s sits behind the %s since the %s review",
					i, words[i%len(words)], words[(i/3)%len(words)], words[(i/7)%len(words)])}
			}
			if _, err := eng.RememberBatch(ctx, ps); err != nil {
				b.Fatal(err)
			}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			encodeViaSDK = arm == "sdk"
			srv := New(eng, Binding{Namespace: "team", CanWrite: true}, Options{})
			encodeViaSDK = false
			var tr mcp.Transport = &mcp.IOTransport{Reader: inR, Writer: outW}
			if arm == "ours" {
				tr = StdioTransport(inR, outW)
			}
			sctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- srv.Run(sctx, tr) }()
			defer func() {
				inW.Close()
				cancel()
				<-done
				outR.Close()
			}()
			replies := bufio.NewReaderSize(outR, 1<<20)
			send := func(line string, answered bool) {
				if _, err := io.WriteString(inW, line+"\n"); err != nil {
					b.Fatal(err)
				}
				if answered {
					if _, err := replies.ReadSlice('\n'); err != nil {
						b.Fatal(err)
					}
				}
			}
			send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"0"}}}`, true)
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false)
			lines := make([]string, len(words)-2)
			for i := range lines {
				lines[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"recall","arguments":{"query":"%s %s","limit":10,"token_budget":4000}}}`, i+1, words[i], words[i+2])
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for i, l := range lines {
					if tool == "remember" {
						notes++
						l = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"remember","arguments":{"text":"the %s moved to rack %d after the %s drill"}}}`,
							i+1, words[i], notes, words[i+1])
					}
					send(l, true)
				}
			}
		})
	}
}
