//go:build !unix

package cli

import "errors"

// freeBytes is not measured on this platform; doctor says so.
func freeBytes(string) (int64, error) {
	return 0, errors.New("not measured on this platform")
}
