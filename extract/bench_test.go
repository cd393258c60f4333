package extract

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/testutil"
)

// benchSentences are typical captured sentences: statements, distractors
// and chatter in the mix a real conversation has.
var benchSentences = []string{
	"I prefer Vim for editing.",
	"Actually, I switched to Neovim last week.",
	"We use Postgres for the cache and Redis for sessions.",
	"Can you check why the build is failing on main?",
	"My sister loves jazz, but I can't stand it.",
	"Always run the linter before pushing.",
	"I'm thinking about moving to Berlin next year.",
	"Thanks, that looks good to me.",
	"Atlas is written in Go and deployed to Fly.io.",
	"If I lived in Paris I'd eat croissants every day.",
}

func BenchmarkExtractSentence(b *testing.B) {
	r := NewRules()
	ctx := context.Background()
	total := 0
	for _, s := range benchSentences {
		total += len(s)
	}
	b.SetBytes(int64(total / len(benchSentences)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := Event{Content: benchSentences[i%len(benchSentences)]}
		if _, err := r.Extract(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExtractMessage(b *testing.B) {
	r := NewRules()
	ctx := context.Background()
	msg := ""
	for _, s := range benchSentences {
		msg += s + " "
	}
	ev := Event{Content: msg}
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := r.Extract(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGate(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Gate(benchSentences[i%len(benchSentences)])
	}
}

func BenchmarkDetectInstruction(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		DetectInstruction(benchSentences[i%len(benchSentences)])
	}
}

// BenchmarkExtractInputs extracts every event of the -extract.inputs file
// (TestExtractionUnchanged's format) once per iteration: the CPU an event
// costs on a realistic mix, to compare two trees. Skipped without the flag.
func BenchmarkExtractInputs(b *testing.B) {
	if *unchangedInputs == "" {
		b.Skip("no -extract.inputs")
	}
	evs := readUnchangedInputs(b, *unchangedInputs)
	r := NewRules()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, ev := range evs {
			if _, err := r.Extract(ctx, ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs))/1e3, "us/event")
}

// BenchmarkExtractPeersNotes extracts the peers workload's notes (issue 22:
// every store runs the rules on its note; see engine/bench_peers_test.go for
// the workload), one note an op, as the driver stores them: title ": " text.
// cpu_us is the process's CPU per note, steadier than the wall time on a
// shared machine.
//
//	MNEMON_PEERS_WORKLOAD=/tmp/peers go test ./extract -run '^$' -bench ExtractPeersNotes -benchtime 10000x
func BenchmarkExtractPeersNotes(b *testing.B) {
	dir := os.Getenv("MNEMON_PEERS_WORKLOAD")
	if dir == "" {
		b.Skip("MNEMON_PEERS_WORKLOAD names no directory (see engine/bench_peers_test.go)")
	}
	type note struct {
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	notes := testutil.ReadPeersJSONL[note](b, filepath.Join(dir, "memories_10000.jsonl"))
	texts := make([]string, len(notes))
	for i, n := range notes {
		texts[i] = n.Title + ": " + n.Text
	}
	r := NewRules()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := r.Extract(ctx, Event{Content: texts[i%len(texts)]}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu_us")
}

// processCPU is the process's user and system time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
