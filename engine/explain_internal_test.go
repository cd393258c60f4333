package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// explainFmt is explain as it was written with fmt, kept as the reference
// the append-built text must equal byte for byte.
func (e *Engine) explainFmt(st *nsState, c *scored, qterms []string, w view) string {
	v := c.en.V
	var parts []string
	for _, name := range Channels {
		h, ok := c.channels.Get(name)
		if !ok {
			continue
		}
		var detail string
		switch name {
		case ChannelLexical:
			ts := st.ExplainLexical(v.ID, qterms)
			if len(ts) > 3 {
				ts = ts[:3]
			}
			words := make([]string, len(ts))
			for i, t := range ts {
				words[i] = fmt.Sprintf("%s %.2f", t.Term, t.Score)
			}
			detail = fmt.Sprintf("bm25 %.2f", h.Score)
			if len(words) > 0 {
				detail += ": " + strings.Join(words, ", ")
			}
		case ChannelSemantic:
			detail = fmt.Sprintf("cosine %.2f", h.Score)
		case ChannelStructured:
			detail = "key " + v.Key
			if v.Kind == memory.KindEpisodic {
				detail = "speaker and lent keys: " + strings.Join(c.en.KeyTerms, " ")
			}
		case ChannelCritical:
			detail = "must_include"
		case ChannelRecent:
			detail = "recent episode"
			if len(c.channels) == 1 {
				detail += "; newness alone adds no relevance"
			}
		case ChannelGraph:
			detail = "claim " + v.Subject + " " + index.KeyWords(v.Key) + " " + v.Value
		}
		parts = append(parts, fmt.Sprintf("%s #%d (%s)", name, h.Rank, detail))
	}
	var b strings.Builder
	b.WriteString("found by ")
	b.WriteString(strings.Join(parts, ", "))
	fmt.Fprintf(&b, "; fused %.3f", c.fused)
	for _, t := range c.terms {
		fmt.Fprintf(&b, " %+.3f %s", t.Value, t.Name)
	}
	fmt.Fprintf(&b, " = %.3f; %s (trust %.2f, uncertainty %.2f); %s in %s, %d tokens", c.final, c.action, c.trust, uncertaintyOf(v), c.reason, sectionOf(v), c.lineToks)
	switch {
	case v.Status == memory.StatusContested:
		b.WriteString("; contested: another value is also held, or a later statement says it changed")
	case w.history(v):
		b.WriteString("; history: no longer current")
	case w.currentThen(v) && w.asOf != nil:
		fmt.Fprintf(&b, "; current as of %s (later %s)", w.asOf.Format(time.RFC3339), v.Status)
	case w.currentThen(v):
		fmt.Fprintf(&b, "; current as known at %s (later %s)", w.knownAt.Format(time.RFC3339), v.Status)
	}
	return b.String()
}

// The explanation built with appends is the fmt-built one, byte for byte,
// on 3,000 candidates: every version of a small store (facts, replaced
// values, contested ones, must_include, turns) under random channel hits,
// terms and scores (rounded as retrieval rounds them, and values no
// retrieval makes: NaN, infinities, -0, huge), with and without a past
// view.
func TestExplainMatchesFmt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	at := time.Date(2026, 5, 4, 8, 0, 0, 0, time.UTC)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "x.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := New(Config{Store: st, Clock: clock.NewManual(at.Add(48 * time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tools := []string{"vim", "emacs", "helix", "nano", "zed"}
	towns := []string{"Graz", "Ghent", "Turku", "Split"}
	var ps []RememberParams
	for i := 0; i < 40; i++ {
		ps = append(ps, RememberParams{Namespace: "x", Text: fmt.Sprintf("Team %d edits config files with %s", i%7, tools[i%len(tools)]),
			Key: fmt.Sprintf("tool:editor_%d", i%7), Value: tools[i%len(tools)], Subject: fmt.Sprintf("team%d", i%7),
			ObservedAt: at.Add(time.Duration(i) * time.Hour)})
	}
	for i := 0; i < 12; i++ {
		ps = append(ps, RememberParams{Namespace: "x", Text: fmt.Sprintf("the standup for squad %d happens in %s", i, towns[i%len(towns)]),
			Key: fmt.Sprintf("place:standup_%d", i), Value: towns[i%len(towns)], Criticality: memory.CriticalityMustInclude, ObservedAt: at})
		ps = append(ps, RememberParams{Namespace: "x", Text: fmt.Sprintf("maybe squad %d meets in %s instead", i, towns[(i+1)%len(towns)]),
			Key: fmt.Sprintf("place:standup_%d", i), Value: towns[(i+1)%len(towns)], Confidence: 0.2, ObservedAt: at.Add(time.Minute)})
	}
	for _, p := range ps {
		if _, err := e.Remember(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	var evs []Event
	for i := 0; i < 20; i++ {
		evs = append(evs, Event{Kind: memory.EpisodeUserMessage, Content: fmt.Sprintf("I moved the %s plugin to squad %d today", tools[i%len(tools)], i%5), OccurredAt: at.Add(time.Duration(i) * time.Minute)})
	}
	if _, err := e.Capture(ctx, CaptureParams{Namespace: "x", Events: evs}); err != nil {
		t.Fatal(err)
	}
	ns, err := e.namespace(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.store.ListVersions(ctx, memory.ListVersionsParams{Namespace: "x", WithoutEmbeddings: true})
	if err != nil {
		t.Fatal(err)
	}
	var ens []*entry
	for _, v := range vs {
		if en, ok := ns.Entry(v.ID); ok {
			ens = append(ens, en)
		}
	}
	if len(ens) < 50 {
		t.Fatalf("%d entries indexed", len(ens))
	}

	r := rand.New(rand.NewPCG(7, 8))
	num := func() float64 {
		switch r.IntN(12) {
		case 0:
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e21, -123456.789, 0.0005, -0.0005, 0.125, 0.005}[r.IntN(10)]
		case 1, 2:
			return round4(r.NormFloat64() * 10)
		}
		return round4(r.Float64())
	}
	later := at.Add(90 * time.Minute)
	views := []view{{}, {asOf: &at}, {knownAt: &later}, {asOf: &later, knownAt: &later}}
	seen := map[string]int{}
	for i := 0; i < 3000; i++ {
		en := ens[r.IntN(len(ens))]
		c := &scored{en: en, fused: num(), final: num(), trust: num(), lineToks: r.IntN(300) - 5,
			action: []memory.Action{memory.ActionFollow, memory.ActionHint, memory.ActionIgnore}[r.IntN(3)],
			reason: []string{"ranked", "must_include", "same text as mem_01m92jtf8kn32fcp40m24wcdvd, packed: cited there", ""}[r.IntN(4)]}
		for _, name := range Channels {
			if r.IntN(3) == 0 {
				c.channels = append(c.channels, memory.NamedChannelHit{Channel: name, ChannelHit: memory.ChannelHit{Rank: r.IntN(60), Score: num()}})
			}
		}
		for _, name := range []string{"usefulness", "confidence", "same_text", "covered_by_fact", "stale"} {
			if r.IntN(2) == 0 {
				c.terms = append(c.terms, memory.Term{Name: name, Value: num()})
			}
		}
		qterms := e.analyzer.QueryTerms(en.V.Content)
		if r.IntN(4) == 0 {
			qterms = e.analyzer.QueryTerms("squad config plugin " + tools[r.IntN(len(tools))])
		}
		w := views[r.IntN(len(views))]
		got, want := e.explain(ns, c, qterms, nil, w), e.explainFmt(ns, c, qterms, w)
		if got != want {
			t.Fatalf("candidate %d:\n got %q\nwant %q", i, got, want)
		}
		for _, mark := range []string{": ", "lent keys", "contested:", "history:", "current as of", "current as known at", "newness alone", "claim ", "NaN", "+Inf", "-0.00"} {
			if strings.Contains(got, mark) {
				seen[mark]++
			}
		}
	}
	for _, mark := range []string{": ", "contested:", "history:", "current as of", "current as known at", "newness alone", "claim ", "NaN", "+Inf", "-0.00"} {
		if seen[mark] == 0 {
			t.Errorf("no explanation holds %q: the comparison did not cover it", mark)
		}
	}
	t.Logf("marks seen: %v", seen)
}
