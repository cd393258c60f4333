//go:build !unix

package engine_test

import "time"

// processCPU is not measured here: the benchmarks report no cpu_us/op.
func processCPU() time.Duration { return 0 }
