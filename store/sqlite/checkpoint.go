package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"
)

// checkpointEvery is how often the background checkpointer copies the WAL
// into the database file.
const checkpointEvery = 250 * time.Millisecond

// The writer never checkpoints (wal_autocheckpoint is 0 on it, see dsn):
// SQLite's automatic checkpoint runs inside the commit that crosses 1,000
// WAL pages, so every few hundred writes one acknowledgement waited 20 ms
// or more while pages were copied and synced. A PASSIVE checkpoint on a
// connection of its own copies what no reader still needs, never blocks
// the writer, and lets the next write restart the WAL from the beginning.
//
// A PASSIVE checkpoint copies only what was committed when it began, and
// the WAL restarts only once a checkpoint has caught up with the writer:
// under back-to-back writes that never happens, and the log grew to five
// times the database in the scale benchmark. So when the log passes
// Options.WALLimit, a TRUNCATE checkpoint waits for the writer (through the
// busy timeout), copies the rest, and empties the file: one stall of the
// writes in flight per WALLimit of writes.
type checkpointer struct {
	db    *sql.DB
	wal   string // the WAL file's path
	limit int64
	stop  chan struct{}
	done  chan struct{}
}

func startCheckpointer(path string, opts Options) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn(path, opts, false))
	if err != nil {
		return nil, fmt.Errorf("sqlite: checkpointer: %w", err)
	}
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, wal: path + "-wal", limit: opts.WALLimit, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	// The WAL as it was when a checkpoint last copied all of it: while it
	// stays so, nothing was written and there is nothing to copy, so an
	// idle database costs a stat per tick, not a query.
	var done struct {
		size int64
		mod  time.Time
	}
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			fi, statErr := os.Stat(c.wal)
			if statErr == nil && fi.Size() == done.size && fi.ModTime().Equal(done.mod) {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			// Errors (a busy database, a closed file) are retried on the
			// next tick; a checkpoint that did not run loses nothing.
			mode := "PASSIVE"
			if statErr == nil && fi.Size() > c.limit {
				mode = "TRUNCATE"
			}
			var busy, frames, copied int64
			err := c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &frames, &copied)
			cancel()
			if err == nil && statErr == nil && busy == 0 && frames == copied {
				done.size, done.mod = fi.Size(), fi.ModTime()
			}
		}
	}
}

// close stops the loop and runs a last checkpoint.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = c.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
	return c.db.Close()
}
