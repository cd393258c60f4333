//go:build unix

// Package diskfree measures the free space of a file system.
package diskfree

import "syscall"

// Bytes is the space an unprivileged writer may still use on the file
// system holding dir.
func Bytes(dir string) (int64, error) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return 0, err
	}
	return int64(fs.Bavail) * int64(fs.Bsize), nil
}
