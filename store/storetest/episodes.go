package storetest

import (
	"context"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// ns is the namespace most of the suite writes in: the default one, which
// a store may keep in a form of its own (SQLite stores it as the empty text, see
// store/sqlite/nscode.go), so the suite holds that form to the same
// contract; other namespaces are written by the isolation and shared-text
// groups and by each backend's own tests.
const ns = memory.DefaultNamespace

func (s suite) episodes(t *testing.T) {
	t.Run("RoundTrip", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			full := newEpisode(ns, "ep-full", "s1", at(0))
			// No namespace on the row: it takes the params' namespace. No
			// scope, no metadata, zero speaker.
			bare := &memory.Episode{
				ID: "ep-bare", Kind: memory.EpisodeObservation, Content: "it rained",
				OccurredAt: at(1), RecordedAt: at(2), ContentHash: "h",
			}
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				return ex.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{full, bare}})
			}))
			wantBare := *bare
			wantBare.Namespace = ns
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				for _, want := range []*memory.Episode{full, &wantBare} {
					got, err := ex.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: want.ID})
					if err != nil {
						return err
					}
					same(t, "episode "+want.ID, want, got)
				}
				return nil
			}))
		})
	})

	t.Run("List", func(t *testing.T) {
		ctx, st := s.fresh(t)
		eps := []*memory.Episode{
			newEpisode(ns, "e-c", "s1", at(1)),
			newEpisode(ns, "e-a", "s1", at(2)),
			newEpisode(ns, "e-b", "s2", at(2)), // ties with e-a: id breaks it
			newEpisode(ns, "e-d", "s1", at(0)),
			newEpisode(ns, "e-e", "s2", at(3)),
		}
		must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: eps}))
		byID := map[string]*memory.Episode{}
		for _, e := range eps {
			byID[e.ID] = e
		}
		cases := []struct {
			name string
			p    memory.ListEpisodesParams
			want []string
		}{
			{"All", memory.ListEpisodesParams{}, []string{"e-d", "e-c", "e-a", "e-b", "e-e"}},
			{"EmptyIDs", memory.ListEpisodesParams{IDs: []string{}}, []string{"e-d", "e-c", "e-a", "e-b", "e-e"}},
			{"Session", memory.ListEpisodesParams{SessionID: "s1"}, []string{"e-d", "e-c", "e-a"}},
			{"OtherSession", memory.ListEpisodesParams{SessionID: "s2"}, []string{"e-b", "e-e"}},
			{"UnknownSession", memory.ListEpisodesParams{SessionID: "s9"}, nil},
			{"IDs", memory.ListEpisodesParams{IDs: []string{"e-e", "e-c", "missing"}}, []string{"e-c", "e-e"}},
			{"IDsAndSession", memory.ListEpisodesParams{IDs: []string{"e-e", "e-c"}, SessionID: "s1"}, []string{"e-c"}},
			{"Limit", memory.ListEpisodesParams{Limit: 2}, []string{"e-d", "e-c"}},
			{"SessionLimit", memory.ListEpisodesParams{SessionID: "s2", Limit: 1}, []string{"e-b"}},
			{"ContentHash", memory.ListEpisodesParams{ContentHash: "sha256:e-b"}, []string{"e-b"}},
			{"UnknownHash", memory.ListEpisodesParams{ContentHash: "sha256:none"}, nil},
		}
		for _, c := range cases {
			c.p.Namespace = ns
			got, err := st.ListEpisodes(ctx, c.p)
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			wantIDs(t, c.name, ids(got, episodeID), c.want)
			for _, g := range got {
				if w := byID[g.ID]; w != nil {
					same(t, c.name+" "+g.ID, w, g)
				}
			}
		}
	})

	t.Run("Conflict", func(t *testing.T) {
		ctx, st := s.fresh(t)
		create := func(ex memory.Executor, eps ...*memory.Episode) error {
			return ex.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: eps})
		}
		must(t, create(st, newEpisode(ns, "e-1", "s1", at(0))))
		wantErr(t, "duplicate of a stored id", create(st, newEpisode(ns, "e-2", "s1", at(1)), newEpisode(ns, "e-1", "s1", at(2))), memory.ErrConflict)
		wantErr(t, "duplicate inside one call", create(st, newEpisode(ns, "e-3", "s1", at(1)), newEpisode(ns, "e-3", "s1", at(2))), memory.ErrConflict)
		// A failed call writes none of its rows, even inside a transaction
		// that carries on and tries to commit.
		_ = st.InTx(ctx, func(tx memory.Executor) error {
			wantErr(t, "duplicate in a transaction", create(tx, newEpisode(ns, "e-4", "s1", at(1)), newEpisode(ns, "e-1", "s1", at(2))), memory.ErrConflict)
			return nil
		})
		for _, id := range []string{"e-2", "e-3", "e-4"} {
			_, err := st.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: id})
			wantErr(t, "row "+id+" of a failed call", err, memory.ErrNotFound)
		}
		got, err := st.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: "e-1"})
		must(t, err)
		same(t, "the original e-1", newEpisode(ns, "e-1", "s1", at(0)), got)
		must(t, create(st)) // an empty batch is a no-op
	})

	t.Run("NotFound", func(t *testing.T) {
		ctx, st := s.fresh(t)
		_, err := st.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: "nope"})
		wantErr(t, "GetEpisode", err, memory.ErrNotFound)
		got, err := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "ListEpisodes on an empty store", ids(got, episodeID), nil)
	})

	t.Run("Scan", func(t *testing.T) {
		ctx, st := s.fresh(t)
		eps := []*memory.Episode{
			newEpisode(ns, "e-2", "s1", at(0)),
			newEpisode(ns, "e-3", "s1", at(1)),
			newEpisode(ns, "e-1", "s2", at(2)),
		}
		must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: eps}))
		for _, m := range modes() {
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := collectScan(ex.ScanEpisodes, ctx, ns)
				if err != nil {
					return err
				}
				wantIDs(t, m.name+" ScanEpisodes order", ids(got, episodeID), []string{"e-1", "e-2", "e-3"})
				if len(got) == 3 {
					same(t, m.name+" scanned e-1", eps[2], got[0])
				}
				checkScanStops(t, m.name+" ScanEpisodes", ex.ScanEpisodes, ctx, ns)
				return nil
			}))
		}
	})
}

func (s suite) memories(t *testing.T) {
	t.Run("RoundTrip", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			full := newMemory(ns, "mem-1", "user", "prefers:editor",
				memory.Scope{AgentID: "a1", UserID: "u1", ProjectID: "p1", SessionID: "s1"})
			must(t, m.do(ctx, st, func(ex memory.Executor) error { return ex.CreateMemory(ctx, full) }))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := ex.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: full.ID})
				if err != nil {
					return err
				}
				same(t, "GetMemory", full, got)
				got, err = ex.FindMemory(ctx, memory.FindMemoryParams{Namespace: ns, Scope: full.Scope, Subject: full.Subject, Key: full.Key})
				if err != nil {
					return err
				}
				same(t, "FindMemory", full, got)
				return nil
			}))
		})
	})

	t.Run("FindExactScope", func(t *testing.T) {
		ctx, st := s.fresh(t)
		wide := newMemory(ns, "m-wide", "user", "k", memory.Scope{})
		user := newMemory(ns, "m-user", "user", "k", memory.Scope{UserID: "u1"})
		agentUser := newMemory(ns, "m-agent-user", "user", "k", memory.Scope{AgentID: "a1", UserID: "u1"})
		for _, m := range []*memory.Memory{wide, user, agentUser} {
			must(t, st.CreateMemory(ctx, m))
		}
		cases := []struct {
			name    string
			scope   memory.Scope
			subject string
			key     string
			want    string // "" means ErrNotFound
		}{
			{"NamespaceWide", memory.Scope{}, "user", "k", "m-wide"},
			{"User", memory.Scope{UserID: "u1"}, "user", "k", "m-user"},
			{"AgentUser", memory.Scope{AgentID: "a1", UserID: "u1"}, "user", "k", "m-agent-user"},
			{"AgentOnly", memory.Scope{AgentID: "a1"}, "user", "k", ""},
			{"WiderRequest", memory.Scope{UserID: "u1", ProjectID: "p1"}, "user", "k", ""},
			{"OtherKey", memory.Scope{}, "user", "k2", ""},
			{"OtherSubject", memory.Scope{}, "project", "k", ""},
			{"SubjectCase", memory.Scope{}, "User", "k", ""},
		}
		for _, c := range cases {
			got, err := st.FindMemory(ctx, memory.FindMemoryParams{Namespace: ns, Scope: c.scope, Subject: c.subject, Key: c.key})
			if c.want == "" {
				wantErr(t, c.name, err, memory.ErrNotFound)
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			if got.ID != c.want {
				t.Errorf("%s: got %s, want %s", c.name, got.ID, c.want)
			}
		}
	})

	t.Run("Conflict", func(t *testing.T) {
		ctx, st := s.fresh(t)
		must(t, st.CreateMemory(ctx, newMemory(ns, "m-1", "user", "k", memory.Scope{UserID: "u1"})))
		wantErr(t, "duplicate id", st.CreateMemory(ctx, newMemory(ns, "m-1", "user", "k2", memory.Scope{})), memory.ErrConflict)
		wantErr(t, "duplicate slot", st.CreateMemory(ctx, newMemory(ns, "m-2", "user", "k", memory.Scope{UserID: "u1"})), memory.ErrConflict)
		// Same subject and key in another scope is another slot.
		must(t, st.CreateMemory(ctx, newMemory(ns, "m-3", "user", "k", memory.Scope{UserID: "u2"})))
		_, err := st.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: "m-2"})
		wantErr(t, "memory of a failed create", err, memory.ErrNotFound)
	})

	t.Run("NotFound", func(t *testing.T) {
		ctx, st := s.fresh(t)
		_, err := st.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: "nope"})
		wantErr(t, "GetMemory", err, memory.ErrNotFound)
		_, err = st.FindMemory(ctx, memory.FindMemoryParams{Namespace: ns, Subject: "user", Key: "k"})
		wantErr(t, "FindMemory", err, memory.ErrNotFound)
	})

	t.Run("Scan", func(t *testing.T) {
		ctx, st := s.fresh(t)
		for _, id := range []string{"m-b", "m-c", "m-a"} {
			must(t, st.CreateMemory(ctx, newMemory(ns, id, "user", "key-"+id, memory.Scope{})))
		}
		for _, m := range modes() {
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := collectScan(ex.ScanMemories, ctx, ns)
				if err != nil {
					return err
				}
				wantIDs(t, m.name+" ScanMemories order", ids(got, memoryID), []string{"m-a", "m-b", "m-c"})
				if len(got) == 3 {
					same(t, m.name+" scanned m-a", newMemory(ns, "m-a", "user", "key-m-a", memory.Scope{}), got[0])
				}
				checkScanStops(t, m.name+" ScanMemories", ex.ScanMemories, ctx, ns)
				return nil
			}))
		}
	})
}
