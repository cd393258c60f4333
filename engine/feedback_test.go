package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// fbWorld holds one fact ("The user lives in Lisbon.") and a retrieval
// that returned it.
type fbWorld struct {
	e     *engine.Engine
	st    memory.Store
	ns    string
	fact  *memory.Version
	query string
}

func newFBWorld(t *testing.T, statements ...string) *fbWorld {
	t.Helper()
	e, clk, st := newEngine(t)
	w := &fbWorld{e: e, st: st, ns: "default", query: "where does the user live?"}
	if len(statements) == 0 {
		statements = []string{"I live in Lisbon."}
	}
	for _, s := range statements {
		remember(t, e, w.ns, s, clk.Now())
		clk.Advance(time.Minute)
	}
	vs := factByKey(t, e, w.ns, "lives_in", false)
	if len(vs) != 1 {
		t.Fatalf("lives_in versions: %d, want 1", len(vs))
	}
	w.fact = vs[0]
	return w
}

// ask retrieves and returns the retrieval id and the fact's item (nil when
// not served).
func (w *fbWorld) ask(t *testing.T) (string, *engine.Item) {
	t.Helper()
	res := retrieve(t, w.e, engine.RetrieveParams{Namespace: w.ns, Query: w.query})
	for i := range res.Items {
		if res.Items[i].VersionID == w.fact.ID {
			return res.RetrievalID, &res.Items[i]
		}
	}
	return res.RetrievalID, nil
}

func (w *fbWorld) version(t *testing.T) *memory.Version {
	t.Helper()
	v, err := w.st.GetVersion(context.Background(), memory.GetParams{Namespace: w.ns, ID: w.fact.ID})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (w *fbWorld) feedback(t *testing.T, p engine.FeedbackParams) *engine.FeedbackResult {
	t.Helper()
	p.Namespace = w.ns
	res, err := w.e.Feedback(context.Background(), p)
	if err != nil {
		t.Fatalf("feedback %+v: %v", p, err)
	}
	return res
}

func ptrTo[T any](v T) *T { return &v }

func TestFeedbackReinforceIfUsed(t *testing.T) {
	cases := []struct {
		name       string
		p          engine.FeedbackParams
		reinforced bool
	}{
		{"output uses the value", engine.FeedbackParams{Output: "You live in Lisbon, so the meetup there suits you."}, true},
		{"output about something else", engine.FeedbackParams{Output: "Here is the weather forecast for tomorrow."}, false},
		{"named, no output", engine.FeedbackParams{MemoryIDs: []string{"FACT"}}, true},
		{"not named, no output", engine.FeedbackParams{}, false},
		{"used but the task failed", engine.FeedbackParams{Output: "You live in Lisbon.", TaskSucceeded: ptrTo(false)}, false},
		{"named, task failed", engine.FeedbackParams{MemoryIDs: []string{"FACT"}, TaskSucceeded: ptrTo(false)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newFBWorld(t)
			ret, it := w.ask(t)
			if it == nil {
				t.Fatal("the fact is not served")
			}
			before := w.version(t)
			p := c.p
			p.RetrievalID, p.Outcome = ret, memory.OutcomeHelpful
			for i, id := range p.MemoryIDs {
				if id == "FACT" {
					p.MemoryIDs[i] = w.fact.MemoryID
				}
			}
			res := w.feedback(t, p)
			var fb *memory.Feedback
			for _, f := range res.Applied {
				if f.VersionID == w.fact.ID {
					fb = f
				}
			}
			if fb == nil {
				t.Fatalf("no event for the fact: %+v", res)
			}
			after := w.version(t)
			if fb.Reinforced != c.reinforced {
				t.Fatalf("reinforced %v, want %v (used %v, overlap %v)", fb.Reinforced, c.reinforced, fb.Used, fb.Overlap)
			}
			if c.reinforced {
				if after.ReinforcementCount != before.ReinforcementCount+1 || after.Usefulness <= before.Usefulness {
					t.Fatalf("reinforcement %d → %d, usefulness %.2f → %.2f", before.ReinforcementCount, after.ReinforcementCount, before.Usefulness, after.Usefulness)
				}
				if want := before.Usefulness + engine.HelpfulGain*(1-before.Usefulness); !near(after.Usefulness, want) {
					t.Fatalf("usefulness %.4f, want %.4f", after.Usefulness, want)
				}
			} else if after.ReinforcementCount != before.ReinforcementCount || after.Usefulness != before.Usefulness || after.Trust != before.Trust {
				t.Fatalf("not reinforced, yet the version moved: %+v → %+v", before, after)
			}
			if p.Output != "" && fb.Overlap == nil {
				t.Fatal("output given, overlap not measured")
			}
			// Feedback never edits the claim, its validity or confidence.
			if after.Value != before.Value || after.Confidence != before.Confidence || !after.ValidFrom.Equal(before.ValidFrom) || after.ValidTo != nil {
				t.Fatalf("feedback edited the claim: %+v", after)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-3 && b-a < 1e-3 }

func TestFeedbackSeverityScaling(t *testing.T) {
	t.Parallel()
	for _, sev := range []float64{0, 0.2, 0.5, 1} {
		w := newFBWorld(t)
		ret, _ := w.ask(t)
		before := w.version(t)
		w.feedback(t, engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeHarmful, Severity: ptrTo(sev), MemoryIDs: []string{w.fact.ID}})
		after := w.version(t)
		want := before.Usefulness * (1 - engine.HarmfulLoss*sev)
		if !near(after.Usefulness, want) || after.FailureCount != before.FailureCount+1 {
			t.Fatalf("severity %.1f: usefulness %.4f (want %.4f), failures %d", sev, after.Usefulness, want, after.FailureCount)
		}
	}
	// Without a severity, harmful weighs 1.
	w := newFBWorld(t)
	ret, _ := w.ask(t)
	res := w.feedback(t, engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeHarmful, MemoryIDs: []string{w.fact.ID}})
	if res.Applied[0].Severity != 1 || !near(w.version(t).Usefulness, 0.25) {
		t.Fatalf("default severity %v, usefulness %.4f", res.Applied[0].Severity, w.version(t).Usefulness)
	}
	// Unused: a small decrease, no failure.
	w = newFBWorld(t)
	ret, _ = w.ask(t)
	w.feedback(t, engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeUnused, MemoryIDs: []string{w.fact.ID}})
	if v := w.version(t); !near(v.Usefulness, 0.5*(1-engine.UnusedLoss)) || v.FailureCount != 0 {
		t.Fatalf("unused: usefulness %.4f, failures %d", v.Usefulness, v.FailureCount)
	}
}

// TestFeedbackEMASmoothing: one harmful outcome cannot drop a FOLLOW
// memory below HINT, and trust moves only part of the way each time.
func TestFeedbackEMASmoothing(t *testing.T) {
	t.Parallel()
	w := newFBWorld(t, "I live in Lisbon.", "I live in Lisbon.", "I live in Lisbon.")
	ret, it := w.ask(t)
	if it == nil || it.Action != memory.ActionFollow {
		t.Fatalf("a fact said three times: %+v, want FOLLOW", it)
	}
	followTrust := it.Trust
	res := w.feedback(t, engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeHarmful, Severity: ptrTo(1.0), MemoryIDs: []string{w.fact.ID}})
	fb := res.Applied[0]
	if fb.TrustAfter >= fb.TrustBefore {
		t.Fatalf("harmful did not lower trust: %.3f → %.3f", fb.TrustBefore, fb.TrustAfter)
	}
	_, it = w.ask(t)
	if it == nil || it.Action == memory.ActionIgnore || it.Trust < engine.DefaultRanking().HintAt {
		t.Fatalf("after one harmful outcome: %+v (trust was %.3f), want at least HINT", it, followTrust)
	}
	// The drop is at most TrustEMA of the way to the target.
	if drop := fb.TrustBefore - fb.TrustAfter; drop > engine.TrustEMA*fb.TrustBefore+1e-9 {
		t.Fatalf("trust fell %.3f in one step", drop)
	}
	if it.Uncertainty <= 0 || it.Uncertainty >= 1 {
		t.Fatalf("uncertainty %.3f after 2 confirmations and 1 failure", it.Uncertainty)
	}
}

// TestFeedbackHarmfulArchival: repeated harmful outcomes expire the
// version; it leaves retrieval and stays as history.
func TestFeedbackHarmfulArchival(t *testing.T) {
	t.Parallel()
	w := newFBWorld(t)
	var expiredAt int
	for i := 1; i <= 6; i++ {
		ret, it := w.ask(t)
		if it == nil {
			expiredAt = i
			break
		}
		w.feedback(t, engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeHarmful, MemoryIDs: []string{w.fact.ID}})
	}
	if expiredAt == 0 {
		t.Fatalf("still served after 6 harmful outcomes: %+v", w.version(t))
	}
	v := w.version(t)
	if v.Status != memory.StatusExpired || v.Usefulness > engine.ExpireUsefulness || v.ValidTo != nil {
		t.Fatalf("after harm: status %s usefulness %.4f valid_to %v", v.Status, v.Usefulness, v.ValidTo)
	}
	// Four outcomes at severity 1 take 0.5 to 0.03125.
	if expiredAt != 5 {
		t.Fatalf("expired after %d outcomes, want 4", expiredAt-1)
	}
	hist := factByKey(t, w.e, w.ns, "lives_in", true)
	if len(hist) != 1 || hist[0].Status != memory.StatusExpired {
		t.Fatalf("history: %+v", hist)
	}
	ex, err := w.e.Explain(context.Background(), w.ns, w.fact.MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	fbs := ex.Memory.Versions[0].Feedback
	if len(fbs) != 4 || fbs[3].StatusAfter != memory.StatusExpired || fbs[0].UsefulnessBefore != 0.5 {
		t.Fatalf("feedback history: %d events, last %+v", len(fbs), fbs[len(fbs)-1])
	}
	if why := strings.Join(ex.Memory.Versions[0].Why, "\n"); !strings.Contains(why, "expired") {
		t.Fatalf("explanation does not say it expired:\n%s", why)
	}
}

func TestFeedbackIdempotent(t *testing.T) {
	t.Parallel()
	w := newFBWorld(t)
	ret, _ := w.ask(t)
	p := engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeHelpful, MemoryIDs: []string{w.fact.ID}}
	first := w.feedback(t, p)
	v1 := w.version(t)
	again := w.feedback(t, p)
	if len(first.Applied) != 1 || len(again.Applied) != 0 || len(again.Duplicates) != 1 {
		t.Fatalf("first %+v, again %+v", first, again)
	}
	if v2 := w.version(t); v2.ReinforcementCount != v1.ReinforcementCount || v2.Usefulness != v1.Usefulness {
		t.Fatalf("the repeat moved the version: %+v → %+v", v1, v2)
	}
	// Another source's judgement is its own event.
	p.Source = memory.SourceUser
	if other := w.feedback(t, p); len(other.Applied) != 1 {
		t.Fatalf("another source: %+v", other)
	}
}

func TestFeedbackBadInput(t *testing.T) {
	t.Parallel()
	w := newFBWorld(t)
	ret, _ := w.ask(t)
	remember(t, w.e, "other", "I live in Porto.", t0)
	otherRet := retrieve(t, w.e, engine.RetrieveParams{Namespace: "other", Query: w.query}).RetrievalID
	before := w.version(t)
	cases := []struct {
		name string
		p    engine.FeedbackParams
		want error
	}{
		{"unknown retrieval", engine.FeedbackParams{RetrievalID: "ret_nope", Outcome: memory.OutcomeHelpful}, memory.ErrNotFound},
		{"another namespace's retrieval", engine.FeedbackParams{RetrievalID: otherRet, Outcome: memory.OutcomeHelpful}, memory.ErrNotFound},
		{"no retrieval", engine.FeedbackParams{Outcome: memory.OutcomeHelpful}, memory.ErrInvalid},
		{"bad outcome", engine.FeedbackParams{RetrievalID: ret, Outcome: "great"}, memory.ErrInvalid},
		{"bad source", engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeHelpful, Source: "oracle"}, memory.ErrInvalid},
		{"severity above 1", engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeHarmful, Severity: ptrTo(1.5)}, memory.ErrInvalid},
		{"negative severity", engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeHarmful, Severity: ptrTo(-1.0)}, memory.ErrInvalid},
		{"not a memory id", engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeHelpful, MemoryIDs: []string{"ep_1"}}, memory.ErrInvalid},
		{"memory not in the retrieval", engine.FeedbackParams{RetrievalID: ret, Outcome: memory.OutcomeHelpful, MemoryIDs: []string{w.fact.MemoryID, "mem_nope"}}, engine.ErrNotInRetrieval},
	}
	for _, c := range cases {
		c.p.Namespace = w.ns
		_, err := w.e.Feedback(context.Background(), c.p)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	// Nothing was written.
	fbs, err := w.st.ListFeedback(context.Background(), memory.ListFeedbackParams{Namespace: w.ns})
	if err != nil || len(fbs) != 0 {
		t.Fatalf("feedback rows after bad input: %d (%v)", len(fbs), err)
	}
	if after := w.version(t); after.Usefulness != before.Usefulness || after.ReinforcementCount != before.ReinforcementCount || after.FailureCount != before.FailureCount {
		t.Fatalf("bad input moved the version: %+v", after)
	}
}

func TestExplainMemoryAndRetrieval(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	ns := "default"
	first := remember(t, e, ns, "My favorite editor is Vim.", clk.Now())
	clk.Advance(time.Hour)
	remember(t, e, ns, "Actually, I switched to Neovim for my editor.", clk.Now())
	res := retrieve(t, e, engine.RetrieveParams{Namespace: ns, Query: "which editor does the user prefer?"})
	var neovim *engine.Item
	for i := range res.Items {
		if res.Items[i].Value == "Neovim" {
			neovim = &res.Items[i]
		}
	}
	if neovim == nil {
		t.Fatalf("Neovim not served: %+v", res.Items)
	}
	if _, err := e.Feedback(context.Background(), engine.FeedbackParams{Namespace: ns, RetrievalID: res.RetrievalID,
		Outcome: memory.OutcomeHelpful, Output: "Open it in Neovim."}); err != nil {
		t.Fatal(err)
	}

	ex, err := e.Explain(context.Background(), ns, first.Outcomes[0].MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	me := ex.Memory
	if me == nil || ex.Retrieval != nil || len(me.Versions) != 2 {
		t.Fatalf("explanation: %+v", ex)
	}
	v1, v2 := me.Versions[0], me.Versions[1]
	if v1.Version.Status != memory.StatusSuperseded || v2.Operation != memory.OpSupersede {
		t.Fatalf("versions: %s %s / %s %s", v1.Version.Status, v1.Operation, v2.Version.Status, v2.Operation)
	}
	if len(me.Chain) != 2 || me.Chain[0] != v1.Version.ID || me.Chain[1] != v2.Version.ID {
		t.Fatalf("chain %v", me.Chain)
	}
	if len(v1.Admissions) == 0 || len(v1.Admissions[0].Reasons) == 0 || len(me.Episodes) != 2 {
		t.Fatalf("admissions %+v, episodes %d", v1.Admissions, len(me.Episodes))
	}
	if len(v2.Feedback) != 1 || !v2.Feedback[0].Reinforced || len(v1.Feedback) != 0 {
		t.Fatalf("feedback: v1 %+v, v2 %+v", v1.Feedback, v2.Feedback)
	}
	if v1.Version.Embedding != nil {
		t.Fatal("explain returns embeddings")
	}
	why := strings.Join(v2.Why, "\n")
	for _, want := range []string{"superseded the previous value", "helpful from agent", "reinforced", "trust"} {
		if !strings.Contains(why, want) {
			t.Errorf("why of v2 lacks %q:\n%s", want, why)
		}
	}

	ex, err = e.Explain(context.Background(), ns, res.RetrievalID)
	if err != nil {
		t.Fatal(err)
	}
	re := ex.Retrieval
	if re == nil || len(re.Items) != len(re.Trace.Items) || len(re.Feedback) == 0 {
		t.Fatalf("retrieval explanation: %+v", re)
	}
	for _, it := range re.Items {
		if it.Why == "" || !strings.Contains(it.Why, "found by") {
			t.Fatalf("item %d has no reason: %+v", it.Rank, it)
		}
		if !it.Packed && !strings.Contains(it.Why, "not packed") {
			t.Fatalf("unpacked item %d: %q", it.Rank, it.Why)
		}
	}

	for _, id := range []string{"ret_nope", "mem_nope"} {
		if _, err := e.Explain(context.Background(), ns, id); !engine.IsNotFound(err) {
			t.Errorf("explain %s: %v, want not found", id, err)
		}
	}
	if _, err := e.Explain(context.Background(), "other", first.Outcomes[0].MemoryID); !engine.IsNotFound(err) {
		t.Errorf("explain from another namespace: %v, want not found", err)
	}
	if _, err := e.Explain(context.Background(), ns, "ep_1"); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("explain an episode id: %v, want invalid", err)
	}
}
