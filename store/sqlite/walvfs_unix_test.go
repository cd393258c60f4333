//go:build unix

package sqlite

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A commit the writer returned from is in the file even if the process
// dies right after, before any checkpoint: the buffer is written before
// the commit returns. The child process commits through the WAL VFS and
// kills itself: 30 small transactions, then 5 that spill pages to the log
// before they commit (a page cache of 10 pages) and change a spilled page
// again, so that SQLite rewrites a frame in place and then every checksum
// after it, the commit frame's last, after the commit's page.
func TestWALVFSCommitSurvivesKill(t *testing.T) {
	if path := os.Getenv("MNEMON_WALVFS_CHILD"); path != "" {
		db := openWAL(t, path, "NORMAL", true)
		for i := range 30 {
			insertAll(t, db, "k"+strconv.Itoa(i), 100+i*300)
		}
		for _, q := range []string{`PRAGMA cache_size = 10`, `PRAGMA cache_spill = 10`} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		before := walRewrites.Load()
		for i := range 5 {
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for j := range 30 {
				if _, err := tx.Exec(`INSERT INTO t1 VALUES (?, ?)`, fmt.Sprintf("big-%d-%d", i, j), bytes.Repeat([]byte{1}, 20000)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := tx.Exec(`UPDATE t1 SET v = ? WHERE k = ?`, bytes.Repeat([]byte{2}, 20000), fmt.Sprintf("big-%d-0", i)); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Printf("rewrites %d\n", walRewrites.Load()-before)
		_ = os.Stdout.Sync()
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "w.db")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWALVFSCommitSurvivesKill$")
	cmd.Env = append(os.Environ(), "MNEMON_WALVFS_CHILD="+path)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var rewrites int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "rewrites %d", &rewrites); err != nil || rewrites == 0 {
		t.Fatalf("the child's spilling transactions rewrote no frame (%q): the test does not reach that path", out)
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("the child left no log to recover: %v", err)
	}
	db := openWAL(t, path, "NORMAL", false) // the default VFS recovers the log
	want := map[string]int{}
	for i := range 30 {
		want["k"+strconv.Itoa(i)] = 100 + i*300
	}
	for i := range 12 {
		if i == 1 {
			continue // t1 holds the big rows too
		}
		checkTable(t, db, i, want)
	}
	var n, changed int
	if err := db.QueryRow(`SELECT count(*), coalesce(sum(k LIKE 'big-%-0' AND v = ?), 0) FROM t1 WHERE k LIKE 'big-%'`, bytes.Repeat([]byte{2}, 20000)).Scan(&n, &changed); err != nil {
		t.Fatal(err)
	}
	if n != 150 || changed != 5 {
		t.Fatalf("after the kill: %d big rows (want 150), %d of them changed (want 5)", n, changed)
	}
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q, %v", ok, err)
	}
}
