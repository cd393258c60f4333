package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTool registers a typed tool as mcp.AddTool does, with the same
// schemas in tools/list, the same checks of the arguments and the same
// errors, except one step: the result is encoded once and not checked
// against the output schema again. The SDK checks it by parsing the
// encoded result back into maps and walking the schema, which cost about
// as much as the retrieval itself for a recall of ten items
// (BenchmarkRecallStdio). The output schema is generated from Out, so every
// Out conforms; TestToolsMatchSDK and TestToolOutputsConform check that.
func addTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	if registerViaSDK {
		mcp.AddTool(s, t, h)
		return
	}
	tt := *t
	inSchema, inResolved := schemaFor[In]()
	outSchema, _ := schemaFor[Out]()
	tt.InputSchema, tt.OutputSchema = inSchema, outSchema
	s.AddTool(&tt, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := decodeArguments[In](req.Params.Arguments, inResolved)
		if err != nil {
			var res mcp.CallToolResult
			res.SetError(err)
			return &res, nil
		}
		res, out, err := h(ctx, req, in)
		if wireErr, ok := err.(*jsonrpc.Error); ok {
			return nil, wireErr // a protocol error, passed on as the SDK does
		}
		if err != nil {
			var res mcp.CallToolResult
			res.SetError(err)
			return &res, nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		body, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("marshaling output: %w", err)
		}
		if string(body) == "null" && outSchema.Type == "object" {
			body = []byte("{}") // a nil map is an empty object, as from the SDK
		}
		res.StructuredContent = json.RawMessage(body)
		if res.Content == nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(body)}}
		}
		return res, nil
	})
}

// registerViaSDK makes addTool call mcp.AddTool instead: tests compare
// the two servers.
var registerViaSDK = false

// schemaFor generates and resolves the schema of T the way the SDK does
// for a typed tool. The types are this package's own, so a failure is a
// programming error.
func schemaFor[T any]() (*jsonschema.Schema, *jsonschema.Resolved) {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	return s, r
}

// decodeArguments checks raw arguments against the input schema (absent
// arguments are an empty object) and decodes them into In, with the SDK's
// error texts: a client gets the same answer to a bad call as from any
// typed tool.
func decodeArguments[In any](raw json.RawMessage, resolved *jsonschema.Resolved) (In, error) {
	var in In
	args := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return in, fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", err)
		}
	}
	if err := resolved.ApplyDefaults(&args); err != nil {
		return in, fmt.Errorf("validating \"arguments\": applying schema defaults:\n%w", err)
	}
	if err := resolved.Validate(&args); err != nil {
		return in, fmt.Errorf("validating \"arguments\": %v", err)
	}
	body, err := json.Marshal(args)
	if err != nil {
		return in, fmt.Errorf("validating \"arguments\": marshalling with defaults: %v", err)
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return in, err
	}
	return in, nil
}
