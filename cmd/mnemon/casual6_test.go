package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Casual speech of issue 16, round six, through the real CLI on a real
// SQLite file: a message that opens on the speaker's name stores the
// name, "X instead" in the same session replaces the value before it, and
// "I'm off X" leaves the fact about X; the must-not cases store or change
// nothing.
func TestCLICasualSix(t *testing.T) {
	t.Parallel()
	type fact struct {
		Subject, Key, Value, Status string
	}
	for _, tc := range []struct {
		name  string
		lines []string
		live  []string // key=value facts that must be current and active
		gone  []string // key=value facts that must not be active
	}{
		{"introduction", []string{"hey, Tariku here, quick one about invoices"}, []string{"name=Tariku"}, nil},
		{"no introduction", []string{"this is Tariku's old laptop, still works", "it's Sunday here"}, nil, []string{"name=Tariku", "name=Sunday"}},
		{"instead", []string{"I drink green tea at my desk", "ok, a flat white instead"}, []string{"prefers:drink=flat white"}, []string{"prefers:drink=green tea"}},
		{"instead, no kin", []string{"I drink green tea at my desk", "walked to work instead"}, []string{"prefers:drink=green tea"}, nil},
		{"off it", []string{"I drink espresso every morning", "I'm off espresso for a while"}, nil, []string{"prefers:drink=espresso"}},
		{"off to it", []string{"I drink espresso every morning", "I'm off to the espresso bar"}, []string{"prefers:drink=espresso"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "m.db")
			for i, line := range tc.lines {
				at := []string{"2026-03-01T09:00:00Z", "2026-03-01T09:02:00Z", "2026-03-01T09:04:00Z"}[i]
				mnemonCLI(t, "remember", "--db", db, "--session", "chat-1", "--observed-at", at, line)
			}
			var res struct {
				Facts []fact `json:"facts"`
			}
			out := mnemonCLI(t, "facts", "--db", db, "--json")
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("facts output: %v\n%s", err, out)
			}
			active := func(kv string) bool {
				k, v, _ := strings.Cut(kv, "=")
				for _, f := range res.Facts {
					if f.Key == k && strings.EqualFold(f.Value, v) && f.Status == "active" {
						return true
					}
				}
				return false
			}
			for _, kv := range tc.live {
				if !active(kv) {
					t.Errorf("%q: no active %s: %+v", tc.lines, kv, res.Facts)
				}
			}
			for _, kv := range tc.gone {
				if active(kv) {
					t.Errorf("%q: %s still active: %+v", tc.lines, kv, res.Facts)
				}
			}
		})
	}
}
