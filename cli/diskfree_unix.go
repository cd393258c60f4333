//go:build unix

package cli

import "syscall"

// freeBytes is the space an unprivileged writer may still use on the file
// system holding dir.
func freeBytes(dir string) (int64, error) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return 0, err
	}
	return int64(fs.Bavail) * int64(fs.Bsize), nil
}
