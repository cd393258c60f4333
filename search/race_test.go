//go:build race

package search

// raceEnabled is true under the race detector, which makes the
// single-goroutine comparisons with a reference many times slower (about
// 5x) without anything for it to find; see scaled.
const raceEnabled = true
