package httpapi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"time"
)

// OpenAPI returns the API's OpenAPI 3.1 document, generated from the route
// table and the Go types of its bodies, so the document cannot drift from
// the code. docs/openapi.json is a committed copy; a test keeps it current.
func (s *Server) OpenAPI() []byte {
	s.openapiOnce.Do(func() {
		s.openapiDoc = BuildOpenAPI(s.routes(), s.cfg.Version)
	})
	return s.openapiDoc
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *request) error {
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write(s.OpenAPI())
	return err
}

// BuildOpenAPI renders the document for routes. It is deterministic: the
// same routes and types always give the same bytes.
func BuildOpenAPI(routes []*route, version string) []byte {
	if version == "" {
		version = "dev"
	}
	g := &schemaGen{defs: map[string]any{}}
	paths := map[string]map[string]any{}
	for _, rt := range routes {
		op := g.operation(rt)
		if paths[rt.Path] == nil {
			paths[rt.Path] = map[string]any{}
		}
		paths[rt.Path][strings.ToLower(rt.Method)] = op
	}
	g.defs["Problem"] = g.schemaOf(reflect.TypeFor[Problem]())
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "mnemon",
			"version": version,
			"description": "Persistent memory for AI agents. Every /v1 request acts in one namespace: the API key's, " +
				"or in open mode (no key configured, loopback only) the X-Mnemon-Namespace header's (default \"default\"). " +
				"Errors are application/problem+json with a stable code.",
			"license": map[string]any{"name": "see repository"},
		},
		"servers": []any{map[string]any{"url": "/"}},
		"paths":   paths,
		"components": map[string]any{
			"schemas": g.defs,
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

type schemaGen struct {
	defs map[string]any
}

func (g *schemaGen) operation(rt *route) map[string]any {
	id := operationID(rt)
	op := map[string]any{"operationId": id, "summary": rt.Summary}
	if rt.Role != "" {
		op["description"] = "Needs a key with role " + string(rt.Role) + " or above."
		op["security"] = []any{map[string]any{"apiKey": []any{}}}
		op["tags"] = []any{"v1"}
	} else {
		op["security"] = []any{}
		op["tags"] = []any{"operations"}
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
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
			"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(rt.Request))}}}
	} else if rt.bigBody {
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
			rt.ContentType: map[string]any{"schema": map[string]any{"type": "string"}}}}
	}
	responses := map[string]any{}
	ok := map[string]any{"description": http.StatusText(rt.Status)}
	switch {
	case rt.Response != nil:
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(rt.Response))}}
	case rt.ContentType != "":
		ok["content"] = map[string]any{rt.ContentType: map[string]any{"schema": map[string]any{"type": "string"}}}
	}
	responses[itoa(rt.Status)] = ok
	if rt.Path == "/v1/episodes" {
		responses["200"] = map[string]any{"description": "With wait=true: extraction finished.",
			"content": map[string]any{"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(rt.Response))}}}
	}
	if rt.Path == "/readyz" {
		responses["503"] = map[string]any{"description": "Not ready.",
			"content": map[string]any{"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(rt.Response))}}}
	}
	responses["default"] = map[string]any{"description": "A problem (RFC 9457) with a stable code.",
		"content": map[string]any{"application/problem+json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Problem"}}}}
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
	case "GET /v1/jobs/{id}":
		return "getJob"
	case "GET /v1/export":
		return "exportNamespace"
	case "POST /v1/import":
		return "importNamespace"
	}
	id := strings.ToLower(rt.Method)
	for _, w := range strings.FieldsFunc(rt.Path, func(r rune) bool { return r == '/' || r == '.' }) {
		id += strings.ToUpper(w[:1]) + w[1:]
	}
	return id
}

// ref returns a $ref to t's schema, defining it on first use. Named
// struct types become components; everything else is inlined.
func (g *schemaGen) ref(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == reflect.TypeFor[time.Time]() {
		return g.schemaOf(t)
	}
	name := t.Name()
	if _, ok := g.defs[name]; !ok {
		g.defs[name] = nil // reserve: recursive types refer to themselves
		g.defs[name] = g.schemaOf(t)
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
	rawJSONType  = reflect.TypeFor[json.RawMessage]()
)

func (g *schemaGen) schemaOf(t reflect.Type) map[string]any {
	if t.Implements(reflect.TypeFor[json.Marshaler]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()) {
		if s, ok := customSchemas[t.Name()]; ok {
			return s()
		}
	}
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
	return map[string]any{}
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
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, props, required)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		s := g.ref(f.Type)
		if format := f.Tag.Get("format"); format != "" {
			s = map[string]any{"type": "string", "format": format}
		}
		if doc := f.Tag.Get("doc"); doc != "" {
			if s["$ref"] != nil {
				s = map[string]any{"allOf": []any{s}, "description": doc}
			} else {
				c := make(map[string]any, len(s)+1)
				for k, v := range s {
					c[k] = v
				}
				c["description"] = doc
				s = c
			}
		}
		props[name] = s
		if f.Tag.Get("required") == "true" || (!strings.Contains(opts, "omitempty") && f.Tag.Get("required") != "false" && isResponseField(t)) {
			*required = append(*required, name)
		}
	}
}

// isResponseField: fields of response types without omitempty are always
// present, so the document lists them as required; request types mark
// their required fields explicitly.
func isResponseField(t reflect.Type) bool {
	return !strings.HasSuffix(t.Name(), "Request") && t.Name() != "EventInput"
}

// customSchemas describe types with their own JSON encoding.
var customSchemas = map[string]func() map[string]any{
	"ChannelHits": func() map[string]any {
		return map[string]any{"type": "object", "description": "Channel name to its rank and score.",
			"additionalProperties": map[string]any{"type": "object", "properties": map[string]any{
				"rank": map[string]any{"type": "integer"}, "score": map[string]any{"type": "number"}}}}
	},
	"Terms": func() map[string]any {
		return map[string]any{"type": "object", "description": "Ranking term name to its contribution.",
			"additionalProperties": map[string]any{"type": "number"}}
	},
	"TraceItems": func() map[string]any {
		return map[string]any{"type": "array", "items": map[string]any{"type": "object"}}
	},
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}
