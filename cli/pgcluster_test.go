package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/jobs"
)

// TestPostgresClusterSurvivesKills runs the deployment of issue 18 on one
// PostgreSQL database: two `serve` replicas that run no jobs and a
// `worker`. Captures in four namespaces go to both replicas in turn; half
// way through, the worker and one replica are killed with SIGKILL, and a
// new worker and a new replica take their place. Then every acknowledged
// capture's job succeeds (a job cut off by the kill is rescued by the new
// worker), every capture's statement is retrievable from both live
// replicas in its own namespace and from no other, and no statement was
// extracted twice.
func TestPostgresClusterSurvivesKills(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a worker and a replica under load and waits for River to rescue their jobs (about 20 s)")
	}
	t.Parallel()
	db := pgSchema(t)
	mustRun(t, db, "migrate")
	dir := t.TempDir()
	// Jobs cut off by the kill are taken for dead 6 s after they started.
	workerCfg := filepath.Join(dir, "worker.json")
	cfg := fmt.Sprintf(`{"db": %q, "workers": 2, "log_level": "warn", "job_timeout": "5s", "job_rescue_after": "6s"}`, db)
	if err := os.WriteFile(workerCfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	replica := func(name string) *child {
		return startChild(t, filepath.Join(dir, name), "serve", "--db", db, "--addr", "127.0.0.1:0", "--workers", "0")
	}
	kill := func(c *child) {
		if err := c.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-c.done
	}
	a, b := replica("a"), replica("b")
	w := startWorkerChild(t, "worker", "--config", workerCfg)

	type acked struct {
		ns, project, tool, job string
	}
	tools := []string{"Nomad", "Kamal", "Helm", "Pulumi", "Ansible", "Terraform", "Capistrano", "Dokku"}
	const namespaces, perNamespace = 4, 8
	var acks []acked
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	capture := func(i int, to *child) {
		ns := fmt.Sprintf("team-%d", i%namespaces)
		project := fmt.Sprintf("Orchid%d", i)
		tool := tools[(i/namespaces)%len(tools)]
		body := captureOf(fmt.Sprintf("s%d", i), base.Add(time.Duration(i)*time.Minute), "Project "+project+" deploys with "+tool+" these days.")
		code, resp := call(t, "POST", to.url+"/v1/episodes", body, "X-Mnemon-Namespace", ns)
		var ack captureAck
		if err := json.Unmarshal(resp, &ack); err != nil || code != http.StatusAccepted || ack.JobID == "" {
			t.Fatalf("capture %d on %s: %d %s", i, to.url, code, resp)
		}
		acks = append(acks, acked{ns: ns, project: project, tool: tool, job: ack.JobID})
	}
	const total = namespaces * perNamespace
	for i := range total / 2 {
		capture(i, []*child{a, b}[i%2])
	}
	kill(w)
	kill(b)
	w = startWorkerChild(t, "worker", "--config", workerCfg)
	b = replica("b2")
	for i := total / 2; i < total; i++ {
		capture(i, []*child{a, b}[i%2])
	}

	deadline := time.Now().Add(90 * time.Second)
	for _, c := range acks {
		for {
			code, body := call(t, "GET", a.url+"/v1/jobs/"+c.job, nil, "X-Mnemon-Namespace", c.ns)
			var job struct {
				State string `json:"state"`
			}
			if err := json.Unmarshal(body, &job); err != nil || code != http.StatusOK {
				t.Fatalf("GET /v1/jobs/%s: %d %s", c.job, code, body)
			}
			state := job.State
			if state == jobs.StateSucceeded {
				break
			}
			if state == jobs.StateFailed || time.Now().After(deadline) {
				t.Fatalf("%s's job: %s; worker stderr:\n%s", c.project, body, w.stderr.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	retrieve := func(on *child, ns, project string) string {
		q := fmt.Sprintf(`{"query": "what does %s deploy with?", "limit": 3}`, project)
		code, body := call(t, "POST", on.url+"/v1/memories/retrieve", q, "X-Mnemon-Namespace", ns)
		if code != http.StatusOK {
			t.Fatalf("retrieve on %s: %d %s", on.url, code, body)
		}
		return string(body)
	}
	for _, c := range acks {
		for _, on := range []*child{a, b} {
			for {
				body := retrieve(on, c.ns, c.project)
				if strings.Contains(body, "Project "+c.project+" deploys with "+c.tool) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s/%s not served by %s: %s", c.ns, c.project, on.url, body)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		other := fmt.Sprintf("team-%d", (int(c.ns[len(c.ns)-1]-'0')+1)%namespaces)
		if body := retrieve(a, other, c.project); strings.Contains(body, "Project "+c.project+" deploys") {
			t.Fatalf("namespace %s serves %s's statement about %s: %s", other, c.ns, c.project, body)
		}
	}

	// Extraction ran once per capture: no statement has two versions, and
	// every namespace holds its captures' facts.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var dups int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT namespace, content FROM versions
		WHERE kind = 'semantic' GROUP BY namespace, content HAVING count(*) > 1) d`).Scan(&dups); err != nil {
		t.Fatal(err)
	}
	if dups != 0 {
		t.Fatalf("%d statements extracted more than once", dups)
	}
	rows, err := conn.Query(ctx, `SELECT namespace, count(*) FROM versions WHERE kind = 'episodic' GROUP BY namespace ORDER BY namespace`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var ns string
		var n int
		err := r.Scan(&ns, &n)
		return fmt.Sprintf("%s:%d", ns, n), err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "team-0:8 team-1:8 team-2:8 team-3:8"; strings.Join(got, " ") != want {
		t.Fatalf("episodes per namespace %v, want %s (one per acknowledged capture)", got, want)
	}
	noPassword(t, "the worker's log", w.stderr.String())
}
