package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/jobs/jobstest"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

const (
	crashChildEnv = "MNEMON_CRASH_CHILD_DB"
	crashBatch    = 40
)

// TestMain lets this test binary double as the child processes that the
// crash tests kill: a batch writer, or mnemon itself (serveChildEnv).
func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	if args := os.Getenv(serveChildEnv); args != "" {
		os.Exit(mnemonChild(args))
	}
	// Many of this package's tests mostly wait (for a server to start,
	// River's rescuer, a timeout): four at a time keep the two cores of a
	// small machine busy where the default (-parallel GOMAXPROCS) leaves
	// them idle. An explicit -parallel wins.
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit && runtime.GOMAXPROCS(0) < 4 {
		_ = flag.Set("test.parallel", "4")
	}
	// The bench suites' fresh files start from the migrated template
	// (River's tables included, for the LoCoMo API arm's server), as the
	// other tests' do; migrating them is not what those tests check.
	benchDBFile = jobstest.WriteFile
	// Servers and workers started in-process must leave nothing running.
	goleak.VerifyTestMain(m)
}

// crashChild writes batches forever, printing "ack N" after batch N commits.
func crashChild(path string) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	e, err := engine.New(engine.Config{Store: st})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	for b := 0; ; b++ {
		ps := make([]engine.RememberParams, crashBatch)
		for i := range ps {
			ps[i] = engine.RememberParams{
				Text:    fmt.Sprintf("Batch %d item %d: the code word is w%d-%d.", b, i, b, i),
				Subject: fmt.Sprintf("batch%d", b), Key: fmt.Sprintf("item:%d", i), Value: strconv.Itoa(i),
			}
		}
		if _, err := e.RememberBatch(ctx, ps); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Fprintf(out, "ack %d\n", b)
		out.Flush()
	}
}

// TestSIGKILLMidBatch kills a writer in the middle of its batches and checks
// that the file opens cleanly and holds every acknowledged batch whole, and
// no batch in part.
func TestSIGKILLMidBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a subprocess")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := -1
	sc := bufio.NewScanner(stdout)
	deadline := time.Now().Add(60 * time.Second)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "error") {
			t.Fatalf("child: %s", line)
		}
		n, err := strconv.Atoi(strings.TrimPrefix(line, "ack "))
		if err != nil {
			t.Fatalf("child said %q", line)
		}
		acked = n
		if acked >= 5 || time.Now().After(deadline) {
			break
		}
	}
	// Kill it while it is writing the next batch.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Acks printed after our last read still count as acknowledged.
	for sc.Scan() {
		if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "ack ")); err == nil {
			acked = n
		}
	}
	_ = cmd.Wait()
	if acked < 0 {
		t.Fatal("child acknowledged nothing")
	}

	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer st.Close()
	counts := map[string]int{}
	err = st.ScanVersions(ctx, memory.ScanParams{Namespace: memory.DefaultNamespace}, func(v *memory.Version) error {
		if v.Kind == memory.KindSemantic {
			counts[v.Subject]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for b := 0; b <= acked; b++ {
		if n := counts[fmt.Sprintf("batch%d", b)]; n != crashBatch {
			t.Fatalf("acknowledged batch %d has %d of %d facts", b, n, crashBatch)
		}
	}
	for subject, n := range counts {
		if n != crashBatch {
			t.Fatalf("%s holds %d facts: a batch was half-written", subject, n)
		}
	}
	t.Logf("killed after %d acknowledged batches; %d batches on disk", acked+1, len(counts))
}
