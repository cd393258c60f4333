package sqlite

import (
	"bufio"
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeCalls is the process's write system calls so far (Linux).
func writeCalls(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/io")
	if err != nil {
		t.Skip("no /proc/self/io:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "syscw: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no syscw in /proc/self/io")
	return 0
}

// openWAL opens path as the store's writer does (dsn), with or without the
// WAL VFS, and makes twelve indexed tables.
func openWAL(t *testing.T, path, sync string, ours bool) *sql.DB {
	t.Helper()
	d := dsn(path, Options{Synchronous: sync, BusyTimeout: 5 * time.Second}, false)
	if !ours {
		d = strings.Replace(d, "vfs="+walVFSName, "vfs=unix", 1)
	} else if !strings.Contains(d, "vfs="+walVFSName) {
		t.Fatalf("the writer's DSN does not name the WAL VFS: %s", d)
	}
	db, err := sql.Open("sqlite", d)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for i := range 12 {
		if _, err := db.Exec(fmt.Sprintf(`CREATE TABLE IF NOT EXISTS t%d (k TEXT PRIMARY KEY, v BLOB) STRICT`, i)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// insertAll writes one row of n bytes into each of the twelve tables in one
// transaction: at least twelve pages, so at least twelve WAL frames.
func insertAll(t *testing.T, db *sql.DB, key string, n int) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		if _, err := tx.Exec(fmt.Sprintf(`INSERT INTO t%d VALUES (?, ?)`, i), key, bytes.Repeat([]byte{byte(i)}, n)); err != nil {
			t.Fatal(err)
		}
	}
	// The first table's row again, after the others: with a small page
	// cache its page was spilled to the log already, so the commit
	// rewrites that frame in place and SQLite then rewrites the checksums
	// of every frame after it, the commit frame's last.
	if _, err := tx.Exec(`UPDATE t0 SET v = ? WHERE k = ?`, bytes.Repeat([]byte{0}, n), key); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// A commit's WAL frames reach the file in one write call with the WAL VFS;
// the default VFS makes two a frame. Not parallel: it counts the process's
// write calls.
func TestWALCommitIsOneWrite(t *testing.T) {
	for _, sync := range []string{"NORMAL", "FULL"} {
		calls := map[bool]int64{}
		for _, ours := range []bool{false, true} {
			db := openWAL(t, filepath.Join(t.TempDir(), "w.db"), sync, ours)
			insertAll(t, db, "warm", 10)
			best := int64(1 << 30)
			for r := range 3 { // the least of three: another goroutine may write meanwhile
				before := writeCalls(t)
				insertAll(t, db, "k"+strconv.Itoa(r), 100)
				best = min(best, writeCalls(t)-before)
			}
			calls[ours] = best
		}
		if calls[false] < 24 {
			t.Fatalf("%s: the default VFS made %d write calls for a commit of twelve tables; expected two a frame", sync, calls[false])
		}
		if calls[true] > 1 {
			t.Errorf("%s: the WAL VFS made %d write calls for a commit of twelve tables (the default VFS: %d), want 1", sync, calls[true], calls[false])
		}
	}
}

// What the writer commits through the buffer is what a reader and a
// reopened database see: commits larger than one write call, a transaction
// rolled back between two commits, and a checkpoint and a restarted log.
func TestWALVFSRoundTrip(t *testing.T) {
	t.Parallel()
	for _, sync := range []string{"NORMAL", "FULL"} {
		t.Run(sync, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "w.db")
			db := openWAL(t, path, sync, true)
			reader, err := sql.Open("sqlite", dsn(path, Options{Synchronous: sync, BusyTimeout: 5 * time.Second}, true))
			if err != nil {
				t.Fatal(err)
			}
			defer reader.Close()
			want := map[string]int{}
			// Commits of 1 to about 250 frames, so that some commit's
			// last page does not fit in the write buffer with the rest.
			var sizes []int
			for n := 10; n < 90000; n = n*5/4 + 97 {
				sizes = append(sizes, n)
			}
			for i, n := range sizes {
				key := "k" + strconv.Itoa(i)
				insertAll(t, db, key, n) // 12 × 70 KB: a commit of many write calls
				want[key] = n
				// Rolled back after its frames may have spilled.
				tx, err := db.Begin()
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Exec(`INSERT INTO t0 VALUES ('gone', zeroblob(500000))`); err != nil {
					t.Fatal(err)
				}
				if err := tx.Rollback(); err != nil {
					t.Fatal(err)
				}
				if i%7 == 2 {
					if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
						t.Fatal(err)
					}
				}
				check(t, reader, want)
			}
			db.Close()
			reader.Close()
			db = openWAL(t, path, sync, false) // the default VFS reads what ours wrote
			check(t, db, want)
			var ok string
			if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
				t.Fatalf("integrity_check: %q, %v", ok, err)
			}
		})
	}
}

func check(t *testing.T, db *sql.DB, want map[string]int) {
	t.Helper()
	for i := range 12 {
		checkTable(t, db, i, want)
	}
}

// checkTable checks that table ti holds want's keys (besides "warm" and the
// big rows of the kill test), each with its length of byte(i).
func checkTable(t *testing.T, db *sql.DB, i int, want map[string]int) {
	t.Helper()
	rows, err := db.Query(fmt.Sprintf(`SELECT k, length(v), v FROM t%d WHERE k NOT LIKE 'big-%%'`, i))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		var v []byte
		if err := rows.Scan(&k, &n, &v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(v, bytes.Repeat([]byte{byte(i)}, n)) {
			t.Fatalf("t%d %s: wrong bytes", i, k)
		}
		got[k] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	delete(got, "warm")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("t%d: %v, want %v", i, got, want)
	}
}

// Commits of every length from 4 to about 75 frames, each read back by
// another connection as soon as it returns: whichever frame of a commit
// falls where the write buffer is full, the commit is whole in the file
// when a reader can see it (a frame a reader finds in the wal-index but not
// in the file is a short read).
func TestWALVFSCommitsOfEveryLength(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "w.db")
	db := openWAL(t, path, "NORMAL", true)
	reader, err := sql.Open("sqlite", dsn(path, Options{Synchronous: "NORMAL", BusyTimeout: 5 * time.Second}, true))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for k := 1; k <= 72; k++ {
		want := bytes.Repeat([]byte{byte(k)}, k*4000) // about k overflow pages
		key := "k" + strconv.Itoa(k)
		if _, err := db.Exec(`INSERT INTO t0 VALUES (?, ?)`, key, want); err != nil {
			t.Fatal(err)
		}
		var got []byte
		if err := reader.QueryRow(`SELECT v FROM t0 WHERE k = ?`, key).Scan(&got); err != nil {
			t.Fatalf("a commit of about %d pages read back: %v", k+3, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("a commit of about %d pages read back: %d bytes, not the ones written", k+3, len(got))
		}
	}
}
