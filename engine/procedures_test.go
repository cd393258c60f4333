package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
)

// deploySession captures one session of the deploy_atlas task: the agent
// installs, tests and deploys (each session words its arguments a little
// differently, as real sessions do), then reports the outcome. extra
// steps are tool calls made before the deploy. It returns the task_result
// episode id.
func deploySession(t *testing.T, e *engine.Engine, clk *clock.Manual, ns, session, outcome string, extra ...string) string {
	t.Helper()
	at := clk.Now().Add(-time.Hour)
	var evs []engine.Event
	add := func(kind memory.EpisodeKind, content string, meta map[string]string) {
		at = at.Add(time.Minute)
		evs = append(evs, engine.Event{Kind: kind, Content: content, OccurredAt: at, Metadata: meta})
	}
	add(memory.EpisodeUserMessage, "Please deploy atlas to production ("+session+").", nil)
	add(memory.EpisodeAgentMessage, "I will install the dependencies first. Then the tests.", nil)
	add(memory.EpisodeToolCall, "pnpm install --frozen-lockfile", nil)
	add(memory.EpisodeToolResult, "added 812 packages in "+session, nil)
	add(memory.EpisodeToolCall, `{"path": "atlas/`+session+`.env"}`, map[string]string{"tool": "read_file"})
	add(memory.EpisodeToolCall, "pnpm test -- --reporter dot", nil)
	add(memory.EpisodeToolResult, "412 passed", nil)
	for _, x := range extra {
		add(memory.EpisodeToolCall, x, nil)
	}
	add(memory.EpisodeToolCall, "pnpm run deploy --env prod --tag "+session, nil)
	add(memory.EpisodeAgentMessage, "Done!", nil)
	add(memory.EpisodeTaskResult, "atlas deploy "+outcome, map[string]string{"task_type": "Deploy Atlas", "outcome": outcome})
	res, err := e.Capture(context.Background(), engine.CaptureParams{
		Namespace: ns, Scope: memory.Scope{AgentID: "ops", SessionID: session}, Events: evs,
	})
	if err != nil {
		t.Fatalf("capture session %s: %v", session, err)
	}
	return res.EpisodeIDs[len(res.EpisodeIDs)-1]
}

func promote(t *testing.T, e *engine.Engine, ns string) *engine.ProcedureReport {
	t.Helper()
	rep, err := e.PromoteProcedures(context.Background(), ns)
	if err != nil {
		t.Fatalf("promote procedures: %v", err)
	}
	return rep
}

func procedures(t *testing.T, e *engine.Engine, ns string) []*engine.Procedure {
	t.Helper()
	ps, err := e.Procedures(context.Background(), ns)
	if err != nil {
		t.Fatalf("procedures: %v", err)
	}
	return ps
}

// wrote reports whether a run wrote anything to memory.
func wrote(rep *engine.ProcedureReport) bool {
	return len(rep.Promoted)+len(rep.Reinforced)+len(rep.Superseded)+len(rep.Failures)+len(rep.Stale) > 0
}

func admissionCount(t *testing.T, st memory.Store, ns string) int {
	t.Helper()
	adms, err := st.ListAdmissions(context.Background(), memory.ListAdmissionsParams{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	return len(adms)
}

var deploySteps = []string{
	"I will install the dependencies first",
	"Run pnpm install",
	"Call read_file(path)",
	"Run pnpm test",
	"Run pnpm run deploy",
}

func TestProcedurePromotedAfterThreeSuccesses(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ns := "default"
	var evidence []string
	evidence = append(evidence, deploySession(t, e, clk, ns, "s1", "success"))
	evidence = append(evidence, deploySession(t, e, clk, ns, "s2", "success"))
	// A failing session is no success, however alike its steps.
	deploySession(t, e, clk, ns, "s3", "failure")

	rep := promote(t, e, ns)
	if wrote(rep) || len(procedures(t, e, ns)) != 0 {
		t.Fatalf("two successes and a failure made a procedure: %+v", rep)
	}
	if len(rep.Waiting) != 1 || rep.Waiting[0].TaskType != "deploy_atlas" || rep.Waiting[0].Successes != 2 ||
		rep.Waiting[0].Failures != 1 || rep.Waiting[0].Reason != "too_few_successes" {
		t.Errorf("waiting = %+v, want deploy_atlas with 2 successes and 1 failure", rep.Waiting)
	}

	clk.Advance(time.Hour)
	evidence = append(evidence, deploySession(t, e, clk, ns, "s4", "success"))
	rep = promote(t, e, ns)
	if len(rep.Promoted) != 1 {
		t.Fatalf("three successes: promoted %+v", rep)
	}
	ps := procedures(t, e, ns)
	if len(ps) != 1 {
		t.Fatalf("procedures: %d, want 1", len(ps))
	}
	p := ps[0]
	if !slices.Equal(p.Steps, deploySteps) {
		t.Errorf("steps:\n  got  %q\n  want %q", p.Steps, deploySteps)
	}
	slices.Reverse(evidence) // newest first
	if !slices.Equal(p.EpisodeIDs, evidence) || p.Successes != 3 {
		t.Errorf("evidence = %v (%d successes), want the three successful sessions' task results %v", p.EpisodeIDs, p.Successes, evidence)
	}
	if p.TaskType != "deploy_atlas" || p.Scope != (memory.Scope{AgentID: "ops"}) || p.Stale {
		t.Errorf("procedure = %+v", p)
	}
	view, err := e.Show(context.Background(), ns, p.MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	v := view.Versions[0]
	if v.Kind != memory.KindProcedural || v.Type != memory.TypeProcedure || v.Subject != "deploy_atlas" ||
		v.Key != "procedure:deploy_atlas" || v.Provenance.Extractor != "procedures" {
		t.Errorf("version = %+v", v)
	}
	if !strings.HasPrefix(v.Content, "Procedure for deploy atlas: 1. I will install the dependencies first; 2. Run pnpm install;") {
		t.Errorf("content = %q", v.Content)
	}

	// Idempotent: nothing new, nothing written.
	before := admissionCount(t, st, ns)
	if rep := promote(t, e, ns); wrote(rep) {
		t.Errorf("second run wrote: %+v", rep)
	}
	if got := admissionCount(t, st, ns); got != before {
		t.Errorf("second run logged %d admissions", got-before)
	}

	// A new session with the same steps reinforces the same version.
	deploySession(t, e, clk, ns, "s5", "success")
	rep = promote(t, e, ns)
	if len(rep.Reinforced) != 1 || rep.Reinforced[0].VersionID != p.VersionID || rep.Reinforced[0].Sessions != 4 {
		t.Fatalf("fourth success: %+v, want version %s reinforced with 4 sessions", rep, p.VersionID)
	}

	// New steps taken by most sessions supersede the procedure in its slot.
	for i := range 5 {
		deploySession(t, e, clk, ns, fmt.Sprintf("lint-%d", i), "success", "pnpm lint --fix")
	}
	rep = promote(t, e, ns)
	if len(rep.Superseded) != 1 || rep.Superseded[0].MemoryID != p.MemoryID {
		t.Fatalf("new steps: %+v, want the same slot superseded", rep)
	}
	ps = procedures(t, e, ns)
	if len(ps) != 1 || ps[0].Seq != 2 || !slices.Contains(ps[0].Steps, "Run pnpm lint") {
		t.Fatalf("after new steps: %+v", ps)
	}
	old, err := st.GetVersion(context.Background(), memory.GetParams{Namespace: ns, ID: p.VersionID})
	if err != nil {
		t.Fatal(err)
	}
	if old.Status != memory.StatusSuperseded || old.SupersededBy != ps[0].VersionID {
		t.Errorf("old version: status %s, superseded by %q", old.Status, old.SupersededBy)
	}
	if rep := promote(t, e, ns); wrote(rep) {
		t.Errorf("run after superseding wrote: %+v", rep)
	}
}

func TestProcedureRetrievable(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	ns := "default"
	for i := range 3 {
		deploySession(t, e, clk, ns, fmt.Sprintf("s%d", i), "success")
	}
	promote(t, e, ns)
	res := retrieve(t, e, engine.RetrieveParams{Namespace: ns, Query: "How do I deploy atlas?", Scope: memory.Scope{AgentID: "ops"}})
	for i, it := range res.Items {
		if it.Type == memory.TypeProcedure {
			if it.Section != "Procedures" || i > 2 {
				t.Errorf("procedure packed at %d in section %q", i, it.Section)
			}
			return
		}
	}
	t.Fatalf("no procedure for a question about the task; items: %+v", res.Items)
}

func TestProcedureStale(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ns := "default"
	for i := range 3 {
		deploySession(t, e, clk, ns, fmt.Sprintf("s%d", i), "success")
	}
	promote(t, e, ns)
	promoted := clk.Now()

	stale := func(want bool) {
		t.Helper()
		rep := promote(t, e, ns)
		ps := procedures(t, e, ns)
		if len(ps) != 1 || ps[0].Stale != want {
			t.Fatalf("at day %d: stale = %v, want %v", clk.Now().Sub(promoted)/day, ps[0].Stale, want)
		}
		if want && len(rep.Stale) != 1 {
			t.Errorf("at day %d: report's stale = %v", clk.Now().Sub(promoted)/day, rep.Stale)
		}
	}
	clk.Advance(89 * day)
	stale(false)
	clk.Advance(day)
	stale(true)
	// Flagged once, in the admission log, where show and explain find it.
	if rep := promote(t, e, ns); len(rep.Stale) != 0 {
		t.Errorf("flagged twice: %v", rep.Stale)
	}
	ps := procedures(t, e, ns)
	adms, err := st.ListAdmissions(context.Background(), memory.ListAdmissionsParams{Namespace: ns, MemoryID: ps[0].MemoryID})
	if err != nil {
		t.Fatal(err)
	}
	flags := 0
	for _, a := range adms {
		if slices.Contains(a.Reasons, engine.ReasonProcedureStale) {
			flags++
		}
	}
	if flags != 1 {
		t.Errorf("%d procedure_stale entries, want 1", flags)
	}

	// A retrieval that packs it makes it fresh again, for 90 more days.
	res := retrieve(t, e, engine.RetrieveParams{Namespace: ns, Query: "how do I deploy atlas", Scope: memory.Scope{AgentID: "ops"}})
	if !slices.ContainsFunc(res.Items, func(it engine.Item) bool { return it.Type == memory.TypeProcedure }) {
		t.Fatal("procedure not packed")
	}
	used := clk.Now()
	stale(false)
	if ps := procedures(t, e, ns); ps[0].LastUsedAt == nil || !ps[0].LastUsedAt.Equal(used) {
		t.Errorf("last used = %v, want %v", ps[0].LastUsedAt, used)
	}
	clk.Advance(90*day - time.Second)
	stale(false)
	clk.Advance(time.Second)
	stale(true)
}

func TestProcedureFailingSessionCountsOnce(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ns := "default"
	for i := range 3 {
		deploySession(t, e, clk, ns, fmt.Sprintf("s%d", i), "success")
	}
	promote(t, e, ns)
	p := procedures(t, e, ns)[0]

	use := func(session string) {
		t.Helper()
		res := retrieve(t, e, engine.RetrieveParams{Namespace: ns, Query: "how do I deploy atlas", Scope: memory.Scope{AgentID: "ops", SessionID: session}})
		if !slices.ContainsFunc(res.Items, func(it engine.Item) bool { return it.MemoryID == p.MemoryID }) {
			t.Fatalf("procedure not packed in session %s", session)
		}
	}
	// The failing session retrieved it twice; a succeeding one once; a
	// failing one never did.
	clk.Advance(time.Hour)
	use("bad")
	use("bad")
	use("good")
	deploySession(t, e, clk, ns, "bad", "failure")
	deploySession(t, e, clk, ns, "good", "success")
	deploySession(t, e, clk, ns, "unrelated", "failure")

	rep := promote(t, e, ns)
	if len(rep.Failures) != 1 || rep.Failures[0].SessionID != "bad" || rep.Failures[0].MemoryID != p.MemoryID {
		t.Fatalf("failures = %+v, want session bad once", rep.Failures)
	}
	check := func(what string) {
		t.Helper()
		v, err := st.GetVersion(context.Background(), memory.GetParams{Namespace: ns, ID: rep.Failures[0].VersionID})
		if err != nil {
			t.Fatal(err)
		}
		if v.FailureCount != 1 || v.Usefulness != 0.5-engine.ProcedureFailurePenalty {
			t.Errorf("%s: failure count %d, usefulness %v; want 1 and %v", what, v.FailureCount, v.Usefulness, 0.5-engine.ProcedureFailurePenalty)
		}
	}
	check("after the run")
	// Running again, or the session retrieving it again, counts nothing more.
	use("bad")
	if rep := promote(t, e, ns); len(rep.Failures) != 0 {
		t.Errorf("second run counted %+v", rep.Failures)
	}
	check("after a second run")

	// An imported copy carries the uses, settled; imported from an export
	// without them (written before exports carried them), it rebuilds
	// them from its traces and finds the failure already counted in the
	// admission log.
	var buf bytes.Buffer
	if _, err := e.Export(context.Background(), ns, &buf); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Import(context.Background(), "copy", bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if rep := promote(t, e, "copy"); wrote(rep) {
		t.Errorf("imported copy: %+v; want nothing written", rep)
	}
	if _, err := e.Import(context.Background(), "old", bytes.NewReader(withoutLearning(t, buf.Bytes()))); err != nil {
		t.Fatal(err)
	}
	rep = promote(t, e, "old")
	if rep.UsesRecorded == 0 || len(rep.Failures) != 0 {
		t.Errorf("copy of an older export: %d uses, failures %+v; want uses and no failure counted again", rep.UsesRecorded, rep.Failures)
	}
}

func TestProcedureNamespaceIsolation(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	for i := range 3 {
		deploySession(t, e, clk, "alpha", fmt.Sprintf("s%d", i), "success")
	}
	// beta has the same session ids, two successes only.
	for i := range 2 {
		deploySession(t, e, clk, "beta", fmt.Sprintf("s%d", i), "success")
	}
	if rep := promote(t, e, "beta"); wrote(rep) || len(procedures(t, e, "beta")) != 0 {
		t.Fatalf("beta promoted from alpha's sessions: %+v", rep)
	}
	if rep := promote(t, e, "alpha"); len(rep.Promoted) != 1 {
		t.Fatalf("alpha: %+v", rep)
	}
	if ps := procedures(t, e, "beta"); len(ps) != 0 {
		t.Fatalf("beta lists alpha's procedure: %+v", ps)
	}
	// beta's retrievals are not alpha's uses.
	retrieve(t, e, engine.RetrieveParams{Namespace: "beta", Query: "how do I deploy atlas"})
	if rep := promote(t, e, "alpha"); rep.UsesRecorded != 0 {
		t.Errorf("alpha recorded beta's retrievals: %+v", rep)
	}
	if _, err := e.PromoteProcedures(context.Background(), "bad namespace"); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("bad namespace: %v", err)
	}
}
