//go:build race

package main

// raceEnabled is true under the race detector, which makes regenerating
// the table (parsing a 300 MB JSON file) about seven times slower.
const raceEnabled = true
