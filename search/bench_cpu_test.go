package search_test

import "github.com/mnemon-dev/mnemon/internal/testutil"

// cpuNow is the process's CPU time in nanoseconds, user and system (zero
// where it is not measured): on a shared machine it measures a benchmark's
// own work.
func cpuNow() int64 { return int64(testutil.ProcessCPU()) }
