package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
)

// headStore hands InTx's function an executor that either hides
// memory.SlotHeadReader (plain: the engine falls back to FindMemory and
// ListVersions) or keeps it, counting the slot histories read in full.
type headStore struct {
	memory.Store
	plain     bool
	histories atomic.Int64
}

type plainTx struct{ memory.Executor }

type countingTx struct {
	memory.Executor
	s *headStore
}

func (c countingTx) ListVersions(ctx context.Context, p memory.ListVersionsParams) ([]*memory.Version, error) {
	if p.MemoryID != "" {
		c.s.histories.Add(1)
	}
	return c.Executor.ListVersions(ctx, p)
}

func (c countingTx) ReadSlotHead(ctx context.Context, p memory.FindMemoryParams) (*memory.SlotHead, error) {
	return c.Executor.(memory.SlotHeadReader).ReadSlotHead(ctx, p)
}

func (h *headStore) InTx(ctx context.Context, fn func(tx memory.Executor) error) error {
	return h.Store.InTx(ctx, func(tx memory.Executor) error {
		if h.plain {
			return fn(plainTx{tx})
		}
		return fn(countingTx{tx, h})
	})
}

// Reconciling against a slot's head (memory.SlotHeadReader) decides
// exactly what reconciling against its whole history decides, on every
// path: a new value, a restatement, a contest and its resolution, weak
// evidence, a negation, a past-tense statement, late evidence, a slot
// reopened. Only the reads differ: the head path reads a history in full
// only where a past value is weighed. TestOnPostgres runs it there too.
func TestSlotHeadSameOutcomes(t *testing.T) {
	t.Parallel()
	type step struct {
		p   engine.RememberParams
		day int // observed at t0 + day days
	}
	key := func(k, v string, conf float64) engine.RememberParams {
		return engine.RememberParams{Text: "The user's " + k + " is " + v + ".", Key: k, Value: v, Confidence: conf}
	}
	text := func(s string) engine.RememberParams { return engine.RememberParams{Text: s} }
	script := []step{
		{text("My favorite editor is Vim."), 1},
		{text("My favorite editor is Vim."), 2},
		{text("Actually, I switched to Neovim as my editor."), 3},
		{text("I think my favorite editor is Emacs."), 4},
		{text("My favorite editor is Neovim."), 5},
		{text("I live in Lisbon."), 6},
		{text("I no longer live in Lisbon."), 7},
		{text("I live in Lisbon."), 8},
		{text("I used to live in Paris."), 9},
		{text("I used to live in Paris."), 10},
		{text("I live in Berlin."), 11},
		{text("I live in Madrid."), 3}, // late: observed before Berlin and Lisbon
		{text("I live in Lisbon."), 4}, // late, a value already in the history
		{text("I no longer live in Rome."), 12},
		{text("I used to live in Berlin."), 12},
		{text("I live in Lisbon."), 13}, // no live value left
		{key("team", "platform", 0.9), 12},
		{key("team", "search", 0.4), 13}, // weak evidence: contested
		{key("team", "search", 0.9), 14}, // confident restatement settles it
		{key("team", "payments", 0.9), 15},
		{key("team", "platform", 0.9), 2}, // late, in the history
		{key("team", "infra", 0.9), 1},    // late, not in the history
		{text("I no longer work on the payments team."), 16},
		{key("team", "payments", 0.9), 17},
		{text("Deploys go out on Tuesdays after the standup."), 18},
		{text("Deploys go out on Tuesdays after the standup!"), 19},
	}
	run := func(plain bool) ([]string, []string, int64) {
		st := openTestStore(t) // PostgreSQL under TestOnPostgres
		hs := &headStore{Store: st, plain: plain}
		clk := clock.NewManual(t0.Add(60 * 24 * time.Hour))
		e, err := engine.New(engine.Config{Store: hs, Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		ctx := context.Background()
		var outs []string
		seqOf := map[string]int{} // version id → "memory key/seq", ids differ between runs
		for i, s := range script {
			p := s.p
			p.Namespace = "ns"
			p.ObservedAt = t0.Add(time.Duration(s.day) * 24 * time.Hour)
			clk.Advance(time.Minute)
			res, err := e.Remember(ctx, p)
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			for _, o := range res.Outcomes {
				line := fmt.Sprintf("%d %s %s %v %q", i, o.Decision, o.Operation, o.Reasons, o.Content)
				if o.Version != nil {
					seqOf[o.Version.ID] = o.Version.Seq
					line += fmt.Sprintf(" %s seq %d %s conf %.4f", o.Version.Key, o.Version.Seq, o.Version.Status, o.Version.Confidence)
				}
				outs = append(outs, line)
			}
		}
		vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: "ns", WithoutEmbeddings: true})
		if err != nil {
			t.Fatal(err)
		}
		var final []string
		for _, v := range vs {
			if v.Kind == memory.KindEpisodic {
				continue
			}
			by := ""
			if v.SupersededBy != "" {
				by = fmt.Sprint(seqOf[v.SupersededBy])
			}
			final = append(final, fmt.Sprintf("%s seq %d %q %s %s by %s valid %s-%v conf %.4f reinf %d ev %d",
				v.Key, v.Seq, v.Value, v.Status, v.Operation, by, v.ValidFrom.Format(time.DateOnly), fmtEnd(v.ValidTo),
				v.Confidence, v.ReinforcementCount, len(v.EvidenceEpisodeIDs)))
		}
		return outs, final, hs.histories.Load()
	}
	headOuts, headFinal, headReads := run(false)
	plainOuts, plainFinal, _ := run(true)
	if strings.Join(headOuts, "\n") != strings.Join(plainOuts, "\n") {
		t.Errorf("outcomes differ:\nhead:\n  %s\nfull history:\n  %s", strings.Join(headOuts, "\n  "), strings.Join(plainOuts, "\n  "))
	}
	if strings.Join(headFinal, "\n") != strings.Join(plainFinal, "\n") {
		t.Errorf("stored versions differ:\nhead:\n  %s\nfull history:\n  %s", strings.Join(headFinal, "\n  "), strings.Join(plainFinal, "\n  "))
	}
	// The script must reach the paths it is meant to compare.
	all := strings.Join(headOuts, "\n")
	for _, want := range []string{"SUPERSEDE", "REINFORCE", "CONTEST", "NOOP", "same_value", "contest_resolved",
		"weak_evidence", "value_ended", "history", "late_evidence", "out_of_order", "slot_reopened", "history_restated"} {
		if !strings.Contains(all, want) {
			t.Errorf("no outcome says %s:\n  %s", want, strings.Join(headOuts, "\n  "))
		}
	}
	if headReads == 0 || headReads >= int64(len(script)) {
		t.Errorf("the head path read %d slot histories in full over %d remembers; want some, not one per remember", headReads, len(script))
	}
	t.Logf("full slot histories read on the head path: %d of %d remembers", headReads, len(script))
}

func fmtEnd(t *time.Time) string {
	if t == nil {
		return "open"
	}
	return t.Format(time.DateOnly)
}
