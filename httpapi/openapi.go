package httpapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi/wire"
)

// OpenAPI returns the API's OpenAPI 3.1 document, generated from the route
// table and the Go types of its bodies, so the document cannot drift from
// the code. docs/openapi.json is a committed copy; a test keeps it current.
func (s *Server) OpenAPI() []byte {
	s.openapiOnce.Do(func() {
		s.openapiDoc = BuildOpenAPI(s.table, s.cfg.Version)
	})
	return s.openapiDoc
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *request) error {
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write(s.OpenAPI())
	return err
}

// BuildOpenAPI renders the OpenAPI 3.1 document for routes.
//
// How the document is produced: every route becomes one operation (its
// method, path, summary, parameters and role from the route table); its
// Request and Response zero values are walked by reflection into JSON
// Schema 2020-12, following encoding/json's rules, so the schemas describe
// what the server really reads and writes:
//
//   - A named struct becomes a component (#/components/schemas/Name) and
//     its exported fields properties, embedded structs flattened; `doc`
//     tags become descriptions, `format` tags formats.
//   - Response fields: a field without omitempty is always written, so it
//     is required; a slice, map or pointer without omitempty may be written
//     as null, so its type admits null unless the field is tagged
//     nullable:"false" (the handler always fills it).
//   - Request fields: only fields tagged required:"true" are required, and
//     unknown fields are refused (additionalProperties: false), as the
//     decoder does.
//   - The body types are package wire's, plain structs, maps and slices;
//     a type with its own JSON encoding panics, so a type can never be
//     described wrongly in silence.
//   - Every operation answers problems (application/problem+json) as its
//     default response, and every response carries X-Request-Id.
//
// It is deterministic: the same routes and types always give the same
// bytes (encoding/json sorts map keys).
func BuildOpenAPI(routes []*route, version string) []byte {
	if version == "" {
		version = "dev"
	}
	g := &schemaGen{defs: map[string]any{}, types: map[string]reflect.Type{}, modes: map[reflect.Type]bool{}}
	paths := map[string]map[string]any{}
	for _, rt := range routes {
		if paths[rt.Path] == nil {
			paths[rt.Path] = map[string]any{}
		}
		paths[rt.Path][strings.ToLower(rt.Method)] = g.operation(rt)
	}
	// Problem.code is a plain string in Go; the document lists its values.
	if p, ok := g.defs["Problem"].(map[string]any); ok {
		if code, ok := p["properties"].(map[string]any)["code"].(map[string]any); ok {
			code["enum"] = problemCodes
		}
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "mnemon",
			"version": version,
			"description": "Persistent memory for AI agents. Every /v1 request acts in one namespace: the API key's, " +
				"or in open mode (no key configured, loopback only) the X-Mnemon-Namespace header's (default \"default\"). " +
				"Errors are application/problem+json with a stable code.",
		},
		"servers": []any{map[string]any{"url": "/"}},
		"paths":   paths,
		"components": map[string]any{
			"schemas": g.defs,
			"headers": map[string]any{"RequestId": map[string]any{
				"description": "The request's id (the client's X-Request-Id when it sent a plain one), also in the server's log.",
				"schema":      map[string]any{"type": "string"}}},
			"securitySchemes": map[string]any{
				"apiKey": map[string]any{"type": "http", "scheme": "bearer",
					"description": "An API key from `mnemon keys create`; it fixes the namespace and role."},
			},
		},
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic("httpapi: openapi: " + err.Error()) // only plain maps and strings: cannot fail
	}
	return append(out, '\n')
}

// schemaGen collects the component schemas of one document.
type schemaGen struct {
	defs    map[string]any
	types   map[string]reflect.Type // component name -> its Go type
	modes   map[reflect.Type]bool   // struct -> described as a request body
	request bool                    // walking a request body
}

var requestIDHeader = map[string]any{"X-Request-Id": map[string]any{"$ref": "#/components/headers/RequestId"}}

func (g *schemaGen) operation(rt *route) map[string]any {
	op := map[string]any{"operationId": operationID(rt), "summary": rt.Summary}
	if strings.HasPrefix(rt.Path, "/v1/") {
		op["tags"] = []any{"v1"}
	} else {
		op["tags"] = []any{"operations"}
	}
	if rt.Role != "" {
		op["description"] = "Needs a key with role " + string(rt.Role) + " or above; in open mode no key is needed."
		// The empty requirement: open mode takes requests without a key.
		op["security"] = []any{map[string]any{"apiKey": []any{}}, map[string]any{}}
	} else {
		op["security"] = []any{}
	}
	var params []any
	for _, p := range rt.Params {
		params = append(params, map[string]any{"name": p.Name, "in": p.In, "required": p.Required || p.In == "path",
			"description": p.Doc, "schema": map[string]any{"type": p.Type}})
	}
	if rt.Role != "" {
		params = append(params, map[string]any{"name": "X-Mnemon-Namespace", "in": "header", "required": false,
			"description": "Open mode only: the namespace to act in (default \"default\").", "schema": map[string]any{"type": "string"}})
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if rt.Request != nil {
		g.request = true
		op["requestBody"] = map[string]any{"required": !rt.optionalBody, "content": map[string]any{
			"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(rt.Request))}}}
		g.request = false
	} else if rt.bigBody {
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
			rt.ContentType: map[string]any{"schema": map[string]any{"type": "string"}}}}
	}
	body := map[string]any(nil)
	switch {
	case rt.Response != nil:
		body = map[string]any{"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(rt.Response))}}
	case rt.ContentType == "application/json":
		body = map[string]any{rt.ContentType: map[string]any{"schema": map[string]any{"type": "object"}}}
	case rt.ContentType != "":
		body = map[string]any{rt.ContentType: map[string]any{"schema": map[string]any{"type": "string"}}}
	}
	response := func(desc string) map[string]any {
		r := map[string]any{"description": desc, "headers": requestIDHeader}
		if body != nil {
			r["content"] = body
		}
		return r
	}
	responses := map[string]any{fmt.Sprint(rt.Status): response(http.StatusText(rt.Status))}
	switch rt.Path {
	case "/v1/episodes":
		responses["200"] = response("With wait=true: extraction finished.")
	case "/readyz":
		responses["503"] = response("Not ready.")
	}
	responses["default"] = map[string]any{"description": "A problem (RFC 9457) with a stable code.", "headers": requestIDHeader,
		"content": map[string]any{"application/problem+json": map[string]any{"schema": g.ref(reflect.TypeFor[wire.Problem]())}}}
	op["responses"] = responses
	return op
}

func operationID(rt *route) string {
	switch rt.Method + " " + rt.Path {
	case "POST /v1/episodes":
		return "capture"
	case "POST /v1/memories":
		return "remember"
	case "POST /v1/memories/retrieve":
		return "retrieve"
	case "GET /v1/memories":
		return "listMemories"
	case "GET /v1/memories/{id}":
		return "getMemory"
	case "DELETE /v1/memories/{id}":
		return "forgetMemory"
	case "GET /v1/retrievals/{id}":
		return "getRetrieval"
	case "POST /v1/sessions/{id}/consolidate":
		return "consolidateSession"
	case "GET /v1/jobs/{id}":
		return "getJob"
	case "GET /v1/export":
		return "exportNamespace"
	case "POST /v1/import":
		return "importNamespace"
	case "POST /v1/retrievals/{id}/feedback":
		return "sendFeedback"
	case "GET /v1/memories/{id}/explain":
		return "explainMemory"
	case "GET /v1/versions":
		return "listVersions"
	case "GET /v1/admissions":
		return "listAdmissions"
	case "GET /v1/jobs":
		return "listJobs"
	case "POST /v1/jobs/{id}/retry":
		return "retryJob"
	case "GET /v1/stats":
		return "getStats"
	case "GET /v1/caller":
		return "getCaller"
	case "GET /v1/namespaces":
		return "listNamespaces"
	case "GET /v1/reports":
		return "getReports"
	case "POST /v1/agent/respond":
		return "respond"
	}
	id := strings.ToLower(rt.Method)
	for _, w := range strings.FieldsFunc(rt.Path, func(r rune) bool { return r == '/' || r == '.' }) {
		id += strings.ToUpper(w[:1]) + w[1:]
	}
	return id
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
	rawJSONType  = reflect.TypeFor[json.RawMessage]()
)

// ref returns t's schema: a $ref for named structs, defined on first use;
// everything else inline.
func (g *schemaGen) ref(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != timeType && t != rawJSONType && ownJSON(t) {
		// Reflection cannot see what such a type writes: give the wire a
		// plain type instead.
		panic("httpapi: openapi: " + t.String() + " has its own JSON encoding; the document cannot describe it")
	}
	if t.Kind() != reflect.Struct || t == timeType {
		return g.schemaOf(t)
	}
	if req, seen := g.modes[t]; seen && req != g.request {
		panic("httpapi: openapi: " + t.String() + " is both a request and a response type; give each its own")
	}
	g.modes[t] = g.request
	name := t.Name()
	if other, ok := g.types[name]; ok && other != t {
		// Two packages' types of one name: qualify the later one.
		pkg := t.PkgPath()[strings.LastIndexByte(t.PkgPath(), '/')+1:]
		name = strings.ToUpper(pkg[:1]) + pkg[1:] + name
	}
	if _, ok := g.types[name]; !ok {
		g.types[name] = t
		g.defs[name] = nil // reserve: recursive types refer to themselves
		g.defs[name] = g.structSchema(t)
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// ownJSON reports whether t (or *t) encodes itself.
func ownJSON(t reflect.Type) bool {
	for _, i := range []reflect.Type{reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()} {
		if t.Implements(i) || reflect.PointerTo(t).Implements(i) {
			return true
		}
	}
	return false
}

func (g *schemaGen) schemaOf(t reflect.Type) map[string]any {
	switch t {
	case timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case durationType:
		return map[string]any{"type": "integer", "description": "nanoseconds"}
	case rawJSONType:
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.ref(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": g.ref(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.ref(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		return g.structSchema(t)
	}
	panic("httpapi: openapi: no JSON schema for " + t.String())
}

func (g *schemaGen) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	g.fields(t, props, &required)
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		sort.Strings(required)
		s["required"] = required
	}
	if g.request {
		s["additionalProperties"] = false // the decoder refuses unknown fields
	}
	return s
}

// fields adds t's JSON fields, flattening embedded structs as
// encoding/json does.
func (g *schemaGen) fields(t reflect.Type, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		omitempty := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, props, required)
			}
			continue // embedded non-structs: unexported, or not in this API
		}
		if name == "" {
			name = f.Name
		}
		s := g.ref(f.Type)
		if format := f.Tag.Get("format"); format != "" {
			s = map[string]any{"type": "string", "format": format}
		}
		if !g.request && !omitempty && f.Tag.Get("nullable") != "false" {
			s = nullable(f.Type, s)
		}
		if doc := f.Tag.Get("doc"); doc != "" {
			s = withDescription(s, doc)
		}
		props[name] = s
		if (g.request && f.Tag.Get("required") == "true") || (!g.request && !omitempty && f.Tag.Get("required") != "false") {
			*required = append(*required, name)
		}
	}
}

// nullable lets s admit null when encoding/json writes a nil value of t as
// null.
func nullable(t reflect.Type, s map[string]any) map[string]any {
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface:
	default:
		return s
	}
	if typ, ok := s["type"].(string); ok {
		c := copySchema(s)
		c["type"] = []any{typ, "null"}
		return c
	}
	if _, ok := s["$ref"]; ok {
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	return s // {}: anything, null included
}

// withDescription adds a description; beside a $ref it wraps the ref in
// allOf, which every tool reads the same way.
func withDescription(s map[string]any, doc string) map[string]any {
	if _, ok := s["$ref"]; ok {
		return map[string]any{"allOf": []any{s}, "description": doc}
	}
	c := copySchema(s)
	c["description"] = doc
	return c
}

func copySchema(s map[string]any) map[string]any {
	c := make(map[string]any, len(s)+1)
	for k, v := range s {
		c[k] = v
	}
	return c
}
