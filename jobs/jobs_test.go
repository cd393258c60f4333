package jobs_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/jobs/jobstest"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

type fixture struct {
	store *sqlite.Store
	eng   *engine.Engine
	queue *jobs.Queue
}

func open(t *testing.T, workers int) *fixture {
	t.Helper()
	ctx := context.Background()
	// Both schemas migrated once per test binary and copied (jobs.Open
	// finds River's done); TestPeriodicMaintenance and TestReembedOnStart
	// migrate River's tables in a new file.
	st, err := sqlite.Open(ctx, jobstest.Path(t), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	q, err := jobs.Open(ctx, jobs.Config{
		Driver: riversqlite.New(st.WriterDB()), TxOf: sqlite.SQLTx, Engine: eng,
		Workers: workers, PollInterval: 10 * time.Millisecond,
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
	return &fixture{st, eng, q}
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestCaptureRunsExtraction(t *testing.T) {
	f := open(t, 2)
	ctx := waitCtx(t)
	ack, err := f.eng.CaptureDeferred(ctx, engine.CaptureParams{Namespace: "ana", Events: []engine.Event{
		{Kind: memory.EpisodeUserMessage, Content: "I live in Lisbon.", OccurredAt: time.Now().Add(-time.Minute)},
	}}, f.queue.Enqueue)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ack.JobID, "job_") {
		t.Fatalf("job id %q", ack.JobID)
	}
	job, err := f.queue.Wait(ctx, "ana", ack.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if job.State != jobs.StateSucceeded || job.Namespace != "ana" || job.FinishedAt == nil {
		t.Fatalf("job = %+v", job)
	}
	facts, err := f.eng.Facts(ctx, engine.FactsParams{Namespace: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].Value != "Lisbon" {
		t.Fatalf("facts = %+v", facts)
	}
	// Another namespace cannot see the job.
	if _, err := f.queue.Get(ctx, "bob", ack.JobID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("foreign namespace get: %v, want not found", err)
	}
	list, err := f.queue.List(ctx, jobs.ListParams{Namespace: "ana", States: []string{jobs.StateSucceeded}})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != ack.JobID {
		t.Fatalf("list = %+v", list)
	}
}

// TestEnqueueRollsBackWithItsTransaction: a job inserted in a transaction
// that rolls back does not exist.
func TestEnqueueRollsBackWithItsTransaction(t *testing.T) {
	f := open(t, 0)
	ctx := waitCtx(t)
	boom := errors.New("boom")
	var id string
	err := f.store.InTx(ctx, func(tx memory.Executor) error {
		var err error
		id, err = f.queue.Enqueue(ctx, tx, engine.ExtractJob{Namespace: "ana", EpisodeIDs: []string{"ep_x"}})
		if err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if _, err := f.queue.Get(ctx, "ana", id); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("rolled-back job: %v, want not found", err)
	}
	counts, err := f.queue.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for s, n := range counts {
		if n != 0 {
			t.Fatalf("counts = %v after a rollback", counts)
		}
		_ = s
	}
}

// TestFailedJobIsVisible: a job that cannot succeed ends failed, with its
// error, and is listed as failed.
func TestFailedJobIsVisible(t *testing.T) {
	f := open(t, 1)
	ctx := waitCtx(t)
	var id string
	err := f.store.InTx(ctx, func(tx memory.Executor) error {
		var err error
		id, err = f.queue.Enqueue(ctx, tx, engine.ExtractJob{Namespace: "Not A Namespace!", EpisodeIDs: []string{"ep_x"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	job, err := f.queue.Wait(ctx, "Not A Namespace!", id)
	if err != nil {
		t.Fatal(err)
	}
	if job.State != jobs.StateFailed || !strings.Contains(job.Error, "namespace") {
		t.Fatalf("job = %+v, want failed with a namespace error", job)
	}
	failed, err := f.queue.List(ctx, jobs.ListParams{States: []string{jobs.StateFailed}})
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 1 || failed[0].ID != id {
		t.Fatalf("failed jobs = %+v", failed)
	}
	counts, err := f.queue.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts[jobs.StateFailed] != 1 {
		t.Fatalf("counts = %v", counts)
	}

	// Retried, it runs once more (and fails again: its payload is wrong).
	if _, err := f.queue.Retry(ctx, "other", id); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("retry from another namespace: %v", err)
	}
	retried, err := f.queue.Retry(ctx, "", id)
	if err != nil || retried.State != jobs.StatePending {
		t.Fatalf("retry: %+v, %v", retried, err)
	}
	job, err = f.queue.Wait(ctx, "Not A Namespace!", id)
	if err != nil {
		t.Fatal(err)
	}
	if job.State != jobs.StateFailed || job.Attempt != 2 {
		t.Fatalf("after the retry: %+v", job)
	}
	if _, err := f.queue.Retry(ctx, "", "job_999"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("retry of a missing job: %v", err)
	}
}

// TestRetryOnlyFailed: a job that succeeded is not run again.
func TestRetryOnlyFailed(t *testing.T) {
	f := open(t, 1)
	ctx := waitCtx(t)
	var id string
	err := f.store.InTx(ctx, func(tx memory.Executor) error {
		var err error
		id, err = f.queue.Enqueue(ctx, tx, engine.ExtractJob{Namespace: "ana", EpisodeIDs: []string{"ep_gone"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if job, err := f.queue.Wait(ctx, "ana", id); err != nil || job.State != jobs.StateSucceeded {
		t.Fatalf("job %+v, %v", job, err)
	}
	if _, err := f.queue.Retry(ctx, "ana", id); !errors.Is(err, memory.ErrConflict) {
		t.Fatalf("retry of a succeeded job: %v", err)
	}
}

func TestCheckID(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{jobs.NewID(), true},
		{"job_01jv4n3s8m6d0c9x2qf7a5k1ew", true},
		{"job_01JV4N3S8M6D0C9X2QF7A5K1EW", true},
		{"job_42", true}, // a job made before ids were opaque
		{"42", false},
		{"job_", false},
		{"job_0", false},
		{"job_-1", false},
		{"job_+1", false},
		{"job_x", false},
		{"job_01jv4n3s8m6d0c9x2qf7a5k1e", false},  // 25 characters
		{"job_01jv4n3s8m6d0c9x2qf7a5k1eu", false}, // u is not Crockford base32
		{"job_81jv4n3s8m6d0c9x2qf7a5k1ew", false}, // past the largest ULID
		{"job_99999999999999999999", false},       // overflows
		{"mem_01jv4n3s8m6d0c9x2qf7a5k1ew", false},
	} {
		err := jobs.CheckID(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("CheckID(%q) = %v", tc.in, err)
		}
		if err != nil && !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("CheckID(%q) error %v is not ErrInvalid", tc.in, err)
		}
	}
}

func TestReady(t *testing.T) {
	f := open(t, 1)
	if err := f.queue.Ready(context.Background()); err != nil {
		t.Fatalf("running queue not ready: %v", err)
	}
	if err := f.queue.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := f.queue.Ready(context.Background()); err == nil {
		t.Fatal("stopped queue reports ready")
	}
	if err := open(t, 0).queue.Ready(context.Background()); err != nil {
		t.Fatalf("a queue without workers: %v", err)
	}
}

// TestJobIDsAreOpaque: a job's id is its own ULID, not River's counter,
// and the counter does not find it.
func TestJobIDsAreOpaque(t *testing.T) {
	f := open(t, 0)
	ctx := waitCtx(t)
	opaque := regexp.MustCompile(`^job_[0-9a-hjkmnp-tv-z]{26}$`)
	var got []string
	for range 2 {
		err := f.store.InTx(ctx, func(tx memory.Executor) error {
			id, err := f.queue.Enqueue(ctx, tx, engine.ExtractJob{Namespace: "ana", EpisodeIDs: []string{"ep_x"}})
			got = append(got, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range got {
		if !opaque.MatchString(id) {
			t.Fatalf("job id %q is not opaque", id)
		}
		j, err := f.queue.Get(ctx, "ana", id)
		if err != nil || j.ID != id {
			t.Fatalf("get %s: %+v, %v", id, j, err)
		}
		var n int64
		if err := f.store.WriterDB().QueryRowContext(ctx, "SELECT id FROM river_job WHERE json_extract(args, '$.public_id') = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if _, err := f.queue.Get(ctx, "ana", jobs.FormatID(n)); !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("the counter %s finds job %s: %v", jobs.FormatID(n), id, err)
		}
	}
	if got[0] == got[1] {
		t.Fatalf("two jobs share id %s", got[0])
	}
	list, err := f.queue.List(ctx, jobs.ListParams{Namespace: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != got[1] || list[1].ID != got[0] {
		t.Fatalf("list = %+v, want %v newest first", list, got)
	}
	// The lookup by id is an index search, not a scan of every job.
	var plan strings.Builder
	rows, err := f.store.WriterDB().QueryContext(ctx, "EXPLAIN QUERY PLAN SELECT * FROM river_job WHERE json_extract(args, '$.public_id') = ? ORDER BY id LIMIT 1", got[0])
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(detail + "\n")
	}
	if !strings.Contains(plan.String(), "USING INDEX mnemon_river_job_public_id") {
		t.Fatalf("plan of a lookup by id:\n%s", plan.String())
	}
}

// legacyExtract is an extraction job as mnemon stored it before job ids
// were opaque: no public_id in its payload.
type legacyExtract struct {
	Namespace  string   `json:"namespace"`
	EpisodeIDs []string `json:"episode_ids"`
}

func (legacyExtract) Kind() string { return jobs.KindExtract }

// TestLegacyJobIDs: a capture's job queued by an older mnemon keeps its
// numeric id: it is found and reported under it, and its worker claims
// the backlog the capture left under that id.
func TestLegacyJobIDs(t *testing.T) {
	f := open(t, 1)
	ctx := waitCtx(t)
	client, err := river.NewClient(riversqlite.New(f.store.WriterDB()), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	oldEnqueue := func(ctx context.Context, tx memory.Executor, job engine.ExtractJob) (string, error) {
		sqlTx, err := sqlite.SQLTx(tx)
		if err != nil {
			return "", err
		}
		res, err := client.InsertTx(ctx, sqlTx, legacyExtract{Namespace: job.Namespace, EpisodeIDs: job.EpisodeIDs}, nil)
		if err != nil {
			return "", err
		}
		return jobs.FormatID(res.Job.ID), nil
	}
	ack, err := f.eng.CaptureDeferred(ctx, engine.CaptureParams{Namespace: "ana", Events: []engine.Event{
		{Kind: memory.EpisodeUserMessage, Content: "I live in Braga.", OccurredAt: time.Now().Add(-time.Minute)},
	}}, oldEnqueue)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^job_[1-9][0-9]*$`).MatchString(ack.JobID) {
		t.Fatalf("old-style job id %q", ack.JobID)
	}
	job, err := f.queue.Wait(ctx, "ana", ack.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if job.ID != ack.JobID || job.State != jobs.StateSucceeded || job.Namespace != "ana" {
		t.Fatalf("legacy job %s: %+v", ack.JobID, job)
	}
	facts, err := f.eng.Facts(ctx, engine.FactsParams{Namespace: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].Value != "Braga" {
		t.Fatalf("facts = %+v", facts)
	}
	if _, err := f.queue.Get(ctx, "bob", ack.JobID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("legacy job from another namespace: %v", err)
	}
}

// TestJobsOfAnotherProcessRun: an idle queue's workers only query for jobs
// when told one may be there, or once in a while; a job enqueued by
// another process (here, another store and queue on the same file, with
// no workers, as 'mnemon serve --workers 0' beside 'mnemon worker') tells
// them nothing, and is still run.
func TestJobsOfAnotherProcessRun(t *testing.T) {
	f := open(t, 2)
	ctx := waitCtx(t)
	other, err := sqlite.Open(ctx, f.store.Path(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	eng, err := engine.New(engine.Config{Store: other})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	q, err := jobs.Open(ctx, jobs.Config{Driver: riversqlite.New(other.WriterDB()), TxOf: sqlite.SQLTx})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"I live in Lisbon.", "I moved to Porto."} {
		ack, err := eng.CaptureDeferred(ctx, engine.CaptureParams{Namespace: "ana", Events: []engine.Event{
			{Kind: memory.EpisodeUserMessage, Content: text, OccurredAt: time.Now().Add(time.Duration(i-5) * time.Minute)},
		}}, q.Enqueue)
		if err != nil {
			t.Fatal(err)
		}
		job, err := f.queue.Wait(ctx, "ana", ack.JobID)
		if err != nil || job.State != jobs.StateSucceeded {
			t.Fatalf("job %d of the other process: %+v, %v", i, job, err)
		}
	}
}
