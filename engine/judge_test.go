package engine_test

import (
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// judgeEngine is lcEngine with the fake provider's chat model as the
// duplicate judge.
func judgeEngine(t *testing.T, te lcEmbedder, fake *openaitest.Server, jc engine.JudgeConfig) (*engine.Engine, memory.Store) {
	t.Helper()
	st := sqlitetest.OpenAt(t, filepath.Join(t.TempDir(), "mnemon.db"), sqlite.Options{})
	e, err := engine.New(engine.Config{Store: st, Clock: clock.NewManual(t0), Embedder: te, Chat: chatClient(t, fake), DuplicateJudge: &jc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		st.Close()
	})
	return e, st
}

// pairAnswers answers the judge by the pair it is asked about: the
// verdict of the first entry whose two texts both appear in the prompt,
// else "different"; it counts the questions.
type pairAnswers struct {
	mu    sync.Mutex
	asked int
	rules [][3]string // text a, text b, content of the reply
}

func (p *pairAnswers) answer(_, user string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked++
	for _, r := range p.rules {
		if strings.Contains(user, r[0]) && strings.Contains(user, r[1]) {
			return r[2]
		}
	}
	return `{"verdict":"different"}`
}

// Below the threshold, in the band, only a "same" verdict merges; the
// verdicts are kept, so a second run asks nothing.
func TestDuplicateJudgeMergesOnlySame(t *testing.T) {
	t.Parallel()
	const (
		A = "The user likes jazz."
		B = "Jazz is music the user enjoys."
		C = "The user plays jazz piano."
		F = "The user lives in Lisbon."
	)
	te := lcEmbedder{A: lcAt(1, false), B: lcAt(0.86, false), C: lcAt(0.85, true), F: {0, 0, 0, 0, 1, 0}}
	fake := openaitest.New(t, "fake-embed", 8)
	answers := &pairAnswers{rules: [][3]string{{A, B, `{"verdict":"same"}`}, {A, C, `{"verdict":"different"}`}}}
	fake.Answer(answers.answer)
	e, st := judgeEngine(t, te, fake, engine.JudgeConfig{})
	a := lcFact(t, e, engine.RememberParams{Text: A, Key: "likes:jazz", Value: "jazz", Confidence: 0.9})
	b := lcFact(t, e, engine.RememberParams{Text: B, Key: "prefers:music", Value: "jazz", Confidence: 0.8})
	c := lcFact(t, e, engine.RememberParams{Text: C, Key: "plays:instrument", Value: "jazz piano", Confidence: 0.8})
	f := lcFact(t, e, engine.RememberParams{Text: F, Key: "lives_in", Value: "Lisbon"})

	rep := lcDedupe(t, e, engine.DedupeParams{})
	// A-B 0.86 and A-C 0.85 are in the band; B-C (0.46) and F are not.
	if rep.Judged != 2 || rep.JudgedSame != 1 || rep.Superseded != 1 || rep.More {
		t.Fatalf("report %+v: want 2 pairs judged, 1 merged", rep)
	}
	if v := lcVersion(t, st, b.ID); v.Status != memory.StatusSuperseded || v.SupersededBy != a.ID {
		t.Fatalf("B is %s by %q; want superseded by A", v.Status, v.SupersededBy)
	}
	if !strings.Contains(rep.Changes[0].Detail, "judged the same fact by fake-chat") {
		t.Fatalf("the change does not say the model judged it: %q", rep.Changes[0].Detail)
	}
	for _, id := range []string{a.ID, c.ID, f.ID} {
		if v := lcVersion(t, st, id); v.Status != memory.StatusActive {
			t.Fatalf("%q is %s; want it kept", v.Content, v.Status)
		}
	}
	asked := answers.asked
	again := lcDedupe(t, e, engine.DedupeParams{})
	if again.Judged != 0 || again.Superseded != 0 || answers.asked != asked {
		t.Fatalf("second run: %+v, %d more questions; want none", again, answers.asked-asked)
	}
}

// "When unsure, keep both": unsure, malformed replies, another shape, an
// unknown word and a failing provider all keep both facts; a failure
// leaves the pair for the next run.
func TestDuplicateJudgeKeepsBothWhenUnsure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		reply openaitest.Reply
		more  bool
	}{
		{"unsure", openaitest.Reply{Content: `{"verdict":"unsure"}`}, false},
		{"not JSON", openaitest.Reply{Content: `same`}, false},
		{"truncated JSON", openaitest.Reply{Content: `{"verdict":"sa`}, false},
		{"wrong schema", openaitest.Reply{Content: `{"answer":"same"}`}, false},
		{"unknown verdict", openaitest.Reply{Content: `{"verdict":"probably same"}`}, false},
		{"server error", openaitest.Reply{Status: 500}, true},
		{"rate limited", openaitest.Reply{Status: 429, RetryAfter: "120"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const A, B = "The user likes jazz.", "Jazz is music the user enjoys."
			fake := openaitest.New(t, "fake-embed", 8)
			fake.Answer(func(_, _ string) string { return `{"verdict":"same"}` }) // after the scripted reply
			e, st := judgeEngine(t, lcEmbedder{A: lcAt(1, false), B: lcAt(0.86, false)}, fake, engine.JudgeConfig{})
			a := lcFact(t, e, engine.RememberParams{Text: A, Key: "likes:jazz", Value: "jazz", Confidence: 0.9})
			b := lcFact(t, e, engine.RememberParams{Text: B, Key: "prefers:music", Value: "jazz", Confidence: 0.8})
			fake.Script("/v1/chat/completions", tc.reply)
			rep := lcDedupe(t, e, engine.DedupeParams{})
			if rep.Judged != 1 || rep.Superseded != 0 || rep.More != tc.more {
				t.Fatalf("report %+v: want one question, nothing merged, more %v", rep, tc.more)
			}
			for _, id := range []string{a.ID, b.ID} {
				if v := lcVersion(t, st, id); v.Status != memory.StatusActive {
					t.Fatalf("%q is %s; want both kept", v.Content, v.Status)
				}
			}
			// A reply that was no verdict is not asked again; a provider
			// that did not answer is (and now says "same").
			again := lcDedupe(t, e, engine.DedupeParams{})
			if merged := again.Superseded == 1; merged != tc.more {
				t.Fatalf("second run %+v: merged %v, want %v", again, merged, tc.more)
			}
		})
	}
}

// A run asks at most Calls questions and says there is more; the next
// run asks the pairs left.
func TestDuplicateJudgeBoundedCalls(t *testing.T) {
	t.Parallel()
	texts := []string{"Fact one about jazz.", "Fact two about jazz.", "Fact three about jazz.", "Fact four about jazz."}
	// Each at cosine 0.85 with every other (a shared axis and one of its
	// own): six pairs, all in the band.
	te := lcEmbedder{}
	for i, s := range texts {
		v := make([]float32, 6)
		v[0], v[i+1] = float32(math.Sqrt(0.85)), float32(math.Sqrt(0.15))
		te[s] = v
	}
	fake := openaitest.New(t, "fake-embed", 8)
	answers := &pairAnswers{}
	fake.Answer(answers.answer)
	e, _ := judgeEngine(t, te, fake, engine.JudgeConfig{Calls: 2})
	for i, s := range texts {
		lcFact(t, e, engine.RememberParams{Text: s, Key: "note:jazz_" + string(rune('a'+i)), Value: s})
	}
	rep := lcDedupe(t, e, engine.DedupeParams{})
	if rep.Judged != 2 || !rep.More || answers.asked != 2 {
		t.Fatalf("report %+v, %d questions: want 2 and more to do", rep, answers.asked)
	}
	next := lcDedupe(t, e, engine.DedupeParams{})
	if next.Judged == 0 || next.Judged > 2 || answers.asked != 2+next.Judged {
		t.Fatalf("second run %+v, %d questions in all", next, answers.asked)
	}
}
