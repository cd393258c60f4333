package mcpserver

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/engine"
)

// TestStdioMatchesSDKWire sends the same lines to a server on
// StdioTransport (results written once, responses written by its own
// connection) and to one whose results and responses the SDK encodes, on
// the SDK's IOTransport, and compares the answers byte for byte,
// generated ids aside.
func TestStdioMatchesSDKWire(t *testing.T) {
	eng := testEngine(t)
	ctx := context.Background()
	for _, text := range []string{"We run PostgreSQL 16 for the billing service.", "Deploys <always> go out on Tuesdays & Thursdays.", "I prefer short answers."} {
		if _, err := eng.Remember(ctx, engine.RememberParams{Namespace: "team", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	ours := serveLines(t, eng, false)
	sdk := serveLines(t, eng, true)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":"two <&>","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recall","arguments":{"query":"deploys","limit":10,"token_budget":4000}}}`,
		`{"jsonrpc":"2.0","id":"5","method":"tools/call","params":{"name":"recall","arguments":{"query":"what database?","limit":2}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_facts","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"history","arguments":{"id":"mem_nothing"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"recall","arguments":{"query":7}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"respond","arguments":{"query":"what do we run?"}}}`,
	} {
		got, want := ours(line), sdk(line)
		if strings.Contains(line, `"recall","arguments":{"query":"deploys"`) && !strings.Contains(got, `"structuredContent":{"retrieval_id":"ret_X"`) {
			t.Errorf("recall: %s", got)
		}
		if got != want {
			t.Errorf("%.60s:\nours %s\nsdk  %s", line, got, want)
		}
		if !strings.Contains(got, `"result":`) && !strings.Contains(got, `"error":`) {
			t.Errorf("%.60s: no answer: %s", line, got)
		}
		if strings.Contains(line, `"initialize"`) {
			ours(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			sdk(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
	}
}

// serveLines serves a server of eng on pipes and returns a function that
// writes one line and returns the next answer, generated ids masked (for
// a notification, which gets none: ""). viaSDK leaves the encoding of
// results to the SDK and serves on the SDK's IOTransport.
func serveLines(t *testing.T, eng *engine.Engine, viaSDK bool) func(string) string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	encodeViaSDK = viaSDK
	srv := New(eng, Binding{Namespace: "team", CanWrite: true}, Options{})
	encodeViaSDK = false
	var tr mcp.Transport = &mcp.IOTransport{Reader: inR, Writer: outW}
	if !viaSDK {
		tr = StdioTransport(inR, outW) // not made for the other arm: it may start reading inR
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, tr) }()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
		outR.Close()
	})
	replies := bufio.NewReaderSize(outR, 1<<20)
	return func(line string) string {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(line, `"id"`) {
			return ""
		}
		reply, err := replies.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return ids.ReplaceAllString(reply, "${1}_X")
	}
}
