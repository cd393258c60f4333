package testutil

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// ReadPeersJSONL reads a JSON-lines file of the peers workload
// (../shared/peers) into values of T. A missing file skips the test or
// benchmark, saying how to generate it; a malformed line fails it.
func ReadPeersJSONL[T any](tb testing.TB, path string) []T {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("peers workload: %v (generate it with ../shared/peers/gen_workload.py)", err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}
