// Package jobs runs mnemon's background work as durable jobs on River
// (github.com/riverqueue/river): a job is inserted in the same transaction
// as the data it processes, claimed by a worker pool, retried with backoff
// when it fails, and kept visible once it has failed for good.
//
// The package knows no concrete store: the caller passes a River driver on
// the store's database (River's SQLite driver on database/sql, or its pgx
// driver on PostgreSQL) and a function that unwraps the store's
// transaction.
package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// Job states as mnemon reports them.
const (
	StatePending   = "pending"
	StateRunning   = "running"
	StateSucceeded = "succeeded"
	StateFailed    = "failed"
)

// States lists every state in reporting order.
var States = []string{StatePending, StateRunning, StateSucceeded, StateFailed}

// Kinds of jobs.
const KindExtract = "mnemon_extract"

// Config wires a Queue.
type Config struct {
	// Driver is River's driver on the store's database when it is a
	// database/sql one (SQLite: riversqlite on the store's WriterDB, the
	// one connection its write transactions run on).
	Driver riverdriver.Driver[*sql.Tx]
	// TxOf unwraps the store transaction an engine.Enqueue receives.
	TxOf func(memory.Executor) (*sql.Tx, error)
	// PgxDriver and PgxTxOf are Driver and TxOf for a store on pgx
	// (PostgreSQL: riverpgxv5 on the store's pool). Set one pair only.
	PgxDriver riverdriver.Driver[pgx.Tx]
	PgxTxOf   func(memory.Executor) (pgx.Tx, error)
	// Engine runs the jobs' work. Required when Workers > 0.
	Engine *engine.Engine
	// Workers is how many jobs run at once; 0 makes a queue that only
	// inserts and reads jobs (an API process whose workers run elsewhere).
	Workers int
	// MaxAttempts before a job fails for good (default 5).
	MaxAttempts int
	// JobTimeout bounds one attempt (default 1 minute).
	JobTimeout time.Duration
	// RescueAfter is how long a job may stay running before it is taken
	// for dead (its worker crashed) and retried (default 2 minutes, or
	// JobTimeout plus a minute if that is longer; must exceed JobTimeout).
	RescueAfter time.Duration
	// PollInterval is how often idle workers look for new jobs (default
	// 50 ms): SQLite has no notifications, so this bounds pickup latency.
	// Only a poll that may find a job reaches the database (see idle.go).
	PollInterval time.Duration
	// Logger receives the queue's warnings and errors.
	Logger *slog.Logger
	// MaintainEvery is how often a queue with workers runs the periodic
	// maintenance job (engine.Maintain over every namespace); 0 never.
	MaintainEvery time.Duration
	// ReadOnly opens the queue of a read-only server (mnemon serve
	// --read-only): River's tables are not migrated (a writer's start
	// does that), Workers must be 0, and Enqueue and Retry fail with
	// memory.ErrReadOnly (code store_read_only). Listing and reading jobs
	// work.
	ReadOnly bool
}

// Queue inserts, runs and reports jobs.
type Queue struct {
	cfg    Config
	client riverClient // see backend.go
	exec   riverdriver.Executor
	// database is the driver's DatabaseName (riverdriver.DatabaseName*).
	database string
	gate     *fetchGate // see idle.go
	started  atomic.Bool
}

// Job is a job as mnemon reports it.
type Job struct {
	ID          string     `json:"id"`
	Kind        string     `json:"kind"`
	Namespace   string     `json:"namespace"`
	State       string     `json:"state"`
	Attempt     int        `json:"attempt"`
	MaxAttempts int        `json:"max_attempts"`
	Error       string     `json:"error,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	ScheduledAt time.Time  `json:"scheduled_at"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
}

// Finished reports whether the job will not run again.
func (j *Job) Finished() bool { return j.State == StateSucceeded || j.State == StateFailed }

// extractArgs is the stored payload of an extraction job.
type extractArgs struct {
	engine.ExtractJob
	PublicID string `json:"public_id"` // see NewID
}

func (extractArgs) Kind() string { return KindExtract }

type extractWorker struct {
	river.WorkerDefaults[extractArgs]
	eng *engine.Engine
	log *slog.Logger
}

func (w *extractWorker) Work(ctx context.Context, job *river.Job[extractArgs]) error {
	ej := job.Args.ExtractJob
	ej.JobID = idOf(job.JobRow)
	_, err := w.eng.Extract(ctx, ej)
	if err == nil {
		return nil
	}
	if errors.Is(err, memory.ErrInvalid) {
		// Retrying cannot fix a job whose payload is wrong. The message
		// is for people: the error's own, not the chain's prefixes.
		msg := "the job's payload is not valid"
		var pe *memory.Error
		if errors.As(err, &pe) {
			msg = pe.Message
		}
		return river.JobCancel(errors.New(msg))
	}
	// The error is stored with the job, and the API shows it to clients:
	// the store's text (SQL, file paths) goes to the log only.
	w.log.Error("extraction job failed", "job_id", idOf(job.JobRow), "attempt", job.Attempt,
		"namespace", job.Args.Namespace, "error", err)
	return publicError(err)
}

// publicError says why a job failed in words a client may read.
func publicError(err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return errors.New("extraction took longer than the job timeout; it is retried")
	case errors.Is(err, context.Canceled):
		return errors.New("extraction was interrupted (the worker stopped); it is retried")
	case errors.Is(err, memory.ErrStorageFull):
		return errors.New("the server's disk is full; it is retried")
	case errors.Is(err, memory.ErrCorrupt), errors.Is(err, memory.ErrSchemaTooNew):
		return errors.New("the database cannot be read safely; an operator must check it")
	}
	return errors.New("extraction failed with an internal error; the server log has the details")
}

// Migrate brings River's tables in the store's database up to date.
//
// On PostgreSQL, where several processes may start together on one
// database, they take turns: River's migrator takes no lock, and two
// migrating at once would collide on the tables they both create. The lock
// is a transaction's advisory lock, held while the migrations run on other
// connections of the pool: they cannot share that transaction, since a
// later migration uses an enum value an earlier one adds, which PostgreSQL
// forbids in the transaction that added it.
func Migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) error {
	if driver.DatabaseName() == riverdriver.DatabaseNamePostgres {
		lock, err := driver.GetExecutor().Begin(ctx)
		if err != nil {
			return fmt.Errorf("jobs: migrate: %w", err)
		}
		defer func() { _ = lock.Rollback(context.WithoutCancel(ctx)) }() // releases the lock
		// 0x6d6e ("mn") is the class of store/postgres's advisory locks;
		// the second key names River's migration of this schema.
		if err := lock.Exec(ctx, "SELECT pg_advisory_xact_lock(x'6d6e'::int, hashtext('river_migrate:' || current_schema()))"); err != nil {
			return fmt.Errorf("jobs: migrate: lock: %w", err)
		}
	}
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: quietLogger(nil)})
	if err != nil {
		return fmt.Errorf("jobs: migrate: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("jobs: migrate: %w", err)
	}
	// Jobs are found by their public id (see NewID). River's migrations
	// may rebuild its table, dropping this index, so it is made after
	// them, every time.
	index := "CREATE INDEX IF NOT EXISTS mnemon_river_job_public_id ON river_job (" + publicIDExpr(driver.DatabaseName()) + ")"
	if err := driver.GetExecutor().Exec(ctx, index); err != nil {
		return fmt.Errorf("jobs: migrate: %w", err)
	}
	return nil
}

// publicIDExpr reads a job's public id from its payload, in the index and
// in the lookup alike: a database uses an index on an expression only for
// the same expression.
func publicIDExpr(database string) string {
	if database == riverdriver.DatabaseNamePostgres {
		return "(args->>'public_id')" // args is jsonb; an indexed expression needs its parentheses
	}
	return "json_extract(args, '$.public_id')"
}

// quietLogger keeps River's informational chatter out of mnemon's logs.
func quietLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		l = slog.Default()
	}
	return slog.New(levelFilter{l.Handler(), slog.LevelWarn})
}

type levelFilter struct {
	slog.Handler
	min slog.Level
}

func (f levelFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.min && f.Handler.Enabled(ctx, l)
}

func (f levelFilter) WithAttrs(as []slog.Attr) slog.Handler {
	return levelFilter{f.Handler.WithAttrs(as), f.min}
}

func (f levelFilter) WithGroup(name string) slog.Handler {
	return levelFilter{f.Handler.WithGroup(name), f.min}
}

// Open migrates River's tables and returns a queue. Call Start to run
// workers and Stop to let running jobs finish.
func Open(ctx context.Context, cfg Config) (*Queue, error) {
	sqlSet, pgxSet := cfg.Driver != nil || cfg.TxOf != nil, cfg.PgxDriver != nil || cfg.PgxTxOf != nil
	switch {
	case sqlSet && pgxSet:
		return nil, errors.New("jobs: set Driver and TxOf, or PgxDriver and PgxTxOf, not both")
	case sqlSet && (cfg.Driver == nil || cfg.TxOf == nil):
		return nil, errors.New("jobs: Driver and TxOf are required together")
	case pgxSet && (cfg.PgxDriver == nil || cfg.PgxTxOf == nil):
		return nil, errors.New("jobs: PgxDriver and PgxTxOf are required together")
	case !sqlSet && !pgxSet:
		return nil, errors.New("jobs: a driver and its TxOf are required")
	}
	if cfg.ReadOnly && cfg.Workers > 0 {
		return nil, errors.New("jobs: a read-only queue runs no workers")
	}
	if cfg.Workers > 0 && cfg.Engine == nil {
		return nil, errors.New("jobs: workers need an Engine")
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 5
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = time.Minute
	}
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = max(2*time.Minute, cfg.JobTimeout+time.Minute)
	}
	if cfg.RescueAfter <= cfg.JobTimeout {
		return nil, fmt.Errorf("jobs: rescue after %s must exceed the job timeout %s", cfg.RescueAfter, cfg.JobTimeout)
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 50 * time.Millisecond
	}
	var err error
	switch {
	case cfg.ReadOnly:
	case cfg.PgxDriver != nil:
		err = Migrate(ctx, cfg.PgxDriver)
	default:
		err = Migrate(ctx, cfg.Driver)
	}
	if err != nil {
		return nil, err
	}
	rc := &river.Config{
		Logger:               quietLogger(cfg.Logger),
		MaxAttempts:          cfg.MaxAttempts,
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		FetchPollInterval:    cfg.PollInterval,
		// Between fetches while jobs are waiting: it caps throughput at
		// Workers jobs per cooldown, so keep it short.
		FetchCooldown: min(cfg.PollInterval, 5*time.Millisecond),
		PollOnly:      true,
		// Failed and finished jobs stay visible for a week.
		CompletedJobRetentionPeriod: 24 * time.Hour,
		DiscardedJobRetentionPeriod: 7 * 24 * time.Hour,
		CancelledJobRetentionPeriod: 7 * 24 * time.Hour,
	}
	if cfg.Workers > 0 {
		workers := river.NewWorkers()
		log := cfg.Logger
		if log == nil {
			log = slog.Default()
		}
		if err := river.AddWorkerSafely(workers, &extractWorker{eng: cfg.Engine, log: log}); err != nil {
			return nil, fmt.Errorf("jobs: %w", err)
		}
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
		if err := addMaintenance(workers, rc, cfg.Engine, log, cfg.MaintainEvery); err != nil {
			return nil, fmt.Errorf("jobs: %w", err)
		}
		if err := addReembed(workers, cfg.Engine, log); err != nil {
			return nil, fmt.Errorf("jobs: %w", err)
		}
	}
	// River's SQLite driver runs on the store's writer, one connection
	// (the jobs commit in the store's transactions): its fetches wait for
	// the transactions that enqueue.
	gate := newFetchGate(cfg.PgxDriver == nil)
	q := &Queue{cfg: cfg, gate: gate}
	if cfg.PgxDriver != nil {
		q.client, err = newClient(gatedDriver[pgx.Tx]{cfg.PgxDriver, gate}, cfg.PgxTxOf, rc)
		q.exec, q.database = cfg.PgxDriver.GetExecutor(), cfg.PgxDriver.DatabaseName()
	} else {
		q.client, err = newClient(gatedDriver[*sql.Tx]{cfg.Driver, gate}, cfg.TxOf, rc)
		q.exec, q.database = cfg.Driver.GetExecutor(), cfg.Driver.DatabaseName()
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return q, nil
}

// Start runs the workers until Stop. A queue without workers needs no
// Start. Cancelling ctx does not stop the workers: only Stop does, so a
// caller that shuts down on its context's cancellation still lets running
// jobs finish (River would otherwise cancel them mid-work).
func (q *Queue) Start(ctx context.Context) error {
	if q.cfg.Workers == 0 {
		return nil
	}
	if err := q.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("jobs: start: %w", err)
	}
	q.started.Store(true)
	if err := q.enqueueReembed(ctx); err != nil {
		// Not fatal: the maintenance runs re-embed too.
		log := q.cfg.Logger
		if log == nil {
			log = slog.Default()
		}
		log.Warn("could not queue re-embedding", "error", err)
	}
	return nil
}

// Stop stops fetching new jobs and waits for running ones until ctx is
// done. Jobs still running then are cancelled (their transactions roll
// back) and Stop waits briefly for them to return: River rescues and
// retries them after RescueAfter, and extraction is idempotent, so nothing
// is done twice.
func (q *Queue) Stop(ctx context.Context) error {
	if q.cfg.Workers == 0 {
		return nil
	}
	q.gate.close()
	err := q.client.Stop(ctx)
	if err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = q.client.StopAndCancel(cctx)
		return fmt.Errorf("jobs: stop: %w", err)
	}
	return nil
}

// Ready reports whether the queue's workers are running; a queue without
// workers is always ready.
func (q *Queue) Ready(context.Context) error {
	if q.cfg.Workers == 0 {
		return nil
	}
	if !q.started.Load() {
		return errors.New("workers not started")
	}
	select {
	case <-q.client.Stopped():
		return errors.New("workers stopped")
	default:
		return nil
	}
}

// errReadOnly is what a read-only queue answers a write.
func errReadOnly() error {
	return &memory.Error{Code: memory.CodeStoreReadOnly, Kind: memory.ErrReadOnly,
		Message: "this mnemon opened the database for reading only: no job was queued or changed; send writes to a process that opened it read-write"}
}

// Enqueue inserts an extraction job in the store transaction tx. It has the
// signature of engine.Enqueue.
func (q *Queue) Enqueue(ctx context.Context, tx memory.Executor, job engine.ExtractJob) (string, error) {
	if q.cfg.ReadOnly {
		return "", errReadOnly()
	}
	res, err := q.client.insertStoreTx(ctx, tx, extractArgs{ExtractJob: job, PublicID: NewID()}, nil)
	if err != nil {
		return "", fmt.Errorf("jobs: enqueue: %w", err)
	}
	q.gate.wake() // River is told of inserts in a transaction by no one

	return idOf(res.Job), nil
}

// NewID makes a job's id: "job_" and a ULID, stored in the job's payload.
// River numbers jobs with one counter for the whole database; that number
// would tell every client how much work all namespaces queue, and let it
// walk the ids, so it stays inside.
func NewID() string { return ids.New(ids.Job) }

// FormatID is the id of a job made before ids were opaque ("job_" and
// River's number), which carries no id of its own.
func FormatID(n int64) string { return "job_" + strconv.FormatInt(n, 10) }

// CheckID refuses, as memory.ErrInvalid, what cannot be a job id.
func CheckID(s string) error {
	_, _, err := parseID(s)
	return err
}

// parseID reads a job id: an opaque one, or an older job's number.
func parseID(s string) (public string, legacy int64, err error) {
	rest, ok := strings.CutPrefix(s, "job_")
	if ok && len(rest) == ulid.EncodedSize {
		if _, err := ulid.ParseStrict(strings.ToUpper(rest)); err == nil {
			return s, 0, nil
		}
	}
	if n, err := strconv.ParseInt(rest, 10, 64); ok && err == nil && n > 0 && !strings.HasPrefix(rest, "+") {
		return "", n, nil
	}
	return "", 0, memory.Invalidf("job id %q: job ids look like job_01jv4n3s8m6d0c9x2qf7a5k1ew, as a capture answers", s)
}

// publicIDOf is the id stored in a job's payload ("" for an older job).
func publicIDOf(row *rivertype.JobRow) string {
	var args struct {
		PublicID string `json:"public_id"`
	}
	_ = json.Unmarshal(row.EncodedArgs, &args)
	return args.PublicID
}

// idOf is a job's id as mnemon reports it.
func idOf(row *rivertype.JobRow) string {
	if id := publicIDOf(row); id != "" {
		return id
	}
	return FormatID(row.ID)
}

// Get returns a job of namespace ns. A job of another namespace is
// memory.ErrNotFound, exactly like a job that does not exist.
func (q *Queue) Get(ctx context.Context, ns, id string) (*Job, error) {
	j, _, err := q.find(ctx, ns, id)
	return j, err
}

// find looks up job id of namespace ns ("" matches any namespace) and
// returns it with River's number for it.
func (q *Queue) find(ctx context.Context, ns, id string) (*Job, int64, error) {
	public, n, err := parseID(id)
	if err != nil {
		return nil, 0, err
	}
	var row *rivertype.JobRow
	if public != "" {
		// An index on the payload's public_id (see Migrate) makes this
		// a lookup, not a scan.
		res, err := q.client.JobList(ctx, river.NewJobListParams().
			Where(publicIDExpr(q.database)+" = @public_id", river.NamedArgs{"public_id": public}).First(1))
		if err != nil {
			return nil, 0, fmt.Errorf("jobs: get: %w", err)
		}
		if len(res.Jobs) > 0 {
			row = res.Jobs[0]
		}
	} else {
		row, err = q.client.JobGet(ctx, n)
		if err != nil && !errors.Is(err, river.ErrNotFound) {
			return nil, 0, fmt.Errorf("jobs: get: %w", err)
		}
		// A job with an id of its own answers to that id only: its
		// number must not find it, or the numbers could be walked.
		if row != nil && publicIDOf(row) != "" {
			row = nil
		}
	}
	if row == nil {
		return nil, 0, fmt.Errorf("job %s: %w", id, memory.ErrNotFound)
	}
	j := jobOf(row)
	if ns != "" && j.Namespace != ns {
		return nil, 0, fmt.Errorf("job %s: %w", id, memory.ErrNotFound)
	}
	return j, row.ID, nil
}

// Retry runs a failed job again, now: with one more attempt if it used up
// its attempts. Only a failed job can be retried (memory.ErrConflict
// otherwise). ns scopes the lookup as in Get; "" finds a job of any
// namespace (an operator's command).
func (q *Queue) Retry(ctx context.Context, ns, id string) (*Job, error) {
	if q.cfg.ReadOnly {
		return nil, errReadOnly()
	}
	j, n, err := q.find(ctx, ns, id)
	if err != nil {
		return nil, err
	}
	if j.State != StateFailed {
		return nil, memory.Conflictf(nil, "job %s is %s: only a failed job can be retried", id, j.State)
	}
	row, err := q.client.JobRetry(ctx, n)
	if err != nil {
		return nil, fmt.Errorf("jobs: retry: %w", err)
	}
	return jobOf(row), nil
}

// Wait polls a job until it has finished or ctx is done.
func (q *Queue) Wait(ctx context.Context, ns, id string) (*Job, error) {
	delay := 2 * time.Millisecond
	for {
		j, err := q.Get(ctx, ns, id)
		if err != nil || j.Finished() {
			return j, err
		}
		select {
		case <-ctx.Done():
			return j, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(delay*2, 100*time.Millisecond)
	}
}

// ListParams filters List. Zero fields match everything.
type ListParams struct {
	Namespace string
	States    []string // mnemon states
	Limit     int      // default 100
}

// List returns jobs, newest first.
func (q *Queue) List(ctx context.Context, p ListParams) ([]*Job, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = 100
	}
	lp := river.NewJobListParams().First(min(limit, 10000)).OrderBy(river.JobListOrderByID, river.SortOrderDesc)
	if len(p.States) > 0 {
		var rs []rivertype.JobState
		for _, s := range p.States {
			got, ok := riverStates[s]
			if !ok {
				return nil, memory.Invalidf("job state %q: use one of %s", s, strings.Join(States, ", "))
			}
			rs = append(rs, got...)
		}
		lp = lp.States(rs...)
	}
	var out []*Job
	for {
		res, err := q.client.JobList(ctx, lp)
		if err != nil {
			return nil, fmt.Errorf("jobs: list: %w", err)
		}
		for _, row := range res.Jobs {
			j := jobOf(row)
			if p.Namespace == "" || j.Namespace == p.Namespace {
				out = append(out, j)
				if len(out) == limit {
					return out, nil
				}
			}
		}
		if p.Namespace == "" || len(res.Jobs) == 0 || res.LastCursor == nil {
			return out, nil
		}
		lp = lp.After(res.LastCursor)
	}
}

// Counts returns how many jobs are in each state, for /metrics.
func (q *Queue) Counts(ctx context.Context) (map[string]int, error) {
	byState, err := q.exec.JobCountByAllStates(ctx, &riverdriver.JobCountByAllStatesParams{})
	if err != nil {
		return nil, fmt.Errorf("jobs: count: %w", err)
	}
	out := make(map[string]int, len(States))
	for _, s := range States {
		out[s] = 0
	}
	for rs, n := range byState {
		out[stateOf(rs)] += n
	}
	return out, nil
}

var riverStates = map[string][]rivertype.JobState{
	StatePending:   {rivertype.JobStateAvailable, rivertype.JobStateScheduled, rivertype.JobStateRetryable, rivertype.JobStatePending},
	StateRunning:   {rivertype.JobStateRunning},
	StateSucceeded: {rivertype.JobStateCompleted},
	StateFailed:    {rivertype.JobStateDiscarded, rivertype.JobStateCancelled},
}

func stateOf(s rivertype.JobState) string {
	for name, rs := range riverStates {
		for _, r := range rs {
			if r == s {
				return name
			}
		}
	}
	return StatePending
}

func jobOf(row *rivertype.JobRow) *Job {
	j := &Job{
		ID:          idOf(row),
		Kind:        row.Kind,
		State:       stateOf(row.State),
		Attempt:     row.Attempt,
		MaxAttempts: row.MaxAttempts,
		CreatedAt:   row.CreatedAt.UTC(),
		ScheduledAt: row.ScheduledAt.UTC(),
	}
	if row.FinalizedAt != nil {
		t := row.FinalizedAt.UTC()
		j.FinishedAt = &t
	}
	if n := len(row.Errors); n > 0 {
		// River records a cancelled job's error under its Go type name;
		// what people read is the error itself.
		j.Error = strings.TrimPrefix(row.Errors[n-1].Error, "JobCancelError: ")
	}
	var args struct {
		Namespace string `json:"namespace"` // extraction's and maintenance's
	}
	if err := json.Unmarshal(row.EncodedArgs, &args); err == nil {
		j.Namespace = args.Namespace
	}
	return j
}
