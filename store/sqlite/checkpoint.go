package sqlite

import (
	"os"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
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
//
// The checkpointer's connection is a plain one (fastConn, opened at its
// first checkpoint) calling sqlite3_wal_checkpoint_v2: PRAGMA wal_checkpoint
// and the pragmas every pool connection sets make SQLite parse the whole
// schema first, which a connection that only checkpoints never needs.
type checkpointer struct {
	path  string
	busy  time.Duration // busy timeout of the connection
	conn  *fastConn     // used by run, then by close; nil until needed
	wal   string        // the WAL file's path
	limit int64
	stop  chan struct{}
	done  chan struct{}
}

func startCheckpointer(path string, opts Options) (*checkpointer, error) {
	c := &checkpointer{path: path, busy: opts.BusyTimeout, wal: path + "-wal", limit: opts.WALLimit, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c, nil
}

// checkpoint runs one checkpoint in mode (sqlite3.SQLITE_CHECKPOINT_*) and
// reports whether it copied the whole log: false when another connection
// held it back (SQLITE_BUSY) or readers still need part of it.
func (c *checkpointer) checkpoint(mode int32) (bool, error) {
	if c.conn == nil {
		conn, err := openRawConn(c.path, c.busy)
		if err != nil {
			return false, err
		}
		// A new connection finds the file's WAL at its first read
		// transaction; until then a checkpoint has no log to copy. This
		// reads the header only, not the schema.
		if err := conn.exec("PRAGMA user_version"); err != nil {
			conn.close()
			return false, err
		}
		c.conn = conn
	}
	return c.conn.walCheckpoint(mode)
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
			// Errors (a busy database, a closed file) are retried on the
			// next tick; a checkpoint that did not run loses nothing. A
			// TRUNCATE waits for the writer up to the busy timeout.
			mode := int32(sqlite3.SQLITE_CHECKPOINT_PASSIVE)
			if statErr == nil && fi.Size() > c.limit {
				mode = sqlite3.SQLITE_CHECKPOINT_TRUNCATE
			}
			whole, err := c.checkpoint(mode)
			if err == nil && statErr == nil && whole {
				done.size, done.mod = fi.Size(), fi.ModTime()
			}
		}
	}
}

// close stops the loop and runs a last checkpoint.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	_, _ = c.checkpoint(sqlite3.SQLITE_CHECKPOINT_PASSIVE)
	if c.conn != nil {
		c.conn.close()
		c.conn = nil
	}
	return nil
}
