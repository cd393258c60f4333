package engine

// SetStopKeyMinForTest lowers e's stop key floor (stopKeyMin, 1000) to n,
// so a test meets it with a few hundred notes rather than over a thousand:
// under -race each note costs a capture. Call it before e serves.
func SetStopKeyMinForTest(e *Engine, n int) { e.testStopKeyMin = n }
