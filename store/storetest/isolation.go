package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

func (s suite) stats(t *testing.T) {
	t.Run("Counts", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			empty, err := st.Stats(ctx, memory.StatsParams{Namespace: ns})
			must(t, err)
			if empty.Namespace != ns || empty.Episodes+empty.Memories+empty.Admissions+empty.Traces != 0 || len(empty.Versions) != 0 {
				t.Errorf("Stats of an empty namespace: %+v", empty)
			}

			m1 := newMemory(ns, "m-1", "user", "k1", memory.Scope{})
			m2 := newMemory(ns, "m-2", "user", "k2", memory.Scope{})
			must(t, st.InTx(ctx, func(tx memory.Executor) error {
				if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{
					newEpisode(ns, "e-1", "s1", at(0)), newEpisode(ns, "e-2", "s1", at(1)),
				}}); err != nil {
					return err
				}
				for _, mm := range []*memory.Memory{m1, m2} {
					if err := tx.CreateMemory(ctx, mm); err != nil {
						return err
					}
				}
				for _, v := range []*memory.Version{
					withState(newVersion(ns, "v-1", m1, 1, at(1)), memory.KindSemantic, memory.StatusSuperseded),
					withState(newVersion(ns, "v-2", m1, 2, at(2)), memory.KindSemantic, memory.StatusActive),
					withState(newVersion(ns, "v-3", m2, 1, at(3)), memory.KindSemantic, memory.StatusActive),
				} {
					if err := tx.CreateVersion(ctx, v); err != nil {
						return err
					}
				}
				if err := tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{
					newAdmission(ns, "a-1", "e-1", "m-1", at(1)), newAdmission(ns, "a-2", "e-1", "m-1", at(2)), newAdmission(ns, "a-3", "e-2", "", at(3)),
				}}); err != nil {
					return err
				}
				return tx.CreateTrace(ctx, newTrace(ns, "r-1", at(4)))
			}))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := ex.Stats(ctx, memory.StatsParams{Namespace: ns})
				if err != nil {
					return err
				}
				want := &memory.Stats{
					Namespace: ns, Episodes: 2, Memories: 2, Admissions: 3, Traces: 1,
					Versions: map[memory.Status]int{memory.StatusActive: 2, memory.StatusSuperseded: 1},
				}
				same(t, "Stats", want, got)
				return nil
			}))
		})
	})
}

func (s suite) namespaces(t *testing.T) {
	t.Run("Sorted", func(t *testing.T) {
		ctx, st := s.fresh(t)
		got, err := st.Namespaces(ctx)
		must(t, err)
		if len(got) != 0 {
			t.Errorf("Namespaces of an empty store: %v", got)
		}
		// Each namespace holds rows of one table only: every table counts.
		must(t, st.CreateTrace(ctx, newTrace("zeta", "r-1", at(0))))
		must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "alpha", Episodes: []*memory.Episode{newEpisode("alpha", "e-1", "s", at(0))}}))
		must(t, st.CreateMemory(ctx, newMemory("mid", "m-1", "user", "k", memory.Scope{})))
		must(t, st.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "beta", Admissions: []*memory.Admission{newAdmission("beta", "a-1", "", "", at(0))}}))
		m := newMemory("gamma", "m-1", "user", "k", memory.Scope{})
		must(t, st.CreateMemory(ctx, m))
		must(t, st.CreateVersion(ctx, newVersion("gamma", "v-1", m, 1, at(0))))
		got, err = st.Namespaces(ctx)
		must(t, err)
		wantIDs(t, "Namespaces", got, []string{"alpha", "beta", "gamma", "mid", "zeta"})
	})
}

func (s suite) isolation(t *testing.T) {
	t.Run("NothingCrosses", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			a := newWorld("alpha")
			must(t, st.InTx(ctx, func(tx memory.Executor) error { return a.write(ctx, tx) }))
			// Something in beta, so beta exists as a namespace.
			must(t, st.CreateTrace(ctx, newTrace("beta", "ret-other", at(9))))

			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				checkInvisible(t, ctx, ex, a, "beta")
				return nil
			}))

			// An update addressed to beta cannot reach alpha's version.
			upd := *a.version
			upd.Namespace = "beta"
			upd.Status = memory.StatusDeleted
			err := m.do(ctx, st, func(ex memory.Executor) error { return ex.UpdateVersionState(ctx, &upd) })
			wantErr(t, "UpdateVersionState across namespaces", err, memory.ErrNotFound)
			got, err := st.GetVersion(ctx, memory.GetParams{Namespace: "alpha", ID: a.version.ID})
			must(t, err)
			same(t, "alpha's version after beta's update", a.version, got)

			// A version in beta cannot hang off alpha's memory.
			orphan := *a.version
			orphan.Namespace, orphan.ID = "beta", "ver-beta"
			err = m.do(ctx, st, func(ex memory.Executor) error { return ex.CreateVersion(ctx, &orphan) })
			wantErr(t, "CreateVersion on another namespace's memory", err, memory.ErrNotFound)

			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				got, err := ex.Stats(ctx, memory.StatsParams{Namespace: "alpha"})
				if err != nil {
					return err
				}
				same(t, "alpha's Stats", &memory.Stats{
					Namespace: "alpha", Episodes: 1, Memories: 1, Admissions: 1, Traces: 1,
					Versions: map[memory.Status]int{memory.StatusActive: 1},
				}, got)
				got, err = ex.Stats(ctx, memory.StatsParams{Namespace: "beta"})
				if err != nil {
					return err
				}
				same(t, "beta's Stats", &memory.Stats{Namespace: "beta", Traces: 1, Versions: map[memory.Status]int{}}, got)
				return nil
			}))
			nss, err := st.Namespaces(ctx)
			must(t, err)
			wantIDs(t, "Namespaces", nss, []string{"alpha", "beta"})
		})
	})

	t.Run("SameIDsInTwoNamespaces", func(t *testing.T) {
		ctx, st := s.fresh(t)
		a, b := newWorld("alpha"), newWorld("beta")
		b.episode.Content = "beta's own episode"
		b.memory.Kind = memory.KindProcedural
		b.version.Value = "beta's own value"
		b.admission.Content = "beta's own candidate"
		b.trace.Query = "beta's own query"
		// An id taken in alpha is free in beta: a conflict would tell beta
		// what alpha holds.
		for _, w := range []world{a, b} {
			must(t, st.InTx(ctx, func(tx memory.Executor) error { return w.write(ctx, tx) }))
		}
		for _, w := range []world{a, b} {
			ep, err := st.GetEpisode(ctx, memory.GetParams{Namespace: w.ns, ID: w.episode.ID})
			must(t, err)
			same(t, w.ns+" episode", w.episode, ep)
			mem, err := st.GetMemory(ctx, memory.GetParams{Namespace: w.ns, ID: w.memory.ID})
			must(t, err)
			same(t, w.ns+" memory", w.memory, mem)
			found, err := st.FindMemory(ctx, memory.FindMemoryParams{Namespace: w.ns, Scope: w.memory.Scope, Subject: w.memory.Subject, Key: w.memory.Key})
			must(t, err)
			same(t, w.ns+" found memory", w.memory, found)
			v, err := st.GetVersion(ctx, memory.GetParams{Namespace: w.ns, ID: w.version.ID})
			must(t, err)
			same(t, w.ns+" version", w.version, v)
			vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: w.ns})
			must(t, err)
			if len(vs) != 1 {
				t.Fatalf("%s ListVersions: %d versions, want 1", w.ns, len(vs))
			}
			same(t, w.ns+" listed version", w.version, vs[0])
			scanned, err := collectScan(st.ScanVersions, ctx, w.ns)
			must(t, err)
			if len(scanned) != 1 {
				t.Fatalf("%s ScanVersions: %d versions, want 1", w.ns, len(scanned))
			}
			same(t, w.ns+" scanned version", w.version, scanned[0])
			as, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: w.ns})
			must(t, err)
			if len(as) != 1 {
				t.Fatalf("%s ListAdmissions: %d, want 1", w.ns, len(as))
			}
			same(t, w.ns+" admission", w.admission, as[0])
			tr, err := st.GetTrace(ctx, memory.GetParams{Namespace: w.ns, ID: w.trace.ID})
			must(t, err)
			same(t, w.ns+" trace", w.trace, tr)
		}
	})
}

// checkInvisible checks that nothing of w can be read from namespace other.
func checkInvisible(t *testing.T, ctx context.Context, ex memory.Executor, w world, other string) {
	t.Helper()
	get := memory.GetParams{Namespace: other}
	get.ID = w.episode.ID
	_, err := ex.GetEpisode(ctx, get)
	wantErr(t, "GetEpisode from another namespace", err, memory.ErrNotFound)
	get.ID = w.memory.ID
	_, err = ex.GetMemory(ctx, get)
	wantErr(t, "GetMemory from another namespace", err, memory.ErrNotFound)
	get.ID = w.version.ID
	_, err = ex.GetVersion(ctx, get)
	wantErr(t, "GetVersion from another namespace", err, memory.ErrNotFound)
	get.ID = w.trace.ID
	_, err = ex.GetTrace(ctx, get)
	wantErr(t, "GetTrace from another namespace", err, memory.ErrNotFound)
	_, err = ex.FindMemory(ctx, memory.FindMemoryParams{Namespace: other, Scope: w.memory.Scope, Subject: w.memory.Subject, Key: w.memory.Key})
	wantErr(t, "FindMemory from another namespace", err, memory.ErrNotFound)

	for name, p := range map[string]memory.ListEpisodesParams{
		"all":     {Namespace: other},
		"session": {Namespace: other, SessionID: w.episode.Scope.SessionID},
		"ids":     {Namespace: other, IDs: []string{w.episode.ID}},
	} {
		got, err := ex.ListEpisodes(ctx, p)
		must(t, err)
		wantIDs(t, "ListEpisodes ("+name+") from another namespace", ids(got, episodeID), nil)
	}
	for name, p := range map[string]memory.ListVersionsParams{
		"all":         {Namespace: other},
		"memory":      {Namespace: other, MemoryID: w.memory.ID},
		"ids":         {Namespace: other, IDs: []string{w.version.ID}},
		"subject/key": {Namespace: other, Subject: w.version.Subject, Key: w.version.Key},
		"statuses":    {Namespace: other, Statuses: []memory.Status{w.version.Status}},
		"kinds":       {Namespace: other, Kinds: []memory.Kind{w.version.Kind}},
	} {
		got, err := ex.ListVersions(ctx, p)
		must(t, err)
		wantIDs(t, "ListVersions ("+name+") from another namespace", ids(got, versionID), nil)
	}
	for name, p := range map[string]memory.ListAdmissionsParams{
		"all":     {Namespace: other},
		"memory":  {Namespace: other, MemoryID: w.admission.MemoryID},
		"episode": {Namespace: other, EpisodeID: w.admission.EpisodeID},
	} {
		got, err := ex.ListAdmissions(ctx, p)
		must(t, err)
		wantIDs(t, "ListAdmissions ("+name+") from another namespace", ids(got, admissionID), nil)
	}
	traces, err := ex.ListTraces(ctx, memory.ListTracesParams{Namespace: other})
	must(t, err)
	for _, tr := range traces {
		if tr.ID == w.trace.ID || tr.Namespace != other {
			t.Errorf("ListTraces from another namespace returned %s of %s", tr.ID, tr.Namespace)
		}
	}

	eps, err := collectScan(ex.ScanEpisodes, ctx, other)
	must(t, err)
	wantIDs(t, "ScanEpisodes of another namespace", ids(eps, episodeID), nil)
	mems, err := collectScan(ex.ScanMemories, ctx, other)
	must(t, err)
	wantIDs(t, "ScanMemories of another namespace", ids(mems, memoryID), nil)
	vers, err := collectScan(ex.ScanVersions, ctx, other)
	must(t, err)
	wantIDs(t, "ScanVersions of another namespace", ids(vers, versionID), nil)
	adms, err := collectScan(ex.ScanAdmissions, ctx, other)
	must(t, err)
	wantIDs(t, "ScanAdmissions of another namespace", ids(adms, admissionID), nil)
	trs, err := collectScan(ex.ScanTraces, ctx, other)
	must(t, err)
	for _, tr := range trs {
		if tr.ID == w.trace.ID || tr.Namespace != other {
			t.Errorf("ScanTraces of another namespace returned %s of %s", tr.ID, tr.Namespace)
		}
	}
}

func (s suite) invalidInput(t *testing.T) {
	t.Run("BadNamespace", func(t *testing.T) {
		ctx, st := s.fresh(t)
		for _, bad := range []string{"", "bad ns!", "-leading-dash", strings.Repeat("x", 65)} {
			w := newWorld(bad)
			calls := map[string]func() error{
				"CreateEpisodes": func() error {
					return st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: bad, Episodes: []*memory.Episode{w.episode}})
				},
				"GetEpisode": func() error { _, err := st.GetEpisode(ctx, memory.GetParams{Namespace: bad, ID: "x"}); return err },
				"ListEpisodes": func() error {
					_, err := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: bad})
					return err
				},
				"ScanEpisodes": func() error { _, err := collectScan(st.ScanEpisodes, ctx, bad); return err },
				"CreateMemory": func() error { return st.CreateMemory(ctx, w.memory) },
				"GetMemory":    func() error { _, err := st.GetMemory(ctx, memory.GetParams{Namespace: bad, ID: "x"}); return err },
				"FindMemory": func() error {
					_, err := st.FindMemory(ctx, memory.FindMemoryParams{Namespace: bad, Subject: "s", Key: "k"})
					return err
				},
				"ScanMemories":       func() error { _, err := collectScan(st.ScanMemories, ctx, bad); return err },
				"CreateVersion":      func() error { return st.CreateVersion(ctx, w.version) },
				"UpdateVersionState": func() error { return st.UpdateVersionState(ctx, w.version) },
				"GetVersion":         func() error { _, err := st.GetVersion(ctx, memory.GetParams{Namespace: bad, ID: "x"}); return err },
				"ListVersions": func() error {
					_, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: bad})
					return err
				},
				"ScanVersions": func() error { _, err := collectScan(st.ScanVersions, ctx, bad); return err },
				"CreateAdmissions": func() error {
					return st.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: bad, Admissions: []*memory.Admission{w.admission}})
				},
				"ListAdmissions": func() error {
					_, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: bad})
					return err
				},
				"CreateTrace": func() error { return st.CreateTrace(ctx, w.trace) },
				"GetTrace":    func() error { _, err := st.GetTrace(ctx, memory.GetParams{Namespace: bad, ID: "x"}); return err },
				"ListTraces": func() error {
					_, err := st.ListTraces(ctx, memory.ListTracesParams{Namespace: bad})
					return err
				},
				"Stats": func() error { _, err := st.Stats(ctx, memory.StatsParams{Namespace: bad}); return err },
			}
			for name, call := range calls {
				wantErr(t, name+" with namespace "+bad, call(), memory.ErrInvalid)
			}
		}
		nss, err := st.Namespaces(ctx)
		must(t, err)
		wantIDs(t, "Namespaces after invalid writes", nss, nil)
	})

	t.Run("BadRows", func(t *testing.T) {
		ctx, st := s.fresh(t)
		m := newMemory(ns, "m-1", "user", "k", memory.Scope{})
		must(t, st.CreateMemory(ctx, m))
		epOther := newEpisode("tenant-b", "e-1", "s", at(0))
		admOther := newAdmission("tenant-b", "a-1", "", "", at(0))
		epNoID := newEpisode(ns, "", "s", at(0))
		admNoID := newAdmission(ns, "", "", "", at(0))
		memNoID := newMemory(ns, "", "user", "k2", memory.Scope{})
		verNoID := newVersion(ns, "", m, 1, at(0))
		verNoMem := newVersion(ns, "v-1", m, 1, at(0))
		verNoMem.MemoryID = ""
		trNoID := newTrace(ns, "", at(0))
		calls := map[string]error{
			"episode of another namespace":   st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{epOther}}),
			"admission of another namespace": st.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{admOther}}),
			"episode without id":             st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{epNoID}}),
			"admission without id":           st.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{admNoID}}),
			"memory without id":              st.CreateMemory(ctx, memNoID),
			"version without id":             st.CreateVersion(ctx, verNoID),
			"version without memory":         st.CreateVersion(ctx, verNoMem),
			"trace without id":               st.CreateTrace(ctx, trNoID),
			"nil episode":                    st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{nil}}),
			"nil admission":                  st.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{nil}}),
			"nil memory":                     st.CreateMemory(ctx, nil),
			"nil version":                    st.CreateVersion(ctx, nil),
			"nil version state":              st.UpdateVersionState(ctx, nil),
			"nil trace":                      st.CreateTrace(ctx, nil),
		}
		for name, err := range calls {
			wantErr(t, name, err, memory.ErrInvalid)
		}
		nss, err := st.Namespaces(ctx)
		must(t, err)
		wantIDs(t, "Namespaces after invalid writes", nss, []string{ns})
		stats, err := st.Stats(ctx, memory.StatsParams{Namespace: ns})
		must(t, err)
		if stats.Episodes+stats.Admissions+stats.Traces+len(stats.Versions) != 0 || stats.Memories != 1 {
			t.Errorf("rows written by invalid calls: %+v", stats)
		}
	})
}
