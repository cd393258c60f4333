package mcpserver

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A result written once has the bytes the SDK writes for it, escapes
// included; a result of another shape is left to the SDK.
func TestEncodedResultMatchesSDK(t *testing.T) {
	withErr := &mcp.CallToolResult{}
	withErr.SetError(errors.New(`invalid_request: the tool takes no "tenant" <argument> & stops`))
	cases := []struct {
		name    string
		res     *mcp.CallToolResult
		written bool
	}{
		{"structured", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ADD mem_1: I moved to Lisbon"}},
			StructuredContent: json.RawMessage(`{"episode_id":"ep_1","outcomes":[{"decision":"accept","reasons":[],"content":"a \u003cb\u003e \u0026 c"}]}`)}, true},
		{"escapes in the text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a <b> & \"c\"\n\t\u2028 \xff end"}},
			StructuredContent: json.RawMessage(`{}`)}, true},
		{"empty text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{}}, StructuredContent: json.RawMessage(`[]`)}, true},
		{"no structured result", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "plain"}}}, true},
		{"tool error", withErr, true},
		{"meta", &mcp.CallToolResult{Meta: mcp.Meta{"k": "v"}, Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}, false},
		{"two contents", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}, &mcp.TextContent{Text: "y"}}}, false},
		{"no content", &mcp.CallToolResult{Content: []mcp.Content{}}, false},
		{"annotated text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: 1}}}}, false},
		{"structured as a map", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: map[string]any{"a": 1}}, false},
		{"request state", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, RequestState: "s"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, ok := encodeToolResult(c.res)
			if ok != c.written {
				t.Fatalf("written once: %v, want %v", ok, c.written)
			}
			if !ok {
				return
			}
			want, err := json.Marshal(c.res)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(&encodedResult{CallToolResult: c.res, raw: raw})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// A successful response written by the stdio connection has the bytes of
// the SDK's encoding; an error response or an odd id is left to the SDK.
func TestAppendResponseMatchesSDK(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		t.Helper()
		x, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	cases := []struct {
		name    string
		resp    *jsonrpc.Response
		written bool
	}{
		{"number id", &jsonrpc.Response{ID: id(float64(7)), Result: json.RawMessage(`{"content":[{"type":"text","text":"a \u003c b"}]}`)}, true},
		{"negative id", &jsonrpc.Response{ID: id(float64(-3)), Result: json.RawMessage(`{}`)}, true},
		{"string id with escapes", &jsonrpc.Response{ID: id(`req <1> & "two"` + "\u2028\xff"), Result: json.RawMessage(`{"tools":[]}`)}, true},
		{"error", &jsonrpc.Response{ID: id(float64(1)), Error: &jsonrpc.Error{Code: -32602, Message: "unknown tool"}}, false},
		{"no result", &jsonrpc.Response{ID: id(float64(1))}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := appendResponse(nil, c.resp)
			if ok != c.written {
				t.Fatalf("written: %v, want %v", ok, c.written)
			}
			if !ok {
				return
			}
			want, err := jsonrpc.EncodeMessage(c.resp)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}
