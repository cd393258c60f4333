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
	// ErrStorageFull means a write failed because the disk holding the
	// store is full (or the store reached a size limit). Nothing of the
	// write was kept; the same write succeeds once there is room.
	ErrStorageFull = errors.New("storage is full")
	// ErrChangesPruned means a change log position is older than the log
	// keeps: the changes after it are partly gone, so a follower standing
	// there must read the namespace again.
	ErrChangesPruned = errors.New("change log pruned past this position")
)

// Invalidf returns an error wrapping ErrInvalid with a message for the caller.
func Invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

var namespacePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidateNamespace checks a namespace name: 1–64 characters of letters,
// digits, '.', '_' and '-', starting with a letter or digit.
func ValidateNamespace(ns string) error {
	if !namespacePattern.MatchString(ns) {
		return Invalidf("namespace %q: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", ns)
	}
	return nil
}
