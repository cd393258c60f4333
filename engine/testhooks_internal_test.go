package engine

// Hooks for the external tests (package engine_test) to meet a bound with
// less data: under -race every note a test writes costs a capture. Call
// them before the engine serves.

// SetStopKeyMinForTest lowers e's stop key floor (stopKeyMin, 1000) to n.
func SetStopKeyMinForTest(e *Engine, n int) { e.testStopKeyMin = n }

// SetReembedBatchForTest sets the versions e re-embeds per transaction
// (reembedBatch, 128) to n.
func SetReembedBatchForTest(e *Engine, n int) { e.testReembedBatch = n }
