package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

func lcInvalid(err error) bool { return errors.Is(err, memory.ErrInvalid) }

// lcEmbedder embeds the texts it knows as given vectors, and every
// other text along one axis of its own, so a test sets the cosines that
// matter exactly.
type lcEmbedder map[string][]float32

const lcDim = 6

func (lcEmbedder) Name() string { return "table" }
func (lcEmbedder) Dim() int     { return lcDim }

func (te lcEmbedder) Embed(_ context.Context, texts []string) ([]search.Vector, error) {
	out := make([]search.Vector, len(texts))
	for i, s := range texts {
		v, ok := te[s]
		if !ok {
			v = []float32{0, 0, 0, 0, 0, 1}
		}
		out[i] = search.Vector{Dim: lcDim, Values: v}
	}
	return out, nil
}

// at returns a unit vector in the plane of the first two axes, at the angle
// whose cosine with the first axis is cos (negative: below the axis).
func lcAt(cos float64, below bool) []float32 {
	sin := math.Sqrt(1 - cos*cos)
	if below {
		sin = -sin
	}
	return []float32{float32(cos), float32(sin), 0, 0, 0, 0}
}

func lcEngine(t *testing.T, te lcEmbedder) (*engine.Engine, *clock.Manual, memory.Store) {
	t.Helper()
	st := sqlitetest.OpenAt(t, filepath.Join(t.TempDir(), "mnemon.db"), sqlite.Options{})
	clk := clock.NewManual(t0)
	e, err := engine.New(engine.Config{Store: st, Clock: clk, Embedder: te})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		st.Close()
	})
	return e, clk, st
}

func lcDedupe(t *testing.T, e *engine.Engine, p engine.DedupeParams) *engine.DedupeReport {
	t.Helper()
	if p.Namespace == "" {
		p.Namespace = "ns"
	}
	rep, err := e.Dedupe(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestDedupeClusters(t *testing.T) {
	t.Parallel()
	// A~B and B~C at cosine 0.95, A and C only 0.805 apart: one cluster by
	// single linkage. D says the opposite of A, nearly in A's words (0.97):
	// it must stay. G negates F (0.99). H repeats A in another scope.
	const (
		A = "The user likes jazz."
		B = "The user's favorite music is jazz."
		C = "Jazz is what the user listens to in the evening."
		D = "The user dislikes jazz."
		F = "Atlas uses pnpm."
		G = "Atlas does not use pnpm."
		E = "The user lives in Lisbon."
	)
	theta := math.Acos(0.95)
	te := lcEmbedder{
		A: lcAt(1, false), B: lcAt(0.95, false), C: lcAt(math.Cos(2*theta), false), D: lcAt(0.97, true),
		F: {0, 0, 1, 0, 0, 0}, G: {0, 0, 0.99, float32(math.Sqrt(1 - 0.99*0.99)), 0, 0},
		E: {0, 0, 0, 0, 1, 0},
	}
	e, _, st := lcEngine(t, te)
	a := lcFact(t, e, engine.RememberParams{Text: A, Key: "likes:jazz", Value: "jazz", Confidence: 0.9})
	b := lcFact(t, e, engine.RememberParams{Text: B, Key: "prefers:music", Value: "jazz", Confidence: 0.8})
	c := lcFact(t, e, engine.RememberParams{Text: C, Key: "note:jazz_evening", Value: C, Confidence: 0.7})
	d := lcFact(t, e, engine.RememberParams{Text: D, Key: "dislikes:jazz", Value: "jazz", Confidence: 0.95})
	f := lcFact(t, e, engine.RememberParams{Text: F, Subject: "atlas", Key: "uses:package_manager", Value: "pnpm"})
	g := lcFact(t, e, engine.RememberParams{Text: G, Subject: "atlas", Key: "note:not_pnpm", Value: G})
	h := lcFact(t, e, engine.RememberParams{Text: A, Key: "likes:jazz", Value: "jazz", Scope: memory.Scope{ProjectID: "p"}})
	x := lcFact(t, e, engine.RememberParams{Text: E, Key: "lives_in", Value: "Lisbon"})

	dry := lcDedupe(t, e, engine.DedupeParams{DryRun: true})
	if dry.Superseded != 2 || lcVersion(t, st, b.ID).Status != memory.StatusActive {
		t.Fatalf("dry run: %+v, or it wrote", dry)
	}
	rep := lcDedupe(t, e, engine.DedupeParams{})
	if rep.Clusters != 1 || rep.Superseded != 2 || rep.More || rep.Threshold != engine.DefaultDedupeThreshold {
		t.Fatalf("report %+v; want one cluster of three", rep)
	}
	for _, id := range []string{b.ID, c.ID} {
		v := lcVersion(t, st, id)
		if v.Status != memory.StatusSuperseded || v.SupersededBy != a.ID {
			t.Fatalf("%s (%q) is %s by %q; want superseded by the strongest %s", id, v.Content, v.Status, v.SupersededBy, a.ID)
		}
		adms, err := st.ListAdmissions(context.Background(), memory.ListAdmissionsParams{Namespace: "ns", MemoryID: v.MemoryID})
		if err != nil {
			t.Fatal(err)
		}
		if !lcHasAdmission(adms, "dedupe", engine.ReasonDuplicateOf) {
			t.Fatalf("no duplicate_of admission for %s: %+v", id, adms)
		}
	}
	for _, id := range []string{a.ID, d.ID, f.ID, g.ID, h.ID, x.ID} {
		if v := lcVersion(t, st, id); v.Status != memory.StatusActive {
			t.Fatalf("%q is %s; want it kept active", v.Content, v.Status)
		}
	}
	before := lcUpdatedAt(t, st, "ns")
	again := lcDedupe(t, e, engine.DedupeParams{})
	if again.Clusters != 0 || again.Superseded != 0 || len(again.Changes) != 0 || again.More {
		t.Fatalf("second run: %+v; want all zeros", again)
	}
	if !lcSameTimes(before, lcUpdatedAt(t, st, "ns")) {
		t.Fatal("second run changed updated_at")
	}
	// Retrieval no longer serves the duplicates.
	r := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "jazz music the user likes"})
	if lcServed(r, b.ID) || lcServed(r, c.ID) || !lcServed(r, a.ID) {
		t.Fatalf("retrieval after dedupe: %+v", r.Items)
	}
}

// A member that contradicts its cluster's strongest stays out, and is
// clustered again with the members like it.
func TestDedupeReclustersLeftovers(t *testing.T) {
	t.Parallel()
	const (
		S  = "The user likes jazz."
		M  = "Jazz is often played by the user."
		N1 = "Jazz grates on the user."
		N2 = "Jazz irritates the user."
	)
	// S~M, M~N1, N1~N2 at 0.95 (one component by single linkage); N1 and
	// N2 take the opposite side of S (dislikes:, hates:), not of M.
	th := math.Acos(0.95)
	te := lcEmbedder{S: lcAt(1, false), M: lcAt(0.95, false), N1: lcAt(math.Cos(2*th), false), N2: lcAt(math.Cos(3*th), false)}
	e, _, st := lcEngine(t, te)
	s := lcFact(t, e, engine.RememberParams{Text: S, Key: "likes:jazz", Value: "jazz", Confidence: 0.9})
	m := lcFact(t, e, engine.RememberParams{Text: M, Key: "note:m", Value: M, Confidence: 0.5})
	n1 := lcFact(t, e, engine.RememberParams{Text: N1, Key: "dislikes:jazz", Value: "jazz", Confidence: 0.8})
	n2 := lcFact(t, e, engine.RememberParams{Text: N2, Key: "hates:jazz", Value: "jazz", Confidence: 0.6})
	rep := lcDedupe(t, e, engine.DedupeParams{})
	if rep.Clusters != 2 || rep.Superseded != 2 {
		t.Fatalf("report %+v; want two clusters", rep)
	}
	if v := lcVersion(t, st, m.ID); v.SupersededBy != s.ID {
		t.Fatalf("M superseded by %q, want S", v.SupersededBy)
	}
	if v := lcVersion(t, st, n2.ID); v.SupersededBy != n1.ID {
		t.Fatalf("N2 superseded by %q, want N1", v.SupersededBy)
	}
	if lcVersion(t, st, s.ID).Status != memory.StatusActive || lcVersion(t, st, n1.ID).Status != memory.StatusActive {
		t.Fatal("a cluster's strongest was superseded")
	}
	if again := lcDedupe(t, e, engine.DedupeParams{}); again.Superseded != 0 {
		t.Fatalf("second run: %+v", again)
	}
}

// TestDedupeIncremental: after a complete run, the next compares only
// pairs with a fact written or touched since, and still merges a new
// duplicate of an old fact, in any scope it was compared in; summaries are
// never compared.
func TestDedupeIncremental(t *testing.T) {
	t.Parallel()
	const A, B, C, E = "The user likes jazz.", "The user's favorite music is jazz.", "Jazz, the user likes.", "The user lives in Lisbon."
	te := lcEmbedder{A: lcAt(1, false), B: lcAt(0.95, false), C: lcAt(0.96, false), E: {0, 0, 0, 0, 1, 0}}
	e, clk, st := lcEngine(t, te)
	a := lcFact(t, e, engine.RememberParams{Text: A, Key: "likes:jazz", Value: "jazz", Confidence: 0.9})
	lcFact(t, e, engine.RememberParams{Text: E, Key: "lives_in", Value: "Lisbon"})
	if rep := lcDedupe(t, e, engine.DedupeParams{}); rep.Superseded != 0 || rep.More {
		t.Fatalf("first run: %+v", rep)
	}
	for i, text := range []string{B, C} {
		clk.Advance(2 * time.Hour) // the old facts are behind the mark now
		v := lcFact(t, e, engine.RememberParams{Text: text, Key: fmt.Sprintf("note:jazz_%d", i), Value: text, Confidence: 0.5})
		rep := lcDedupe(t, e, engine.DedupeParams{})
		if rep.Superseded != 1 || lcVersion(t, st, v.ID).SupersededBy != a.ID {
			t.Fatalf("a new duplicate of an old fact (%q): %+v", text, rep)
		}
		if again := lcDedupe(t, e, engine.DedupeParams{}); again.Superseded != 0 {
			t.Fatalf("run after %q: %+v", text, again)
		}
	}
	// Two sessions' summaries alike in every word stay two summaries.
	clk.Advance(2 * time.Hour)
	const S = "The user talked about jazz."
	te[S] = lcAt(1, false)
	for _, id := range []string{"s-1", "s-2"} {
		lcFact(t, e, engine.RememberParams{Text: S, Type: memory.TypeSummary, Subject: "session", Key: "summary:" + strings.ReplaceAll(id, "-", "_"), Value: S})
	}
	if rep := lcDedupe(t, e, engine.DedupeParams{}); rep.Superseded != 0 {
		t.Fatalf("summaries merged: %+v", rep)
	}
}

// TestDedupeAfterImport: a dedupe over the empty namespace, then an import
// of two duplicates with old times: the next dedupe still compares them.
func TestDedupeAfterImport(t *testing.T) {
	t.Parallel()
	const A, B = "The user likes jazz.", "The user's favorite music is jazz."
	te := lcEmbedder{A: lcAt(1, false), B: lcAt(0.97, false)}
	src, _, _ := lcEngine(t, te)
	lcFact(t, src, engine.RememberParams{Text: A, Key: "likes:jazz", Value: "jazz", Confidence: 0.9})
	lcFact(t, src, engine.RememberParams{Text: B, Key: "prefers:music", Value: "jazz", Confidence: 0.8})
	var dump bytes.Buffer
	if _, err := src.Export(context.Background(), "ns", &dump); err != nil {
		t.Fatal(err)
	}
	dst, clk, _ := lcEngine(t, te)
	clk.Advance(24 * time.Hour)
	if rep := lcDedupe(t, dst, engine.DedupeParams{}); rep.Superseded != 0 {
		t.Fatalf("dedupe of an empty namespace: %+v", rep)
	}
	if _, err := dst.Import(context.Background(), "ns", &dump); err != nil {
		t.Fatal(err)
	}
	if rep := lcDedupe(t, dst, engine.DedupeParams{}); rep.Superseded != 1 {
		t.Fatalf("dedupe after the import: %+v, want the duplicate merged", rep)
	}
}

func TestDedupeThresholdLimitAndBadInput(t *testing.T) {
	t.Parallel()
	const A, B, C = "one", "two", "three"
	te := lcEmbedder{A: lcAt(1, false), B: lcAt(0.9, false), C: lcAt(0.9, true)}
	e, _, st := lcEngine(t, te)
	a := lcFact(t, e, engine.RememberParams{Text: A, Key: "note:a", Value: A, Confidence: 0.9})
	b := lcFact(t, e, engine.RememberParams{Text: B, Key: "note:b", Value: B, Confidence: 0.8})
	lcFact(t, e, engine.RememberParams{Text: C, Key: "note:c", Value: C, Confidence: 0.7})
	if rep := lcDedupe(t, e, engine.DedupeParams{}); rep.Superseded != 0 {
		t.Fatalf("at 0.92, cosine 0.9 merged: %+v", rep)
	}
	rep := lcDedupe(t, e, engine.DedupeParams{Threshold: 0.85, Limit: 1})
	if rep.Superseded != 1 || !rep.More || lcVersion(t, st, b.ID).SupersededBy != a.ID {
		t.Fatalf("threshold 0.85, limit 1: %+v", rep)
	}
	if rep := lcDedupe(t, e, engine.DedupeParams{Threshold: 0.85}); rep.Superseded != 1 || rep.More {
		t.Fatalf("the rest: %+v", rep)
	}
	for _, p := range []engine.DedupeParams{
		{Namespace: "ns", Threshold: 1.5}, {Namespace: "ns", Threshold: -0.1}, {Namespace: "ns", Limit: -1},
		{Namespace: "no spaces"},
	} {
		if _, err := e.Dedupe(context.Background(), p); !lcInvalid(err) {
			t.Fatalf("%+v: %v; want invalid", p, err)
		}
	}
}

func TestMaintain(t *testing.T) {
	t.Parallel()
	const A, B = "The user likes tea.", "Tea is the user's favorite drink."
	e, clk, st := lcEngine(t, lcEmbedder{A: lcAt(1, false), B: lcAt(0.95, false)})
	a := lcFact(t, e, engine.RememberParams{Text: A, Key: "likes:tea", Value: "tea", Confidence: 0.9})
	b := lcFact(t, e, engine.RememberParams{Text: B, Key: "prefers:drink", Value: "tea", Confidence: 0.8})
	lcSetState(t, st, a.ID, 0.9, 0.9, t0)
	clk.Set(t0.Add(30 * lcDay))
	rep, err := e.Maintain(context.Background(), "ns")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lifecycle == nil || rep.Lifecycle.Decayed != 1 || rep.Dedupe == nil || rep.Dedupe.Superseded != 1 {
		t.Fatalf("maintain: %+v", rep)
	}
	if v := lcVersion(t, st, b.ID); v.SupersededBy != a.ID {
		t.Fatalf("B superseded by %q", v.SupersededBy)
	}
	again, err := e.Maintain(context.Background(), "ns")
	if err != nil {
		t.Fatal(err)
	}
	if again.Lifecycle.Changed() != 0 || len(again.Dedupe.Changes) != 0 {
		t.Fatalf("second maintain: %+v %+v", again.Lifecycle, again.Dedupe)
	}
}
