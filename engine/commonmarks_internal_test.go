package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// TestCommonMarksSameResults checks that the common request's filter read
// from the search index's marks (commonMarks) serves what looking up each
// version's entry served: in a namespace holding memories owned by a user,
// an agent or a project, facts a later statement replaced (history) and
// forgotten memories, for the index built by writes, then loaded from the
// store by a fresh engine, then changed again after the load, every item,
// the context and every trace item are the same, for the common request
// and for an owned one (which never reads the marks). It also checks, on
// every owned, history and live version the queries match, that what the
// entry says of serving it to the common request (which the marks, admits
// and sourceStateLocked read) is what servableLocked says of its version.
func TestCommonMarksSameResults(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "m.db")
	open := func() (*sqlite.Store, *Engine) {
		st, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(Config{Store: st, Clock: clock.NewManual(at.Add(2000 * time.Hour))})
		if err != nil {
			st.Close()
			t.Fatal(err)
		}
		return st, e
	}
	r := rand.New(rand.NewPCG(7, 11))
	things := []string{"the deploy script", "our metrics dashboard", "the staging cluster", "the invoice job", "the chat widget", "the cache layer", "the release checklist"}
	happened := []string{"timed out during", "got rewritten before", "paged the on-call after", "ran twice during", "lost data after", "was rolled back after"}
	moments := []string{"the freeze", "the quarterly review", "the vendor switch", "the spike", "the rename", "the cutover"}
	scopes := []memory.Scope{{}, {}, {}, {UserID: "dana"}, {AgentID: "helper"}, {ProjectID: "atlas"}}
	n := 0
	remember := func(e *Engine, count int) []string {
		var ids []string
		for range count {
			text := fmt.Sprintf("%s %s %s", things[r.IntN(len(things))], happened[r.IntN(len(happened))], moments[r.IntN(len(moments))])
			preference := n%9 == 0
			if n%5 == 2 {
				// Someone named by relation: a name fact (key "name:…")
				// beside the turn, which sourceStateLocked reads.
				text = fmt.Sprintf("my %s %s looked into %s after %s", []string{"cousin", "neighbour", "flatmate"}[r.IntN(3)],
					[]string{"Farrah", "Tomasz", "Ingrid", "Kwame"}[r.IntN(4)], things[r.IntN(len(things))], moments[r.IntN(len(moments))])
			}
			if preference {
				// Preferences that change: the earlier one becomes history.
				text = fmt.Sprintf("these days I use %s for %s", []string{"neovim", "vscode", "helix", "zed"}[r.IntN(4)], []string{"go", "python"}[r.IntN(2)])
			}
			res, err := e.Remember(ctx, RememberParams{Namespace: "ns", Text: text, Scope: scopes[r.IntN(len(scopes))], ObservedAt: at.Add(time.Duration(n) * time.Minute)})
			n++
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range res.Outcomes {
				// A preference's memory keeps its id across versions:
				// forgetting it would take its history along.
				if o.MemoryID != "" && !preference {
					ids = append(ids, o.MemoryID)
				}
			}
		}
		return ids
	}
	forget := func(e *Engine, ids []string, every int) {
		for i := 0; i < len(ids); i += every {
			if _, err := e.Forget(ctx, "ns", ids[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	queries := []string{"deploy", "cache cutover", "what timed out during the freeze?", "invoice job rolled back", "editor", "which editor do I use for go",
		"dashboard spike", "chat widget", "staging", "release checklist rename", "vendor", "cousin", "what did my neighbour look into?", "flatmate Ingrid"}
	run := func(e *Engine, p RetrieveParams) retrievalOutcome {
		return retrieveOutcome(t, e, p)
	}
	defer func() { commonMarks = true }()
	owned, history := 0, 0 // versions the common request must not serve, matching the queries
	named := 0             // name facts matching the queries
	compare := func(e *Engine, stage string) {
		t.Helper()
		for _, q := range queries {
			for _, p := range []RetrieveParams{
				{Namespace: "ns", Query: q, Limit: 10},
				{Namespace: "ns", Query: q, Limit: 3},
				{Namespace: "ns", Query: q, Limit: 10, Scope: memory.Scope{UserID: "dana"}},
			} {
				commonMarks = true
				got := run(e, p)
				commonMarks = false
				want := run(e, p)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: query %q scope %+v limit %d:\n marks  %+v\n lookup %+v", stage, q, p.Scope, p.Limit, got, want)
				}
			}
		}
		// The namespace does hold what the common request must not serve.
		st, err := e.namespace(ctx, "ns")
		if err != nil {
			t.Fatal(err)
		}
		st.RLock()
		for _, q := range queries {
			for _, h := range st.Lexical(e.analyzer.QueryTerms(q), 100, nil) {
				en, ok := st.EntryLocked(h.ID)
				// What admits and sourceStateLocked read of the entry
				// for the common request is what servableLocked reads
				// of the version.
				if ok && servableLocked(st, en.V, RetrieveParams{}) != (en.Ownerless && en.Status.Live()) {
					t.Fatalf("%s: %s (%s, %+v): the entry and the version disagree on serving it", stage, en.V.ID, en.Status, en.V.Scope)
				}
				// What ranking reads of the entry rather than of the
				// version (sortRanked, liftRepeatingFacts), whether the
				// entry was written, loaded or changed.
				if ok && (int(en.Solid) != solidLen(en.V.Content) || en.Episodic != (en.V.Kind == memory.KindEpisodic) || en.NameKey != relationNameKey(en.V.Key)) {
					t.Fatalf("%s: %s: entry says %d solid bytes, episodic %v; the version %d, %s", stage, en.V.ID, en.Solid, en.Episodic, solidLen(en.V.Content), en.V.Kind)
				}
				if ok && en.NameKey {
					named++
				}
				if ok && !en.Ownerless {
					owned++
				} else if ok && !en.Status.Live() {
					history++
				}
			}
		}
		st.RUnlock()
	}

	st, e := open()
	ids := remember(e, 150)
	forget(e, ids, 7)
	compare(e, "written")
	e.Close()
	st.Close()

	st, e = open()
	defer st.Close()
	defer e.Close()
	compare(e, "loaded")
	ids = remember(e, 60)
	forget(e, ids, 5)
	compare(e, "changed after the load")
	if owned < 30 || history < 10 || named < 5 {
		t.Fatalf("%d owned, %d history and %d name versions matched the queries: the test needs more of each", owned, history, named)
	}
}
