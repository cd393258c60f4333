//go:build unix

package sqlite

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A commit the writer returned from is in the file even if the process
// dies right after, before any checkpoint: the buffer is written before
// the commit returns. The child process commits 50 transactions through
// the WAL VFS and kills itself.
func TestWALVFSCommitSurvivesKill(t *testing.T) {
	if path := os.Getenv("MNEMON_WALVFS_CHILD"); path != "" {
		db := openWAL(t, path, "NORMAL", true)
		for i := range 50 {
			insertAll(t, db, "k"+strconv.Itoa(i), 100+i*300)
		}
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "w.db")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWALVFSCommitSurvivesKill$")
	cmd.Env = append(os.Environ(), "MNEMON_WALVFS_CHILD="+path)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("the child left no log to recover: %v", err)
	}
	want := map[string]int{}
	for i := range 50 {
		want["k"+strconv.Itoa(i)] = 100 + i*300
	}
	db := openWAL(t, path, "NORMAL", false)
	check(t, db, want)
}
