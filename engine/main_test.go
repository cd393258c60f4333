package engine_test

import (
	"flag"
	"os"
	"runtime"
	"testing"
)

// TestMain runs four tests at a time on fewer than four cores, as cli's
// does: several of this package's tests mostly wait (a model client's
// timeout, a query budget, a slow fake provider), and with the default
// (-parallel GOMAXPROCS) two of them leave a small machine's cores idle.
// An explicit -parallel wins.
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit && runtime.GOMAXPROCS(0) < 4 {
		_ = flag.Set("test.parallel", "4")
	}
	os.Exit(m.Run())
}
