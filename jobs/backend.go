package jobs

import (
	"context"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemon-dev/mnemon/memory"
)

// riverClient is what the queue uses of a river.Client, whatever the type
// of its driver's transactions (*sql.Tx on SQLite, pgx.Tx on PostgreSQL):
// everything but InsertTx, which takes that type, is the client's own.
type riverClient interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Stopped() <-chan struct{}
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobRetry(ctx context.Context, id int64) (*rivertype.JobRow, error)
	// insertStoreTx inserts a job in the driver transaction behind the
	// store transaction tx.
	insertStoreTx(ctx context.Context, tx memory.Executor, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// clientOf is a river.Client on transactions of type TTx, with the
// function that finds such a transaction in a store's.
type clientOf[TTx any] struct {
	*river.Client[TTx]
	txOf func(memory.Executor) (TTx, error)
}

func newClient[TTx any](driver riverdriver.Driver[TTx], txOf func(memory.Executor) (TTx, error), rc *river.Config) (riverClient, error) {
	c, err := river.NewClient(driver, rc)
	if err != nil {
		return nil, err
	}
	return clientOf[TTx]{c, txOf}, nil
}

func (c clientOf[TTx]) insertStoreTx(ctx context.Context, tx memory.Executor, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	t, err := c.txOf(tx)
	if err != nil {
		return nil, err
	}
	return c.InsertTx(ctx, t, args, opts)
}
