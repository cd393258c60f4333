//go:build !unix

package testutil

import "time"

// ProcessCPU reports zero where getrusage is unavailable.
func ProcessCPU() time.Duration { return 0 }
