package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// captureSession stores a session's events, one minute apart from start.
func captureSession(t testing.TB, e *engine.Engine, ns, session string, start time.Time, texts ...string) []string {
	t.Helper()
	evs := make([]engine.Event, len(texts))
	for i, text := range texts {
		kind := memory.EpisodeUserMessage
		speaker := "user"
		if strings.HasPrefix(text, "agent: ") {
			kind, speaker, text = memory.EpisodeAgentMessage, "agent", strings.TrimPrefix(text, "agent: ")
		}
		evs[i] = engine.Event{Kind: kind, Speaker: speaker, Content: text, OccurredAt: start.Add(time.Duration(i) * time.Minute)}
	}
	res, err := e.Capture(context.Background(), engine.CaptureParams{Namespace: ns, Scope: memory.Scope{UserID: "u1", SessionID: session}, Events: evs})
	if err != nil {
		t.Fatalf("capture %s: %v", session, err)
	}
	return res.EpisodeIDs
}

var editorSession = []string{
	"Hi there!",
	"I prefer Vim as my editor.",
	"agent: Noted. Anything else for the release?",
	"We decided to ship the release on Friday.",
	"What time is it in Lisbon?",
	"ok thanks",
}

func versionsOf(t testing.TB, st memory.Store, ns string) int {
	t.Helper()
	s, err := st.Stats(context.Background(), memory.StatsParams{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range s.Versions {
		n += c
	}
	return n
}

func TestConsolidateSessionSummarisesOnce(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	epIDs := captureSession(t, e, "ns1", "s-old", clk.Now().Add(-10*day), editorSession...)

	rep, err := e.ConsolidateSession(ctx, "ns1", "s-old", engine.ConsolidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sessions) != 1 || rep.Sessions[0].Status != engine.SessionSummarised {
		t.Fatalf("report %+v", rep)
	}
	out := rep.Sessions[0]
	t.Logf("summary: %s", out.Summary)
	for _, want := range []string{"Session s-old", "Vim", "ship the release on Friday"} {
		if !strings.Contains(out.Summary, want) {
			t.Errorf("summary %q lacks %q", out.Summary, want)
		}
	}
	for _, noise := range []string{"ok thanks", "Hi there", "What time"} {
		if strings.Contains(out.Summary, noise) {
			t.Errorf("summary %q quotes %q", out.Summary, noise)
		}
	}
	if len(rep.Forgotten) != 0 || len(rep.Purged) != 0 {
		t.Errorf("a 10-day-old session lost episodes: %+v", rep)
	}

	v, err := st.GetVersion(ctx, memory.GetParams{Namespace: "ns1", ID: out.SummaryVersionID})
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != memory.KindSemantic || v.Type != memory.TypeSummary || v.Status != memory.StatusActive ||
		v.Provenance.Extractor != "consolidate" || v.Provenance.Model != "extractive-v1" || v.Scope.SessionID != "" || v.Scope.UserID != "u1" {
		t.Errorf("summary version %+v", v)
	}
	if strings.Join(v.EvidenceEpisodeIDs, ",") != strings.Join(epIDs, ",") {
		t.Errorf("summary cites %v, want every episode %v", v.EvidenceEpisodeIDs, epIDs)
	}
	if len(v.EvidenceSpans) < 2 || v.Tokens > engine.DefaultConsolidation().SummaryTokens {
		t.Errorf("summary spans %v, tokens %d", v.EvidenceSpans, v.Tokens)
	}
	adms, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "ns1", MemoryID: out.SummaryMemoryID})
	if err != nil {
		t.Fatal(err)
	}
	if len(adms) != 1 || adms[0].Extractor != "consolidate" || adms[0].Reasons[0] != "session_summary" {
		t.Errorf("summary admissions %+v", adms)
	}

	// The summary is served outside the session, where its episodes are not.
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns1", Query: "when do we ship the release?", Scope: memory.Scope{UserID: "u1"}})
	found := false
	for _, it := range res.Items {
		found = found || it.VersionID == out.SummaryVersionID
	}
	if !found {
		t.Errorf("retrieval did not serve the summary: %+v", res.Items)
	}

	// Consolidating again changes nothing.
	before := versionsOf(t, st, "ns1")
	for _, run := range []func() (*engine.ConsolidateReport, error){
		func() (*engine.ConsolidateReport, error) {
			return e.ConsolidateSession(ctx, "ns1", "s-old", engine.ConsolidateOptions{})
		},
		func() (*engine.ConsolidateReport, error) { return e.ConsolidateDue(ctx, "ns1") },
	} {
		again, err := run()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range again.Sessions {
			if s.Status != engine.SessionUnchanged || s.SummaryVersionID != out.SummaryVersionID {
				t.Errorf("second consolidation: %+v", s)
			}
		}
		if len(again.Forgotten)+len(again.Purged) != 0 {
			t.Errorf("second consolidation forgot: %+v", again)
		}
	}
	if after := versionsOf(t, st, "ns1"); after != before {
		t.Errorf("versions %d → %d after consolidating again", before, after)
	}
}

func TestConsolidateLeavesYoungSessions(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	captureSession(t, e, "ns1", "s-young", clk.Now().Add(-3*day), editorSession...)
	before := versionsOf(t, st, "ns1")

	rep, err := e.ConsolidateDue(ctx, "ns1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sessions) != 0 {
		t.Errorf("due run touched a 3-day-old session: %+v", rep)
	}
	rep, err = e.ConsolidateSession(ctx, "ns1", "s-young", engine.ConsolidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := rep.Sessions[0]
	last := clk.Now().Add(-3*day + 5*time.Minute)
	if out.Status != engine.SessionTooRecent || out.EligibleAt == nil || !out.EligibleAt.Equal(last.Add(7*day)) || out.SummaryVersionID != "" {
		t.Errorf("young session: %+v", out)
	}
	if after := versionsOf(t, st, "ns1"); after != before {
		t.Errorf("a young session changed the store: %d → %d versions", before, after)
	}
	// Forced, it is summarised; at 7 days the due run would have.
	rep, err = e.ConsolidateSession(ctx, "ns1", "s-young", engine.ConsolidateOptions{Force: true})
	if err != nil || rep.Sessions[0].Status != engine.SessionSummarised {
		t.Errorf("forced: %+v, %v", rep, err)
	}
}

func TestConsolidateBadInput(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	ctx := context.Background()
	captureSession(t, e, "ns1", "s-1", clk.Now().Add(-10*day), editorSession...)
	for _, c := range []struct {
		name, ns, id string
		want         error
	}{
		{"unknown session", "ns1", "s-none", memory.ErrNotFound},
		{"another namespace's session", "ns2", "s-1", memory.ErrNotFound},
		{"empty id", "ns1", " ", memory.ErrInvalid},
		{"control characters", "ns1", "s\x001", memory.ErrInvalid},
		{"too long", "ns1", strings.Repeat("s", engine.MaxSessionIDBytes+1), memory.ErrInvalid},
		{"bad namespace", "bad ns", "s-1", memory.ErrInvalid},
	} {
		_, err := e.ConsolidateSession(ctx, c.ns, c.id, engine.ConsolidateOptions{})
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := e.ConsolidateDue(ctx, "bad ns"); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("due run in a bad namespace: %v", err)
	}
}

func TestRetention(t *testing.T) {
	t.Parallel()
	c := engine.DefaultConsolidation()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		age  time.Duration
		a    engine.Access
		want float64
	}{
		{"new", 0, engine.Access{}, 1},
		{"one half-life", 30 * day, engine.Access{}, 0.5},
		{"two half-lives", 60 * day, engine.Access{}, 0.25},
		{"threshold crossing", time.Duration(float64(30*day) * math.Log2(20)), engine.Access{}, 0.05},
		// Served once at day 30: the clock restarts there and the
		// half-life doubles (1 + log2(2)).
		{"served once", 60 * day, engine.Access{Count: 1, Last: t0.Add(30 * day)}, math.Exp2(-0.5)},
		// Served three times, last at day 0: half-life 90 days.
		{"served often", 90 * day, engine.Access{Count: 3, Last: t0}, 0.5},
		{"future access", 10 * day, engine.Access{Count: 1, Last: t0.Add(20 * day)}, 1},
	} {
		got := c.Retention(t0, tc.a, t0.Add(tc.age))
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: retention %v, want %v", tc.name, got, tc.want)
		}
	}
	// Without access an episode is due at about 129.7 days; served, later.
	due := c.ForgetAt(t0, engine.Access{})
	if d := due.Sub(t0); d < 129*day || d > 130*day {
		t.Errorf("forget at %v after", d)
	}
	if !c.ForgetAt(t0, engine.Access{Count: 1, Last: t0.Add(day)}).After(due) {
		t.Error("access did not postpone forgetting")
	}
}

func TestConsolidateForgetsAndPurges(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	start := clk.Now().Add(-10 * day)
	epIDs := captureSession(t, e, "ns1", "s-1", start, editorSession...)
	captureSession(t, e, "ns2", "s-1", start, editorSession...) // another tenant, same session id
	rep, err := e.ConsolidateDue(ctx, "ns1")
	if err != nil || len(rep.Sessions) != 1 {
		t.Fatalf("first run: %+v %v", rep, err)
	}
	summaryID := rep.Sessions[0].SummaryMemoryID
	facts, err := e.Facts(ctx, engine.FactsParams{Namespace: "ns1"})
	if err != nil {
		t.Fatal(err)
	}

	// Day 129 after the session: retention still above 0.05.
	clk.Set(start.Add(129 * day))
	rep, err = e.ConsolidateDue(ctx, "ns1")
	if err != nil || len(rep.Forgotten) != 0 {
		t.Fatalf("day 129: %+v %v", rep, err)
	}
	// Day 131: every episode is below it and leaves retrieval.
	clk.Set(start.Add(131 * day))
	rep, err = e.ConsolidateDue(ctx, "ns1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Forgotten) != len(epIDs) || len(rep.Purged) != 0 {
		t.Fatalf("day 131: forgot %d of %d, purged %d", len(rep.Forgotten), len(epIDs), len(rep.Purged))
	}
	for _, f := range rep.Forgotten {
		if f.Retention >= 0.05 || f.SummaryMemoryID != summaryID {
			t.Errorf("forgotten %+v", f)
		}
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns1", Query: "Vim editor release Friday", Scope: memory.Scope{UserID: "u1", SessionID: "s-1"}})
	for _, it := range res.Items {
		if it.Kind == memory.KindEpisodic {
			t.Errorf("a forgotten episode was served: %+v", it)
		}
	}
	// Facts stay, and the summary.
	after, err := e.Facts(ctx, engine.FactsParams{Namespace: "ns1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(facts) {
		t.Errorf("facts %d → %d after forgetting", len(facts), len(after))
	}
	res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns1", Query: "which editor do I prefer?", Scope: memory.Scope{UserID: "u1"}})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "Vim") {
		t.Errorf("the editor fact is not served after forgetting: %+v", res.Items)
	}
	stubs, err := e.EpisodeStubs(ctx, "ns1", epIDs)
	if err != nil || len(stubs) != len(epIDs) {
		t.Fatalf("stubs %+v %v", stubs, err)
	}
	for _, s := range stubs {
		if s.ForgottenAt == nil || s.PurgedAt != nil || s.SummaryMemoryID != summaryID || s.ContentHash == "" || s.OccurredAt.IsZero() {
			t.Errorf("stub after forgetting %+v", s)
		}
	}
	ep, err := st.GetEpisode(ctx, memory.GetParams{Namespace: "ns1", ID: epIDs[1]})
	if err != nil || ep.Content == "" {
		t.Errorf("text purged before the window: %+v %v", ep, err)
	}
	adms, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "ns1", MemoryID: summaryID})
	if err != nil {
		t.Fatal(err)
	}
	if len(adms) != 2 || adms[0].Extractor != "consolidate" || adms[0].Reasons[0] != "consolidated" ||
		adms[0].Reasons[1] != fmt.Sprintf("forgot_episodes:%d", len(epIDs)) {
		t.Errorf("admissions of the summary after forgetting: %+v", adms)
	}

	// 29 days later: not purged yet; 30: purged.
	clk.Set(start.Add(160 * day))
	if rep, err = e.ConsolidateDue(ctx, "ns1"); err != nil || len(rep.Purged) != 0 {
		t.Fatalf("inside the purge window: %+v %v", rep, err)
	}
	clk.Set(start.Add(161 * day))
	if rep, err = e.ConsolidateDue(ctx, "ns1"); err != nil || len(rep.Purged) != len(epIDs) {
		t.Fatalf("after the purge window: %+v %v", rep, err)
	}
	// Nothing but purged episodes is left of the session, and its month is
	// over: its summary is folded into the month's digest and goes.
	month := start.UTC().Format("2006-01")
	if len(rep.Folded) != 1 || rep.Folded[0].Month != month || len(rep.Folded[0].Sessions) != 1 || rep.Folded[0].Sessions[0] != "s-1" {
		t.Fatalf("folded %+v, want s-1 into %s", rep.Folded, month)
	}
	digestID := rep.Folded[0].MemoryID
	if _, err := st.GetMemory(ctx, memory.GetParams{Namespace: "ns1", ID: summaryID}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("the folded session summary is still there: %v", err)
	}
	digest, err := e.Show(ctx, "ns1", digestID)
	if err != nil {
		t.Fatal(err)
	}
	if cur := digest.Versions[len(digest.Versions)-1]; !strings.HasPrefix(cur.Content, "Sessions of "+month) || !strings.Contains(cur.Content, "Vim") {
		t.Errorf("digest %q", cur.Content)
	}
	rec, err := st.GetSessionSummary(ctx, memory.GetParams{Namespace: "ns1", ID: "s-1"})
	if err != nil || !rec.Folded || rec.MemoryID != digestID {
		t.Errorf("session record after folding: %+v %v", rec, err)
	}
	for _, id := range epIDs {
		ep, err := st.GetEpisode(ctx, memory.GetParams{Namespace: "ns1", ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if ep.Content != "" || len(ep.Metadata) != 3 || ep.Metadata[engine.PurgedMetadataKey] != digestID || ep.ContentHash == "" {
			t.Errorf("purged episode %+v", ep)
		}
	}
	versionOf := map[string]string{}
	for _, s := range stubs {
		versionOf[s.EpisodeID] = s.VersionID
	}
	stubs, _ = e.EpisodeStubs(ctx, "ns1", epIDs)
	if len(stubs) != len(epIDs) {
		t.Errorf("%d stubs after purge, want %d", len(stubs), len(epIDs))
	}
	for _, s := range stubs {
		if s.PurgedAt == nil || s.ForgottenAt == nil || s.SummaryMemoryID != digestID || s.ContentHash == "" || s.OccurredAt.IsZero() || s.SessionID != "s-1" {
			t.Errorf("stub after purge %+v", s)
		}
		s.VersionID = versionOf[s.EpisodeID]
		// The episodic version only served the episode to retrieval: it
		// goes with its slot; the episode row is the stub.
		if _, err := st.GetVersion(ctx, memory.GetParams{Namespace: "ns1", ID: s.VersionID}); s.VersionID == "" || !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("episodic version %q after purge: %v", s.VersionID, err)
		}
	}
	// A fact's show still cites its episode: the stub answers for it.
	for _, f := range after {
		if f.MemoryID == summaryID {
			continue // folded
		}
		view, err := e.Show(ctx, "ns1", f.MemoryID)
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range view.Episodes {
			if ep.Content != "" || ep.Metadata[engine.PurgedMetadataKey] != digestID {
				t.Errorf("show of %s: episode %+v", f.Key, ep)
			}
		}
	}
	// The other namespace was never touched.
	other, err := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "ns2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range other {
		if ep.Content == "" {
			t.Errorf("purge reached ns2: %+v", ep)
		}
	}
	// Nothing left to do.
	before := versionsOf(t, st, "ns1")
	if rep, err = e.ConsolidateDue(ctx, "ns1"); err != nil || len(rep.Sessions)+len(rep.Forgotten)+len(rep.Purged)+len(rep.Folded) != 0 || rep.More {
		t.Errorf("run after everything: %+v %v", rep, err)
	}
	if versionsOf(t, st, "ns1") != before {
		t.Error("a run with nothing to do wrote versions")
	}
}

func TestConsolidateAccessKeepsEpisodes(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	ctx := context.Background()
	start := clk.Now().Add(-10 * day)
	used := captureSession(t, e, "ns1", "s-used", start, "The staging database password rotates every Tuesday morning.")
	idle := captureSession(t, e, "ns1", "s-idle", start, "The lobby plant needs watering on Thursdays.")
	if _, err := e.ConsolidateDue(ctx, "ns1"); err != nil {
		t.Fatal(err)
	}
	// Retrievals kept to s-used serve its episode until day 100 (without
	// session_only they would serve the idle one too, as a filler).
	for _, d := range []int{40, 70, 100} {
		clk.Set(start.Add(time.Duration(d) * day))
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns1", Query: "when does the staging database password rotate?",
			Scope: memory.Scope{UserID: "u1", SessionID: "s-used"}, SessionOnly: true})
		served := false
		for _, it := range res.Items {
			served = served || (it.Kind == memory.KindEpisodic && len(it.EpisodeIDs) > 0 && it.EpisodeIDs[0] == used[0])
		}
		if !served {
			t.Fatalf("day %d: the episode was not served: %+v", d, res.Items)
		}
	}
	clk.Set(start.Add(135 * day))
	rep, err := e.ConsolidateDue(ctx, "ns1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Forgotten) != 1 || rep.Forgotten[0].EpisodeID != idle[0] {
		t.Fatalf("day 135: forgot %+v, want only the idle episode", rep.Forgotten)
	}
	stubs, err := e.EpisodeStubs(ctx, "ns1", used)
	if err != nil || len(stubs) != 1 || stubs[0].ForgottenAt != nil || !stubs[0].CheckAt.After(clk.Now()) {
		t.Fatalf("used stub %+v %v", stubs, err)
	}
	// Served three times, last at day 100: half-life 30·(1+log2 4) = 90
	// days from day 100.
	want := start.Add(100 * day).Add(time.Duration(float64(90*day) * math.Log2(20)))
	if d := stubs[0].CheckAt.Sub(want); d < -time.Minute || d > time.Minute {
		t.Errorf("next check %v, want about %v", stubs[0].CheckAt, want)
	}
}

func TestConsolidateSessionThatGrew(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	start := clk.Now().Add(-20 * day)
	captureSession(t, e, "ns1", "s-1", start, "I prefer Vim as my editor.")
	rep, err := e.ConsolidateSession(ctx, "ns1", "s-1", engine.ConsolidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := rep.Sessions[0]
	captureSession(t, e, "ns1", "s-1", start.Add(time.Hour), "We decided to deploy with Kubernetes.")
	rep, err = e.ConsolidateDue(ctx, "ns1")
	if err != nil || len(rep.Sessions) != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	second := rep.Sessions[0]
	if second.Status != engine.SessionResummarised || second.SummaryMemoryID != first.SummaryMemoryID ||
		!strings.Contains(second.Summary, "Kubernetes") || second.Episodes != 2 {
		t.Errorf("grown session: %+v", second)
	}
	old, err := st.GetVersion(ctx, memory.GetParams{Namespace: "ns1", ID: first.SummaryVersionID})
	if err != nil || old.Status != memory.StatusSuperseded || old.SupersededBy != second.SummaryVersionID {
		t.Errorf("old summary %+v %v", old, err)
	}
}

// An export written before exports carried consolidation records holds the
// summaries only: the imported namespace adopts its summaries instead of
// summarising again what may be purged. (TestExportImportLearningState
// covers an export with the records.)
func TestConsolidateAfterImport(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	start := clk.Now().Add(-10 * day)
	captureSession(t, e, "ns1", "s-1", start, editorSession...)
	rep, err := e.ConsolidateDue(ctx, "ns1")
	if err != nil || len(rep.Sessions) != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	clk.Set(start.Add(170 * day)) // forgotten, then purged
	for range 2 {
		if _, err := e.ConsolidateDue(ctx, "ns1"); err != nil {
			t.Fatal(err)
		}
		clk.Set(clk.Now().Add(31 * day))
	}
	var buf strings.Builder
	if _, err := e.Export(ctx, "ns1", &buf); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Import(ctx, "ns2", bytes.NewReader(withoutLearning(t, []byte(buf.String())))); err != nil {
		t.Fatal(err)
	}
	before := versionsOf(t, st, "ns2")
	rep, err = e.ConsolidateDue(ctx, "ns2")
	if err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].Status != engine.SessionUnchanged || len(rep.Forgotten)+len(rep.Purged) != 0 {
		t.Fatalf("imported namespace: %+v %v", rep, err)
	}
	if after := versionsOf(t, st, "ns2"); after != before {
		t.Errorf("adopting the imported summary wrote versions: %d → %d", before, after)
	}
	if rep, err = e.ConsolidateDue(ctx, "ns2"); err != nil || len(rep.Sessions) != 0 {
		t.Errorf("second run in the imported namespace: %+v %v", rep, err)
	}
}
