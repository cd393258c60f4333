package client

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Code is a stable problem code the server sends in a problem+json body
// (its "code" member). Codes are never renamed, so a program may branch on
// them. A Code is also an error, so each constant below is a sentinel:
//
//	if errors.Is(err, client.ErrNotFound) { ... }
//
// matches any *Error whose Code is "not_found".
type Code string

func (c Code) Error() string { return string(c) }

// The server's problem codes, as its OpenAPI document lists them
// (Problem.code); ErrUnavailable is reserved, no request answers it today.
const (
	ErrMalformedJSON        Code = "malformed_json"
	ErrInvalidRequest       Code = "invalid_request"
	ErrInvalidTimestamp     Code = "invalid_timestamp"
	ErrInvalidNamespace     Code = "invalid_namespace"
	ErrUnsupportedMediaType Code = "unsupported_media_type"
	ErrBodyTooLarge         Code = "body_too_large"
	ErrHeadersTooLarge      Code = "headers_too_large"
	ErrTooManyEvents        Code = "too_many_events"
	ErrQueryTooLong         Code = "query_too_long"
	ErrRateLimited          Code = "rate_limited"
	ErrUnauthenticated      Code = "unauthenticated"
	ErrForbidden            Code = "forbidden"
	ErrNotFound             Code = "not_found"
	ErrNamespaceNotFound    Code = "namespace_not_found"
	ErrMethodNotAllowed     Code = "method_not_allowed"
	ErrConflict             Code = "conflict"
	ErrTimeout              Code = "timeout"
	ErrUnavailable          Code = "unavailable"
	ErrStoreCorrupt         Code = "store_corrupt"
	ErrStorageFull          Code = "storage_full"
	ErrStoreReadOnly        Code = "store_read_only"      // 409: a read-only server (serve --read-only) refused a write; send it to a read-write one
	ErrModelUnavailable     Code = "model_unavailable"    // 503: a configured model provider did not answer
	ErrModelBadReply        Code = "model_bad_reply"      // 502: its reply was unusable
	ErrModelNotConfigured   Code = "model_not_configured" // 503: the request needs a chat model and the server has none
	ErrInternal             Code = "internal"
	ErrInvalidSession       Code = "invalid_session"
	ErrSessionNotFound      Code = "session_not_found"
	ErrInvalidOutcome       Code = "invalid_outcome"
	ErrInvalidSeverity      Code = "invalid_severity"
	ErrInvalidSource        Code = "invalid_source"
	ErrRetrievalNotFound    Code = "retrieval_not_found"
	ErrNotInRetrieval       Code = "memory_not_in_retrieval"
)

// Error is an error answer from the server: its RFC 9457 problem document,
// or, when a proxy answered with something else, the status and the start
// of the body (Code is then empty).
type Error struct {
	Status    int    // HTTP status
	Code      Code   // stable problem code; "" when the body was not a problem
	Title     string // the status's title
	Detail    string // what went wrong, written for people
	Type      string // the problem type URI
	RequestID string // identifies the request in the server's log
	// RetryAfter is the server's Retry-After, when it sent one (rate
	// limits, unavailability).
	RetryAfter time.Duration
	// Op is the request that failed, such as "GET /v1/memories/mem_1".
	Op string
}

func (e *Error) Error() string {
	msg := "mnemon: " + e.Op + ": " + strconv.Itoa(e.Status)
	if e.Code != "" {
		msg += " " + string(e.Code)
	} else if e.Title != "" {
		msg += " " + e.Title
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.RequestID != "" {
		msg += " (request " + e.RequestID + ")"
	}
	return msg
}

// Is makes errors.Is(err, client.ErrNotFound) true for an *Error with that
// code.
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c != "" && c == e.Code
}

// IsCode reports whether err is an *Error with the given code.
func IsCode(err error, code Code) bool { return errors.Is(err, code) }

// StatusOf returns the HTTP status of an *Error in err's chain, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// transportError is a request that got no answer at all (refused, reset,
// timed out); it is worth retrying for an idempotent call.
type transportError struct {
	op  string
	err error
}

func (e *transportError) Error() string { return fmt.Sprintf("mnemon: %s: %v", e.op, e.err) }
func (e *transportError) Unwrap() error { return e.err }
