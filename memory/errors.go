package memory

import (
	"errors"
	"fmt"
	"regexp"
)

// Sentinel errors. Wrap them with the operation ("remember: %w"); transports
// map them to stable public codes.
var (
	ErrNotFound = errors.New("not found")
	ErrInvalid  = errors.New("invalid input")
	ErrConflict = errors.New("conflict")
	// ErrCorrupt means the store exists but cannot be trusted: a damaged or
	// foreign file. It is never treated as an empty store.
	ErrCorrupt = errors.New("store is corrupt or not a mnemon database")
	// ErrSchemaTooNew means the store was written by a newer mnemon.
	ErrSchemaTooNew = errors.New("store schema is newer than this mnemon")
	// ErrSchemaTooOld means a store opened for reading only was written by
	// an older mnemon: it must be upgraded, which is a write.
	ErrSchemaTooOld = errors.New("store schema is older than this mnemon and opened for reading only")
	// ErrReadOnly means a write was attempted on a store opened for
	// reading only (a reader replica): nothing was written.
	ErrReadOnly = errors.New("store is opened for reading only")
	// ErrStorageFull means a write failed because the disk holding the
	// store is full (or the store reached a size limit). Nothing of the
	// write was kept; the same write succeeds once there is room.
	ErrStorageFull = errors.New("storage is full")
	// ErrChangesPruned means a change log position is older than the log
	// keeps: the changes after it are partly gone, so a follower standing
	// there must read the namespace again.
	ErrChangesPruned = errors.New("change log pruned past this position")
	// ErrModelUnavailable means a configured model provider could not
	// answer: unreachable, too slow, refusing the key, or out of retries.
	// Nothing was stored by the call that needed it.
	ErrModelUnavailable = errors.New("model provider unavailable")
	// ErrModelBadReply means a model provider answered with something
	// mnemon cannot use: not JSON, the wrong shape, or vectors of another
	// size than configured. Nothing was stored from it.
	ErrModelBadReply = errors.New("model provider sent an unusable reply")
	// ErrModelNotConfigured means a feature that only a model can serve
	// (an answer from the chat model) was asked for and no provider is
	// configured. Nothing was stored; configuring one is the fix.
	ErrModelNotConfigured = errors.New("no model provider configured")
)

// Stable public codes of the errors mnemon phrases for its callers. The
// HTTP API sends them as problem codes, MCP tool errors and the CLI use the
// same words; clients branch on them, so never rename one.
const (
	CodeInvalid          = "invalid_request"
	CodeInvalidTimestamp = "invalid_timestamp"
	CodeInvalidNamespace = "invalid_namespace"
	CodeInvalidSession   = "invalid_session"
	CodeInvalidOutcome   = "invalid_outcome"
	CodeInvalidSeverity  = "invalid_severity"
	CodeInvalidSource    = "invalid_source"
	CodeNotInRetrieval   = "memory_not_in_retrieval"
	CodeNotFound         = "not_found"
	CodeConflict         = "conflict"
	// A database file that cannot be used: damaged, foreign or newer
	// (store_corrupt), or older and opened for reading only.
	CodeStoreCorrupt = "store_corrupt"
	CodeStoreTooOld  = "store_too_old"
	// A write reached a store opened for reading only (a reader replica
	// on PostgreSQL): nothing was written; send writes to a writer.
	CodeStoreReadOnly = "store_read_only"
	// A configured model provider (embeddings or chat endpoint) could not
	// be used: no answer in time or a refusal (model_unavailable), or an
	// answer that does not fit the request (model_bad_reply).
	CodeModelUnavailable = "model_unavailable"
	CodeModelBadReply    = "model_bad_reply"
	// A feature that needs a model (POST /v1/agent/respond needs a chat
	// endpoint) was asked of a server with none configured.
	CodeModelNotConfigured = "model_not_configured"
)

// Error is a problem phrased for the caller where it is found: a stable
// code, the input field it concerns when there is one, and a message safe
// to show (no SQL, file paths or operation names). It unwraps to its Kind,
// one of the sentinels above, so errors.Is keeps working, and to its Cause,
// the error underneath, which stays in the log.
//
// Transports take the code and message with errors.As; wrapping an Error
// in operation context ("remember: %w") changes what the log says, never
// what a client sees. Context the caller needs ("event 2", "line 4") is
// added with Within.
type Error struct {
	Code    string // stable, such as CodeInvalid
	Field   string // the input it concerns, as the caller named it; may be empty
	Message string // what is wrong and what to do, for people
	Kind    error  // the sentinel it is: ErrInvalid, ErrConflict, ErrNotFound…
	Cause   error  // what was underneath; never shown to a client
}

// Error is the message, followed for the log by the text of the cause
// underneath that is no Error of its own (a driver's).
func (e *Error) Error() string { return e.Message + e.logDetail() }

func (e *Error) logDetail() string {
	if e.Cause == nil {
		return ""
	}
	var inner *Error
	if errors.As(e.Cause, &inner) {
		return inner.logDetail()
	}
	return ": " + e.Cause.Error()
}

func (e *Error) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Cause}
}

// Invalidf returns an invalid_request Error wrapping ErrInvalid.
func Invalidf(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Kind: ErrInvalid, Message: fmt.Sprintf(format, args...)}
}

// FieldInvalidf returns an Error wrapping ErrInvalid with its own code and
// the field it concerns.
func FieldInvalidf(code, field, format string, args ...any) error {
	return &Error{Code: code, Field: field, Kind: ErrInvalid, Message: fmt.Sprintf(format, args...)}
}

// Conflictf returns a conflict Error wrapping ErrConflict; cause, which
// may be nil, is the error that found it (a unique constraint).
func Conflictf(cause error, format string, args ...any) error {
	return &Error{Code: CodeConflict, Kind: ErrConflict, Message: fmt.Sprintf(format, args...), Cause: cause}
}

// Within puts the context a caller needs to find the problem ("event 2",
// "line 4") in front of err's public message. An error that is no Error
// is wrapped as fmt.Errorf would: its text is for the log only.
func Within(err error, format string, args ...any) error {
	ctx := fmt.Sprintf(format, args...)
	var pe *Error
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", ctx, err)
	}
	return &Error{Code: pe.Code, Field: pe.Field, Kind: pe.Kind, Message: ctx + ": " + pe.Message, Cause: err}
}

// WithCode returns err with its public code set to code: a check shared by
// several use cases reports under the code of the one that called it. An
// error that is no Error is returned as it is.
func WithCode(err error, code string) error {
	var pe *Error
	if !errors.As(err, &pe) {
		return err
	}
	return &Error{Code: code, Field: pe.Field, Kind: pe.Kind, Message: pe.Message, Cause: err}
}

var namespacePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidateNamespace checks a namespace name: 1–64 characters of letters,
// digits, '.', '_' and '-', starting with a letter or digit.
func ValidateNamespace(ns string) error {
	if !namespacePattern.MatchString(ns) {
		return FieldInvalidf(CodeInvalidNamespace, "namespace", "namespace %q: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", ns)
	}
	return nil
}
