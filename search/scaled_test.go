package search

import "os"

// scaled is the number of queries a comparison with a reference runs: full
// without the race detector or with MNEMON_LONG_TESTS set, a third of it
// (at least 1) under -race, where the single-goroutine checks run about 5x
// slower and the detector has nothing to find in them. The fixtures and
// every check stay the same; only how many random queries are tried
// changes.
func scaled(full int) int {
	if raceEnabled && os.Getenv("MNEMON_LONG_TESTS") == "" {
		return max(1, full/3)
	}
	return full
}
