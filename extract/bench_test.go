package extract

import (
	"context"
	"testing"
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
