package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storableRange is how a refused time's message states the range.
const storableRange = "the storable range 1900-01-01 to 2200-01-01"

// TestCLITimeRange gives every time the CLI takes (flags, capture lines,
// an imported export) beyond the storable range and within it: out of
// range is a usage error (exit 2, one line naming the flag or field, the
// time and the range) that writes nothing; in range is taken.
func TestCLITimeRange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))
	mustRun := func(stdin string, args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, db, stdin, args...)
		if code != 0 {
			t.Fatalf("mnemon %v: exit %d: %s", args, code, errs)
		}
		return out
	}
	mustRun("", "remember", "Bob works at Initech.")
	mustRun("", "remember", "I prefer vim.", "--key", "prefers:editor", "--value", "vim", "--subject", "user")
	exported := mustRun("", "export")
	// exportAt writes the export with every episode dated at, to import.
	exportAt := func(at string) string {
		if len(at) == len("2006-01-02") {
			at += "T00:00:00Z" // an export's times are RFC 3339
		}
		var out bytes.Buffer
		for _, line := range strings.Split(strings.TrimSpace(exported), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			if ep, ok := rec["episode"].(map[string]any); ok {
				ep["occurred_at"] = at
			}
			b, _ := json.Marshal(rec)
			out.Write(append(b, '\n'))
		}
		path := filepath.Join(dir, "export-"+strings.ReplaceAll(at, ":", "")+".jsonl")
		if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}

	fields := []struct {
		field string // as the message names it
		call  func(at string) (stdin string, args []string)
	}{
		{"--observed-at", func(at string) (string, []string) {
			return "", []string{"remember", "I prefer emacs.", "--key", "prefers:editor", "--value", "emacs", "--subject", "user", "--observed-at", at}
		}},
		{"--valid-from", func(at string) (string, []string) {
			return "", []string{"remember", "I drink tea.", "--key", "drinks", "--value", "tea", "--valid-from", at}
		}},
		{"--valid-to", func(at string) (string, []string) {
			return "", []string{"remember", "I drink coffee.", "--key", "drinks", "--value", "coffee", "--valid-to", at}
		}},
		{"--as-of", func(at string) (string, []string) { return "", []string{"recall", "which editor?", "--as-of", at} }},
		{"--known-at", func(at string) (string, []string) { return "", []string{"recall", "which editor?", "--known-at", at} }},
		{"--as-of", func(at string) (string, []string) { return "", []string{"graph", "bob", "--as-of", at} }},
		{"occurred_at", func(at string) (string, []string) {
			return `{"kind":"user_message","content":"I moved to Oslo.","occurred_at":"` + at + `"}`, []string{"capture"}
		}},
		// One namespace for every import: an import needs an empty one, so
		// the last (in range) succeeds only if the refused ones wrote nothing.
		{"occurred_at", func(at string) (string, []string) {
			return "", []string{"--namespace", "imported", "import", exportAt(at)}
		}},
	}
	values := []struct {
		name, at, shown string
	}{
		{"year 9999", "9999-12-31T00:00:00Z", "9999-12-31T00:00:00Z"},
		{"year 1000", "1000-01-01", "1000-01-01T00:00:00Z"},
		{"zero time", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"},
		{"valid", "2024-03-01", ""},
	}
	// The store's stats before each call are those read after the previous
	// one (the cases run in order, nothing else writes): one read a case.
	before := mustRun("", "stats", "--json")
	for _, fc := range fields {
		for _, v := range values {
			stdin, args := fc.call(v.at)
			t.Run(strings.Join(args[:min(len(args), 3)], " ")+" "+fc.field+"/"+v.name, func(t *testing.T) {
				code, _, errs := runCLI(t, db, stdin, args...)
				if v.shown == "" {
					before = mustRun("", "stats", "--json") // a valid call may write
					if code != 0 {
						t.Fatalf("exit %d: %s", code, errs)
					}
					return
				}
				if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
					t.Fatalf("exit %d, stderr %q; want exit 2 and one line", code, errs)
				}
				for _, want := range []string{fc.field + " " + v.shown + " is", storableRange} {
					if !strings.Contains(errs, want) {
						t.Errorf("stderr %q does not say %q", errs, want)
					}
				}
				after := mustRun("", "stats", "--json")
				if after != before {
					t.Errorf("a refused time changed the store:\n%s\n%s", before, after)
				}
				before = after
			})
		}
	}
	// The zero time was refused, not taken as now: vim is still current.
	if out := mustRun("", "recall", "which editor do I prefer?"); !strings.Contains(out, "vim") {
		t.Errorf("the current editor:\n%s", out)
	}
}

// TestMCPRecallTimes calls the recall tool of `mnemon mcp` with as_of and
// known_at beyond the storable range: a tool error that starts with the
// code invalid_timestamp and names the field and the range. A recall as
// of a time in range can be explained and judged afterwards.
func TestMCPRecallTimes(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	s := mcpSession(t, db, "alice")
	if res := callTool(t, s, "remember", map[string]any{"text": "I live in Lisbon."}, nil); res.IsError {
		t.Fatalf("remember: %s", resultText(res))
	}
	for _, field := range []string{"as_of", "known_at"} {
		for _, at := range []string{"9999-12-31T00:00:00Z", "1000-01-01T00:00:00Z", "0001-01-01T00:00:00Z"} {
			res := callTool(t, s, "recall", map[string]any{"query": "where do I live?", field: at}, nil)
			text := resultText(res)
			if !res.IsError || !strings.HasPrefix(text, "invalid_timestamp: "+field+" "+at+" is") || !strings.Contains(text, storableRange) {
				t.Errorf("recall %s %s: error=%v %q", field, at, res.IsError, text)
			}
		}
	}
	// The end of the range: the fact is true then, and the trace is kept.
	var rec struct {
		RetrievalID string `json:"retrieval_id"`
		Items       []any  `json:"items"`
	}
	res := callTool(t, s, "recall", map[string]any{"query": "where do I live?", "as_of": "2200-01-01T00:00:00Z", "known_at": "2200-01-01T00:00:00Z"}, &rec)
	if res.IsError || len(rec.Items) == 0 {
		t.Fatalf("recall in range: %q %+v", resultText(res), rec)
	}
	if res := callTool(t, s, "explain", map[string]any{"id": rec.RetrievalID}, nil); res.IsError {
		t.Errorf("explain %s: %s", rec.RetrievalID, resultText(res))
	}
	if res := callTool(t, s, "feedback", map[string]any{"retrieval_id": rec.RetrievalID, "outcome": "helpful"}, nil); res.IsError {
		t.Errorf("feedback on %s: %s", rec.RetrievalID, resultText(res))
	}
}
