package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

func (s suite) times(t *testing.T) {
	t.Run("ZoneAndZero", func(t *testing.T) {
		ctx, st := s.fresh(t)
		// Any zone in, UTC out, same instant.
		india := time.FixedZone("IST", 5*3600+1800)
		ep := newEpisode(ns, "e-zone", "s", at(0).In(india))
		must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{ep}}))
		got, err := st.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: ep.ID})
		must(t, err)
		same(t, "episode with a zoned time", ep, got)

		// The zero time is a value, distinct from "not set" (nil).
		m := newMemory(ns, "m-zero", "user", "k", memory.Scope{})
		m.CreatedAt, m.UpdatedAt = time.Time{}, time.Time{}
		must(t, st.CreateMemory(ctx, m))
		gotM, err := st.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: m.ID})
		must(t, err)
		same(t, "memory with zero times", m, gotM)
		if !gotM.CreatedAt.IsZero() {
			t.Errorf("zero CreatedAt came back as %v", gotM.CreatedAt)
		}

		v := newVersion(ns, "v-zero", m, 1, at(0))
		v.ObservedAt, v.RecordedAt, v.ValidFrom, v.ValidTo = time.Time{}, time.Time{}, time.Time{}, &time.Time{}
		must(t, st.CreateVersion(ctx, v))
		gotV, err := st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: v.ID})
		must(t, err)
		same(t, "version with zero times", v, gotV)

		tr := newTrace(ns, "r-zero", at(0))
		tr.AsOf = &time.Time{}
		must(t, st.CreateTrace(ctx, tr))
		gotT, err := st.GetTrace(ctx, memory.GetParams{Namespace: ns, ID: tr.ID})
		must(t, err)
		same(t, "trace with a zero as_of", tr, gotT)
	})

	t.Run("OrderAcrossEpoch", func(t *testing.T) {
		ctx, st := s.fresh(t)
		old := time.Date(1965, 7, 20, 20, 17, 0, 0, time.UTC)
		must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{
			newEpisode(ns, "e-now", "s", at(0)),
			newEpisode(ns, "e-1965", "s", old),
		}}))
		eps, err := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "episodes across 1970", ids(eps, episodeID), []string{"e-1965", "e-now"})

		m := newMemory(ns, "m-1", "user", "k", memory.Scope{})
		must(t, st.CreateMemory(ctx, m))
		must(t, st.CreateVersion(ctx, newVersion(ns, "v-a", m, 1, at(0))))
		must(t, st.CreateVersion(ctx, newVersion(ns, "v-b", m, 2, old)))
		must(t, st.CreateVersion(ctx, newBareVersion(ns, "v-c", m, 3, time.Time{})))
		vs, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "versions by recorded_at, zero first", ids(vs, versionID), []string{"v-c", "v-b", "v-a"})
	})
}

func (s suite) inTx(t *testing.T) {
	t.Run("ReadTxSnapshot", func(t *testing.T) {
		ctx, st := s.fresh(t)
		must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{newEpisode(ns, "e-1", "s-1", at(1))}}))
		must(t, st.ReadTx(ctx, func(rd memory.Executor) error {
			before, err := rd.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns})
			must(t, err)
			// Another writer commits while the read transaction is open.
			must(t, st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{newEpisode(ns, "e-2", "s-1", at(2))}}))
			after, err := rd.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns})
			must(t, err)
			wantIDs(t, "episodes in the snapshot, before and after another commit", ids(after, episodeID), ids(before, episodeID))
			if err := rd.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{newEpisode(ns, "e-3", "s-1", at(3))}}); err == nil {
				t.Error("a write inside ReadTx succeeded")
			}
			return nil
		}))
		all, err := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns})
		must(t, err)
		wantIDs(t, "episodes after the read transaction", ids(all, episodeID), []string{"e-1", "e-2"})
	})

	t.Run("Commit", func(t *testing.T) {
		ctx, st := s.fresh(t)
		w := newWorld(ns)
		must(t, st.InTx(ctx, func(tx memory.Executor) error { return w.write(ctx, tx) }))
		got, err := st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: w.version.ID})
		must(t, err)
		same(t, "committed version", w.version, got)
	})

	t.Run("RollbackOnError", func(t *testing.T) {
		ctx, st := s.fresh(t)
		errAbort := errors.New("abort on purpose")
		w := newWorld(ns)
		err := st.InTx(ctx, func(tx memory.Executor) error {
			if err := w.write(ctx, tx); err != nil {
				return err
			}
			return fmt.Errorf("late failure: %w", errAbort)
		})
		wantErr(t, "InTx", err, errAbort)
		checkEmpty(t, ctx, st, w)
	})

	t.Run("RollbackOnFailedCall", func(t *testing.T) {
		ctx, st := s.fresh(t)
		w := newWorld(ns)
		must(t, st.CreateMemory(ctx, newMemory(ns, "m-taken", "user", "taken", memory.Scope{})))
		err := st.InTx(ctx, func(tx memory.Executor) error {
			if err := w.write(ctx, tx); err != nil {
				return err
			}
			return tx.CreateMemory(ctx, newMemory(ns, "m-taken", "user", "other", memory.Scope{}))
		})
		wantErr(t, "InTx returning a call's error", err, memory.ErrConflict)
		checkEmpty(t, ctx, st, w)
	})

	t.Run("RollbackOnPanic", func(t *testing.T) {
		ctx, st := s.fresh(t)
		w := newWorld(ns)
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("InTx: recovered %v, want the original panic", r)
				}
			}()
			_ = st.InTx(ctx, func(tx memory.Executor) error {
				if err := w.write(ctx, tx); err != nil {
					t.Error(err)
				}
				panic("boom")
			})
		}()
		checkEmpty(t, ctx, st, w)
		// The store is still usable.
		must(t, st.InTx(ctx, func(tx memory.Executor) error { return w.write(ctx, tx) }))
	})

	t.Run("ReadYourWrites", func(t *testing.T) {
		ctx, st := s.fresh(t)
		w := newWorld(ns)
		must(t, st.InTx(ctx, func(tx memory.Executor) error {
			if err := w.write(ctx, tx); err != nil {
				return err
			}
			found, err := tx.FindMemory(ctx, memory.FindMemoryParams{Namespace: ns, Scope: w.memory.Scope, Subject: w.memory.Subject, Key: w.memory.Key})
			if err != nil {
				return err
			}
			same(t, "memory found in its transaction", w.memory, found)
			vs, err := tx.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: w.memory.ID})
			if err != nil {
				return err
			}
			wantIDs(t, "versions listed in their transaction", ids(vs, versionID), []string{w.version.ID})
			ep, err := tx.GetEpisode(ctx, memory.GetParams{Namespace: ns, ID: w.episode.ID})
			if err != nil {
				return err
			}
			same(t, "episode read in its transaction", w.episode, ep)
			stats, err := tx.Stats(ctx, memory.StatsParams{Namespace: ns})
			if err != nil {
				return err
			}
			if stats.Memories != 1 || stats.Versions[memory.StatusActive] != 1 {
				t.Errorf("Stats in the transaction: %+v", stats)
			}
			return nil
		}))
	})

	t.Run("UncommittedInvisible", func(t *testing.T) {
		ctx, st := s.fresh(t)
		w := newWorld(ns)
		must(t, st.InTx(ctx, func(tx memory.Executor) error {
			if err := w.write(ctx, tx); err != nil {
				return err
			}
			// Another caller, reading while this transaction is open,
			// must not see its writes.
			done := make(chan error, 1)
			go func() {
				_, err := st.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: w.memory.ID})
				done <- err
			}()
			wantErr(t, "read of an uncommitted memory", <-done, memory.ErrNotFound)
			return nil
		}))
		_, err := st.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: w.memory.ID})
		must(t, err)
	})

	t.Run("ExecutorAfterReturn", func(t *testing.T) {
		ctx, st := s.fresh(t)
		var kept memory.Executor
		must(t, st.InTx(ctx, func(tx memory.Executor) error {
			kept = tx
			return nil
		}))
		m := newMemory(ns, "m-late", "user", "k", memory.Scope{})
		if err := kept.CreateMemory(ctx, m); err == nil {
			t.Error("CreateMemory on a finished transaction succeeded")
		}
		if _, err := kept.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: m.ID}); err == nil {
			t.Error("GetMemory on a finished transaction succeeded")
		}
		_, err := st.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: m.ID})
		wantErr(t, "memory written through a finished transaction", err, memory.ErrNotFound)
	})
}

// checkEmpty checks that nothing of w was written.
func checkEmpty(t *testing.T, ctx context.Context, st memory.Store, w world) {
	t.Helper()
	_, err := st.GetEpisode(ctx, memory.GetParams{Namespace: w.ns, ID: w.episode.ID})
	wantErr(t, "rolled-back episode", err, memory.ErrNotFound)
	_, err = st.GetVersion(ctx, memory.GetParams{Namespace: w.ns, ID: w.version.ID})
	wantErr(t, "rolled-back version", err, memory.ErrNotFound)
	_, err = st.GetTrace(ctx, memory.GetParams{Namespace: w.ns, ID: w.trace.ID})
	wantErr(t, "rolled-back trace", err, memory.ErrNotFound)
	_, err = st.FindMemory(ctx, memory.FindMemoryParams{Namespace: w.ns, Scope: w.memory.Scope, Subject: w.memory.Subject, Key: w.memory.Key})
	wantErr(t, "rolled-back memory", err, memory.ErrNotFound)
	as, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: w.ns})
	must(t, err)
	wantIDs(t, "rolled-back admissions", ids(as, admissionID), nil)
	stats, err := st.Stats(ctx, memory.StatsParams{Namespace: w.ns})
	must(t, err)
	if stats.Episodes+stats.Admissions+stats.Traces != 0 || len(stats.Versions) != 0 {
		t.Errorf("Stats after rollback: %+v", stats)
	}
}

func (s suite) concurrency(t *testing.T) {
	t.Run("WritersAndReaders", func(t *testing.T) {
		ctx, st := s.fresh(t)
		const writers, perWriter = 4, 15
		errs := make(chan error, writers*perWriter+8)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range perWriter {
					id := fmt.Sprintf("m-%d-%02d", w, i)
					err := st.InTx(ctx, func(tx memory.Executor) error {
						m := newMemory(ns, id, "user", "key-"+id, memory.Scope{})
						if err := tx.CreateMemory(ctx, m); err != nil {
							return err
						}
						if err := tx.CreateVersion(ctx, newVersion(ns, "v-"+id, m, 1, at(i))); err != nil {
							return err
						}
						return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{
							newAdmission(ns, "a-"+id, "", m.ID, at(i)),
						}})
					})
					if err != nil {
						errs <- fmt.Errorf("writer %d: %w", w, err)
						return
					}
				}
			})
		}
		stop := make(chan struct{})
		var readers sync.WaitGroup
		for range 2 {
			readers.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, Statuses: []memory.Status{memory.StatusActive}}); err != nil {
						errs <- fmt.Errorf("reader: %w", err)
						return
					}
					if _, err := st.Stats(ctx, memory.StatsParams{Namespace: ns}); err != nil {
						errs <- fmt.Errorf("reader: %w", err)
						return
					}
				}
			})
		}
		wg.Wait()
		close(stop)
		readers.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		stats, err := st.Stats(ctx, memory.StatsParams{Namespace: ns})
		must(t, err)
		n := writers * perWriter
		if stats.Memories != n || stats.Versions[memory.StatusActive] != n || stats.Admissions != n {
			t.Errorf("after %d concurrent transactions: %+v", n, stats)
		}
	})
}

func (s suite) context(t *testing.T) {
	t.Run("Canceled", func(t *testing.T) {
		_, st := s.fresh(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		m := newMemory(ns, "m-1", "user", "k", memory.Scope{})
		if err := st.CreateMemory(ctx, m); err == nil {
			t.Error("CreateMemory with a canceled context succeeded")
		}
		ran := false
		if err := st.InTx(ctx, func(tx memory.Executor) error {
			ran = true
			return tx.CreateMemory(ctx, m)
		}); err == nil {
			t.Errorf("InTx with a canceled context succeeded (fn ran: %v)", ran)
		}
		if _, err := st.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: m.ID}); err == nil {
			t.Error("GetMemory with a canceled context succeeded")
		}
		if _, err := collectScan(st.ScanVersions, ctx, ns); err == nil {
			t.Error("ScanVersions with a canceled context succeeded")
		}
		_, err := st.GetMemory(t.Context(), memory.GetParams{Namespace: ns, ID: m.ID})
		wantErr(t, "memory written with a canceled context", err, memory.ErrNotFound)
	})
}

func (s suite) close(t *testing.T) {
	t.Run("CallsAfterClose", func(t *testing.T) {
		ctx, st := s.fresh(t)
		w := newWorld(ns)
		must(t, st.InTx(ctx, func(tx memory.Executor) error { return w.write(ctx, tx) }))
		must(t, st.Close())
		get := memory.GetParams{Namespace: ns, ID: "x"}
		calls := map[string]func() error{
			"CreateEpisodes": func() error {
				return st.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{newEpisode(ns, "e-9", "s", at(0))}})
			},
			"GetEpisode":   func() error { _, err := st.GetEpisode(ctx, get); return err },
			"ListEpisodes": func() error { _, err := st.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns}); return err },
			"ScanEpisodes": func() error { _, err := collectScan(st.ScanEpisodes, ctx, ns); return err },
			"CreateMemory": func() error { return st.CreateMemory(ctx, newMemory(ns, "m-9", "user", "k9", memory.Scope{})) },
			"GetMemory":    func() error { _, err := st.GetMemory(ctx, get); return err },
			"FindMemory": func() error {
				_, err := st.FindMemory(ctx, memory.FindMemoryParams{Namespace: ns, Scope: w.memory.Scope, Subject: w.memory.Subject, Key: w.memory.Key})
				return err
			},
			"ScanMemories":       func() error { _, err := collectScan(st.ScanMemories, ctx, ns); return err },
			"CreateVersion":      func() error { return st.CreateVersion(ctx, newVersion(ns, "v-9", w.memory, 9, at(0))) },
			"UpdateVersionState": func() error { return st.UpdateVersionState(ctx, w.version) },
			"GetVersion":         func() error { _, err := st.GetVersion(ctx, get); return err },
			"ListVersions":       func() error { _, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns}); return err },
			"ScanVersions":       func() error { _, err := collectScan(st.ScanVersions, ctx, ns); return err },
			"CreateAdmissions": func() error {
				return st.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{newAdmission(ns, "a-9", "", "", at(0))}})
			},
			"ListAdmissions": func() error {
				_, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns})
				return err
			},
			"CreateTrace": func() error { return st.CreateTrace(ctx, newTrace(ns, "r-9", at(0))) },
			"GetTrace":    func() error { _, err := st.GetTrace(ctx, get); return err },
			"ListTraces":  func() error { _, err := st.ListTraces(ctx, memory.ListTracesParams{Namespace: ns}); return err },
			"Stats":       func() error { _, err := st.Stats(ctx, memory.StatsParams{Namespace: ns}); return err },
			"Namespaces":  func() error { _, err := st.Namespaces(ctx); return err },
			"InTx":        func() error { return st.InTx(ctx, func(memory.Executor) error { return nil }) },
		}
		for name, call := range calls {
			if err := call(); err == nil {
				t.Errorf("%s after Close: no error", name)
			}
		}
		if err := st.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}
