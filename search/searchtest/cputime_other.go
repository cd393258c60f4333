//go:build !linux

package searchtest

import "time"

// ThreadCPU is unavailable on this platform and returns 0.
func ThreadCPU() time.Duration { return 0 }
