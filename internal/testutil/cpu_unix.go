//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time this process has used so far, user and
// system. On a shared machine it measures a benchmark's own work, where
// wall time measures the neighbours' load too.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
