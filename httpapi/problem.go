package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// Stable problem codes. Clients branch on these; never rename one.
const (
	CodeMalformedJSON        = "malformed_json"
	CodeInvalidRequest       = "invalid_request"
	CodeInvalidTimestamp     = "invalid_timestamp"
	CodeInvalidNamespace     = "invalid_namespace"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeBodyTooLarge         = "body_too_large"
	CodeHeadersTooLarge      = "headers_too_large"
	CodeTooManyEvents        = "too_many_events"
	CodeQueryTooLong         = "query_too_long"
	CodeRateLimited          = "rate_limited"
	CodeUnauthenticated      = "unauthenticated"
	CodeForbidden            = "forbidden"
	CodeNotFound             = "not_found"
	CodeNamespaceNotFound    = "namespace_not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeConflict             = "conflict"
	CodeTimeout              = "timeout"
	CodeUnavailable          = "unavailable"
	CodeStoreCorrupt         = "store_corrupt"
	CodeStorageFull          = "storage_full" // 507: the disk is full; nothing was stored
	CodeInternal             = "internal"
	CodeInvalidSession       = "invalid_session"   // consolidate: a session id that cannot name one
	CodeSessionNotFound      = "session_not_found" // consolidate: no episode of that session in the namespace
)

// ProblemBase prefixes every problem type URI.
const ProblemBase = "https://mnemon.dev/problems/"

// apiError is an error with its public status, code and detail.
type apiError struct {
	status int
	code   string
	detail string
	// retryAfter, in seconds, for rate limits and unavailability.
	retryAfter int
}

func (e *apiError) Error() string { return e.code + ": " + e.detail }

func problemf(status int, code, detail string) *apiError {
	return &apiError{status: status, code: code, detail: detail}
}

func quote(s string) string { return strconv.Quote(s) }

// publicError maps any error to what a client may see. Domain validation
// messages are written for people and go out as they are; anything else
// (a driver's text, a file path) stays in the log.
func publicError(err error) *apiError {
	var (
		ae *apiError
		te *memory.TimeError
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &te):
		// The engine's own check (an imported record's time): the
		// context around it ("line 4: ") stays, the operation goes.
		return problemf(http.StatusBadRequest, CodeInvalidTimestamp, invalidDetail(err))
	case errors.Is(err, memory.ErrInvalid):
		return problemf(http.StatusBadRequest, CodeInvalidRequest, invalidDetail(err))
	case errors.Is(err, memory.ErrNotFound):
		return problemf(http.StatusNotFound, CodeNotFound, "no such resource in this namespace")
	case errors.Is(err, memory.ErrConflict):
		return problemf(http.StatusConflict, CodeConflict, conflictDetail(err))
	case errors.Is(err, memory.ErrStorageFull):
		return &apiError{status: http.StatusInsufficientStorage, code: CodeStorageFull,
			detail: "the server's disk is full: nothing of this request was stored; send it again once an operator has freed space"}
	case errors.Is(err, memory.ErrCorrupt), errors.Is(err, memory.ErrSchemaTooNew):
		return &apiError{status: http.StatusServiceUnavailable, code: CodeStoreCorrupt, detail: "the database cannot be read safely; an operator must check it"}
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{status: http.StatusServiceUnavailable, code: CodeTimeout, detail: "the request took longer than the server allows", retryAfter: 1}
	case errors.Is(err, context.Canceled):
		return &apiError{status: 499, code: CodeTimeout, detail: "the request was cancelled"}
	}
	return problemf(http.StatusInternalServerError, CodeInternal, "internal error; the request id identifies it in the server log")
}

// conflictDetail says what conflicted without the database's own text: a
// unique constraint's message names tables and columns, which are not
// the API's. The record the error names (an import line's row, an id)
// stays.
func conflictDetail(err error) string {
	var driver interface{ Code() int }
	if !errors.As(err, &driver) {
		return invalidDetail(err)
	}
	// The driver's text follows the sentinel ("conflict: UNIQUE ...").
	d := invalidDetail(err)
	if i := strings.Index(d, memory.ErrConflict.Error()+": "); i >= 0 {
		d = d[:i]
	}
	d = strings.TrimSuffix(strings.TrimSpace(d), ":")
	if d != "" {
		d += ": "
	}
	return d + "it is stored already (the same id, or the same record twice)"
}

// invalidDetail strips the operation prefixes ("capture: event 0: ...")
// that wrap a validation message, keeping the part a client can act on,
// including which event it concerns.
func invalidDetail(err error) string {
	msg := err.Error()
	for _, op := range []string{"capture: ", "remember: ", "retrieve: ", "import: ", "extract: ", "forget: ", "show: ", "graph: ", "consolidate: "} {
		msg = strings.TrimPrefix(msg, op)
	}
	// The sentinel's text can sit after a context prefix ("event 1: "),
	// and so can the store's name, which says nothing to a client.
	msg = strings.ReplaceAll(msg, "sqlite: ", "")
	return strings.ReplaceAll(msg, memory.ErrInvalid.Error()+": ", "")
}

var titles = map[int]string{
	400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
	405: "Method Not Allowed", 409: "Conflict", 413: "Content Too Large", 415: "Unsupported Media Type",
	429: "Too Many Requests", 431: "Request Header Fields Too Large", 499: "Client Closed Request", 500: "Internal Server Error", 503: "Service Unavailable",
}

// writeProblem writes e as application/problem+json.
func writeProblem(w http.ResponseWriter, requestID string, e *apiError) {
	title := titles[e.status]
	if title == "" {
		title = http.StatusText(e.status)
	}
	p := Problem{Type: ProblemBase + e.code, Title: title, Status: e.status, Code: e.code, Detail: e.detail, RequestID: requestID}
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("X-Content-Type-Options", "nosniff")
	if e.status == http.StatusUnauthorized {
		// RFC 9110 §11.6.1: a 401 names the scheme that would work.
		h.Set("WWW-Authenticate", `Bearer realm="mnemon"`)
	}
	if e.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(p)
}
