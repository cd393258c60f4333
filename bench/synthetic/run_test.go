package synthetic

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// openTemp opens engines over real SQLite files in a test directory.
func openTemp(t *testing.T) Opener {
	dir := t.TempDir()
	return func(ctx context.Context, name string, ex extract.Extractor) (*engine.Engine, func() error, error) {
		st, err := sqlite.Open(ctx, filepath.Join(dir, name+".db"), sqlite.Options{Synchronous: "NORMAL"})
		if err != nil {
			return nil, nil, err
		}
		eng, err := engine.New(engine.Config{Store: st, Extractor: ex})
		if err != nil {
			st.Close()
			return nil, nil, err
		}
		return eng, func() error { eng.Close(); return st.Close() }, nil
	}
}

func TestRunEveryCondition(t *testing.T) {
	t.Parallel()
	spec := Spec{Seed: 1, Users: 3, Sessions: 6}
	rep, err := Run(context.Background(), Options{Spec: spec, Open: openTemp(t), Failures: 2})
	if err != nil {
		t.Fatal(err)
	}
	users := Generate(spec)
	questions, guess := 0, 0.0
	for _, u := range users {
		questions += len(u.Questions)
		for _, q := range u.Questions {
			guess += 1 / float64(len(q.Candidates))
		}
	}
	if rep.Questions != questions || rep.Split != "test" || len(rep.Scores) != len(Conditions()) {
		t.Fatalf("report: %+v", rep)
	}
	for _, s := range rep.Scores {
		if s.Questions != questions || s.Current+s.Previous != questions {
			t.Errorf("%s: %d questions (%d + %d), want %d", s.Condition, s.Questions, s.Current, s.Previous, questions)
		}
		if s.Accuracy < 0 || s.Accuracy > 1 || s.RecallAt1 > s.RecallAt5 {
			t.Errorf("%s: accuracy %v, recall@1 %v, recall@5 %v", s.Condition, s.Accuracy, s.RecallAt1, s.RecallAt5)
		}
		if len(s.Failures) > 2 {
			t.Errorf("%s: %d failures kept, asked for 2", s.Condition, len(s.Failures))
		}
		switch s.Condition {
		case NoMemory:
			if d := s.Accuracy - guess/float64(questions); d > 1e-9 || d < -1e-9 || s.RecallAt5 != 0 {
				t.Errorf("no memory: accuracy %v, want the uniform guess %v", s.Accuracy, guess/float64(questions))
			}
		case Window400, Window1600:
			if s.ContextWords > float64(windowWords(s.Condition)) {
				t.Errorf("%s: %v words of context", s.Condition, s.ContextWords)
			}
		case Hybrid, Lexical, Episodes:
			if s.RecallAt5 == 0 || s.Accuracy == 0 {
				t.Errorf("%s: recall@5 %v, accuracy %v: retrieval found nothing", s.Condition, s.RecallAt5, s.Accuracy)
			}
		}
	}
}

func TestParseConditions(t *testing.T) {
	t.Parallel()
	got, err := ParseConditions("hybrid, none,hybrid")
	if err != nil || len(got) != 2 || got[0] != Hybrid || got[1] != NoMemory {
		t.Fatalf("ParseConditions = %v, %v", got, err)
	}
	if _, err := ParseConditions("hybird"); err == nil {
		t.Fatal("an unknown condition was accepted")
	}
}

func TestSplitOf(t *testing.T) {
	t.Parallel()
	for seed, want := range map[uint64]string{1: "test", 999: "test", 1000: "tuning", 1999: "tuning", 2000: "test"} {
		if got := SplitOf(seed); got != want {
			t.Errorf("SplitOf(%d) = %s, want %s", seed, got, want)
		}
	}
}
