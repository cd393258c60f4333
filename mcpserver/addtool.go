package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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
		in, err := decodeArguments[In](tt.Name, req.Params.Arguments, inSchema, inResolved)
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
// typed tool. One answer is better than the SDK's: an argument the tool
// does not take (see unknownArgument).
func decodeArguments[In any](tool string, raw json.RawMessage, schema *jsonschema.Schema, resolved *jsonschema.Resolved) (In, error) {
	var in In
	args := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return in, fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", err)
		}
	}
	if err := unknownArgument(tool, args, schema); err != nil {
		return in, err
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

// unknownArgument refuses an argument the tool does not take, naming it,
// the argument most likely meant and every argument the tool takes, under
// the stable code invalid_request (the HTTP API's code for a body's
// unknown field). The SDK's own answer ("unexpected additional properties
// ["q"]", or only the missing "query") names neither what was meant nor
// what exists, and a model that guessed a name ({"q": ...}, {"content":
// ...}) cannot correct itself from it.
func unknownArgument(tool string, args map[string]any, schema *jsonschema.Schema) error {
	var unknown []string
	for k := range args {
		if _, ok := schema.Properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	names := schema.PropertyOrder
	if len(names) == 0 {
		for k := range schema.Properties {
			names = append(names, k)
		}
		slices.Sort(names)
	}
	var all []string
	for _, n := range names {
		if slices.Contains(schema.Required, n) {
			n += " (required)"
		}
		all = append(all, n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "invalid_request: %s takes no argument %q", tool, unknown[0])
	if len(unknown) > 1 {
		b.Reset()
		fmt.Fprintf(&b, "invalid_request: %s takes no arguments %s", tool, quoted(unknown))
	}
	if meant := meantArgument(unknown[0], args, schema); meant != "" {
		fmt.Fprintf(&b, " (did you mean %q?)", meant)
	}
	fmt.Fprintf(&b, "; its arguments are %s", strings.Join(all, ", "))
	return fmt.Errorf("%s", b.String())
}

func quoted(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// argumentSynonyms are the names clients guess for a tool's arguments,
// by the argument they mean.
var argumentSynonyms = map[string][]string{
	"query": {"q", "question", "search", "prompt", "input", "text", "query_text", "message"},
	"text":  {"content", "statement", "memory", "message", "note", "fact", "input", "body", "value_text"},
	"id":    {"memory_id", "version_id", "retrieval_id", "mem_id", "memoryid", "uuid"},
	"limit": {"k", "top_k", "topk", "max", "max_results", "n", "count"},
}

// meantArgument is the tool's argument an unknown one most likely meant:
// a required argument left out that the name is a known guess for, any
// argument it is a guess for, or one it differs from only in case,
// separators or a letter or two. "" when none is close.
func meantArgument(name string, args map[string]any, schema *jsonschema.Schema) string {
	low := strings.ToLower(name)
	var guesses []string
	for arg, syn := range argumentSynonyms {
		if _, ok := schema.Properties[arg]; ok && slices.Contains(syn, low) {
			guesses = append(guesses, arg)
		}
	}
	slices.Sort(guesses)
	for _, g := range guesses {
		if _, given := args[g]; !given && slices.Contains(schema.Required, g) {
			return g
		}
	}
	if len(guesses) > 0 {
		return guesses[0]
	}
	norm := func(s string) string { return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s)) }
	best, bestD := "", 3
	for arg := range schema.Properties {
		if d := editDistance(norm(name), norm(arg)); d < bestD || d == bestD && arg < best {
			best, bestD = arg, d
		}
	}
	if bestD <= 2 && bestD < len(norm(name)) {
		return best
	}
	return ""
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
