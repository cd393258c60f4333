//go:build race

package engine_test

// raceEnabled is true when the tests run under the race detector, which
// makes the scale tests many times slower.
const raceEnabled = true
