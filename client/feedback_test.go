package client_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/client"
)

// TestFeedbackExplainLifecycleGraphProcedures drives the endpoints the
// feedback, consolidation and procedures work added, against the real
// server.
func TestFeedbackExplainLifecycleGraphProcedures(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	ns := fresh("learn")
	c := newClient(t, serverURL, client.Options{Namespace: ns})

	rem, err := c.Remember(ctx, client.RememberRequest{Text: "Atlas uses pnpm", Subject: "atlas",
		Key: "uses:package_manager", Value: "pnpm", Type: "fact"})
	if err != nil || rem.MemoryID == "" {
		t.Fatalf("remember %+v, %v", rem, err)
	}
	ret, err := c.Retrieve(ctx, client.RetrieveRequest{Query: "Which package manager does Atlas use?"})
	if err != nil || len(ret.Items) == 0 || ret.Items[0].MemoryID != rem.MemoryID {
		t.Fatalf("retrieve %+v, %v", ret, err)
	}
	if it := ret.Items[0]; it.Trust <= 0 || it.Trust > 1 || it.Uncertainty < 0 || it.Uncertainty > 1 {
		t.Fatalf("item trust %v uncertainty %v", it.Trust, it.Uncertainty)
	}

	// Feedback: applied once, a duplicate the second time.
	fb, err := c.Feedback(ctx, ret.RetrievalID, client.FeedbackRequest{Outcome: client.OutcomeHelpful,
		MemoryIDs: []string{rem.MemoryID}, Source: "evaluator"})
	if err != nil {
		t.Fatal(err)
	}
	if fb.RetrievalID != ret.RetrievalID || len(fb.Applied) != 1 || fb.Applied[0].MemoryID != rem.MemoryID ||
		fb.Applied[0].Outcome != client.OutcomeHelpful || !fb.Applied[0].Used || fb.Applied[0].UsefulnessAfter < fb.Applied[0].UsefulnessBefore {
		t.Fatalf("feedback: %+v %+v", fb, fb.Applied)
	}
	again, err := c.Feedback(ctx, ret.RetrievalID, client.FeedbackRequest{Outcome: client.OutcomeHelpful,
		MemoryIDs: []string{rem.MemoryID}, Source: "evaluator"})
	if err != nil || len(again.Applied) != 0 || len(again.Duplicates) != 1 {
		t.Fatalf("feedback again: %+v, %v", again, err)
	}
	if _, err := c.Feedback(ctx, "", client.FeedbackRequest{Outcome: client.OutcomeHelpful}); err == nil {
		t.Fatal("feedback without a retrieval id accepted")
	}

	// Explain names the memory and the feedback that moved it; for the
	// retrieval, why each candidate ranked.
	ex, err := c.Explain(ctx, rem.MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Memory == nil || ex.Memory.Memory == nil || ex.Memory.Memory.ID != rem.MemoryID || len(ex.Memory.Versions) == 0 ||
		ex.Memory.Versions[0].Version == nil || ex.Memory.Versions[0].Version.Value != "pnpm" || len(ex.Memory.Versions[0].Feedback) != 1 {
		t.Fatalf("explain memory: %+v", ex.Memory)
	}
	ex, err = c.Explain(ctx, ret.RetrievalID)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Retrieval == nil || ex.Retrieval.Trace == nil || ex.Retrieval.Trace.ID != ret.RetrievalID ||
		len(ex.Retrieval.Items) == 0 || ex.Retrieval.Items[0].MemoryID != rem.MemoryID || len(ex.Retrieval.Feedback) != 1 {
		t.Fatalf("explain retrieval: %+v", ex.Retrieval)
	}

	// Lifecycle: a dry run over one fresh fact changes nothing.
	lc, err := c.RunLifecycle(ctx, client.LifecycleRunRequest{DryRun: true, Dedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	if lc.Lifecycle == nil || lc.Lifecycle.Namespace != ns || !lc.Lifecycle.DryRun || lc.Lifecycle.Expired != 0 ||
		lc.Dedupe == nil || lc.Dedupe.Superseded != 0 {
		t.Fatalf("lifecycle: %+v %+v", lc.Lifecycle, lc.Dedupe)
	}

	// Graph: atlas -> pnpm.
	g, err := c.Neighborhood(ctx, client.GraphOptions{Entity: "Atlas", Hops: 2})
	if err != nil {
		t.Fatal(err)
	}
	if g.Entity != "atlas" || len(g.Claims) != 1 || g.Claims[0].MemoryID != rem.MemoryID || g.Claims[0].Object != "pnpm" ||
		!slices.ContainsFunc(g.Entities, func(e client.GraphEntity) bool { return e.Name == "pnpm" && e.Hop == 1 }) {
		t.Fatalf("graph: %+v", g)
	}
	if _, err := c.Neighborhood(ctx, client.GraphOptions{}); err == nil {
		t.Fatal("graph without an entity accepted")
	}

	// Procedures: none yet; promotion from three successful sessions of a
	// task type makes one.
	pl, err := c.ListProcedures(ctx)
	if err != nil || len(pl.Procedures) != 0 {
		t.Fatalf("procedures %+v, %v", pl, err)
	}
	for i, sid := range []string{"deploy-1", "deploy-2", "deploy-3"} {
		at := time.Now().UTC().Add(time.Duration(i-10) * time.Minute)
		capt, err := c.Capture(ctx, client.CaptureRequest{SessionID: sid, Wait: true, Events: []client.Event{
			{Kind: client.KindUserMessage, Content: "Deploy Atlas to staging", OccurredAt: at},
			{Kind: client.KindToolCall, Content: "pnpm build", Speaker: "agent", OccurredAt: at.Add(time.Second)},
			{Kind: client.KindToolCall, Content: "fly deploy --app atlas-staging", Speaker: "agent", OccurredAt: at.Add(2 * time.Second)},
			{Kind: client.KindTaskResult, Content: "Deployed Atlas to staging.", Speaker: "agent", OccurredAt: at.Add(3 * time.Second),
				Metadata: map[string]string{"task_type": "deploy_atlas", "outcome": "success"}},
		}})
		if err != nil || capt.JobState != client.JobSucceeded {
			t.Fatalf("capture %s: %+v, %v", sid, capt, err)
		}
	}
	rep, err := c.PromoteProcedures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Namespace != ns || rep.TaskResults != 3 || len(rep.Promoted) != 1 || rep.Promoted[0].TaskType != "deploy_atlas" {
		t.Fatalf("promote: %+v", rep)
	}
	pl, err = c.ListProcedures(ctx)
	if err != nil || len(pl.Procedures) != 1 || pl.Procedures[0].MemoryID != rep.Promoted[0].MemoryID ||
		len(pl.Procedures[0].Steps) == 0 || pl.Procedures[0].Successes != 3 || !strings.Contains(strings.ToLower(pl.Procedures[0].Content), "deploy") {
		t.Fatalf("procedures after promotion %+v, %v", pl, err)
	}

	// Consolidate: a session minutes old is too recent unless forced.
	co, err := c.Consolidate(ctx, "deploy-1", client.ConsolidateRequest{})
	if err != nil || len(co.Sessions) != 1 || co.Sessions[0].SessionID != "deploy-1" || co.Sessions[0].Status != "too_recent" ||
		co.Sessions[0].EligibleAt.IsZero() {
		t.Fatalf("consolidate: %+v, %v", co, err)
	}
	co, err = c.Consolidate(ctx, "deploy-1", client.ConsolidateRequest{Force: true})
	if err != nil || len(co.Sessions) != 1 || co.Sessions[0].Status != "summarised" || co.Sessions[0].SummaryMemoryID == "" {
		t.Fatalf("consolidate forced: %+v, %v", co, err)
	}
}

// TestAgentSendFeedback checks the opt-in default hook: PostTask rates the
// retrieval's memories on the server.
func TestAgentSendFeedback(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	c := newClient(t, serverURL, client.Options{Namespace: fresh("agent-feedback")})
	rem, err := c.Remember(ctx, client.RememberRequest{Text: "Atlas uses pnpm", Subject: "atlas",
		Key: "uses:package_manager", Value: "pnpm"})
	if err != nil {
		t.Fatal(err)
	}
	a := &client.Agent{Client: c}
	a.Feedback = a.SendFeedback
	pack, err := a.PreTask(ctx, "Install the packages of Atlas")
	if err != nil || pack.RetrievalID == "" || len(pack.Items) == 0 {
		t.Fatalf("pack %+v, %v", pack, err)
	}
	if _, err := a.PostTask(ctx, client.TaskResult{Output: "Ran pnpm install for Atlas.", Succeeded: true,
		UsedMemoryIDs: []string{rem.MemoryID}}); err != nil {
		t.Fatal(err)
	}
	ex, err := c.Explain(ctx, pack.RetrievalID)
	if err != nil || ex.Retrieval == nil || len(ex.Retrieval.Feedback) != 1 {
		t.Fatalf("explain %+v, %v", ex, err)
	}
	if f := ex.Retrieval.Feedback[0]; f.MemoryID != rem.MemoryID || f.Outcome != client.OutcomeHelpful || f.Source != "agent" ||
		!f.TaskSucceeded || !f.Used {
		t.Fatalf("feedback sent: %+v", f)
	}
}
