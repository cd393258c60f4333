//go:build !unix

// Package diskfree measures the free space of a file system.
package diskfree

import "errors"

// ErrUnmeasured: the free space is not measured on this platform.
var ErrUnmeasured = errors.New("not measured on this platform")

// Bytes is not measured on this platform.
func Bytes(string) (int64, error) {
	return 0, ErrUnmeasured
}
