package jobs_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// TestPeriodicMaintenance: a queue with MaintainEvery runs maintenance on
// its schedule, over every namespace.
func TestPeriodicMaintenance(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemon.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	from, to := now.Add(-48*time.Hour), now.Add(-time.Hour)
	var ids []string
	for _, ns := range []string{"ana", "bob"} {
		res, err := eng.Remember(ctx, engine.RememberParams{Namespace: ns, Text: "The user is in Berlin.",
			Key: "visiting", Value: "Berlin", ValidFrom: &from, ValidTo: &to})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Outcomes[0].VersionID)
	}
	q := startQueue(t, st, eng, 300*time.Millisecond)
	deadline := time.Now().Add(30 * time.Second)
	for i, ns := range []string{"ana", "bob"} {
		for {
			v, err := st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: ids[i]})
			if err != nil {
				t.Fatal(err)
			}
			if v.Status == memory.StatusExpired {
				break
			}
			if time.Now().After(deadline) {
				js, _ := q.List(ctx, jobs.ListParams{})
				t.Fatalf("%s: the periodic maintenance did not expire the fact (status %s); jobs %+v", ns, v.Status, js)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	var done *jobs.Job
	for done == nil {
		js, err := q.List(ctx, jobs.ListParams{})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range js {
			if j.Kind == jobs.KindMaintain && j.Finished() {
				done = j
			}
		}
		if done == nil {
			if time.Now().After(deadline) {
				t.Fatalf("no finished maintenance job: %+v", js)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if done.State != jobs.StateSucceeded {
		t.Fatalf("maintenance job %+v", done)
	}
}

// startQueue starts a one-worker queue over st running eng's jobs, with
// maintenance every maintainEvery; the queue, eng and st close when the
// test ends.
func startQueue(t *testing.T, st *sqlite.Store, eng *engine.Engine, maintainEvery time.Duration) *jobs.Queue {
	t.Helper()
	ctx := context.Background()
	q, err := jobs.Open(ctx, jobs.Config{
		Driver: riversqlite.New(st.WriterDB()), TxOf: sqlite.SQLTx, Engine: eng,
		Workers: 1, PollInterval: 10 * time.Millisecond, MaintainEvery: maintainEvery,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := q.Stop(stopCtx); err != nil {
			t.Error(err)
		}
		eng.Close()
		st.Close()
	})
	return q
}
