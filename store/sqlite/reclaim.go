package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Free pages. SQLite keeps the pages a delete or a dropped table frees on
// its free list and reuses them, but never gives them back to the file
// system by itself (auto_vacuum is off: it would add a pointer-map page to
// many commits). Migrations 0022 and 0024 rebuild the largest tables
// (copy, drop, rename), so an upgraded store kept both copies' pages: a
// 10k-note store written at schema 21 (20.3 MB) was a 32.7 MB file after
// upgrading, 16.5 MB of it free. A VACUUM rewrites the file without them.
//
// It costs a copy of the whole database (written through the WAL, so the
// disk needs room for one more copy for a moment) and holds the write lock
// while it runs, so it runs only where a large share of the file is free:
// after an upgrade that rebuilt tables, and when `mnemon migrate` asks.
const (
	// reclaimMinPages: below this many free pages (4 MiB at the default
	// page size) the file is left as it is.
	reclaimMinPages = 1024
	// reclaimShare: and below one free page in reclaimShare.
	reclaimShare = 4
)

// FileSpace is a database file's page accounting.
type FileSpace struct {
	PageSize  int64 `json:"page_size"`
	Pages     int64 `json:"pages"`      // in the file, free ones included
	FreePages int64 `json:"free_pages"` // on the free list
}

// Bytes is the file's size (without its WAL).
func (f FileSpace) Bytes() int64 { return f.Pages * f.PageSize }

// worthReclaiming says whether a VACUUM would give back enough to pay.
func (f FileSpace) worthReclaiming() bool {
	return f.FreePages >= reclaimMinPages && f.FreePages*reclaimShare >= f.Pages
}

func fileSpace(ctx context.Context, db *sql.DB) (FileSpace, error) {
	var f FileSpace
	for _, q := range []struct {
		pragma string
		into   *int64
	}{{"page_size", &f.PageSize}, {"page_count", &f.Pages}, {"freelist_count", &f.FreePages}} {
		if err := db.QueryRowContext(ctx, "PRAGMA "+q.pragma).Scan(q.into); err != nil {
			return f, fmt.Errorf("%s: %w", q.pragma, mapErr(err))
		}
	}
	return f, nil
}

// reclaimFree VACUUMs the database of db (a pool of one connection, with no
// transaction open) when worthReclaiming, then empties the WAL, which holds
// the rewritten file until a checkpoint copies it back. It returns the
// space before and after.
func reclaimFree(ctx context.Context, db *sql.DB) (before, after FileSpace, err error) {
	if before, err = fileSpace(ctx, db); err != nil {
		return before, before, err
	}
	if !before.worthReclaiming() {
		return before, before, nil
	}
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		return before, before, fmt.Errorf("vacuum: %w", mapErr(err))
	}
	// TRUNCATE waits (through the busy timeout) for readers of the old
	// pages; if one holds on, the next checkpoint finishes the job.
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return before, before, fmt.Errorf("checkpoint: %w", mapErr(err))
	}
	after, err = fileSpace(ctx, db)
	return before, after, err
}

// ReclaimFreePages gives the file's free pages back to the file system
// (VACUUM) when they are at least a quarter of it and at least 4 MiB;
// otherwise it changes nothing. It reports the space before and after. The
// store stays open and usable; writes wait while it runs.
func (s *Store) ReclaimFreePages(ctx context.Context) (before, after FileSpace, err error) {
	if s.opts.ReadOnly {
		return before, after, errReadOnly(nil)
	}
	before, after, err = reclaimFree(ctx, s.writer)
	if err != nil {
		return before, after, fmt.Errorf("sqlite: reclaim free pages in %s: %w", s.path, err)
	}
	return before, after, nil
}

// Compaction on close. Besides free pages, a file holds slack inside its
// pages: a keyed B-tree (an index, or a WITHOUT ROWID table) fills its
// leaves to 80-90 % when rows arrive out of key order, since SQLite's
// append shortcut is for rowid tables only, and a row that grows splits
// its page. On the peers workload's 10,000 notes that was 0.78 MB of a
// 15.9 MB file (issue 22; docs/benchmarks/peers.md). A VACUUM packs every
// tree again; a long-running server pays it once, when it stops, where
// no request waits for the write lock.
const (
	// compactMinShare: compact only when the estimated gain is at least
	// one byte in compactMinShare of the file ...
	compactMinShare = 50
	// compactMinBytes: ... and at least this much.
	compactMinBytes = 64 << 10
	// compactTimeout bounds the whole step; a VACUUM cut short rolls
	// back and leaves the file as it was.
	compactTimeout = 30 * time.Second
)

// qCompactGain estimates what a VACUUM gives back: per B-tree with more
// than one leaf page, the leaves' unused bytes beyond one average cell a
// page (a packed leaf still has room for less than one more cell: a tree
// of 3.5 KB rows keeps ~0.5 KB free in each 4 KB page however packed),
// plus the free pages. It reads every page once (~30 ms for 16 MB).
const qCompactGain = `SELECT coalesce(sum(max(0, unused - pages * cell)), 0) FROM (
	SELECT sum(unused) AS unused, count(*) AS pages, 1.0 * sum(payload) / max(1, sum(ncell)) AS cell
	FROM dbstat WHERE pagetype = 'leaf' GROUP BY name HAVING count(*) > 1)`

// compactGain is the estimated gain of a VACUUM, in bytes, free pages
// included.
func compactGain(ctx context.Context, db *sql.DB) (FileSpace, int64, error) {
	f, err := fileSpace(ctx, db)
	if err != nil {
		return f, 0, err
	}
	var slack float64
	if err := db.QueryRowContext(ctx, qCompactGain).Scan(&slack); err != nil {
		return f, 0, fmt.Errorf("dbstat: %w", mapErr(err))
	}
	return f, int64(slack) + f.FreePages*f.PageSize, nil
}

// worthCompacting says whether a file of f's size with gain bytes to give
// back is compacted when the limit is limit bytes.
func worthCompacting(f FileSpace, gain, limit int64) bool {
	return limit > 0 && f.Bytes() <= limit && gain >= compactMinBytes && gain*compactMinShare >= f.Bytes()
}

// compactOnClose VACUUMs the file at Close when Options.CompactOnClose
// allows it, this process wrote to it, and worthCompacting. It runs on the
// writer's one connection after every other user of it has stopped.
func (s *Store) compactOnClose() error {
	if s.opts.ReadOnly || s.opts.CompactOnClose == 0 || !s.wrote.Load() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), compactTimeout)
	defer cancel()
	f, gain, err := compactGain(ctx, s.writer)
	if err != nil {
		return fmt.Errorf("compact %s: %w", s.path, err)
	}
	if !worthCompacting(f, gain, s.opts.CompactOnClose) {
		return nil
	}
	if _, err := s.writer.ExecContext(ctx, "VACUUM"); err != nil {
		return fmt.Errorf("compact %s: vacuum: %w", s.path, mapErr(err))
	}
	if _, err := s.writer.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("compact %s: checkpoint: %w", s.path, mapErr(err))
	}
	return nil
}
