package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// hookBenchStore writes a database of n episodes (made-up engineering
// chat across 100 sessions) with mnemon capture, and returns its path.
func hookBenchStore(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	db := filepath.Join(dir, "bench.db")
	services := []string{"billing", "search", "gateway", "ledger", "notifier", "scheduler", "auth", "exporter"}
	actions := []string{"moved its queue to", "pinned its client to", "started logging to", "dropped support for", "raised its timeout for", "added a retry around"}
	things := []string{"the east cluster", "version 4 of the SDK", "the audit bucket", "the legacy CSV export", "the nightly batch", "the rate limiter", "the cache warmer"}
	var b strings.Builder
	for i := range n {
		text := fmt.Sprintf("The %s service %s %s in sprint %d.", services[i%len(services)], actions[(i/8)%len(actions)], things[(i/48)%len(things)], i%37)
		kind := "user_message"
		if i%2 == 1 {
			kind = "agent_message"
		}
		line, _ := json.Marshal(map[string]string{"kind": kind, "content": text, "session_id": fmt.Sprintf("bench-%d", i%100)})
		b.Write(line)
		b.WriteByte('\n')
	}
	if code, _, errs := hookRunB(map[string]string{"HOME": dir}, b.String(), "capture", "--db", db); code != 0 {
		tb.Fatalf("capture: %s", errs)
	}
	return db
}

// BenchmarkHookUserPrompt is one `mnemon hook user-prompt` in-process on a
// store of 2,000 episodes: opening the database and the engine, retrieving
// and packing 800 tokens (process start is not included; see the README
// for the wall time of the binary).
//
//	go test ./cli -run '^$' -bench BenchmarkHookUserPrompt -benchtime 20x
func BenchmarkHookUserPrompt(b *testing.B) {
	db := hookBenchStore(b, 2000)
	vars := map[string]string{"HOME": b.TempDir()}
	in := hookInput(map[string]any{"session_id": "bench-s", "prompt": "Which SDK version is the billing client pinned to?"})
	b.ResetTimer()
	for b.Loop() {
		code, out, _ := hookRunB(vars, in, "hook", "user-prompt", "--db", db)
		if code != 0 || out == "" {
			b.Fatalf("exit %d, output %q", code, out)
		}
	}
}
