package engine_test

import "github.com/mnemon-dev/mnemon/internal/testutil"

// processCPU is the process's CPU time, user and system (zero where it is
// not measured): on a shared machine it measures a benchmark's own work.
var processCPU = testutil.ProcessCPU
