package mcpserver

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodeToolResults is a receiving middleware that writes a tool call's
// result as JSON once, when the result has the plain shape every tool
// here returns (one text content, the structured result already encoded
// by addTool, perhaps isError). The SDK would encode it four times over:
// CallToolResult.MarshalJSON copies the structured result and encodes the
// text as a nested value, each checked again by encoding/json; the
// JSON-RPC layer then re-checks the whole result, and the transport once
// more inside the response. With the result written here, the JSON-RPC
// layer's check is the only pass left over the bytes on stdio (see
// stdioConn), two on HTTP. The bytes are the SDK's (TestEncodedResultMatchesSDK;
// the wire golden files in httpapi).
func encodeToolResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/call" {
			return res, err
		}
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
			if raw, ok := encodeToolResult(r); ok {
				return &encodedResult{CallToolResult: r, raw: raw}, nil
			}
		}
		return res, nil
	}
}

// encodeViaSDK leaves every result to the SDK's encoding: tests compare
// the two.
var encodeViaSDK = false

// encodedResult is a tool result with its JSON written once: it marshals
// to raw. It embeds the result so that it still is an mcp.Result.
type encodedResult struct {
	*mcp.CallToolResult
	raw []byte
}

func (r *encodedResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// encodeToolResult writes r as CallToolResult.MarshalJSON does, when r has
// the plain shape: no _meta, exactly one text content without _meta or
// annotations, a structured result that is absent or already-encoded
// JSON, no input requests. Otherwise ok is false and the SDK encodes r.
func encodeToolResult(r *mcp.CallToolResult) (raw []byte, ok bool) {
	if r.Meta != nil || r.InputRequests != nil || r.RequestState != "" || r.NeedsInput() || len(r.Content) != 1 {
		return nil, false
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok || tc == nil || tc.Meta != nil || tc.Annotations != nil {
		return nil, false
	}
	var structured json.RawMessage
	switch sc := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		if len(sc) == 0 {
			return nil, false
		}
		structured = sc
	default:
		return nil, false
	}
	text, err := json.Marshal(tc.Text) // escapes as the SDK's json.Marshal does
	if err != nil {
		return nil, false
	}
	b := make([]byte, 0, len(text)+len(structured)+80)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = append(b, text...)
	b = append(b, "}]"...)
	if structured != nil {
		b = append(b, `,"structuredContent":`...)
		b = append(b, structured...)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), true
}

// appendResponse writes a successful JSON-RPC response as the SDK's
// jsonrpc.EncodeMessage does, without checking its result again: the
// JSON-RPC layer made it with encoding/json, so it is compact, valid
// JSON. ok is false for anything else (an error, an id neither a number
// nor a string), which the SDK encodes.
func appendResponse(b []byte, resp *jsonrpc.Response) (_ []byte, ok bool) {
	if resp.Error != nil || len(resp.Result) == 0 {
		return b, false
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	switch id := resp.ID.Raw().(type) {
	case int64:
		b = strconv.AppendInt(b, id, 10)
	case string:
		s, err := marshalNoEscape(id)
		if err != nil {
			return b, false
		}
		b = append(b, s...)
	default:
		return b, false
	}
	b = append(b, `,"result":`...)
	b = append(b, resp.Result...)
	return append(b, '}'), true
}
