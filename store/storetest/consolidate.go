package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

func newStub(ns, episode, session string, occurred time.Time) *memory.EpisodeStub {
	return &memory.EpisodeStub{
		Namespace: ns, EpisodeID: episode, SessionID: session, VersionID: "v-" + episode,
		SummaryMemoryID: "m-summary-" + session, ContentHash: "sha256:" + episode,
		OccurredAt: occurred, SummarisedAt: occurred.Add(time.Hour), CheckAt: occurred.Add(24 * time.Hour),
		Retention: 1,
	}
}

func stubID(s *memory.EpisodeStub) string { return s.EpisodeID }

func (s suite) consolidation(t *testing.T) {
	t.Run("Sessions", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{
				newEpisode(ns, "e-1", "s-old", at(1)), newEpisode(ns, "e-2", "s-old", at(3)),
				newEpisode(ns, "e-3", "s-new", at(10)), newEpisode(ns, "e-4", "", at(0)),
				newEpisode(ns, "e-5", "s-mid", at(5)),
			}}))
			must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "other", Episodes: []*memory.Episode{
				newEpisode("other", "e-9", "s-old", at(0)),
			}}))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := ex.GetSession(ctx, memory.GetParams{Namespace: ns, ID: "s-old"})
				must(t, err)
				if got.ID != "s-old" || got.Episodes != 2 || !got.FirstAt.Equal(at(1)) || !got.LastAt.Equal(at(3)) {
					t.Errorf("session s-old: %+v", got)
				}
				_, err = ex.GetSession(ctx, memory.GetParams{Namespace: ns, ID: "s-none"})
				wantErr(t, "unknown session", err, memory.ErrNotFound)
				_, err = ex.GetSession(ctx, memory.GetParams{Namespace: "empty", ID: "s-old"})
				wantErr(t, "session of another namespace", err, memory.ErrNotFound)
				_, err = ex.GetSession(ctx, memory.GetParams{Namespace: ns, ID: ""})
				wantErr(t, "empty session id", err, memory.ErrInvalid)

				// Quiet since before at(6): s-old then s-mid; never the
				// episodes without a session, nor the other namespace's.
				due, err := ex.DueSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: at(6)})
				must(t, err)
				wantIDs(t, "due sessions", ids(due, func(s memory.SessionInfo) string { return s.ID }), []string{"s-old", "s-mid"})
				due, err = ex.DueSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: at(6), Limit: 1})
				must(t, err)
				wantIDs(t, "due sessions, limit 1", ids(due, func(s memory.SessionInfo) string { return s.ID }), []string{"s-old"})
				return nil
			}))

			// A summary covering every episode takes the session off the
			// list; an episode added since puts it back.
			sum := &memory.SessionSummary{Namespace: ns, SessionID: "s-old", MemoryID: "m-s", VersionID: "v-s",
				Episodes: 2, LastAt: at(3), ConsolidatedAt: at(20)}
			must(t, m.do(ctx, st, func(ex memory.Executor) error { return ex.PutSessionSummary(ctx, sum) }))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := ex.GetSessionSummary(ctx, memory.GetParams{Namespace: ns, ID: "s-old"})
				must(t, err)
				same(t, "session summary", sum, got)
				_, err = ex.GetSessionSummary(ctx, memory.GetParams{Namespace: "other", ID: "s-old"})
				wantErr(t, "summary of another namespace", err, memory.ErrNotFound)
				due, err := ex.DueSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: at(6)})
				must(t, err)
				wantIDs(t, "due sessions after a summary", ids(due, func(s memory.SessionInfo) string { return s.ID }), []string{"s-mid"})
				return nil
			}))
			must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{
				newEpisode(ns, "e-6", "s-old", at(2)),
			}}))
			due, err := st.DueSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: at(6)})
			must(t, err)
			wantIDs(t, "due sessions after an episode was added", ids(due, func(s memory.SessionInfo) string { return s.ID }), []string{"s-old", "s-mid"})
			// Replacing the record.
			sum.Episodes, sum.VersionID = 3, "v-s2"
			must(t, m.do(ctx, st, func(ex memory.Executor) error { return ex.PutSessionSummary(ctx, sum) }))
			got, err := st.GetSessionSummary(ctx, memory.GetParams{Namespace: ns, ID: "s-old"})
			must(t, err)
			same(t, "replaced session summary", sum, got)
		})
	})

	t.Run("SummariesListed", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			sums := map[string]*memory.SessionSummary{}
			for i, id := range []string{"s-b", "s-a", "s-c"} {
				sums[id] = &memory.SessionSummary{Namespace: ns, SessionID: id, MemoryID: "m-" + id, VersionID: "v-" + id,
					Episodes: i + 1, LastAt: at(i), ConsolidatedAt: at(10 + i)}
				must(t, m.do(ctx, st, func(ex memory.Executor) error { return ex.PutSessionSummary(ctx, sums[id]) }))
			}
			theirs := &memory.SessionSummary{Namespace: "other", SessionID: "s-a", MemoryID: "m-x", VersionID: "v-x",
				Episodes: 9, LastAt: at(5), ConsolidatedAt: at(6)}
			must(t, st.PutSessionSummary(ctx, theirs))
			sumID := func(s *memory.SessionSummary) string { return s.SessionID }
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := ex.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: ns})
				must(t, err)
				wantIDs(t, "summaries by session id", ids(got, sumID), []string{"s-a", "s-b", "s-c"})
				for _, g := range got {
					same(t, "listed summary "+g.SessionID, sums[g.SessionID], g)
				}
				got, err = ex.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: ns, Limit: 2})
				must(t, err)
				wantIDs(t, "summaries, limit 2", ids(got, sumID), []string{"s-a", "s-b"})
				// The other namespace's record for a session of the same id
				// stays its own.
				got, err = ex.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: "other"})
				must(t, err)
				wantIDs(t, "other namespace's summaries", ids(got, sumID), []string{"s-a"})
				if len(got) == 1 {
					same(t, "other namespace's summary", theirs, got[0])
				}
				got, err = ex.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: "empty"})
				must(t, err)
				wantIDs(t, "empty namespace's summaries", ids(got, sumID), nil)
				_, err = ex.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: "bad ns"})
				wantErr(t, "summaries of a bad namespace", err, memory.ErrInvalid)
				return nil
			}))
		})
	})

	t.Run("Stubs", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			a, b, c := newStub(ns, "e-1", "s-1", at(1)), newStub(ns, "e-2", "s-1", at(2)), newStub(ns, "e-3", "s-2", at(3))
			b.CheckAt = at(1) // due before a
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				return ex.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: ns, Stubs: []*memory.EpisodeStub{a, b, c}})
			}))
			must(t, st.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: "other", Stubs: []*memory.EpisodeStub{newStub("other", "e-1", "s-1", at(0))}}))
			// Adding again keeps the stub as it was.
			again := newStub(ns, "e-1", "s-1", at(1))
			again.SummaryMemoryID = "m-changed"
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				return ex.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: ns, Stubs: []*memory.EpisodeStub{again}})
			}))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, IDs: []string{"e-1"}})
				must(t, err)
				if len(got) == 1 {
					same(t, "stub", a, got[0])
				} else {
					t.Errorf("stubs of e-1: %d", len(got))
				}
				got, err = ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, SessionID: "s-1"})
				must(t, err)
				wantIDs(t, "stubs of s-1", ids(got, stubID), []string{"e-1", "e-2"})
				got, err = ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, CheckBy: at(1).Add(24 * time.Hour)})
				must(t, err)
				wantIDs(t, "stubs due", ids(got, stubID), []string{"e-2", "e-1"})
				got, err = ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, CheckBy: at(1)})
				must(t, err)
				wantIDs(t, "stubs due by at(1)", ids(got, stubID), []string{"e-2"})
				got, err = ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, PurgeBy: at(100)})
				must(t, err)
				wantIDs(t, "stubs to purge before any forgetting", ids(got, stubID), nil)
				_, err = ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, SessionID: "s-1", CheckBy: at(1)})
				wantErr(t, "two filters", err, memory.ErrInvalid)
				return nil
			}))

			// Forgetting moves a stub from the check list to the purge list;
			// purging takes it off both.
			b.ForgottenAt, b.Retention, b.SummaryMemoryID = ptr(at(30)), 0.04, "m-2"
			must(t, m.do(ctx, st, func(ex memory.Executor) error { return ex.UpdateEpisodeStub(ctx, b) }))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, IDs: []string{"e-2"}})
				must(t, err)
				if len(got) == 1 {
					same(t, "forgotten stub", b, got[0])
				}
				due, err := ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, CheckBy: at(10000)})
				must(t, err)
				wantIDs(t, "stubs due after forgetting e-2", ids(due, stubID), []string{"e-1", "e-3"})
				purge, err := ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, PurgeBy: at(29)})
				must(t, err)
				wantIDs(t, "stubs to purge before the forgetting", ids(purge, stubID), nil)
				purge, err = ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, PurgeBy: at(30)})
				must(t, err)
				wantIDs(t, "stubs to purge", ids(purge, stubID), []string{"e-2"})
				return nil
			}))
			// With no filter, every stub of the namespace, as written.
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				all, err := ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns})
				must(t, err)
				wantIDs(t, "every stub", ids(all, stubID), []string{"e-1", "e-2", "e-3"})
				if len(all) == 3 {
					same(t, "listed stub e-1", a, all[0])
					same(t, "listed forgotten stub e-2", b, all[1])
					same(t, "listed stub e-3", c, all[2])
				}
				all, err = ex.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, Limit: 2})
				must(t, err)
				wantIDs(t, "every stub, limit 2", ids(all, stubID), []string{"e-1", "e-2"})
				return nil
			}))
			b.PurgedAt = ptr(at(40))
			must(t, m.do(ctx, st, func(ex memory.Executor) error { return ex.UpdateEpisodeStub(ctx, b) }))
			purge, err := st.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns, PurgeBy: at(1000)})
			must(t, err)
			wantIDs(t, "stubs to purge after the purge", ids(purge, stubID), nil)

			// Another namespace's stub is not reachable.
			foreign := newStub("other", "e-3", "s-2", at(3))
			err = m.do(ctx, st, func(ex memory.Executor) error { return ex.UpdateEpisodeStub(ctx, foreign) })
			wantErr(t, "update of a stub missing from the namespace", err, memory.ErrNotFound)
			other, err := st.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: "other"})
			must(t, err)
			wantIDs(t, "other namespace's stubs", ids(other, stubID), []string{"e-1"})
		})
	})

	t.Run("Purge", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			ep, keep := newEpisode(ns, "e-1", "s-1", at(1)), newEpisode(ns, "e-2", "s-1", at(2))
			twin := newEpisode("other", "e-1", "s-1", at(1))
			mm := newMemory(ns, "m-1", "user", "episode:e-1", memory.Scope{})
			mm.Kind = memory.KindEpisodic
			v := newVersion(ns, "v-1", mm, 1, at(1))
			v.Kind, v.SearchText, v.Embedding = memory.KindEpisodic, "lent words", []byte{1, 2, 3, 4}
			must(t, st.InTx(ctx, func(tx memory.Executor) error {
				must(t, tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{ep, keep}}))
				must(t, tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "other", Episodes: []*memory.Episode{twin}}))
				must(t, tx.CreateMemory(ctx, mm))
				must(t, tx.CreateVersion(ctx, v))
				om := newMemory("other", "m-1", "user", "episode:e-1", memory.Scope{})
				om.Kind = memory.KindEpisodic
				ov := newVersion("other", "v-1", om, 1, at(1))
				ov.Kind = memory.KindEpisodic
				must(t, tx.CreateMemory(ctx, om))
				must(t, tx.CreateVersion(ctx, ov))
				return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{
					{ID: "a-1", Namespace: ns, EpisodeID: "e-1", Decision: memory.AdmitAccept, Reasons: []string{"episode"}, Content: ep.Content, Extractor: "episode", CreatedAt: at(1)},
					{ID: "a-2", Namespace: ns, EpisodeID: "e-1", MemoryID: "m-9", Decision: memory.AdmitAccept, Reasons: []string{"extracted:rules"}, Content: "The user lives in Lisbon.", Extractor: "rules", CreatedAt: at(1)},
					{ID: "a-3", Namespace: ns, EpisodeID: "e-1", Decision: memory.AdmitReject, Reasons: []string{"low_confidence"}, Content: "The user might move.", Extractor: "rules", CreatedAt: at(1)},
					{ID: "a-4", Namespace: ns, EpisodeID: "e-1", Decision: memory.AdmitDefer, Reasons: []string{"tentative"}, Content: "The user may like tea.", Extractor: "rules", CreatedAt: at(1)},
					{ID: "a-5", Namespace: ns, EpisodeID: "e-2", Decision: memory.AdmitReject, Reasons: []string{"low_confidence"}, Content: "Kept: another episode.", Extractor: "rules", CreatedAt: at(2)},
				}})
			}))
			must(t, st.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: ns, Stubs: []*memory.EpisodeStub{newStub(ns, "e-1", "s-1", at(1)), newStub(ns, "e-2", "s-1", at(2))}}))
			meta := map[string]string{"purged_by": "consolidate"}
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				return ex.PurgeEpisodeText(ctx, memory.PurgeEpisodeParams{Namespace: ns, EpisodeID: "e-1", VersionID: "v-1", Metadata: meta})
			}))
			got, err := st.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: "e-1"})
			must(t, err)
			if got.Content != "" || !sameMap(got.Metadata, meta) || got.ContentHash != ep.ContentHash || !got.OccurredAt.Equal(ep.OccurredAt) {
				t.Errorf("purged episode: %+v", got)
			}
			// The episodic version and its slot are gone; a fact's slot
			// with the same shape of id in another namespace is not.
			_, err = st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: "v-1"})
			wantErr(t, "purged episodic version", err, memory.ErrNotFound)
			_, err = st.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: "m-1"})
			wantErr(t, "purged episodic slot", err, memory.ErrNotFound)
			if _, err := st.GetVersion(ctx, memory.GetParams{Namespace: "other", ID: "v-1"}); err != nil {
				t.Errorf("purge reached the other namespace's version: %v", err)
			}
			// The episode row is the stub from now on.
			stubs, err := st.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns})
			must(t, err)
			wantIDs(t, "stub records after the purge", ids(stubs, stubID), []string{"e-2"})
			// The admissions that copied the text go (the episode's own, the
			// rejected and deferred candidates); the fact's stays whole, and
			// so does another episode's.
			adms, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns})
			must(t, err)
			wantIDs(t, "admissions after the purge (newest first)", ids(adms, admissionID), []string{"a-5", "a-2"})
			for _, a := range adms {
				if a.Content == "" {
					t.Errorf("an admission that stays lost its content: %+v", a)
				}
			}
			for _, e := range []struct{ ns, id string }{{ns, "e-2"}, {"other", "e-1"}} {
				ok, err := st.GetEpisode(ctx, memory.GetParams{Namespace: e.ns, ID: e.id})
				must(t, err)
				if ok.Content == "" {
					t.Errorf("purge reached %s/%s", e.ns, e.id)
				}
			}
			err = m.do(ctx, st, func(ex memory.Executor) error {
				return ex.PurgeEpisodeText(ctx, memory.PurgeEpisodeParams{Namespace: "empty", EpisodeID: "e-1"})
			})
			wantErr(t, "purge in a namespace without the episode", err, memory.ErrNotFound)
		})
	})

	// However a backend keeps what is left of a purged episode (the SQLite
	// store packs it into its session's archive), every read returns it as
	// it was, text aside, and counts it.
	t.Run("PurgedStayReadable", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			eps := []*memory.Episode{newEpisode(ns, "e-1", "s-1", at(1)), newEpisode(ns, "e-2", "s-1", at(2)),
				newEpisode(ns, "e-3", "s-1", at(3)), newEpisode(ns, "e-4", "s-2", at(4))}
			eps[2].Kind, eps[2].Speaker, eps[2].Metadata = memory.EpisodeAgentMessage, "Ada Lovelace", nil
			must(t, st.InTx(ctx, func(tx memory.Executor) error {
				must(t, tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: eps}))
				return tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "other", Episodes: []*memory.Episode{newEpisode("other", "e-1", "s-1", at(1))}})
			}))
			purge := func(id string, meta map[string]string) {
				t.Helper()
				must(t, m.do(ctx, st, func(ex memory.Executor) error {
					return ex.PurgeEpisodeText(ctx, memory.PurgeEpisodeParams{Namespace: ns, EpisodeID: id, Metadata: meta})
				}))
			}
			purge("e-1", map[string]string{"purged_into": "m-old"})
			purge("e-3", map[string]string{"purged_into": "m-9"})
			purge("e-1", map[string]string{"purged_into": "m-9"}) // again: only the metadata changes
			want := func(what string, got *memory.Episode, ep *memory.Episode, purged bool) {
				t.Helper()
				w := *ep
				if purged {
					w.Content, w.Metadata = "", map[string]string{"purged_into": "m-9"}
				}
				if got.ID != w.ID || got.Namespace != w.Namespace || got.Scope != w.Scope || got.Kind != w.Kind ||
					got.Speaker != w.Speaker || got.Content != w.Content || !sameMap(got.Metadata, w.Metadata) ||
					!got.OccurredAt.Equal(w.OccurredAt) || !got.RecordedAt.Equal(w.RecordedAt) || got.ContentHash != w.ContentHash {
					t.Errorf("%s:\n got %+v\nwant %+v", what, got, &w)
				}
			}
			for i, ep := range eps {
				got, err := st.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: ep.ID})
				must(t, err)
				want("GetEpisode "+ep.ID, got, ep, i == 0 || i == 2)
			}
			_, err := st.GetEpisode(ctx, memory.GetParams{Namespace: "other", ID: "e-3"})
			wantErr(t, "a purged episode from another namespace", err, memory.ErrNotFound)
			for _, c := range []struct {
				name string
				p    memory.ListEpisodesParams
				want []string
			}{
				{"every episode", memory.ListEpisodesParams{}, []string{"e-1", "e-2", "e-3", "e-4"}},
				{"limit 2", memory.ListEpisodesParams{Limit: 2}, []string{"e-1", "e-2"}},
				{"session", memory.ListEpisodesParams{SessionID: "s-1"}, []string{"e-1", "e-2", "e-3"}},
				{"session, limit 1", memory.ListEpisodesParams{SessionID: "s-1", Limit: 1}, []string{"e-1"}},
				{"ids", memory.ListEpisodesParams{IDs: []string{"e-3", "e-2", "e-9"}}, []string{"e-2", "e-3"}},
				{"ids, purged only", memory.ListEpisodesParams{IDs: []string{"e-1"}}, []string{"e-1"}},
				{"hash", memory.ListEpisodesParams{ContentHash: eps[2].ContentHash}, []string{"e-3"}},
				{"hash and time", memory.ListEpisodesParams{ContentHash: eps[2].ContentHash, OccurredAt: at(3)}, []string{"e-3"}},
				{"hash at another time", memory.ListEpisodesParams{ContentHash: eps[2].ContentHash, OccurredAt: at(2)}, nil},
				{"time", memory.ListEpisodesParams{OccurredAt: at(1)}, []string{"e-1"}},
				{"session and ids", memory.ListEpisodesParams{SessionID: "s-2", IDs: []string{"e-1", "e-4"}}, []string{"e-4"}},
				// Held: only the episodes whose text is still there.
				{"held", memory.ListEpisodesParams{Held: true}, []string{"e-2", "e-4"}},
				{"held ids", memory.ListEpisodesParams{IDs: []string{"e-1", "e-2"}, Held: true}, []string{"e-2"}},
				{"held by hash", memory.ListEpisodesParams{ContentHash: eps[2].ContentHash, Held: true}, nil},
			} {
				c.p.Namespace = ns
				got, err := st.ListEpisodes(ctx, c.p)
				must(t, err)
				wantIDs(t, "ListEpisodes "+c.name, ids(got, episodeID), c.want)
			}
			var scanned []string
			must(t, st.ScanEpisodes(ctx, memory.ScanParams{Namespace: ns}, func(ep *memory.Episode) error {
				scanned = append(scanned, ep.ID)
				return nil
			}))
			slices.Sort(scanned)
			wantIDs(t, "ScanEpisodes", scanned, []string{"e-1", "e-2", "e-3", "e-4"})
			stats, err := st.Stats(ctx, memory.StatsParams{Namespace: ns})
			must(t, err)
			if stats.Episodes != 4 {
				t.Errorf("Stats counts %d episodes, want 4 (purged ones count)", stats.Episodes)
			}
			info, err := st.GetSession(ctx, memory.GetParams{Namespace: ns, ID: "s-1"})
			must(t, err)
			if info.Episodes != 3 || !info.FirstAt.Equal(at(1)) || !info.LastAt.Equal(at(3)) {
				t.Errorf("GetSession s-1 = %+v, want 3 episodes from at(1) to at(3)", info)
			}
			due, err := st.DueSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: at(10)})
			must(t, err)
			if len(due) != 2 || due[0].ID != "s-1" || due[0].Episodes != 3 || due[1].ID != "s-2" {
				t.Errorf("DueSessions = %+v, want s-1 (3 episodes) then s-2", due)
			}
			other, err := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: "other"})
			must(t, err)
			if len(other) != 1 || other[0].Content == "" {
				t.Errorf("the other namespace's episode: %+v", other)
			}
		})
	})

	// Folding: sessions left with nothing but purged episodes are listed,
	// their records pointed at a digest, and derived memories deleted
	// for good (logged for followers).
	t.Run("Fold", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			eps := []*memory.Episode{newEpisode(ns, "e-1", "s-1", at(1)), newEpisode(ns, "e-2", "s-1", at(2)), newEpisode(ns, "e-3", "s-2", at(3))}
			sum := newMemory(ns, "m-s1", "session", "summary:s-1", memory.Scope{UserID: "u"})
			v1, v2 := newVersion(ns, "v-s1a", sum, 1, at(3)), newVersion(ns, "v-s1b", sum, 2, at(4))
			v1.Status = memory.StatusSuperseded
			other := newMemory(ns, "m-d", "session", "summary:month:2024-01", memory.Scope{UserID: "u"})
			old := newVersion(ns, "v-d0", other, 1, at(4))
			twin := newMemory("other", "m-s1", "session", "summary:s-1", memory.Scope{UserID: "u"})
			twinV := newVersion("other", "v-s1b", twin, 1, at(4))
			must(t, st.InTx(ctx, func(tx memory.Executor) error {
				must(t, tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: eps}))
				for _, mm := range []*memory.Memory{sum, other, twin} {
					must(t, tx.CreateMemory(ctx, mm))
				}
				for _, v := range []*memory.Version{v1, v2, old, twinV} {
					must(t, tx.CreateVersion(ctx, v))
				}
				must(t, tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{
					newAdmission(ns, "a-1", "e-1", "m-s1", at(3)), newAdmission(ns, "a-2", "", "m-s1", at(4)), newAdmission(ns, "a-3", "", "m-d", at(4)),
				}}))
				must(t, tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "other", Admissions: []*memory.Admission{newAdmission("other", "a-2", "", "m-s1", at(4))}}))
				for _, r := range []*memory.SessionSummary{
					{Namespace: ns, SessionID: "s-1", MemoryID: "m-s1", VersionID: "v-s1b", Episodes: 2, LastAt: at(2), ConsolidatedAt: at(5)},
					{Namespace: ns, SessionID: "s-2", MemoryID: "m-s2", VersionID: "v-s2", Episodes: 1, LastAt: at(3), ConsolidatedAt: at(5)},
				} {
					must(t, tx.PutSessionSummary(ctx, r))
				}
				return nil
			}))
			for _, id := range []string{"e-1", "e-2"} {
				must(t, m.do(ctx, st, func(ex memory.Executor) error {
					return ex.PurgeEpisodeText(ctx, memory.PurgeEpisodeParams{Namespace: ns, EpisodeID: id, Metadata: map[string]string{"purged_into": "m-s1"}})
				}))
			}
			sessionIDs := func(rs []*memory.SessionSummary) []string {
				return ids(rs, func(r *memory.SessionSummary) string { return r.SessionID })
			}
			got, err := st.FoldableSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: at(10)})
			must(t, err)
			wantIDs(t, "foldable: only the session with nothing but purged episodes", sessionIDs(got), []string{"s-1"})
			got, err = st.FoldableSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: at(2)})
			must(t, err)
			wantIDs(t, "foldable before its last episode", sessionIDs(got), nil)

			before, err := st.LastChange(ctx, memory.ScanParams{Namespace: ns})
			must(t, err)
			var deleted []string
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				var err error
				deleted, err = ex.DeleteMemories(ctx, memory.DeleteMemoriesParams{Namespace: ns, MemoryIDs: []string{"m-s1"}, VersionIDs: []string{"v-d0", "v-none"}, Now: at(6)})
				return err
			}))
			slices.Sort(deleted)
			wantIDs(t, "deleted versions", deleted, []string{"v-d0", "v-s1a", "v-s1b"})
			_, err = st.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: "m-s1"})
			wantErr(t, "the deleted memory", err, memory.ErrNotFound)
			if _, err := st.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: "m-d"}); err != nil {
				t.Errorf("the digest's memory went with its old version: %v", err)
			}
			adms, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns})
			must(t, err)
			wantIDs(t, "admissions left", ids(adms, admissionID), []string{"a-3"})
			changes, err := st.ListChanges(ctx, memory.ListChangesParams{Namespace: ns, After: before})
			must(t, err)
			logged := ids(changes, func(c memory.Change) string { return c.VersionID })
			slices.Sort(logged)
			wantIDs(t, "deletions logged for followers", logged, []string{"v-d0", "v-s1a", "v-s1b"})
			if _, err := st.GetVersion(ctx, memory.GetParams{Namespace: "other", ID: "v-s1b"}); err != nil {
				t.Errorf("deletion reached the other namespace: %v", err)
			}
			if a, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "other"}); err != nil || len(a) != 1 {
				t.Errorf("deletion reached the other namespace's admissions: %d %v", len(a), err)
			}

			fold := func(sessions []string, version string) {
				t.Helper()
				must(t, m.do(ctx, st, func(ex memory.Executor) error {
					return ex.FoldSessions(ctx, memory.FoldSessionsParams{Namespace: ns, SessionIDs: sessions, MemoryID: "m-d", VersionID: version})
				}))
			}
			// The purged episodes of the folded session name the digest;
			// their other metadata, and live episodes, are untouched.
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				return ex.SetPurgedMetadata(ctx, memory.SetPurgedMetadataParams{Namespace: ns, SessionIDs: []string{"s-1"}, Set: map[string]string{"purged_into": "m-d", "folded": "yes"}})
			}))
			for _, id := range []string{"e-1", "e-2"} {
				ep, err := st.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: id})
				must(t, err)
				if ep.Content != "" || !sameMap(ep.Metadata, map[string]string{"purged_into": "m-d", "folded": "yes"}) {
					t.Errorf("%s after SetPurgedMetadata: %+v", id, ep)
				}
			}
			if ep, err := st.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: "e-3"}); err != nil || ep.Content == "" || ep.Metadata["purged_into"] != "" {
				t.Errorf("a live episode of another session changed: %+v %v", ep, err)
			}
			fold([]string{"s-1"}, "v-d1")
			rec, err := st.GetSessionSummary(ctx, memory.GetParams{Namespace: ns, ID: "s-1"})
			must(t, err)
			if !rec.Folded || rec.MemoryID != "m-d" || rec.VersionID != "v-d1" || rec.Episodes != 2 {
				t.Errorf("s-1 after folding: %+v", rec)
			}
			if rec, err := st.GetSessionSummary(ctx, memory.GetParams{Namespace: ns, ID: "s-2"}); err != nil || rec.Folded || rec.MemoryID != "m-s2" {
				t.Errorf("s-2 was not folded: %+v %v", rec, err)
			}
			got, err = st.FoldableSessions(ctx, memory.DueSessionsParams{Namespace: ns, Before: at(10)})
			must(t, err)
			wantIDs(t, "foldable after folding", sessionIDs(got), nil)
			// Folding more into the digest moves every session it covers
			// to its new version.
			fold([]string{"s-2"}, "v-d2")
			all, err := st.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: ns})
			must(t, err)
			for _, r := range all {
				if !r.Folded || r.MemoryID != "m-d" || r.VersionID != "v-d2" {
					t.Errorf("%s after the second fold: %+v", r.SessionID, r)
				}
			}
			err = m.do(ctx, st, func(ex memory.Executor) error {
				return ex.FoldSessions(ctx, memory.FoldSessionsParams{Namespace: ns, SessionIDs: []string{"s-1"}})
			})
			wantErr(t, "a fold into no digest", err, memory.ErrInvalid)
		})
	})

	t.Run("RolledBack", func(t *testing.T) {
		ctx, st := s.fresh(t)
		boom := errors.New("boom")
		err := st.InTx(ctx, func(tx memory.Executor) error {
			must(t, tx.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: ns, Stubs: []*memory.EpisodeStub{newStub(ns, "e-1", "s-1", at(1))}}))
			must(t, tx.PutSessionSummary(ctx, &memory.SessionSummary{Namespace: ns, SessionID: "s-1", MemoryID: "m-1", Episodes: 1, LastAt: at(1), ConsolidatedAt: at(2)}))
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx: %v", err)
		}
		got, err := st.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "stubs after rollback", ids(got, stubID), nil)
		_, err = st.GetSessionSummary(ctx, memory.GetParams{Namespace: ns, ID: "s-1"})
		wantErr(t, "summary after rollback", err, memory.ErrNotFound)
		sums, err := st.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: ns})
		must(t, err)
		if len(sums) != 0 {
			t.Errorf("summaries listed after rollback: %+v", sums)
		}
	})

	t.Run("InvalidInput", func(t *testing.T) {
		ctx, st := s.fresh(t)
		for _, c := range []struct {
			name string
			err  error
		}{
			{"bad namespace", st.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: "bad ns"})},
			{"nil stub", st.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: ns, Stubs: []*memory.EpisodeStub{nil}})},
			{"empty episode id", st.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: ns, Stubs: []*memory.EpisodeStub{newStub(ns, "", "s", at(1))}})},
			{"stub of another namespace", st.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: ns, Stubs: []*memory.EpisodeStub{newStub("other", "e-1", "s", at(1))}})},
			{"nil summary", st.PutSessionSummary(ctx, nil)},
			{"summary without session", st.PutSessionSummary(ctx, &memory.SessionSummary{Namespace: ns, MemoryID: "m"})},
			{"summary without memory", st.PutSessionSummary(ctx, &memory.SessionSummary{Namespace: ns, SessionID: "s"})},
			{"nil stub update", st.UpdateEpisodeStub(ctx, nil)},
			{"purge without episode", st.PurgeEpisodeText(ctx, memory.PurgeEpisodeParams{Namespace: ns})},
		} {
			wantErr(t, c.name, c.err, memory.ErrInvalid)
		}
		// A multi-row add with one bad row writes nothing.
		err := st.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: ns, Stubs: []*memory.EpisodeStub{
			newStub(ns, "e-1", "s", at(1)), newStub(ns, "e-2", "s", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)),
		}})
		wantErr(t, "stub outside the storable years", err, memory.ErrInvalid)
		got, err := st.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "stubs after a failed add", ids(got, stubID), nil)
	})
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
