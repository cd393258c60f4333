package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// consolidateUntilQuiet runs the periodic consolidation until it has
// nothing left and returns what every run folded, month → sessions.
func consolidateUntilQuiet(t *testing.T, e *engine.Engine, ns string) map[string][]string {
	t.Helper()
	folded := map[string][]string{}
	for range 20 {
		rep, err := e.ConsolidateDue(context.Background(), ns)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Folded {
			folded[f.Month] = append(folded[f.Month], f.Sessions...)
		}
		if !rep.More {
			return folded
		}
	}
	t.Fatal("consolidation never settled")
	return nil
}

// jan5 is when the fold tests' sessions begin: months before their clocks
// end, so their episodes are forgotten and purged, and January is over.
var jan5 = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

// consolidateOn runs the periodic consolidation until quiet on each of
// these days after jan5.
func consolidateOn(t *testing.T, e *engine.Engine, clk *clock.Manual, days ...int) {
	t.Helper()
	for _, d := range days {
		clk.Set(jan5.Add(time.Duration(d) * day))
		consolidateUntilQuiet(t, e, "ns1")
	}
}

// Summarised (day 40), forgotten (day 200), purged and folded (day 240);
// for a late session, the same again from day 250.
var (
	foldDays   = []int{40, 200, 240}
	refoldDays = []int{250, 400, 440}
)

// captureOn captures a session of ns1 dated at, an hour before the clock.
func captureOn(t *testing.T, e *engine.Engine, clk *clock.Manual, session string, at time.Time, texts ...string) []string {
	t.Helper()
	clk.Set(at.Add(time.Hour))
	return captureSession(t, e, "ns1", session, at, texts...)
}

// noLiveDigestSays fails when ns1's live January digest contains text.
func noLiveDigestSays(t *testing.T, st memory.Store, text, what string) {
	t.Helper()
	for _, v := range digestVersions(t, st, "ns1", "2026-01") {
		if v.Status.Live() && strings.Contains(v.Content, text) {
			t.Errorf("%s: %q", what, v.Content)
		}
	}
}

// forgetSummary forgets the summary memory of a session of ns1.
func forgetSummary(t *testing.T, e *engine.Engine, st memory.Store, session string) *memory.Memory {
	t.Helper()
	m, err := st.FindMemory(context.Background(), memory.FindMemoryParams{Namespace: "ns1", Scope: memory.Scope{UserID: "u1"}, Subject: "session", Key: "summary:" + session})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Forget(context.Background(), "ns1", m.ID); err != nil {
		t.Fatal(err)
	}
	return m
}

// digestVersions returns the versions of the scope's month digest.
func digestVersions(t *testing.T, st memory.Store, ns, month string) []*memory.Version {
	t.Helper()
	m, err := st.FindMemory(context.Background(), memory.FindMemoryParams{Namespace: ns, Scope: memory.Scope{UserID: "u1"}, Subject: "session", Key: "summary:month:" + month})
	if err != nil {
		t.Fatalf("digest of %s: %v", month, err)
	}
	vs, err := st.ListVersions(context.Background(), memory.ListVersionsParams{Namespace: ns, MemoryID: m.ID})
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestFoldSessionsIntoMonthDigests(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	sessions := []struct {
		id    string
		at    time.Time
		texts []string
	}{
		{"s-1", jan5, []string{"I prefer Vim as my editor.", "We decided to ship the release on Friday."}},
		{"s-2", jan5.Add(7 * day), []string{"My cat is called Miso.", "agent: Noted, Miso it is."}},
		{"s-3", jan5.Add(28 * day), []string{"I moved to Porto in the spring."}},
	}
	for _, s := range sessions {
		captureOn(t, e, clk, s.id, s.at, s.texts...)
	}
	// Summarised a week on; forgotten ~130 days on; purged 30 days later.
	consolidateOn(t, e, clk, foldDays...)
	recs, err := st.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: "ns1"})
	if err != nil || len(recs) != 3 {
		t.Fatalf("session records %+v %v", recs, err)
	}
	for _, r := range recs {
		if !r.Folded {
			t.Errorf("%s not folded: %+v", r.SessionID, r)
		}
		if _, err := st.FindMemory(ctx, memory.FindMemoryParams{Namespace: "ns1", Scope: memory.Scope{UserID: "u1"}, Subject: "session", Key: "summary:" + r.SessionID}); !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("the summary of %s outlived its fold: %v", r.SessionID, err)
		}
	}
	jan, feb := digestVersions(t, st, "ns1", "2026-01"), digestVersions(t, st, "ns1", "2026-02")
	if len(jan) != 1 || len(feb) != 1 {
		t.Fatalf("digest versions: january %d, february %d; want one each", len(jan), len(feb))
	}
	for _, want := range []string{"Sessions of 2026-01 (2026-01-05 to 2026-01-12):", "Vim", "Miso"} {
		if !strings.Contains(jan[0].Content, want) {
			t.Errorf("january digest %q lacks %q", jan[0].Content, want)
		}
	}
	if !strings.Contains(feb[0].Content, "Porto") || strings.Contains(feb[0].Content, "Vim") {
		t.Errorf("february digest %q", feb[0].Content)
	}
	if jan[0].Type != memory.TypeSummary || jan[0].Provenance.Source != "fold" {
		t.Errorf("digest version %+v", jan[0])
	}
	// The digest is served, and explained by its admission log.
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns1", Query: "what is my cat called", Scope: memory.Scope{UserID: "u1"}})
	if !slices.ContainsFunc(res.Items, func(it engine.Item) bool { return it.MemoryID == jan[0].MemoryID }) {
		t.Errorf("the january digest is not served: %+v", res.Items)
	}
	adms, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "ns1", MemoryID: jan[0].MemoryID})
	if err != nil || len(adms) == 0 || adms[0].Reasons[0] != "folded_sessions" || !strings.Contains(adms[0].Content, "s-2") {
		t.Errorf("digest admissions %+v %v", adms, err)
	}
	// Nothing is left to do: a run changes nothing.
	before := versionsOf(t, st, "ns1")
	if folded := consolidateUntilQuiet(t, e, "ns1"); len(folded) != 0 {
		t.Errorf("a quiet run folded %v", folded)
	}
	if after := versionsOf(t, st, "ns1"); after != before {
		t.Errorf("a quiet run wrote versions: %d → %d", before, after)
	}

	// A late event in s-1: the session is summarised again, and once
	// purged folds into the same digest, rewritten (one version, the
	// earlier sessions' lines kept).
	clk.Set(jan5.Add(241 * day))
	captureSession(t, e, "ns1", "s-1", jan5.Add(30*time.Minute), "I am learning Rust this winter.")
	consolidateOn(t, e, clk, refoldDays...)
	jan = digestVersions(t, st, "ns1", "2026-01")
	t.Logf("january digest: %s", jan[0].Content)
	if len(jan) != 1 {
		t.Fatalf("january digest has %d versions after a refold, want 1", len(jan))
	}
	for _, want := range []string{"Miso", "Rust"} {
		if !strings.Contains(jan[0].Content, want) {
			t.Errorf("refolded january digest %q lacks %q", jan[0].Content, want)
		}
	}
	// Every purged episode's stub names the digest that covers it now.
	eps, err := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "ns1", SessionID: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(eps))
	for i, ep := range eps {
		ids[i] = ep.ID
	}
	stubs, err := e.EpisodeStubs(ctx, "ns1", ids)
	if err != nil || len(stubs) != len(ids) {
		t.Fatalf("stubs %+v %v", stubs, err)
	}
	for _, s := range stubs {
		if s.SummaryMemoryID != jan[0].MemoryID || s.PurgedAt == nil {
			t.Errorf("stub %+v, want it purged into %s", s, jan[0].MemoryID)
		}
	}
}

// A session summary forgotten before its fold stays forgotten: its text
// does not come back in the digest, and its tombstone stays.
func TestFoldKeepsForgottenSummaryOut(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	captureOn(t, e, clk, "s-1", jan5, "My secret password hint is Rosebud.")
	captureOn(t, e, clk, "s-2", jan5.Add(day), "My cat is called Miso.")
	consolidateOn(t, e, clk, 40)
	m := forgetSummary(t, e, st, "s-1")
	consolidateOn(t, e, clk, 200, 240)
	jan := digestVersions(t, st, "ns1", "2026-01")
	for _, v := range jan {
		if v.Status.Live() && strings.Contains(v.Content, "Rosebud") {
			t.Errorf("forgotten summary resurrected into live digest: %q", v.Content)
		}
		if v.Status.Live() && !strings.Contains(v.Content, "Miso") {
			t.Errorf("digest lost the other session: %q", v.Content)
		}
	}
	vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: "ns1", MemoryID: m.ID})
	if err != nil || len(vs) == 0 || vs[0].Status != memory.StatusDeleted {
		t.Errorf("the forgotten summary's tombstone: %+v %v", vs, err)
	}
}

// A forgotten digest stays forgotten when another session of its month
// folds in later.
func TestFoldKeepsForgottenDigestOut(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	captureOn(t, e, clk, "s-1", jan5, "My secret password hint is Rosebud.")
	consolidateOn(t, e, clk, foldDays...)
	jan := digestVersions(t, st, "ns1", "2026-01")
	if _, err := e.Forget(ctx, "ns1", jan[0].MemoryID); err != nil {
		t.Fatal(err)
	}
	// late session in January
	clk.Set(jan5.Add(241 * day))
	captureSession(t, e, "ns1", "s-2", jan5.Add(2*day), "My cat is called Miso.")
	consolidateOn(t, e, clk, refoldDays...)
	noLiveDigestSays(t, st, "Rosebud", "forgotten digest resurrected")
}

// After a fold, a late event summarises the session again: the purged
// episodes' stubs still name a memory that exists (the digest).
func TestFoldStubsSurviveResummary(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	captureOn(t, e, clk, "s-1", jan5, "I prefer Vim as my editor.")
	consolidateOn(t, e, clk, foldDays...)
	eps, err := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "ns1", SessionID: "s-1"})
	if err != nil || len(eps) != 1 {
		t.Fatal(eps, err)
	}
	old := eps[0].ID
	clk.Set(jan5.Add(241 * day))
	captureSession(t, e, "ns1", "s-1", jan5.Add(30*time.Minute), "I am learning Rust this winter.")
	consolidateOn(t, e, clk, 250)
	stubs, err := e.EpisodeStubs(ctx, "ns1", []string{old})
	if err != nil || len(stubs) != 1 {
		t.Fatal(stubs, err)
	}
	if _, err := st.GetMemory(ctx, memory.GetParams{Namespace: "ns1", ID: stubs[0].SummaryMemoryID}); err != nil {
		t.Errorf("stub of purged %s names %s: %v", old, stubs[0].SummaryMemoryID, err)
	}
}

// A folded namespace exports and imports whole: the same episodes, nothing
// due in the copy, the same export again.
func TestFoldExportImport(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	captureOn(t, e, clk, "s-1", jan5, "I prefer Vim as my editor.", "My cat is called Miso.")
	captureOn(t, e, clk, "s-2", jan5.Add(time.Hour), "We ship on Friday.")
	consolidateOn(t, e, clk, foldDays...)
	var buf strings.Builder
	if _, err := e.Export(ctx, "ns1", &buf); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Import(ctx, "ns2", strings.NewReader(buf.String())); err != nil {
		t.Fatal(err)
	}
	a, _ := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "ns1"})
	b, _ := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "ns2"})
	if len(a) != len(b) {
		t.Fatalf("%d vs %d", len(a), len(b))
	}
	for i := range a {
		x, y := *a[i], *b[i]
		y.Namespace = x.Namespace
		if x.ID != y.ID || x.Content != y.Content || !x.OccurredAt.Equal(y.OccurredAt) || len(x.Metadata) != len(y.Metadata) {
			t.Errorf("%+v vs %+v", x, y)
		}
	}
	rep, err := e.ConsolidateDue(ctx, "ns2")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sessions) != 0 || len(rep.Folded) != 0 {
		t.Errorf("after import: %+v", rep)
	}
	var buf2 strings.Builder
	if _, err := e.Export(ctx, "ns2", &buf2); err != nil {
		t.Fatal(err)
	}
	if len(buf.String()) != len(buf2.String()) {
		t.Errorf("export sizes differ %d %d", len(buf.String()), len(buf2.String()))
	}
}

// hookStore runs hook once, right after the fold's (unlocked) read of the
// summary version named target.
type hookStore struct {
	memory.Store
	mu     sync.Mutex
	target string
	hook   func()
}

func (h *hookStore) GetVersion(ctx context.Context, p memory.GetParams) (*memory.Version, error) {
	v, err := h.Store.GetVersion(ctx, p)
	h.mu.Lock()
	fire := h.hook != nil && p.ID == h.target
	hook := h.hook
	if fire {
		h.hook = nil
	}
	h.mu.Unlock()
	if fire {
		hook() // a concurrent Forget between foldInput and foldMonth's lock
	}
	return v, err
}

// A summary forgotten after the periodic run listed its session, before
// the fold took the namespace's lock, is not quoted in the digest.
func TestFoldForgetRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := sqlitetest.OpenAt(t, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	hs := &hookStore{Store: st}
	clk := clock.NewManual(t0)
	e, err := engine.New(engine.Config{Store: hs, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { e.Close(); st.Close() }()
	captureOn(t, e, clk, "s-1", jan5, "My secret password hint is Rosebud.")
	captureOn(t, e, clk, "s-2", jan5.Add(day), "My cat is called Miso.")
	consolidateOn(t, e, clk, 40, 200)
	rec, err := st.GetSessionSummary(ctx, memory.GetParams{Namespace: "ns1", ID: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	hs.mu.Lock()
	hs.target = rec.VersionID
	hs.hook = func() {
		if _, err := e.Forget(ctx, "ns1", rec.MemoryID); err != nil {
			t.Error(err)
		}
	}
	hs.mu.Unlock()
	consolidateOn(t, e, clk, 240)
	if hs.hook != nil {
		t.Fatal("hook never fired")
	}
	noLiveDigestSays(t, st, "Rosebud", "summary forgotten while the fold ran is in the live digest")
}

// A month whose only summary was forgotten gets a digest of its header
// alone; when another session of the month folds in later, the digest
// quotes that session and nothing of the empty one.
func TestFoldHeaderOnlyDigest(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	captureOn(t, e, clk, "s-1", jan5, "My secret password hint is Rosebud.")
	consolidateOn(t, e, clk, 40)
	forgetSummary(t, e, st, "s-1")
	consolidateOn(t, e, clk, 200, 240)
	liveDigest := func() string {
		t.Helper()
		for _, v := range digestVersions(t, st, "ns1", "2026-01") {
			if v.Status.Live() {
				return v.Content
			}
		}
		t.Fatal("no live digest")
		return ""
	}
	if got := liveDigest(); got != "Sessions of 2026-01 (2026-01-05 to 2026-01-05):" {
		t.Errorf("digest of a month with nothing to quote: %q", got)
	}
	clk.Set(jan5.Add(241 * day))
	captureSession(t, e, "ns1", "s-2", jan5.Add(2*day), "My cat is called Miso.")
	consolidateOn(t, e, clk, refoldDays...)
	if got := liveDigest(); !strings.HasSuffix(got, "user: My cat is called Miso.") || strings.Contains(got, "Rosebud") || strings.Contains(got, "events") {
		t.Errorf("refolded digest: %q", got)
	}
}
