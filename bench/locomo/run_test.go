package locomo

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/engine/enginetest"
	"github.com/mnemon-dev/mnemon/internal/testutil"
)

func newEngine(t *testing.T) *engine.Engine { return enginetest.Temp(t) }

// The harness end to end on the invented fixture: every scored question
// is asked of every arm, and an easy one is answered first by both.
func TestRunTiny(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	samples := loadTiny(t)
	eng := newEngine(t)
	corpus, err := Ingest(ctx, eng, samples, nil)
	if err != nil {
		t.Fatal(err)
	}
	bm, err := NewBM25Arm()
	if err != nil {
		t.Fatal(err)
	}
	var dump bytes.Buffer
	rep, err := Run(ctx, samples, []Arm{NewEngineArm("mnemon", eng, corpus, EngineOptions{}), bm}, Options{Ks: []int{1, 10}, Budgets: []int{1, 5000}, Dump: &dump})
	if err != nil {
		t.Fatal(err)
	}
	// The dump has one line per arm and scored question, each naming its
	// evidence and the turns the items cite.
	lines := strings.Split(strings.TrimSpace(dump.String()), "\n")
	if len(lines) != 2*rep.Questions {
		t.Fatalf("dump: %d lines, want %d", len(lines), 2*rep.Questions)
	}
	for _, l := range lines {
		var r QuestionResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("dump line %q: %v", l, err)
		}
		if r.Arm == "" || r.Question == "" || len(r.Gold) == 0 || len(r.Ranked) != len(r.Tokens) || len(r.Ranked) > 10 {
			t.Errorf("dump line %+v", r)
		}
	}
	if rep.Questions != 5 || rep.Skipped != 2 || rep.Turns != 7 || len(rep.Arms) != 2 {
		t.Fatalf("report: %d questions, %d skipped, %d turns, %d arms", rep.Questions, rep.Skipped, rep.Turns, len(rep.Arms))
	}
	for _, a := range rep.Arms {
		if a.Headline.N != 4 || a.Headline.RecallAll[1] < 0.5 || a.TokensTop10 <= 0 {
			t.Errorf("%s: headline %+v, tokens %v", a.Name, a.Headline, a.TokensTop10)
		}
		// One token fits no item; 5,000 fit every item the tiny
		// conversations hold, so recall within it is recall at 100.
		if len(a.Within) != 2 || a.Within[0].Tokens != 1 || a.Within[0].RecallAll != 0 ||
			a.Within[1].RecallAll < a.Headline.RecallAll[1] {
			t.Errorf("%s: recall within budgets %+v (recall_all@10 %v)", a.Name, a.Within, a.Headline.RecallAll[1])
		}
		if c := a.Categories[len(a.Categories)-1]; c.Category != Adversarial || c.N != 1 {
			t.Errorf("%s: category 5 not reported apart: %+v", a.Name, a.Categories)
		}
	}
}

// The BM25 arm reproduces the reference numbers of the data's README
// (recall_all@10 0.545 for categories 1-4, 0.106 for multi-hop) within the
// spread that stop-list choices make; the engine runs on one conversation.
func TestRunLoCoMoDev(t *testing.T) {
	path, ok := testutil.FindShared("data/locomo/locomo-dev.json")
	if !ok {
		t.Skip("LoCoMo data not found beside the repository")
	}
	samples, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	bm, err := NewBM25Arm()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rep, err := Run(ctx, samples, []Arm{bm}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	i := rep.Arms[0].Headline.At(10)
	if got := rep.Arms[0].Headline.RecallAll[i]; math.Abs(got-0.545) > 0.01 {
		t.Errorf("BM25 recall_all@10 = %.3f, want 0.545 ± 0.01", got)
	}
	if got := rep.Arms[0].Categories[0].RecallAll[i]; math.Abs(got-0.106) > 0.01 {
		t.Errorf("BM25 multi-hop recall_all@10 = %.3f, want 0.106 ± 0.01", got)
	}

	one := samples[:1]
	eng := newEngine(t)
	corpus, err := Ingest(ctx, eng, one, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Run(ctx, one, []Arm{NewEngineArm("mnemon", eng, corpus, EngineOptions{Context: 1})}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Arms[0].Headline.RecallAll[i]; got < 0.4 {
		t.Errorf("mnemon (context 1) recall_all@10 on %s = %.3f; it was 0.6 when this test was written", one[0].ID, got)
	}
}
