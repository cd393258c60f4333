package engine_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

const lcDay = 24 * time.Hour

// fact remembers one structured fact and returns its version.
func lcFact(t *testing.T, e *engine.Engine, p engine.RememberParams) *memory.Version {
	t.Helper()
	if p.Namespace == "" {
		p.Namespace = "ns"
	}
	res, err := e.Remember(context.Background(), p)
	if err != nil {
		t.Fatalf("remember %q: %v", p.Text, err)
	}
	for _, o := range res.Outcomes {
		if o.Version != nil {
			return o.Version
		}
	}
	t.Fatalf("remember %q stored no version: %+v", p.Text, res.Outcomes)
	return nil
}

// setState rewrites a version's usefulness, confidence and updated_at
// straight in the store, as feedback would have left them.
func lcSetState(t *testing.T, st memory.Store, id string, usefulness, confidence float64, updated time.Time) {
	t.Helper()
	ctx := context.Background()
	v, err := st.GetVersion(ctx, memory.GetParams{Namespace: "ns", ID: id})
	if err != nil {
		t.Fatal(err)
	}
	v.Usefulness, v.Confidence, v.UpdatedAt = usefulness, confidence, updated
	if err := st.UpdateVersionState(ctx, v); err != nil {
		t.Fatal(err)
	}
}

func lcVersion(t *testing.T, st memory.Store, id string) *memory.Version {
	t.Helper()
	v, err := st.GetVersion(context.Background(), memory.GetParams{Namespace: "ns", ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func lcRun(t *testing.T, e *engine.Engine, p engine.LifecycleParams) *engine.LifecycleReport {
	t.Helper()
	if p.Namespace == "" {
		p.Namespace = "ns"
	}
	rep, err := e.Lifecycle(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func lcNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestLifecycleDecay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		from  float64
		after []time.Duration // runs, each this long after t0
		want  float64
	}{
		{"0 days", 0.9, []time.Duration{0}, 0.9},
		{"23 hours: touched within a day", 0.9, []time.Duration{23 * time.Hour}, 0.9},
		{"30 days", 0.9, []time.Duration{30 * lcDay}, 0.7},
		{"60 days", 0.9, []time.Duration{60 * lcDay}, 0.6},
		{"30 then 60 days", 0.9, []time.Duration{30 * lcDay, 60 * lcDay}, 0.6},
		{"low rises: 30 days", 0.1, []time.Duration{30 * lcDay}, 0.3},
		{"low rises: 60 days", 0.1, []time.Duration{60 * lcDay}, 0.4},
		{"neutral stays", 0.5, []time.Duration{60 * lcDay}, 0.5},
		{"close to neutral snaps to it", 0.5005, []time.Duration{2 * lcDay}, 0.5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, clk, st := newEngine(t)
			v := lcFact(t, e, engine.RememberParams{Text: "The user's editor is Vim.", Key: "prefers:editor", Value: "Vim"})
			lcSetState(t, st, v.ID, tc.from, 0.9, t0)
			for _, d := range tc.after {
				clk.Set(t0.Add(d))
				lcRun(t, e, engine.LifecycleParams{})
			}
			if got := lcVersion(t, st, v.ID).Usefulness; !lcNear(got, tc.want) {
				t.Fatalf("usefulness = %.12f, want %v", got, tc.want)
			}
		})
	}
}

// TestLifecycleDecayMovesTrust: trust follows usefulness as it decays, one
// smoothing step per run, toward what the decayed usefulness warrants;
// praised and blamed facts both come back toward the middle.
func TestLifecycleDecayMovesTrust(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		usefulness float64
		trust      float64
		down       bool
	}{
		{"praised fact loses trust", 0.95, 0.9, true},
		{"blamed fact regains trust", 0.1, 0.3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, clk, st := newEngine(t)
			v := lcFact(t, e, engine.RememberParams{Text: "The user's editor is Vim.", Key: "prefers:editor", Value: "Vim"})
			cur := lcVersion(t, st, v.ID)
			cur.Usefulness, cur.Trust, cur.UpdatedAt = tc.usefulness, tc.trust, t0
			if err := st.UpdateVersionState(context.Background(), cur); err != nil {
				t.Fatal(err)
			}
			clk.Set(t0.Add(60 * lcDay))
			if rep := lcRun(t, e, engine.LifecycleParams{}); rep.Decayed != 1 {
				t.Fatalf("decayed %d, want 1", rep.Decayed)
			}
			got := lcVersion(t, st, v.ID)
			if moved := got.Trust - tc.trust; (tc.down && !(moved < 0)) || (!tc.down && !(moved > 0)) {
				t.Fatalf("trust %v → %v after usefulness %v → %v", tc.trust, got.Trust, tc.usefulness, got.Usefulness)
			}
			// One smoothing step, not a jump to the target.
			if math.Abs(got.Trust-tc.trust) > engine.TrustEMA {
				t.Fatalf("trust moved %v in one run, more than the smoothing step %v", got.Trust-tc.trust, engine.TrustEMA)
			}
			again := lcRun(t, e, engine.LifecycleParams{})
			if again.Decayed != 0 || lcVersion(t, st, v.ID).Trust != got.Trust {
				t.Fatalf("second run at the same time changed trust: %+v", again)
			}
		})
	}
}

func TestLifecycleSkipsRecentlyTouched(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	v := lcFact(t, e, engine.RememberParams{Text: "The user's editor is Vim.", Key: "prefers:editor", Value: "Vim"})
	clk.Set(t0.Add(30 * lcDay))
	lcSetState(t, st, v.ID, 0.9, 0.9, clk.Now().Add(-23*time.Hour))
	if rep := lcRun(t, e, engine.LifecycleParams{}); rep.Decayed != 0 {
		t.Fatalf("touched 23 h ago: decayed %d, want 0", rep.Decayed)
	}
	if got := lcVersion(t, st, v.ID).Usefulness; got != 0.9 {
		t.Fatalf("usefulness moved to %v", got)
	}
	clk.Advance(2 * time.Hour) // touched 25 h ago
	rep := lcRun(t, e, engine.LifecycleParams{})
	want := 0.5 + 0.4*math.Exp2(-25.0/(30*24))
	if got := lcVersion(t, st, v.ID).Usefulness; rep.Decayed != 1 || !lcNear(got, want) {
		t.Fatalf("touched 25 h ago: decayed %d, usefulness %v; want 1, %v", rep.Decayed, got, want)
	}
}

// contest makes a memory with two live versions, the second contested, and
// sets their usefulness and confidence.
func lcContest(t *testing.T, e *engine.Engine, st memory.Store, now time.Time, uA, cA, uB, cB float64) (a, b *memory.Version) {
	t.Helper()
	a = lcFact(t, e, engine.RememberParams{Text: "The user's editor is Vim.", Key: "prefers:editor", Value: "Vim", Confidence: 0.9})
	b = lcFact(t, e, engine.RememberParams{Text: "The user's editor may be Emacs.", Key: "prefers:editor", Value: "Emacs", Confidence: 0.4})
	if got := lcVersion(t, st, b.ID).Status; got != memory.StatusContested {
		t.Fatalf("setup: weak value is %s, want contested", got)
	}
	lcSetState(t, st, a.ID, uA, cA, now)
	lcSetState(t, st, b.ID, uB, cB, now)
	return a, b
}

func TestLifecycleContestMargin(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		uA, cA, uB, cB float64
		winner         string // "a", "b" or "" (no resolution)
	}{
		{"lead 0.149: unresolved", 0.649, 0.5, 0.5, 0.5, ""},
		{"lead 0.15: active side wins", 0.65, 0.5, 0.5, 0.5, "a"},
		{"lead 0.15 on confidence", 0.5, 0.65, 0.5, 0.5, "a"},
		{"contested side leads by 0.15: it wins", 0.5, 0.5, 0.6, 0.55, "b"},
		{"contested side leads by 0.149", 0.5, 0.5, 0.6, 0.549, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, clk, st := newEngine(t)
			a, b := lcContest(t, e, st, clk.Now(), tc.uA, tc.cA, tc.uB, tc.cB)
			rep := lcRun(t, e, engine.LifecycleParams{})
			va, vb := lcVersion(t, st, a.ID), lcVersion(t, st, b.ID)
			switch tc.winner {
			case "":
				if rep.ContestsResolved != 0 || va.Status != memory.StatusActive || vb.Status != memory.StatusContested {
					t.Fatalf("resolved %d; statuses %s, %s; want 0, active, contested", rep.ContestsResolved, va.Status, vb.Status)
				}
			case "a":
				if rep.ContestsResolved != 1 || va.Status != memory.StatusActive || vb.Status != memory.StatusSuperseded || vb.SupersededBy != a.ID {
					t.Fatalf("resolved %d; a %s, b %s by %q; want a to win", rep.ContestsResolved, va.Status, vb.Status, vb.SupersededBy)
				}
			case "b":
				if rep.ContestsResolved != 1 || vb.Status != memory.StatusActive || va.Status != memory.StatusSuperseded || va.SupersededBy != b.ID {
					t.Fatalf("resolved %d; a %s by %q, b %s; want b to win", rep.ContestsResolved, va.Status, va.SupersededBy, vb.Status)
				}
				if vb.ValidTo != nil {
					t.Fatalf("winner's validity ended at %v", vb.ValidTo)
				}
			}
			if tc.winner != "" {
				adms, err := st.ListAdmissions(context.Background(), memory.ListAdmissionsParams{Namespace: "ns", MemoryID: a.MemoryID})
				if err != nil {
					t.Fatal(err)
				}
				if !lcHasAdmission(adms, "lifecycle", engine.ReasonContestedResolved) {
					t.Fatalf("no contested_resolved admission: %+v", adms)
				}
			}
		})
	}
}

func lcHasAdmission(adms []*memory.Admission, extractor, reason string) bool {
	for _, a := range adms {
		if a.Extractor == extractor && len(a.Reasons) == 1 && a.Reasons[0] == reason {
			return true
		}
	}
	return false
}

func TestLifecycleUsefulnessFloor(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	low := lcFact(t, e, engine.RememberParams{Text: "The user's editor is Vim.", Key: "prefers:editor", Value: "Vim"})
	above := lcFact(t, e, engine.RememberParams{Text: "The user lives in Lisbon.", Key: "lives_in", Value: "Lisbon"})
	lcSetState(t, st, low.ID, 0.05, 0.9, t0)
	lcSetState(t, st, above.ID, 0.051, 0.9, t0)
	clk.Set(t0.Add(10 * lcDay))
	rep := lcRun(t, e, engine.LifecycleParams{})
	vl, va := lcVersion(t, st, low.ID), lcVersion(t, st, above.ID)
	if rep.Floored != 1 || vl.Status != memory.StatusExpired || vl.ValidTo == nil || !vl.ValidTo.Equal(clk.Now()) {
		t.Fatalf("floored %d; at 0.05: %s valid to %v; want expired now", rep.Floored, vl.Status, vl.ValidTo)
	}
	// Expired before decay could lift it; the other decays instead.
	if va.Status != memory.StatusActive || rep.Decayed != 1 || !(va.Usefulness > 0.051) {
		t.Fatalf("at 0.051: %s usefulness %v (decayed %d); want active and decayed", va.Status, va.Usefulness, rep.Decayed)
	}
	if vl.Usefulness != 0.05 {
		t.Fatalf("expired version's usefulness moved to %v", vl.Usefulness)
	}
	adms, err := st.ListAdmissions(context.Background(), memory.ListAdmissionsParams{Namespace: "ns", MemoryID: low.MemoryID})
	if err != nil {
		t.Fatal(err)
	}
	if !lcHasAdmission(adms, "lifecycle", engine.ReasonUsefulnessFloor) {
		t.Fatalf("no usefulness_floor admission: %+v", adms)
	}
}

func TestLifecycleValidToExpiry(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	from, to := t0.Add(-2*lcDay), t0.Add(time.Hour)
	v := lcFact(t, e, engine.RememberParams{Text: "The user is in Berlin this week.", Key: "visiting", Value: "Berlin",
		ValidFrom: &from, ValidTo: &to})
	q := engine.RetrieveParams{Namespace: "ns", Query: "where is the user this week Berlin"}
	if !lcServed(retrieve(t, e, q), v.ID) {
		t.Fatal("setup: the fact is not served while valid")
	}
	clk.Advance(2 * time.Hour)
	rep := lcRun(t, e, engine.LifecycleParams{})
	if rep.Expired != 1 || len(rep.Changes) != 1 || rep.Changes[0].Reason != engine.ReasonExpiredValidTo {
		t.Fatalf("report %+v; want one expired_valid_to", rep)
	}
	got := lcVersion(t, st, v.ID)
	if got.Status != memory.StatusExpired || !got.ValidTo.Equal(to) || !got.UpdatedAt.Equal(clk.Now()) {
		t.Fatalf("version %s valid to %v updated %v; want expired, valid_to kept", got.Status, got.ValidTo, got.UpdatedAt)
	}
	if lcServed(retrieve(t, e, q), v.ID) {
		t.Fatal("an expired fact is served by default")
	}
	q.IncludeHistory = true
	if !lcServed(retrieve(t, e, q), v.ID) {
		t.Fatal("an expired fact is not served with include_history")
	}
	if len(factByKey(t, e, "ns", "visiting", false)) != 0 || len(factByKey(t, e, "ns", "visiting", true)) != 1 {
		t.Fatal("facts: the expired version is not history")
	}
}

func lcServed(r *engine.Result, versionID string) bool {
	for _, it := range r.Items {
		if it.VersionID == versionID {
			return true
		}
	}
	return false
}

// updatedAt maps every version of ns to its updated_at.
func lcUpdatedAt(t *testing.T, st memory.Store, ns string) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	err := st.ScanVersions(context.Background(), memory.ScanParams{Namespace: ns}, func(v *memory.Version) error {
		out[v.ID] = v.UpdatedAt
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLifecycleIdempotent(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	to := t0.Add(lcDay)
	lcFact(t, e, engine.RememberParams{Text: "The user is in Berlin.", Key: "visiting", Value: "Berlin", ValidTo: &to})
	low := lcFact(t, e, engine.RememberParams{Text: "The user lives in Lisbon.", Key: "lives_in", Value: "Lisbon"})
	old := lcFact(t, e, engine.RememberParams{Text: "The user works at Acme.", Key: "works_at", Value: "Acme"})
	lcFact(t, e, engine.RememberParams{Text: "The user is a baker.", Key: "role", Value: "baker"})
	a, b := lcContest(t, e, st, t0, 0.7, 0.9, 0.5, 0.4)
	lcSetState(t, st, low.ID, 0.02, 0.9, t0)
	lcSetState(t, st, old.ID, 0.9, 0.9, t0)
	_ = a
	clk.Set(t0.Add(40 * lcDay))
	first := lcRun(t, e, engine.LifecycleParams{})
	if first.Expired != 1 || first.Floored != 1 || first.Decayed != 2 || first.ContestsResolved != 1 {
		t.Fatalf("first run: %+v", first)
	}
	if got := lcVersion(t, st, b.ID); got.Status != memory.StatusSuperseded {
		t.Fatalf("contest loser is %s", got.Status)
	}
	before := lcUpdatedAt(t, st, "ns")
	for _, later := range []time.Duration{0, time.Hour, 23 * time.Hour} {
		clk.Set(t0.Add(40*lcDay + later))
		again := lcRun(t, e, engine.LifecycleParams{})
		if again.Expired+again.Floored+again.Decayed+again.ContestsResolved != 0 || len(again.Changes) != 0 || again.More {
			t.Fatalf("run again %s later: %+v; want all zeros", later, again)
		}
		if after := lcUpdatedAt(t, st, "ns"); !lcSameTimes(before, after) {
			t.Fatalf("run again %s later changed updated_at", later)
		}
	}
}

func lcSameTimes(a, b map[string]time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !b[k].Equal(v) {
			return false
		}
	}
	return true
}

func TestLifecycleDryRunAndLimit(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	var vs []*memory.Version
	for i, v := range []string{"Lisbon", "Porto", "Faro"} {
		x := lcFact(t, e, engine.RememberParams{Text: "The user visited " + v + ".", Key: "visited:" + []string{"a", "b", "c"}[i], Value: v})
		lcSetState(t, st, x.ID, 0.9, 0.9, t0)
		vs = append(vs, x)
	}
	clk.Set(t0.Add(30 * lcDay))
	before := lcUpdatedAt(t, st, "ns")
	dry := lcRun(t, e, engine.LifecycleParams{DryRun: true})
	if !dry.DryRun || dry.Decayed != 3 {
		t.Fatalf("dry run: %+v", dry)
	}
	if !lcSameTimes(before, lcUpdatedAt(t, st, "ns")) || lcVersion(t, st, vs[0].ID).Usefulness != 0.9 {
		t.Fatal("a dry run wrote")
	}
	part := lcRun(t, e, engine.LifecycleParams{Limit: 2})
	if part.Decayed != 2 || !part.More {
		t.Fatalf("limit 2: %+v; want 2 decayed and more", part)
	}
	rest := lcRun(t, e, engine.LifecycleParams{Limit: 2})
	if rest.Decayed != 1 || rest.More {
		t.Fatalf("second run: %+v; want the last one", rest)
	}
	if _, err := e.Lifecycle(context.Background(), engine.LifecycleParams{Namespace: "ns", Limit: -1}); !lcInvalid(err) {
		t.Fatalf("limit -1: %v; want invalid", err)
	}
	if _, err := e.Lifecycle(context.Background(), engine.LifecycleParams{Namespace: "bad ns"}); !lcInvalid(err) {
		t.Fatalf("bad namespace: %v; want invalid", err)
	}
}

func TestLifecycleNamespaceIsolation(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	v := lcFact(t, e, engine.RememberParams{Text: "The user's editor is Vim.", Key: "prefers:editor", Value: "Vim"})
	lcSetState(t, st, v.ID, 0.9, 0.9, t0)
	lcFact(t, e, engine.RememberParams{Namespace: "other", Text: "The user's editor is Vim.", Key: "prefers:editor", Value: "Vim"})
	clk.Set(t0.Add(30 * lcDay))
	if rep := lcRun(t, e, engine.LifecycleParams{Namespace: "other"}); len(rep.Changes) != 0 {
		t.Fatalf("other namespace changed: %+v", rep)
	}
	if got := lcVersion(t, st, v.ID).Usefulness; got != 0.9 {
		t.Fatalf("a run in another namespace moved this one: %v", got)
	}
}
