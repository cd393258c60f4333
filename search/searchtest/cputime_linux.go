//go:build linux

package searchtest

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPU returns the CPU time consumed by the calling OS thread. Timing a
// query with it (on a locked thread) measures the work done, not the time
// spent waiting for a core, so latency benchmarks stay meaningful on a
// machine shared with other jobs.
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
