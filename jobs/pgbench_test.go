package jobs_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/pgtest"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/postgres"
)

// BenchmarkPostgresExtraction measures extraction throughput on
// PostgreSQL with 1 and 2 workers in one worker process (River on its pgx
// driver, as 'mnemon worker --workers N' runs it): 8 namespaces, 400
// captured user turns (100 captures of 4 turns, one session each) stored
// first by an API-only queue, then extracted by the workers; it reports
// extracted turns per second from the workers' start until every backlog
// is empty and no job is left.
//
//	go test ./jobs -run '^$' -bench PostgresExtraction -benchtime 1x -count 3
func BenchmarkPostgresExtraction(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var turns int
			var elapsed time.Duration
			for b.Loop() {
				b.StopTimer()
				n, d := extractOnce(b, workers)
				turns += n
				elapsed += d
				b.StartTimer()
			}
			b.ReportMetric(float64(turns)/elapsed.Seconds(), "turns/s")
		})
	}
}

func extractOnce(b *testing.B, workers int) (int, time.Duration) {
	ctx := context.Background()
	tr := &sqlTimes{by: map[string]*sqlTime{}}
	st, err := postgres.Open(ctx, pgtest.DurableSchema(b), postgres.Options{Tracer: tr})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	eng, err := engine.New(engine.Config{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	cfg := jobs.Config{PgxDriver: riverpgxv5.New(st.Pool()), PgxTxOf: postgres.Tx, Engine: eng, PollInterval: 10 * time.Millisecond}
	api, err := jobs.Open(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	things := []string{"editor", "color", "city", "drink", "language", "band", "sport", "season"}
	values := []string{"Vim", "teal", "Porto", "green tea", "Go", "Low", "rowing", "autumn", "Helix", "ochre", "Faro", "cocoa", "Rust", "Yo La Tengo", "judo", "spring"}
	const namespaces, captures, perCapture = 8, 100, 4
	at := time.Now().Add(-time.Hour)
	turns := 0
	for c := range captures {
		var evs []engine.Event
		for k := range perCapture {
			i := c*perCapture + k
			text := fmt.Sprintf("My favorite %s is %s, and I told you so on day %d.", things[i%len(things)], values[(i/3)%len(values)], i)
			evs = append(evs, engine.Event{Kind: memory.EpisodeUserMessage, Content: text, OccurredAt: at.Add(time.Duration(i) * time.Second)})
		}
		if _, err := eng.CaptureDeferred(ctx, engine.CaptureParams{Namespace: fmt.Sprintf("team%d", c%namespaces),
			Scope: memory.Scope{SessionID: fmt.Sprintf("s%d", c)}, Events: evs}, api.Enqueue); err != nil {
			b.Fatal(err)
		}
		turns += len(evs)
	}
	cfg.Workers = workers
	q, err := jobs.Open(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	tr.reset()
	start := time.Now()
	if err := q.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = q.Stop(stopCtx)
	}()
	for {
		backlogs, err := eng.ExtractionBacklogs(ctx)
		if err != nil {
			b.Fatal(err)
		}
		counts, err := q.Counts(ctx)
		if err != nil {
			b.Fatal(err)
		}
		left := counts[jobs.StatePending] + counts[jobs.StateRunning]
		for _, n := range backlogs {
			left += n
		}
		if counts[jobs.StateFailed] > 0 {
			b.Fatalf("%d jobs failed", counts[jobs.StateFailed])
		}
		if left == 0 {
			break
		}
		if time.Since(start) > 5*time.Minute {
			b.Fatalf("extraction not done after 5 minutes: %v, backlogs %v", counts, backlogs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	d := time.Since(start)
	if os.Getenv("MNEMON_BENCH_SQL") == "1" {
		tr.print(b.Name())
	}
	return turns, d
}

// sqlTimes counts the statements a pool sends and the wall time until
// each answers, by their first words (MNEMON_BENCH_SQL=1 prints them).
type sqlTimes struct {
	mu sync.Mutex
	by map[string]*sqlTime
}

type sqlTime struct {
	n   int
	dur time.Duration
}

type sqlStart struct {
	sql   string
	began time.Time
}

type sqlKey struct{}

func (s *sqlTimes) reset() {
	s.mu.Lock()
	s.by = map[string]*sqlTime{}
	s.mu.Unlock()
}

func (s *sqlTimes) start(ctx context.Context, sql string) context.Context {
	sql = strings.Join(strings.Fields(sql), " ")
	return context.WithValue(ctx, sqlKey{}, sqlStart{sql[:min(len(sql), 80)], time.Now()})
}

func (s *sqlTimes) end(ctx context.Context) {
	st, ok := ctx.Value(sqlKey{}).(sqlStart)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.by[st.sql]
	if t == nil {
		t = &sqlTime{}
		s.by[st.sql] = t
	}
	t.n++
	t.dur += time.Since(st.began)
}

func (s *sqlTimes) print(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	type kv struct {
		sql string
		t   sqlTime
	}
	var all []kv
	for k, v := range s.by {
		all = append(all, kv{k, *v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].t.dur > all[j].t.dur })
	fmt.Fprintf(os.Stderr, "%s: statements by time waiting for them\n", name)
	for _, x := range all[:min(len(all), 20)] {
		fmt.Fprintf(os.Stderr, "%7d  %9.1f ms  %s\n", x.t.n, float64(x.t.dur.Microseconds())/1000, x.sql)
	}
}

func (s *sqlTimes) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	return s.start(ctx, d.SQL)
}
func (s *sqlTimes) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	s.end(ctx)
}
func (s *sqlTimes) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	sql := "batch"
	if d.Batch != nil && len(d.Batch.QueuedQueries) > 0 {
		sql = "batch: " + d.Batch.QueuedQueries[0].SQL
	}
	return s.start(ctx, sql)
}
func (s *sqlTimes) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (s *sqlTimes) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchEndData) {
	s.end(ctx)
}
