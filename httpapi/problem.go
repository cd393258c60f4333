package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/memory"
)

// Stable problem codes. Clients branch on these; never rename one.
const (
	CodeMalformedJSON        = "malformed_json"
	CodeInvalidRequest       = memory.CodeInvalid
	CodeInvalidTimestamp     = memory.CodeInvalidTimestamp
	CodeInvalidNamespace     = memory.CodeInvalidNamespace
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeBodyTooLarge         = "body_too_large"
	CodeHeadersTooLarge      = "headers_too_large"
	CodeTooManyEvents        = "too_many_events"
	CodeQueryTooLong         = "query_too_long"
	CodeRateLimited          = "rate_limited"
	CodeUnauthenticated      = "unauthenticated"
	CodeForbidden            = "forbidden"
	CodeNotFound             = memory.CodeNotFound
	CodeNamespaceNotFound    = "namespace_not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeConflict             = memory.CodeConflict
	CodeTimeout              = "timeout"
	CodeUnavailable          = "unavailable" // reserved: no request answers it today (/readyz reports unavailability in its body)
	CodeStoreCorrupt         = memory.CodeStoreCorrupt
	CodeStorageFull          = "storage_full" // 507: the disk is full; nothing was stored
	CodeInternal             = "internal"
	CodeStoreReadOnly        = memory.CodeStoreReadOnly      // 409: a read-only server (serve --read-only) refused a write; nothing was stored
	CodeInvalidSession       = memory.CodeInvalidSession     // consolidate: a session id that cannot name one
	CodeSessionNotFound      = "session_not_found"           // consolidate: no episode of that session in the namespace
	CodeModelUnavailable     = memory.CodeModelUnavailable   // 503: a configured model provider did not answer
	CodeModelBadReply        = memory.CodeModelBadReply      // 502: a configured model provider's reply was unusable
	CodeModelNotConfigured   = memory.CodeModelNotConfigured // 503: the request needs a model (a chat endpoint) and none is configured
)

// problemCodes lists every code a response can carry, in the order the
// OpenAPI document gives them (Problem.code's enum). A test makes a
// request that answers each one; CodeUnavailable is left out because none
// does.
var problemCodes = []string{
	CodeMalformedJSON, CodeInvalidRequest, CodeInvalidTimestamp, CodeInvalidNamespace,
	CodeInvalidSession, CodeInvalidOutcome, CodeInvalidSeverity, CodeInvalidSource,
	CodeUnsupportedMediaType, CodeBodyTooLarge, CodeHeadersTooLarge, CodeTooManyEvents, CodeQueryTooLong,
	CodeRateLimited, CodeUnauthenticated, CodeForbidden,
	CodeNotFound, CodeNamespaceNotFound, CodeSessionNotFound, CodeRetrievalNotFound, CodeNotInRetrieval,
	CodeMethodNotAllowed, CodeConflict, CodeTimeout, CodeStoreCorrupt, CodeStorageFull,
	CodeStoreReadOnly, CodeModelUnavailable, CodeModelBadReply, CodeModelNotConfigured, CodeInternal,
}

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

// publicError maps any error to what a client may see. An error phrased
// for the caller where it was found (*memory.Error) goes out with its code
// and message; anything else (a driver's text, a file path) stays in the
// log, and the client gets the sentinel's generic words.
func publicError(err error) *apiError {
	var (
		ae *apiError
		pe *memory.Error
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &pe) && publicKind(pe) != 0:
		return problemf(publicKind(pe), pe.Code, pe.Message)
	case errors.Is(err, memory.ErrInvalid):
		return problemf(http.StatusBadRequest, CodeInvalidRequest, "the request is not valid")
	case errors.Is(err, memory.ErrNotFound):
		return problemf(http.StatusNotFound, CodeNotFound, "no such resource in this namespace")
	case errors.Is(err, memory.ErrConflict):
		return problemf(http.StatusConflict, CodeConflict, "it is stored already (the same id, or the same record twice)")
	case errors.Is(err, memory.ErrReadOnly):
		// 409, not 503: the server is well, and will refuse the same
		// write every time; the client must send it to a writer.
		return &apiError{status: http.StatusConflict, code: CodeStoreReadOnly,
			detail: "this server opened the database read-only (a read replica): nothing was stored; send writes to a server that opened it read-write"}
	case errors.Is(err, memory.ErrStorageFull):
		return &apiError{status: http.StatusInsufficientStorage, code: CodeStorageFull,
			detail: "the server's disk is full: nothing of this request was stored; send it again once an operator has freed space"}
	case errors.Is(err, memory.ErrCorrupt), errors.Is(err, memory.ErrSchemaTooNew):
		return &apiError{status: http.StatusServiceUnavailable, code: CodeStoreCorrupt, detail: "the database cannot be read safely; an operator must check it"}
	case errors.As(err, &pe) && errors.Is(pe.Kind, memory.ErrModelNotConfigured):
		// Not transient: no Retry-After; the message says what to set.
		return problemf(http.StatusServiceUnavailable, pe.Code, pe.Message)
	case errors.As(err, &pe) && pe.Code == memory.CodeModelUnavailable && pe.Cause == nil:
		// Refused before any call (the daily token budget): the message
		// names no endpoint.
		return &apiError{status: http.StatusServiceUnavailable, code: CodeModelUnavailable, detail: pe.Message, retryAfter: 3600}
	case errors.Is(err, memory.ErrModelUnavailable):
		// The provider's own words can name its endpoint: they stay in
		// the log.
		return &apiError{status: http.StatusServiceUnavailable, code: CodeModelUnavailable,
			detail: "the model provider did not answer: nothing of this request was stored; send it again later (mnemon doctor checks the provider)", retryAfter: 5}
	case errors.Is(err, memory.ErrModelBadReply):
		return &apiError{status: http.StatusBadGateway, code: CodeModelBadReply,
			detail: "the model provider's reply could not be used: nothing of this request was stored (mnemon doctor checks the provider)"}
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{status: http.StatusServiceUnavailable, code: CodeTimeout, detail: "the request took longer than the server allows", retryAfter: 1}
	case errors.Is(err, context.Canceled):
		return &apiError{status: 499, code: CodeTimeout, detail: "the request was cancelled"}
	}
	return problemf(http.StatusInternalServerError, CodeInternal, "internal error; the request id identifies it in the server log")
}

// publicKind is the HTTP status of a *memory.Error, by the sentinel it
// is, or 0 for a kind whose message is not the client's (a damaged store
// is the operator's business).
func publicKind(pe *memory.Error) int {
	switch {
	case pe.Code == CodeNotInRetrieval:
		// The request is well formed; its ids do not fit the retrieval.
		return http.StatusUnprocessableEntity
	case errors.Is(pe.Kind, memory.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(pe.Kind, memory.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(pe.Kind, memory.ErrConflict):
		return http.StatusConflict
	}
	return 0
}

var titles = map[int]string{
	400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
	405: "Method Not Allowed", 409: "Conflict", 413: "Content Too Large", 415: "Unsupported Media Type",
	429: "Too Many Requests", 431: "Request Header Fields Too Large", 499: "Client Closed Request", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
}

// writeProblem writes e as application/problem+json.
func writeProblem(w http.ResponseWriter, requestID string, e *apiError) {
	title := titles[e.status]
	if title == "" {
		title = http.StatusText(e.status)
	}
	p := wire.Problem{Type: ProblemBase + e.code, Title: title, Status: e.status, Code: e.code, Detail: e.detail, RequestID: requestID}
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
