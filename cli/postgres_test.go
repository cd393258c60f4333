package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/internal/testutil"
	"github.com/mnemon-dev/mnemon/jobs"
)

// The PostgreSQL tests run against the server MNEMON_TEST_POSTGRES names
// (trust authentication, as on CI), each in a schema of its own dropped at
// its end; without a server they skip, saying so.
const defaultTestPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// testPassword is put in every URL the tests pass: the server ignores it
// (trust), and no output may show it.
const testPassword = "pw-never-shown-4711"

var (
	pgOnce sync.Once
	pgErr  error
)

func testPostgresURL() string {
	if u := os.Getenv("MNEMON_TEST_POSTGRES"); u != "" {
		return u
	}
	return defaultTestPostgres
}

// pgSchema creates an empty schema for the test and returns a URL, with a
// password, that selects it. It skips the test when no PostgreSQL answers.
func pgSchema(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	pgOnce.Do(func() {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		conn, err := pgx.Connect(cctx, testPostgresURL())
		if err != nil {
			pgErr = err
			return
		}
		pgErr = conn.Ping(cctx)
		_ = conn.Close(cctx)
	})
	if pgErr != nil {
		t.Skipf("no PostgreSQL at MNEMON_TEST_POSTGRES (default %s): %v", defaultTestPostgres, pgErr)
	}
	schema := fmt.Sprintf("cli_%s_%d", strings.ToLower(strings.NewReplacer("/", "_").Replace(t.Name())), time.Now().UnixNano()%1e9)
	conn, err := pgx.Connect(ctx, testPostgresURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), testPostgresURL())
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(testPostgresURL())
	if err != nil {
		t.Skipf("MNEMON_TEST_POSTGRES is not a URL; these tests need one: %v", err)
	}
	u.User = url.UserPassword(u.User.Username(), testPassword)
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("synchronous_commit", "off") // nothing here needs to survive a crash
	u.RawQuery = q.Encode()
	return u.String()
}

// noPassword fails the test if out shows the test password.
func noPassword(t *testing.T, what, out string) {
	t.Helper()
	if strings.Contains(out, testPassword) {
		t.Fatalf("%s shows the URL's password:\n%s", what, out)
	}
}

func TestRedactDB(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/var/lib/mnemon/mnemon.db":                             "/var/lib/mnemon/mnemon.db",
		"postgres-notes.db":                                     "postgres-notes.db",
		"postgres://u:secret@h:5432/db?sslmode=disable":         "postgres://u:xxxxx@h:5432/db?sslmode=disable",
		"postgresql://u@h/db":                                   "postgresql://u@h/db",
		"postgres://u@h/db?sslmode=disable&password=secret&x=1": "postgres://u@h/db?sslmode=disable&password=xxxxx&x=1",
		"POSTGRES://u:secret@h/db":                              "postgres://u:xxxxx@h/db",
		"postgres://u:sec%zzret@h/db":                           "postgres://(a URL that does not parse)",
	} {
		if got := redactDB(in); got != want {
			t.Errorf("redactDB(%q) = %q, want %q", in, got, want)
		}
	}
	if isPostgresURL("postgres-notes.db") || !isPostgresURL(" PostgreSQL://h/db") {
		t.Error("isPostgresURL: a path selected PostgreSQL, or a URL did not")
	}
}

func TestPostgresCLI(t *testing.T) {
	t.Parallel()
	db := pgSchema(t)

	// migrate: applies everything, reports the version; again, the same.
	out := mustRun(t, db, "migrate", "--json")
	noPassword(t, "migrate", out)
	var first migrateReport
	if err := json.Unmarshal([]byte(out), &first); err != nil || first.Backend != "postgres" || first.SchemaVersion < 1 {
		t.Fatalf("migrate --json: %v %s", err, out)
	}
	out = mustRun(t, db, "migrate")
	noPassword(t, "migrate", out)
	if want := fmt.Sprintf("(postgres): schema version %d, up to date", first.SchemaVersion); !strings.Contains(out, want) || !strings.Contains(out, ":xxxxx@") {
		t.Fatalf("migrate again: %q, want %q and the password redacted", out, want)
	}

	out = mustRun(t, db, "remember", "My favorite editor is Vim. I live in Lisbon.")
	if !strings.Contains(out, "ADD") {
		t.Fatalf("remember: %s", out)
	}
	out = mustRun(t, db, "recall", "which editor does the user prefer?", "-k", "1")
	if !strings.Contains(out, "Vim") {
		t.Fatalf("recall on PostgreSQL: %s", out)
	}
	// Another namespace sees nothing of it.
	if out := mustRun(t, db, "--namespace", "other", "recall", "which editor does the user prefer?"); strings.Contains(out, "Vim") {
		t.Fatalf("recall in another namespace: %s", out)
	}

	// doctor: the database line without the password; the file checks
	// said to be SQLite-only.
	out = mustRun(t, db, "doctor")
	noPassword(t, "doctor", out)
	for _, want := range []string{"ok  database    PostgreSQL postgres://", "SQLite-only", "ok  index"} {
		if !strings.Contains(out, want) {
			t.Fatalf("doctor: no %q in\n%s", want, out)
		}
	}
	// Export from PostgreSQL, import into SQLite: the same facts.
	out = mustRun(t, db, "export")
	if !strings.Contains(out, "Lisbon") {
		t.Fatalf("export: %s", out)
	}
	file := filepath.Join(t.TempDir(), "m.db")
	if code, _, errs := runCLI(t, file, out, "import"); code != 0 {
		t.Fatalf("import into SQLite: exit %d: %s", code, errs)
	}
	if got, want := mustRun(t, file, "facts"), mustRun(t, db, "facts"); got != want {
		t.Fatalf("facts after the move:\n%s\nwant:\n%s", got, want)
	}
	// And back, losslessly: the SQLite file exports what PostgreSQL did,
	// and a fresh schema importing that exports it once more.
	back := mustRun(t, file, "export")
	if withoutHeader(back) != withoutHeader(out) {
		t.Fatalf("export from SQLite after the move:\n%s\nwant the PostgreSQL export:\n%s", back, out)
	}
	db2 := pgSchema(t)
	if code, _, errs := runCLI(t, db2, back, "import"); code != 0 {
		t.Fatalf("import into PostgreSQL: exit %d: %s", code, errs)
	}
	if again := mustRun(t, db2, "export"); withoutHeader(again) != withoutHeader(out) {
		t.Fatalf("export after SQLite -> PostgreSQL:\n%s\nwant:\n%s", again, out)
	}

	// A database that cannot be reached: the error names it, redacted.
	u, _ := url.Parse(db)
	u.Host = "127.0.0.1:1"
	code, _, errs := runCLI(t, u.String(), "", "recall", "x")
	noPassword(t, "an open failure", errs)
	oneLine(t, code, errs, 1, "cannot open database postgres://postgres:xxxxx@127.0.0.1:1/")
}

// withoutHeader is an export without its header record, which says when
// it was written.
func withoutHeader(export string) string {
	_, rest, _ := strings.Cut(export, "\n")
	if !strings.HasPrefix(export, `{"record":"header"`) {
		return export
	}
	return rest
}

// TestPostgresSchemaTooNew: a database a newer mnemon migrated is refused,
// by migrate as by any command.
func TestPostgresSchemaTooNew(t *testing.T) {
	t.Parallel()
	db := pgSchema(t)
	mustRun(t, db, "migrate")
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'from_the_future', now())`); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, db, "", "migrate")
	noPassword(t, "migrate", errs)
	oneLine(t, code, errs, 1, "upgrade mnemon")
}

// TestPostgresServeAndWorker runs 'mnemon serve --workers 0' and 'mnemon
// worker' as two processes on one PostgreSQL: a capture over HTTP is
// extracted by the worker, in the other process, and then retrievable
// from the server.
func TestPostgresServeAndWorker(t *testing.T) {
	t.Parallel()
	db := pgSchema(t)
	mustRun(t, db, "migrate")
	s := startChild(t, filepath.Join(t.TempDir(), "addr"), "serve", "--db", db, "--addr", "127.0.0.1:0", "--workers", "0")
	w := startWorkerChild(t, "worker", "--db", db, "--workers", "2")

	code, body := call(t, "POST", s.url+"/v1/episodes", captureOf("s1", time.Now(), "Atlas uses pnpm for its builds."))
	var ack captureAck
	if err := json.Unmarshal(body, &ack); err != nil || code != http.StatusAccepted || ack.JobID == "" {
		t.Fatalf("capture: %d %s", code, body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		state, body := jobState(t, s.url, ack.JobID)
		if state == jobs.StateSucceeded {
			break
		}
		if state == jobs.StateFailed || time.Now().After(deadline) {
			t.Fatalf("job: %s; worker stderr:\n%s", body, w.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for {
		code, body := call(t, "POST", s.url+"/v1/memories/retrieve", `{"query": "which package manager does Atlas use?"}`)
		if code != http.StatusOK {
			t.Fatalf("retrieve: %d %s", code, body)
		}
		if strings.Contains(string(body), `"kind":"semantic"`) && strings.Contains(string(body), "pnpm") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never served the worker's extraction: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The job is listed from the database the two share.
	if out := mustRun(t, db, "jobs", "--state", "succeeded"); !strings.Contains(out, ack.JobID) {
		t.Fatalf("jobs --state succeeded: %s", out)
	}
	noPassword(t, "serve's log", s.stderr.String())
	noPassword(t, "the worker's log", w.stderr.String())
}

// startWorkerChild runs mnemon args (a worker, which listens nowhere) in a
// child process until the test ends, and returns its standard error.
func startWorkerChild(t *testing.T, args ...string) *child {
	t.Helper()
	argsJSON, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c := &child{stderr: &testutil.SyncBuffer{}, done: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MNEMON_") {
			c.cmd.Env = append(c.cmd.Env, kv)
		}
	}
	c.cmd.Env = append(c.cmd.Env, serveChildEnv+"="+string(argsJSON))
	c.cmd.Stderr = c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		<-c.done
	})
	return c
}

// TestPostgresDeadWorkersJobIsRescued: a job left running by a worker that
// died (as a kill -9 leaves it: state running, attempted long ago by a
// process that is gone) is rescued by River in another worker process and
// completes there.
func TestPostgresDeadWorkersJobIsRescued(t *testing.T) {
	t.Parallel()
	db := pgSchema(t)
	mustRun(t, db, "migrate")
	s := startChild(t, filepath.Join(t.TempDir(), "addr"), "serve", "--db", db, "--addr", "127.0.0.1:0", "--workers", "0")
	code, body := call(t, "POST", s.url+"/v1/episodes", captureOf("s1", time.Now(), "Atlas deploys with Nomad."))
	var ack captureAck
	if err := json.Unmarshal(body, &ack); err != nil || code != http.StatusAccepted || ack.JobID == "" {
		t.Fatalf("capture: %d %s", code, body)
	}
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tag, err := conn.Exec(context.Background(), `UPDATE river_job SET state = 'running', attempt = 1,
	    attempted_at = now() - interval '10 minutes', attempted_by = ARRAY['a-worker-killed-mid-job']
	    WHERE args->>'public_id' = $1`, ack.JobID)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("marking the job as a dead worker's: %v, %d rows", err, tag.RowsAffected())
	}
	if state, body := jobState(t, s.url, ack.JobID); state != jobs.StateRunning {
		t.Fatalf("job before the rescue: %s", body)
	}
	w := startWorkerChild(t, "worker", "--db", db, "--workers", "1")
	deadline := time.Now().Add(40 * time.Second)
	for {
		state, body := jobState(t, s.url, ack.JobID)
		if state == jobs.StateSucceeded {
			if !strings.Contains(string(body), `"attempt":2`) {
				t.Fatalf("rescued job: %s, want its second attempt", body)
			}
			break
		}
		if state == jobs.StateFailed || time.Now().After(deadline) {
			t.Fatalf("the dead worker's job was not rescued: %s; worker stderr:\n%s", body, w.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
