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
// A TRUNCATE at WALLimit is a long stall (200–400 ms at 256 MB on the
// CI machine, several times per 10,000 remembers), and until it comes the
// log only grows: every commit writes past the file's end, which costs the
// kernel more than writing over pages it already holds (a 95 KB write to a
// growing file about 27 µs of CPU, over cached pages about 8 µs), and
// leaves all of it to be written back to the disk. So once the log holds
// restartFrames frames, right after a PASSIVE checkpoint copied what was
// committed when it began, a RESTART checkpoint copies the few commits
// made meanwhile and lets the next write start the log over at its
// beginning, without truncating the file: the log's file stays at about
// restartFrames pages and is written over in place. A RESTART holds the
// writers back while it copies those commits and syncs the database file,
// and while readers still use the log; it waits for them at most
// restartWait, else it gives up and is tried again after 1, 2, 4 … 16
// ticks (a TRUNCATE at WALLimit remains the bound). The data's durability is SQLite's either
// way: a checkpoint syncs the database file before the log can start over.
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
	// restartFrames: the log's length, in frames, past which it is
	// started over (0: never; see above).
	restartFrames int32
	stop          chan struct{}
	done          chan struct{}
}

// walRestartFrames is 64 MB of 4 KB pages: at ~23 pages a remember, one
// RESTART per ~700 remembers.
const walRestartFrames = 16384

// restartWait bounds how long a RESTART waits for the writer and for
// readers (a write transaction takes about a millisecond).
const restartWait = 25 * time.Millisecond

func startCheckpointer(path string, opts Options) (*checkpointer, error) {
	c := &checkpointer{path: path, busy: opts.BusyTimeout, wal: path + "-wal", limit: opts.WALLimit,
		restartFrames: walRestartFrames, stop: make(chan struct{}), done: make(chan struct{})}
	if opts.walRestartFrames != 0 {
		c.restartFrames = opts.walRestartFrames
	}
	go c.run()
	return c, nil
}

// checkpoint runs one checkpoint in mode (sqlite3.SQLITE_CHECKPOINT_*) and
// reports whether it copied the whole log: false when another connection
// held it back (SQLITE_BUSY) or readers still need part of it.
func (c *checkpointer) checkpoint(mode int32) (bool, error) {
	_, whole, err := c.checkpointFrames(mode)
	return whole, err
}

// checkpointFrames is checkpoint that also returns the frames in the log.
func (c *checkpointer) checkpointFrames(mode int32) (int32, bool, error) {
	if c.conn == nil {
		conn, err := openRawConn(c.path, c.busy)
		if err != nil {
			return -1, false, err
		}
		// A new connection finds the file's WAL at its first read
		// transaction; until then a checkpoint has no log to copy. This
		// reads the header only, not the schema.
		if err := conn.exec("PRAGMA user_version"); err != nil {
			conn.close()
			return -1, false, err
		}
		c.conn = conn
	}
	return c.conn.walCheckpointFrames(mode)
}

// restart runs a RESTART checkpoint that waits at most restartWait.
func (c *checkpointer) restart() (bool, error) {
	sqlite3.Xsqlite3_busy_timeout(c.conn.tls, c.conn.db, int32(restartWait.Milliseconds()))
	defer sqlite3.Xsqlite3_busy_timeout(c.conn.tls, c.conn.db, int32(c.busy.Milliseconds()))
	return c.conn.walCheckpoint(sqlite3.SQLITE_CHECKPOINT_RESTART)
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
	// A RESTART that gave up (readers kept using the log, or the writer
	// never paused) held the writers back for up to restartWait; under
	// such a load the next attempts wait 1, 2, 4 … up to 16 ticks.
	var restartSkip, restartBackoff int
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
			frames, whole, err := c.checkpointFrames(mode)
			if err == nil && mode == sqlite3.SQLITE_CHECKPOINT_PASSIVE && c.restartFrames > 0 && frames > c.restartFrames {
				if restartSkip > 0 {
					restartSkip--
				} else if whole, err = c.restart(); err == nil && whole {
					restartBackoff = 0
				} else {
					restartBackoff = min(max(2*restartBackoff, 1), 16)
					restartSkip = restartBackoff
				}
			}
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
