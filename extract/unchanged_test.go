package extract

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// A refactoring of the rules (a Go matcher moved into a pattern table)
// must not change what they extract. TestExtractionUnchanged checks that
// on any set of inputs, outside the repository: record the output of the
// old tree, then compare the new one with it.
//
//	go test ./extract -run TestExtractionUnchanged -extract.inputs in.jsonl -extract.record old.jsonl   # old tree
//	go test ./extract -run TestExtractionUnchanged -extract.inputs in.jsonl -extract.want old.jsonl     # new tree
//
// An input is one JSON object a line: {"text": ..., "kind": ...,
// "speaker": ..., "project": ...} (kind, speaker and project optional).
// What is recorded of it: the candidates, what Distractor says of the
// text, PlainMention's sentence for each candidate's value (the other
// readers of the rules' matchers) and what DetectInstruction says. Without -extract.inputs the test is
// skipped.
var (
	unchangedInputs = flag.String("extract.inputs", "", "JSON lines of events to extract (TestExtractionUnchanged)")
	unchangedRecord = flag.String("extract.record", "", "write the candidates of every input here, one JSON line each")
	unchangedWant   = flag.String("extract.want", "", "compare the candidates of every input with this recording")
)

func TestExtractionUnchanged(t *testing.T) {
	if *unchangedInputs == "" {
		t.Skip("no -extract.inputs")
	}
	if (*unchangedRecord == "") == (*unchangedWant == "") {
		t.Fatal("give one of -extract.record and -extract.want")
	}
	var got [][]byte
	r := NewRules()
	for i, ev := range readUnchangedInputs(t, *unchangedInputs) {
		cs, err := r.Extract(context.Background(), ev)
		if err != nil {
			t.Fatalf("input %d: %v", i+1, err)
		}
		var out struct {
			Candidates  []Candidate
			Distractor  string   `json:",omitempty"`
			Mentions    []string `json:",omitempty"`
			Instruction string   `json:",omitempty"`
		}
		out.Candidates = cs
		_, out.Instruction = DetectInstruction(ev.Content)
		if d, why := Distractor(ev.Content); d {
			out.Distractor = why
		}
		for _, c := range cs {
			if m, ok := PlainMention(ev.Content, c.Value); ok {
				out.Mentions = append(out.Mentions, m)
			}
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
	}
	if *unchangedRecord != "" {
		if err := os.WriteFile(*unchangedRecord, append(bytes.Join(got, []byte("\n")), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d inputs", len(got))
		return
	}
	b, err := os.ReadFile(*unchangedWant)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(want) != len(got) {
		t.Fatalf("%d inputs, %d recorded", len(got), len(want))
	}
	differ := 0
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			if differ++; differ <= 10 {
				t.Errorf("input %d:\n was %s\n now %s", i+1, want[i], got[i])
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d inputs extract differently", differ, len(got))
	}
}

// readUnchangedInputs reads a file of JSON lines into events, all at one
// fixed time.
func readUnchangedInputs(tb testing.TB, path string) []Event {
	in, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	var evs []Event
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct{ Text, Kind, Speaker, Project string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			tb.Fatalf("input %d: %v", len(evs)+1, err)
		}
		evs = append(evs, Event{Kind: memory.EpisodeKind(ev.Kind), Speaker: ev.Speaker,
			ProjectID: ev.Project, Content: ev.Text, OccurredAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return evs
}
