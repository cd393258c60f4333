package extract

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/internal/testutil"
	"github.com/mnemon-dev/mnemon/memory"
)

// update rewrites the "got" lists of the golden corpus with what the
// extractor writes today. It never touches "want": that is the reviewed
// truth the output is measured against.
var update = flag.Bool("update", false, "rewrite the got facts of testdata/golden with the extractor's output")

// goldenEntry is one sentence of the precision corpus.
type goldenEntry struct {
	// Sentence is what the user says, as one event.
	Sentence string `json:"sentence"`
	// Context are earlier turns of the conversation, for the reviewer:
	// the extractor reads each event alone, so they are not extracted.
	Context []string `json:"context,omitempty"`
	// Want are the facts a careful reader stores; empty when nothing
	// should be (chit-chat, statements the schema cannot hold).
	Want []goldenFact `json:"want"`
	// Got are the facts the extractor writes today (-update).
	Got []goldenFact `json:"got"`
}

// goldenFact is a candidate as far as precision is concerned: the slot,
// the value, and whether it ends or replaces what was there.
type goldenFact struct {
	Subject string `json:"subject"`
	Key     string `json:"key"`
	Value   string `json:"value"`
	Cue     Cue    `json:"cue,omitempty"`
}

func (f goldenFact) String() string {
	s := fmt.Sprintf("%s/%s=%q", f.Subject, f.Key, f.Value)
	if f.Cue != CueNone {
		s += " cue=" + string(f.Cue)
	}
	return s
}

// The golden corpus is casual speech written for this test, with the facts a
// careful reader would store. The test fails when the extractor's output
// differs from the recorded "got", so every change to the rules shows up as
// a diff of the corpus and re-measures precision (|got ∩ want| / |got|)
// and recall (|got ∩ want| / |want|), logged per file. Precision must stay
// 1.0: a sentence the rules cannot read is better kept as an episode than
// stored as a wrong fact.
func TestGoldenPrecision(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden files in testdata/golden")
	}
	var allGot, allWant, allHit, sentences int
	for _, path := range files {
		entries := readGolden(t, path)
		sentences += len(entries)
		var got, want, hit int
		changed := false
		for i := range entries {
			e := &entries[i]
			facts := goldenExtract(t, e.Sentence)
			if !slices.Equal(facts, e.Got) {
				if *update {
					changed = true
				} else {
					t.Errorf("%s: %q\n got: %v\nrecorded: %v\n(run with -update to record it)", path, e.Sentence, facts, e.Got)
				}
			}
			e.Got = facts
			n := len(intersect(facts, e.Want))
			got, want, hit = got+len(facts), want+len(e.Want), hit+n
			if n < len(facts) {
				t.Logf("%s: wrong fact from %q: got %v, want %v", path, e.Sentence, facts, e.Want)
			}
		}
		if changed {
			writeGolden(t, path, entries)
		}
		t.Logf("%-40s %3d sentences  precision %s  recall %s", filepath.Base(path), len(entries), ratio(hit, got), ratio(hit, want))
		allGot, allWant, allHit = allGot+got, allWant+want, allHit+hit
	}
	t.Logf("%-40s %3d sentences  precision %s  recall %s", "all", sentences, ratio(allHit, allGot), ratio(allHit, allWant))
	if allHit < allGot {
		t.Errorf("precision %s: %d of %d facts written are wrong", ratio(allHit, allGot), allGot-allHit, allGot)
	}
}

// The corpus is written for mnemon, not lifted from what measures it: no
// run of four words of a golden sentence may appear in a bench/synthetic
// template, the scenario suite or (when present) the LoCoMo dev split.
func TestGoldenSharesNoWordRunsWithBenchmarks(t *testing.T) {
	bench := map[string]string{}
	add := func(where string, texts []string) {
		for _, s := range texts {
			for _, r := range wordRuns(s) {
				if _, ok := bench[r]; !ok {
					bench[r] = where + ": " + s
				}
			}
		}
	}
	src, err := os.ReadFile(filepath.Join("..", "bench", "synthetic", "templates.go"))
	if err != nil {
		t.Fatal(err)
	}
	add("bench/synthetic/templates.go", goTexts(t, "templates.go", src, false))
	suite, err := filepath.Glob(filepath.Join("..", "bench", "scenarios", "testdata", "suite", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range suite {
		add(path, jsonFileStrings(t, path))
	}
	if path, ok := testutil.FindShared("data/locomo/locomo-dev.json"); ok {
		add("LoCoMo dev", jsonFileStrings(t, path))
	}
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		for _, e := range readGolden(t, path) {
			for _, s := range append([]string{e.Sentence}, e.Context...) {
				for _, r := range wordRuns(s) {
					if where, ok := bench[r]; ok {
						t.Errorf("%s: %q shares %q with %s", path, s, r, clip(where))
					}
				}
			}
		}
	}
}

func jsonFileStrings(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return jsonStrings(doc, nil)
}

func readGolden(t *testing.T, path string) []goldenEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var entries []goldenEntry
	if err := dec.Decode(&entries); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for i, e := range entries {
		if strings.TrimSpace(e.Sentence) == "" || e.Want == nil {
			t.Fatalf("%s: entry %d needs a sentence and a want list (empty when nothing is stored)", path, i)
		}
	}
	return entries
}

func writeGolden(t *testing.T, path string, entries []goldenEntry) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, e := range entries {
		if e.Got == nil {
			e.Got = []goldenFact{}
		}
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("  ")
		b.Write(line)
		if i < len(entries)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goldenExtract runs the rules on one user message and returns the facts in
// a stable order.
func goldenExtract(t *testing.T, sentence string) []goldenFact {
	t.Helper()
	cs := extractAll(t, Event{Kind: memory.EpisodeUserMessage, Content: sentence})
	facts := make([]goldenFact, 0, len(cs))
	for _, c := range cs {
		facts = append(facts, goldenFact{Subject: c.Subject, Key: c.Key, Value: c.Value, Cue: c.Cue})
	}
	sort.SliceStable(facts, func(i, j int) bool { return facts[i].String() < facts[j].String() })
	return facts
}

// intersect returns the facts of got that want holds, each want fact
// matched at most once.
func intersect(got, want []goldenFact) []goldenFact {
	used := make([]bool, len(want))
	var out []goldenFact
	for _, g := range got {
		for i, w := range want {
			if !used[i] && g == w {
				used[i] = true
				out = append(out, g)
				break
			}
		}
	}
	return out
}

func ratio(n, d int) string {
	if d == 0 {
		return "  -  "
	}
	return fmt.Sprintf("%.3f", float64(n)/float64(d))
}
