package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

func (s suite) versions(t *testing.T) {
	t.Run("RoundTrip", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			mem := newMemory(ns, "mem-1", "user", "prefers:editor", memory.Scope{UserID: "u1"})
			full := newVersion(ns, "ver-1", mem, 1, at(3))
			bare := newBareVersion(ns, "ver-2", mem, 2, at(4))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				if err := ex.CreateMemory(ctx, mem); err != nil {
					return err
				}
				if err := ex.CreateVersion(ctx, full); err != nil {
					return err
				}
				return ex.CreateVersion(ctx, bare)
			}))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				for _, want := range []*memory.Version{full, bare} {
					got, err := ex.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: want.ID})
					if err != nil {
						return err
					}
					same(t, "GetVersion "+want.ID, want, got)
				}
				listed, err := ex.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: mem.ID})
				if err != nil {
					return err
				}
				wantIDs(t, "ListVersions", ids(listed, versionID), []string{"ver-1", "ver-2"})
				if len(listed) == 2 {
					same(t, "listed ver-1", full, listed[0])
					same(t, "listed ver-2", bare, listed[1])
				}
				// Without embeddings: everything else as stored.
				lean, err := ex.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: mem.ID, WithoutEmbeddings: true})
				if err != nil {
					return err
				}
				if len(lean) == 2 {
					wantFull := *full
					wantFull.Embedding = nil
					same(t, "listed ver-1 without embeddings", &wantFull, lean[0])
					same(t, "listed ver-2 without embeddings", bare, lean[1])
				} else {
					t.Errorf("ListVersions without embeddings: %d versions", len(lean))
				}
				scanned, err := collectScan(ex.ScanVersions, ctx, ns)
				if err != nil {
					return err
				}
				wantIDs(t, "ScanVersions", ids(scanned, versionID), []string{"ver-1", "ver-2"})
				if len(scanned) == 2 {
					same(t, "scanned ver-1", full, scanned[0])
					same(t, "scanned ver-2", bare, scanned[1])
				}
				return nil
			}))
		})
	})

	t.Run("List", func(t *testing.T) {
		ctx, st := s.fresh(t)
		mA := newMemory(ns, "m-a", "user", "k1", memory.Scope{})
		mB := newMemory(ns, "m-b", "user", "k2", memory.Scope{})
		mC := newMemory(ns, "m-c", "user", "k1", memory.Scope{AgentID: "a1"}) // mA's slot in another scope
		mD := newMemory(ns, "m-d", "project", "k1", memory.Scope{})
		vs := []*memory.Version{
			withState(newVersion(ns, "v-1", mA, 1, at(5)), memory.KindSemantic, memory.StatusSuperseded),
			withState(newVersion(ns, "v-2", mA, 2, at(7)), memory.KindSemantic, memory.StatusActive),
			withState(newVersion(ns, "v-3", mB, 1, at(6)), memory.KindProcedural, memory.StatusActive),
			withState(newVersion(ns, "v-4", mC, 1, at(7)), memory.KindEpisodic, memory.StatusCandidate), // ties with v-2
			withState(newVersion(ns, "v-5", mB, 2, at(4)), memory.KindSemantic, memory.StatusContested),
			withState(newVersion(ns, "v-6", mD, 1, at(8)), memory.KindSemantic, memory.StatusExpired),
		}
		createAll(t, ctx, st, []*memory.Memory{mA, mB, mC, mD}, vs)
		byID := map[string]*memory.Version{}
		for _, v := range vs {
			byID[v.ID] = v
		}
		cases := []struct {
			name string
			p    memory.ListVersionsParams
			want []string
		}{
			{"All", memory.ListVersionsParams{}, []string{"v-5", "v-1", "v-3", "v-2", "v-4", "v-6"}},
			{"EmptyFilters", memory.ListVersionsParams{IDs: []string{}, Kinds: []memory.Kind{}, Statuses: []memory.Status{}}, []string{"v-5", "v-1", "v-3", "v-2", "v-4", "v-6"}},
			{"MemoryID", memory.ListVersionsParams{MemoryID: "m-a"}, []string{"v-1", "v-2"}},
			{"UnknownMemoryID", memory.ListVersionsParams{MemoryID: "m-z"}, nil},
			{"IDs", memory.ListVersionsParams{IDs: []string{"v-4", "v-1", "missing"}}, []string{"v-1", "v-4"}},
			{"Kinds", memory.ListVersionsParams{Kinds: []memory.Kind{memory.KindProcedural, memory.KindEpisodic}}, []string{"v-3", "v-4"}},
			{"Statuses", memory.ListVersionsParams{Statuses: []memory.Status{memory.StatusActive, memory.StatusContested}}, []string{"v-5", "v-3", "v-2"}},
			{"Subject", memory.ListVersionsParams{Subject: "user"}, []string{"v-5", "v-1", "v-3", "v-2", "v-4"}},
			{"SubjectKeyAcrossScopes", memory.ListVersionsParams{Subject: "user", Key: "k1"}, []string{"v-1", "v-2", "v-4"}},
			{"KeyOnly", memory.ListVersionsParams{Key: "k1"}, []string{"v-1", "v-2", "v-4", "v-6"}},
			{"UnknownSubject", memory.ListVersionsParams{Subject: "nobody"}, nil},
			{"MemoryAndStatus", memory.ListVersionsParams{MemoryID: "m-a", Statuses: []memory.Status{memory.StatusActive}}, []string{"v-2"}},
			{"KindSubjectKey", memory.ListVersionsParams{Kinds: []memory.Kind{memory.KindSemantic}, Subject: "user", Key: "k1"}, []string{"v-1", "v-2"}},
			{"IDsAndStatus", memory.ListVersionsParams{IDs: []string{"v-1", "v-2", "v-3"}, Statuses: []memory.Status{memory.StatusActive}}, []string{"v-3", "v-2"}},
			{"Limit", memory.ListVersionsParams{Limit: 2}, []string{"v-5", "v-1"}},
			{"StatusLimit", memory.ListVersionsParams{Statuses: []memory.Status{memory.StatusActive}, Limit: 1}, []string{"v-3"}},
		}
		for _, c := range cases {
			c.p.Namespace = ns
			for _, m := range modes() {
				must(t, m.do(ctx, st, func(ex memory.Executor) error {
					got, err := ex.ListVersions(ctx, c.p)
					if err != nil {
						t.Errorf("%s %s: %v", m.name, c.name, err)
						return nil
					}
					wantIDs(t, m.name+" "+c.name, ids(got, versionID), c.want)
					for _, g := range got {
						if w := byID[g.ID]; w != nil {
							same(t, m.name+" "+c.name+" "+g.ID, w, g)
						}
					}
					return nil
				}))
			}
		}
	})

	// Page: newest first, every filter, and a cursor that walks the whole
	// namespace a page at a time without a gap or a repeat, ties on
	// recorded_at broken by id.
	t.Run("Page", func(t *testing.T) {
		ctx, st := s.fresh(t)
		mA := newMemory(ns, "m-a", "user", "k1", memory.Scope{})
		mB := newMemory(ns, "m-b", "user", "k2", memory.Scope{UserID: "u1"})
		mC := newMemory(ns, "m-c", "user", "k1", memory.Scope{AgentID: "a1", SessionID: "s1"})
		mD := newMemory(ns, "m-d", "project", "k1", memory.Scope{})
		mOther := newMemory("tenant-b", "m-a", "user", "k1", memory.Scope{})
		typed := func(v *memory.Version, ty memory.Type, content string) *memory.Version {
			v.Type, v.Content = ty, content
			return v
		}
		vs := []*memory.Version{
			withState(newVersion(ns, "v-1", mA, 1, at(5)), memory.KindSemantic, memory.StatusSuperseded),
			withState(newVersion(ns, "v-2", mA, 2, at(7)), memory.KindSemantic, memory.StatusActive),
			typed(withState(newVersion(ns, "v-3", mB, 1, at(6)), memory.KindProcedural, memory.StatusActive), memory.TypeProcedure, "Deploy with 100% of tests_green"),
			withState(newVersion(ns, "v-4", mC, 1, at(7)), memory.KindEpisodic, memory.StatusCandidate), // ties with v-2
			typed(withState(newVersion(ns, "v-5", mB, 2, at(4)), memory.KindSemantic, memory.StatusContested), memory.TypeFact, "Lives in LISBON"),
			withState(newVersion(ns, "v-6", mD, 1, at(8)), memory.KindSemantic, memory.StatusExpired),
			withState(newVersion("tenant-b", "v-9", mOther, 1, at(9)), memory.KindSemantic, memory.StatusActive),
		}
		createAll(t, ctx, st, []*memory.Memory{mA, mB, mC, mD, mOther}, vs)
		byID := map[string]*memory.Version{}
		for _, v := range vs {
			lean := *v
			lean.Embedding = nil
			byID[v.ID] = &lean
		}
		all := []string{"v-6", "v-4", "v-2", "v-3", "v-1", "v-5"}
		cases := []struct {
			name string
			p    memory.PageVersionsParams
			want []string
		}{
			{"All", memory.PageVersionsParams{}, all},
			{"Kinds", memory.PageVersionsParams{Kinds: []memory.Kind{memory.KindProcedural, memory.KindEpisodic}}, []string{"v-4", "v-3"}},
			{"Types", memory.PageVersionsParams{Types: []memory.Type{memory.TypeFact, memory.TypeProcedure}}, []string{"v-3", "v-5"}},
			{"Statuses", memory.PageVersionsParams{Statuses: []memory.Status{memory.StatusActive, memory.StatusContested}}, []string{"v-2", "v-3", "v-5"}},
			{"Subject", memory.PageVersionsParams{Subject: "project"}, []string{"v-6"}},
			{"ScopeUser", memory.PageVersionsParams{Scope: memory.Scope{UserID: "u1"}}, []string{"v-3", "v-5"}},
			{"ScopeAgentSession", memory.PageVersionsParams{Scope: memory.Scope{AgentID: "a1", SessionID: "s1"}}, []string{"v-4"}},
			{"ScopeMismatch", memory.PageVersionsParams{Scope: memory.Scope{AgentID: "a1", UserID: "u1"}}, nil},
			{"Since", memory.PageVersionsParams{Since: at(7)}, []string{"v-6", "v-4", "v-2"}},
			{"Until", memory.PageVersionsParams{Until: at(6)}, []string{"v-1", "v-5"}},
			{"SinceUntil", memory.PageVersionsParams{Since: at(5), Until: at(7)}, []string{"v-3", "v-1"}},
			{"TextFoldsCase", memory.PageVersionsParams{Text: "lisbon"}, []string{"v-5"}},
			{"TextPercentIsPlain", memory.PageVersionsParams{Text: "100%"}, []string{"v-3"}},
			{"TextUnderscoreIsPlain", memory.PageVersionsParams{Text: "tests_g"}, []string{"v-3"}},
			{"TextUnderscoreNoWildcard", memory.PageVersionsParams{Text: "Lives_in"}, nil},
			{"Limit", memory.PageVersionsParams{Limit: 2}, []string{"v-6", "v-4"}},
			{"AfterTie", memory.PageVersionsParams{After: &memory.VersionCursor{RecordedAt: at(7), ID: "v-4"}}, []string{"v-2", "v-3", "v-1", "v-5"}},
			{"AfterWithFilter", memory.PageVersionsParams{After: &memory.VersionCursor{RecordedAt: at(7), ID: "v-2"}, Statuses: []memory.Status{memory.StatusActive}}, []string{"v-3"}},
		}
		for _, c := range cases {
			c.p.Namespace = ns
			if c.p.Limit == 0 {
				c.p.Limit = 100
			}
			for _, m := range modes() {
				must(t, m.do(ctx, st, func(ex memory.Executor) error {
					got, err := ex.PageVersions(ctx, c.p)
					if err != nil {
						t.Errorf("%s %s: %v", m.name, c.name, err)
						return nil
					}
					wantIDs(t, m.name+" "+c.name, ids(got, versionID), c.want)
					for _, g := range got {
						same(t, m.name+" "+c.name+" "+g.ID, byID[g.ID], g)
					}
					return nil
				}))
			}
		}
		// Walk every page of 2: each version once, in order.
		var walked []string
		p := memory.PageVersionsParams{Namespace: ns, Limit: 2}
		for range 10 {
			page, err := st.PageVersions(ctx, p)
			must(t, err)
			walked = append(walked, ids(page, versionID)...)
			if len(page) < p.Limit {
				break
			}
			last := page[len(page)-1]
			p.After = &memory.VersionCursor{RecordedAt: last.RecordedAt, ID: last.ID}
		}
		wantIDs(t, "walk", walked, all)
	})

	// Unsettled: the live versions the lifecycle may still change, and
	// every live version of a contested memory; nothing settled, nothing
	// that is history, nothing of another namespace. A version that
	// settles (usefulness back at 0.5) leaves the list.
	t.Run("Unsettled", func(t *testing.T) {
		ctx, st := s.fresh(t)
		settle := func(v *memory.Version, usefulness float64, validTo *time.Time, status memory.Status) *memory.Version {
			v.Usefulness, v.ValidTo, v.Status = usefulness, validTo, status
			return v
		}
		mA := newMemory(ns, "m-a", "user", "k1", memory.Scope{})
		mB := newMemory(ns, "m-b", "user", "k2", memory.Scope{})
		mC := newMemory(ns, "m-c", "user", "k3", memory.Scope{})
		mOther := newMemory("tenant-b", "m-a", "user", "k1", memory.Scope{})
		neutral := memory.NeutralUsefulness
		vs := []*memory.Version{
			settle(newVersion(ns, "v-settled", mA, 1, at(1)), neutral, nil, memory.StatusActive),
			settle(newVersion(ns, "v-useful", mA, 2, at(5)), 0.7, nil, memory.StatusActive),
			settle(newVersion(ns, "v-bounded", mB, 1, at(3)), neutral, ptr(at(50)), memory.StatusActive),
			settle(newVersion(ns, "v-history", mB, 2, at(2)), 0.9, ptr(at(4)), memory.StatusSuperseded),
			settle(newVersion(ns, "v-expired", mB, 3, at(2)), 0.04, ptr(at(4)), memory.StatusExpired),
			// A contest: the contested claim, the active one it
			// challenges (settled itself), and the group's history.
			settle(newVersion(ns, "v-contested", mC, 1, at(7)), neutral, nil, memory.StatusContested),
			settle(newVersion(ns, "v-challenged", mC, 2, at(6)), neutral, nil, memory.StatusActive),
			settle(newVersion(ns, "v-contest-history", mC, 3, at(4)), neutral, nil, memory.StatusSuperseded),
			settle(newVersion("tenant-b", "v-useful", mOther, 1, at(5)), 0.7, nil, memory.StatusActive),
		}
		createAll(t, ctx, st, []*memory.Memory{mA, mB, mC, mOther}, vs)
		want := []string{"v-bounded", "v-useful", "v-challenged", "v-contested"}
		for _, m := range modes() {
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := ex.ListUnsettledVersions(ctx, memory.ScanParams{Namespace: ns})
				if err != nil {
					return err
				}
				wantIDs(t, m.name+" ListUnsettledVersions", ids(got, versionID), want)
				for _, g := range got {
					for _, v := range vs {
						if v.ID == g.ID && v.Namespace == ns {
							lean := *v
							lean.Embedding = nil
							same(t, m.name+" unsettled "+g.ID, &lean, g)
						}
					}
				}
				return nil
			}))
		}
		// Decayed home and its bound lifted: settled, and gone from the list.
		must(t, st.UpdateVersionState(ctx, settle(vs[1], neutral, nil, memory.StatusActive)))
		must(t, st.UpdateVersionState(ctx, settle(vs[2], neutral, nil, memory.StatusActive)))
		got, err := st.ListUnsettledVersions(ctx, memory.ScanParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "after settling", ids(got, versionID), []string{"v-challenged", "v-contested"})
		if _, err := st.ListUnsettledVersions(ctx, memory.ScanParams{Namespace: ""}); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("no namespace: %v, want ErrInvalid", err)
		}
	})

	t.Run("UpdateVersionState", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			mem := newMemory(ns, "mem-1", "user", "prefers:editor", memory.Scope{UserID: "u1"})
			orig := newVersion(ns, "ver-1", mem, 1, at(3))
			must(t, st.CreateMemory(ctx, mem))
			must(t, st.CreateVersion(ctx, orig))

			// Change every field. Only the lifecycle ones may stick.
			upd := &memory.Version{
				ID: orig.ID, Namespace: ns,
				MemoryID: "mem-elsewhere", Seq: 9,
				Scope: memory.Scope{AgentID: "x", UserID: "y", ProjectID: "z", SessionID: "w"},
				Kind:  memory.KindProcedural, Type: memory.TypeLesson,
				Subject: "other", Key: "other:key", Value: "rewritten", Content: "Rewritten claim.",
				Criticality: memory.CriticalityMustInclude,

				Confidence: 0.33, Usefulness: 0.91, Trust: 0.12,
				ReinforcementCount: 7, FailureCount: 4,
				Status: memory.StatusSuperseded, Operation: memory.OpSupersede, SupersededBy: "ver-2",

				ObservedAt: at(100), RecordedAt: at(101), ValidFrom: at(102),
				ValidTo:   ptr(at(103)),
				UpdatedAt: at(104),

				EvidenceEpisodeIDs: []string{"ep-9"},
				EvidenceSpans:      []memory.Span{{EpisodeID: "ep-9", Start: 0, End: 4}},
				Provenance:         memory.Provenance{Extractor: "llm", Model: "m2", PromptVersion: "p9", Embedder: "e2", EmbedderDim: 8, Source: "import"},
				Tokens:             99,
				SearchText:         "rewritten search text",
				Embedding:          []byte{9, 9, 9},
			}
			must(t, m.do(ctx, st, func(ex memory.Executor) error { return ex.UpdateVersionState(ctx, upd) }))

			want := *orig
			want.Status, want.Operation, want.SupersededBy = upd.Status, upd.Operation, upd.SupersededBy
			want.ValidTo = upd.ValidTo
			want.Confidence, want.Usefulness, want.Trust = upd.Confidence, upd.Usefulness, upd.Trust
			want.ReinforcementCount, want.FailureCount = upd.ReinforcementCount, upd.FailureCount
			want.EvidenceEpisodeIDs, want.EvidenceSpans = upd.EvidenceEpisodeIDs, upd.EvidenceSpans
			want.UpdatedAt = upd.UpdatedAt
			got, err := st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: orig.ID})
			must(t, err)
			same(t, "version after UpdateVersionState", &want, got)

			// Clearing ValidTo and the evidence takes.
			upd2 := want
			upd2.ValidTo, upd2.EvidenceEpisodeIDs, upd2.EvidenceSpans = nil, nil, nil
			upd2.Status = memory.StatusActive
			must(t, m.do(ctx, st, func(ex memory.Executor) error { return ex.UpdateVersionState(ctx, &upd2) }))
			got, err = st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: orig.ID})
			must(t, err)
			same(t, "version after clearing valid_to", &upd2, got)

			missing := *orig
			missing.ID = "ver-missing"
			err = m.do(ctx, st, func(ex memory.Executor) error { return ex.UpdateVersionState(ctx, &missing) })
			wantErr(t, "UpdateVersionState of a missing version", err, memory.ErrNotFound)
		})
	})

	t.Run("Conflict", func(t *testing.T) {
		ctx, st := s.fresh(t)
		mem := newMemory(ns, "mem-1", "user", "k", memory.Scope{})
		must(t, st.CreateMemory(ctx, mem))
		must(t, st.CreateVersion(ctx, newVersion(ns, "v-1", mem, 1, at(1))))
		wantErr(t, "duplicate id", st.CreateVersion(ctx, newVersion(ns, "v-1", mem, 2, at(2))), memory.ErrConflict)
		// Seq numbers a memory's history: two versions cannot share one.
		wantErr(t, "duplicate seq", st.CreateVersion(ctx, newVersion(ns, "v-2", mem, 1, at(2))), memory.ErrConflict)
		_, err := st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: "v-2"})
		wantErr(t, "version of a failed create", err, memory.ErrNotFound)
		got, err := st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: "v-1"})
		must(t, err)
		same(t, "the original v-1", newVersion(ns, "v-1", mem, 1, at(1)), got)
	})

	t.Run("MissingMemory", func(t *testing.T) {
		ctx, st := s.fresh(t)
		orphan := newVersion(ns, "v-1", newMemory(ns, "mem-none", "user", "k", memory.Scope{}), 1, at(1))
		wantErr(t, "CreateVersion of a missing memory", st.CreateVersion(ctx, orphan), memory.ErrNotFound)
		_, err := st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: "v-1"})
		wantErr(t, "the orphan", err, memory.ErrNotFound)
	})

	t.Run("NotFound", func(t *testing.T) {
		ctx, st := s.fresh(t)
		_, err := st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: "nope"})
		wantErr(t, "GetVersion", err, memory.ErrNotFound)
		got, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "ListVersions on an empty store", ids(got, versionID), nil)
	})

	t.Run("Scan", func(t *testing.T) {
		ctx, st := s.fresh(t)
		mem := newMemory(ns, "mem-1", "user", "k", memory.Scope{})
		must(t, st.CreateMemory(ctx, mem))
		// Recorded order differs from id order: Scan follows ids.
		for i, id := range []string{"v-3", "v-1", "v-2"} {
			must(t, st.CreateVersion(ctx, newVersion(ns, id, mem, i+1, at(i))))
		}
		for _, m := range modes() {
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := collectScan(ex.ScanVersions, ctx, ns)
				if err != nil {
					return err
				}
				wantIDs(t, m.name+" ScanVersions order", ids(got, versionID), []string{"v-1", "v-2", "v-3"})
				if len(got) == 3 {
					same(t, m.name+" scanned v-1", newVersion(ns, "v-1", mem, 2, at(1)), got[0])
				}
				checkScanStops(t, m.name+" ScanVersions", ex.ScanVersions, ctx, ns)
				return nil
			}))
		}
	})
}

// createAll stores memories and then versions in one transaction.
func createAll(t *testing.T, ctx context.Context, st memory.Store, ms []*memory.Memory, vs []*memory.Version) {
	t.Helper()
	must(t, st.InTx(ctx, func(tx memory.Executor) error {
		for _, m := range ms {
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
		}
		for _, v := range vs {
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	}))
}

func withState(v *memory.Version, k memory.Kind, s memory.Status) *memory.Version {
	v.Kind, v.Status = k, s
	return v
}

func (s suite) admissions(t *testing.T) {
	t.Run("RoundTripAndList", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			bare := &memory.Admission{ // no episode, memory, version or reasons
				ID: "adm-3", Decision: memory.AdmitReject, Content: "ok", Extractor: "rules", CreatedAt: at(2),
			}
			as := []*memory.Admission{
				newAdmission(ns, "adm-1", "ep-1", "mem-1", at(1)),
				admissionWithModels(newAdmission(ns, "adm-2", "ep-1", "mem-2", at(3))),
				bare,
				newAdmission(ns, "adm-4", "ep-2", "mem-1", at(4)),
			}
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				return ex.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: as})
			}))
			wantBare := *bare
			wantBare.Namespace = ns
			byID := map[string]*memory.Admission{"adm-3": &wantBare}
			for _, a := range as {
				if a != bare {
					byID[a.ID] = a
				}
			}
			cases := []struct {
				name string
				p    memory.ListAdmissionsParams
				want []string
			}{
				{"NewestFirst", memory.ListAdmissionsParams{}, []string{"adm-4", "adm-2", "adm-3", "adm-1"}},
				{"MemoryID", memory.ListAdmissionsParams{MemoryID: "mem-1"}, []string{"adm-4", "adm-1"}},
				{"EpisodeID", memory.ListAdmissionsParams{EpisodeID: "ep-1"}, []string{"adm-2", "adm-1"}},
				{"MemoryAndEpisode", memory.ListAdmissionsParams{MemoryID: "mem-1", EpisodeID: "ep-2"}, []string{"adm-4"}},
				{"UnknownMemory", memory.ListAdmissionsParams{MemoryID: "mem-9"}, nil},
				{"Limit", memory.ListAdmissionsParams{Limit: 2}, []string{"adm-4", "adm-2"}},
				{"Decision", memory.ListAdmissionsParams{Decision: memory.AdmitReject}, []string{"adm-3"}},
				{"DecisionNone", memory.ListAdmissionsParams{Decision: memory.AdmitQuarantine}, nil},
			}
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				for _, c := range cases {
					c.p.Namespace = ns
					got, err := ex.ListAdmissions(ctx, c.p)
					if err != nil {
						return err
					}
					wantIDs(t, c.name, ids(got, admissionID), c.want)
					for _, g := range got {
						same(t, c.name+" "+g.ID, byID[g.ID], g)
					}
				}
				// Scanned oldest first, as export writes them.
				scanned, err := collectScan(ex.ScanAdmissions, ctx, ns)
				if err != nil {
					return err
				}
				wantIDs(t, "ScanAdmissions", ids(scanned, admissionID), []string{"adm-1", "adm-3", "adm-2", "adm-4"})
				for _, g := range scanned {
					same(t, "scanned "+g.ID, byID[g.ID], g)
				}
				checkScanStops(t, m.name+" ScanAdmissions", ex.ScanAdmissions, ctx, ns)
				return nil
			}))
		})
	})

	t.Run("Conflict", func(t *testing.T) {
		ctx, st := s.fresh(t)
		create := func(as ...*memory.Admission) error {
			return st.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: as})
		}
		must(t, create(newAdmission(ns, "adm-1", "ep-1", "mem-1", at(1))))
		wantErr(t, "duplicate of a stored id", create(newAdmission(ns, "adm-2", "", "", at(2)), newAdmission(ns, "adm-1", "", "", at(3))), memory.ErrConflict)
		wantErr(t, "duplicate inside one call", create(newAdmission(ns, "adm-3", "", "", at(2)), newAdmission(ns, "adm-3", "", "", at(3))), memory.ErrConflict)
		got, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "admissions after failed calls", ids(got, admissionID), []string{"adm-1"})
		must(t, create()) // an empty batch is a no-op
	})
}

func (s suite) traces(t *testing.T) {
	t.Run("RoundTripAndList", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			bare := &memory.Trace{ID: "ret-3", Namespace: ns, Query: "q", CreatedAt: at(2)} // no as_of, no items
			// ret-1 carries notes and model usage; the others neither
			// (the stored column is NULL), and they read back without.
			trs := []*memory.Trace{withModels(newTrace(ns, "ret-1", at(1))), newTrace(ns, "ret-2", at(3)), bare}
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				for _, tr := range trs {
					if err := ex.CreateTrace(ctx, tr); err != nil {
						return err
					}
				}
				return nil
			}))
			byID := map[string]*memory.Trace{}
			for _, tr := range trs {
				byID[tr.ID] = tr
			}
			cases := []struct {
				name string
				p    memory.ListTracesParams
				want []string
			}{
				{"NewestFirst", memory.ListTracesParams{}, []string{"ret-2", "ret-3", "ret-1"}},
				{"SinceInclusive", memory.ListTracesParams{Since: at(2)}, []string{"ret-2", "ret-3"}},
				{"SinceBetween", memory.ListTracesParams{Since: at(2).Add(time.Microsecond)}, []string{"ret-2"}},
				{"SinceFuture", memory.ListTracesParams{Since: at(9)}, nil},
				{"Limit", memory.ListTracesParams{Limit: 1}, []string{"ret-2"}},
			}
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				for _, want := range trs {
					got, err := ex.GetTrace(ctx, memory.GetParams{Namespace: ns, ID: want.ID})
					if err != nil {
						return err
					}
					same(t, "GetTrace "+want.ID, want, got)
				}
				for _, c := range cases {
					c.p.Namespace = ns
					got, err := ex.ListTraces(ctx, c.p)
					if err != nil {
						return err
					}
					wantIDs(t, c.name, ids(got, traceID), c.want)
					for _, g := range got {
						same(t, c.name+" "+g.ID, byID[g.ID], g)
					}
				}
				// Scanned oldest first, as export writes them.
				scanned, err := collectScan(ex.ScanTraces, ctx, ns)
				if err != nil {
					return err
				}
				wantIDs(t, "ScanTraces", ids(scanned, traceID), []string{"ret-1", "ret-3", "ret-2"})
				for _, g := range scanned {
					same(t, "scanned "+g.ID, byID[g.ID], g)
				}
				checkScanStops(t, m.name+" ScanTraces", ex.ScanTraces, ctx, ns)
				// Without items: everything else as stored.
				lean, err := ex.ListTraces(ctx, memory.ListTracesParams{Namespace: ns, WithoutItems: true})
				if err != nil {
					return err
				}
				wantIDs(t, "ListTraces without items", ids(lean, traceID), []string{"ret-2", "ret-3", "ret-1"})
				for _, g := range lean {
					want := *byID[g.ID]
					want.Items = nil
					same(t, "lean "+g.ID, &want, g)
				}
				return nil
			}))
		})
	})

	t.Run("ConflictAndNotFound", func(t *testing.T) {
		ctx, st := s.fresh(t)
		must(t, st.CreateTrace(ctx, newTrace(ns, "ret-1", at(1))))
		wantErr(t, "duplicate id", st.CreateTrace(ctx, newTrace(ns, "ret-1", at(2))), memory.ErrConflict)
		got, err := st.GetTrace(ctx, memory.GetParams{Namespace: ns, ID: "ret-1"})
		must(t, err)
		same(t, "the original trace", newTrace(ns, "ret-1", at(1)), got)
		_, err = st.GetTrace(ctx, memory.GetParams{Namespace: ns, ID: "nope"})
		wantErr(t, "GetTrace", err, memory.ErrNotFound)
	})

	// A store whose executor writes traces in batches holds each to
	// CreateTrace's contract, across namespaces, and a batch with a
	// duplicate writes none of its traces.
	t.Run("Batch", func(t *testing.T) {
		ctx, st := s.fresh(t)
		batch := func(ts ...*memory.Trace) error {
			return st.InTx(ctx, func(ex memory.Executor) error {
				bc, ok := ex.(memory.TraceBatchCreator)
				if !ok {
					t.Skip("the executor writes traces one at a time (no memory.TraceBatchCreator)")
				}
				return bc.CreateTraces(ctx, ts)
			})
		}
		trs := []*memory.Trace{withModels(newTrace(ns, "ret-1", at(1))), newTrace("tenant-b", "ret-1", at(2)), newTrace(ns, "ret-2", at(3))}
		must(t, batch(trs...))
		for _, want := range trs {
			got, err := st.GetTrace(ctx, memory.GetParams{Namespace: want.Namespace, ID: want.ID})
			must(t, err)
			same(t, "batched "+want.Namespace+"/"+want.ID, want, got)
		}
		wantErr(t, "a duplicate in the batch", batch(newTrace(ns, "ret-3", at(4)), newTrace(ns, "ret-2", at(5))), memory.ErrConflict)
		_, err := st.GetTrace(ctx, memory.GetParams{Namespace: ns, ID: "ret-3"})
		wantErr(t, "the failed batch's new trace", err, memory.ErrNotFound)
		wantErr(t, "a trace without a namespace", batch(newTrace("Bad Namespace!", "ret-4", at(6))), memory.ErrInvalid)
		must(t, batch())
	})
}
