package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/bench"
	"github.com/mnemon-dev/mnemon/bench/locomo"
	"github.com/mnemon-dev/mnemon/client"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/provider/openai"
)

func locomoSuite() benchSuite {
	return benchSuite{
		name:    "locomo",
		summary: "LoCoMo conversations: does recall find the turns each question needs?",
		run:     runLocomo,
	}
}

const locomoUsage = `
Replays the conversations of the LoCoMo benchmark into a fresh mnemon
database (one namespace per conversation, each turn captured as an episode
"<speaker>: <text>" at its session's time plus i seconds, so extraction runs
as in production), then asks every question as a recall with the question
text alone and checks whether the returned items cite the turns the answer
rests on (the benchmark's evidence). A plain BM25 over the turns runs beside
it as the reference. The engine runs with its defaults (the turns it
ranks with confidence shown with 2 neighbouring turns either side), with none, and with 1
(recall's context option); neighbours cost tokens: see the tokens column.

Metrics, per category and for categories 1-4 together (the headline;
category 5, adversarial, is reported apart):
  recall_all@k   every evidence turn is cited by the top k items
  recall_any@k   at least one is
  frac@k         the fraction that is
  session@k      every evidence session is touched
plus the median tokens of the top 10 items and retrieval latency p50/p95.

With --via-api the run goes the way agent code drives mnemon: a server is
started in this process on 127.0.0.1, each LoCoMo session is captured over
HTTP with the Go client as one POST /v1/episodes carrying its own session id
(waiting for its extraction), and every question is asked over HTTP from a
later session of its own. A session is a conversation, not a wall, so the
figures match the in-process path within noise; latencies include HTTP.

The data is not shipped with mnemon. Get locomo10.json from
github.com/snap-research/LoCoMo (or a split of it in the same format) and
pass it with --data.

Examples:
  mnemon bench locomo --data ../shared/data/locomo/locomo-dev.json
  mnemon bench locomo --data locomo10.json --ablation --json > locomo.json
  mnemon bench locomo --data ../shared/data/locomo/locomo-dev.json --via-api`

type locomoFlags struct {
	data          string
	json          bool
	ablation      bool
	ks            string
	conversations int
	viaAPI        bool
	dump          string
}

func runLocomo(ctx context.Context, env Env, args []string) error {
	var f locomoFlags
	fs := benchFlags("locomo")
	fs.StringVar(&f.data, "data", "", "the LoCoMo JSON `FILE` (locomo10.json or a split of it); required")
	fs.BoolVar(&f.json, "json", false, "print JSON for scripts instead of markdown tables")
	fs.BoolVar(&f.ablation, "ablation", false, "also run the engine with each channel and each ranking term removed, one row each")
	fs.StringVar(&f.ks, "k", "1,5,10,25", "comma-separated cut-offs `K`; 10, the headline, is always included")
	fs.IntVar(&f.conversations, "conversations", 0, "use only the first `N` conversations (0: all)")
	fs.BoolVar(&f.viaAPI, "via-api", false, "capture and ask over HTTP with session ids, through a server started in-process")
	fs.StringVar(&f.dump, "dump", "", "also write one JSON line per arm and question (question, evidence, turns each item cites) to `FILE`, to compare runs")
	rest, err := parseBenchFlags(env, fs, "locomo", locomoUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("bench locomo takes no arguments (got %q); name the data with --data FILE", rest[0])
	}
	ks, err := parseKs(f.ks)
	if err != nil {
		return err
	}
	if f.data == "" {
		return usagef("bench locomo needs the data: --data FILE, the LoCoMo JSON (locomo10.json from github.com/snap-research/LoCoMo, or a split such as ../shared/data/locomo/locomo-dev.json)")
	}
	if f.viaAPI && f.ablation {
		return usagef("--ablation and --via-api do not go together: ablations switch engine internals the API does not expose")
	}
	if f.conversations < 0 {
		return usagef("--conversations %d: use 0 (all) or more", f.conversations)
	}
	samples, err := locomo.Load(f.data)
	if errors.Is(err, os.ErrNotExist) {
		return &failure{msg: fmt.Sprintf("bench locomo: no file %s; --data names the LoCoMo JSON (locomo10.json from github.com/snap-research/LoCoMo, or a split of it)", f.data), code: 1, err: err}
	}
	if err != nil {
		return fmt.Errorf("bench locomo: %w", err)
	}
	if f.conversations > 0 && f.conversations < len(samples) {
		samples = samples[:f.conversations]
	}
	var progress io.Writer
	if stderrIsTerminal(env.Stderr) {
		progress = env.Stderr
	}
	// Model providers configured in the environment (MNEMON_EMBEDDINGS_*,
	// MNEMON_CHAT_*, MNEMON_RERANK_*, MNEMON_MODELS_*) make the engine's
	// arms run the model path; without them nothing changes.
	models := (&app{env: env}).withModels
	opt := locomo.Options{Ks: ks, Budgets: locomo.DefaultBudgets(), Progress: progress}
	if f.dump != "" {
		df, err := os.Create(f.dump)
		if err != nil {
			return &failure{msg: fmt.Sprintf("bench locomo: --dump %s: %v", f.dump, err), code: 1, err: err}
		}
		defer df.Close()
		opt.Dump = df
	}
	run := func() (*locomo.Report, error) { return locomoRun(ctx, samples, opt, f.ablation, models) }
	if f.viaAPI {
		run = func() (*locomo.Report, error) { return locomoRunAPI(ctx, samples, opt) }
	}
	rep, err := run()
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	writeLocomoMarkdown(env.Stdout, rep, f.data)
	return nil
}

// parseKs reads --k.
func parseKs(s string) ([]int, error) {
	var ks []int
	for _, part := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || k < 1 || k > engine.MaxLimit {
			return nil, usagef("--k %q: use whole numbers from 1 to %d, comma-separated, as in --k 1,5,10,25", s, engine.MaxLimit)
		}
		if !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	if !slices.Contains(ks, 10) {
		ks = append(ks, 10)
	}
	slices.Sort(ks)
	return ks, nil
}

// locomoRun ingests the samples into a fresh database in a temporary
// directory and runs the arms on it: the engine, BM25, and with ablation
// the engine without each channel and without each ranking term (an
// engine per term over the same store: the ranking is an engine's).
func locomoRun(ctx context.Context, samples []locomo.Sample, opt locomo.Options, ablation bool,
	models func(engine.Config) (engine.Config, error)) (*locomo.Report, error) {
	dir, err := os.MkdirTemp("", "mnemon-bench-locomo-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// NORMAL: nothing here needs to survive a power cut, and ingest is
	// not what is measured.
	opened, err := openBenchDB(ctx, filepath.Join(dir, "locomo.db"))
	if err != nil {
		return nil, err
	}
	st := opened.store
	defer st.Close()
	cfg := engine.Config{Store: st}
	if models != nil {
		if cfg, err = models(cfg); err != nil {
			return nil, err
		}
	}
	eng, err := engine.New(cfg)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	name := "mnemon"
	if label := modelsLabel(cfg); label != "" {
		name = "mnemon, " + label
	}
	corpus, err := ingestSamples(samples, opt.Progress, "ingest", func(prog *bench.Progress) (*locomo.Corpus, error) {
		return locomo.Ingest(ctx, eng, samples, prog)
	})
	if err != nil {
		return nil, err
	}

	bm, err := locomo.NewBM25Arm()
	if err != nil {
		return nil, err
	}
	// "mnemon" is the default engine: the episodes it is confident of
	// (engine.ContextFirst, engine.ContextShare) with
	// engine.DefaultContext turns either side.
	// The other context arms show what fewer and more buy.
	arms := []locomo.Arm{
		locomo.NewEngineArm(name, eng, corpus, locomo.EngineOptions{}),
		locomo.NewEngineArm("mnemon, no context", eng, corpus, locomo.EngineOptions{Context: engine.NoContext}),
		locomo.NewEngineArm("mnemon, context 1", eng, corpus, locomo.EngineOptions{Context: 1}),
	}
	arms = append(arms, bm)
	mainArms := len(arms)
	if ablation {
		for _, c := range engine.Channels {
			arms = append(arms, locomo.NewEngineArm("mnemon -"+c+" channel", eng, corpus, locomo.EngineOptions{Disable: []string{c}}))
		}
		for _, term := range engine.RankingTerms() {
			r, err := engine.DefaultRanking().Without(term)
			if err != nil {
				return nil, err
			}
			e, err := engine.New(engine.Config{Store: st, Ranking: r})
			if err != nil {
				return nil, err
			}
			defer e.Close()
			arms = append(arms, locomo.NewEngineArm("mnemon -"+term+" term", e, corpus, locomo.EngineOptions{}))
		}
	}
	rep, err := locomo.Run(ctx, samples, arms, opt)
	if err != nil {
		return nil, fmt.Errorf("bench locomo: %w", err)
	}
	rep.MainArms = mainArms
	return rep, nil
}

// modelsLabel names the model features an engine config uses ("" for
// none), for the arm's name.
func modelsLabel(c engine.Config) string {
	var parts []string
	if emb, ok := c.Embedder.(*openai.Embedder); ok {
		parts = append(parts, "embeddings "+emb.Name())
	}
	if c.ModelExtractor != nil {
		parts = append(parts, "extraction "+c.ModelExtractor.Name())
	}
	if c.Reranker != nil {
		parts = append(parts, "rerank "+c.Reranker.Name())
	}
	if len(parts) == 0 {
		return ""
	}
	return "models: " + strings.Join(parts, ", ")
}

// writeLocomoMarkdown prints the report as tables for people.
func writeLocomoMarkdown(w io.Writer, rep *locomo.Report, data string) {
	fmt.Fprintf(w, "# LoCoMo retrieval: %s\n\n", filepath.Base(data))
	fmt.Fprintf(w, "%d conversations, %d turns, %d questions scored (%d skipped: no evidence turn in the conversation), %s.\n\n",
		rep.Conversations, rep.Turns, rep.Questions, rep.Skipped, time.Now().UTC().Format("2006-01-02"))
	if len(rep.Arms) == 0 {
		return
	}
	ks := rep.Arms[0].Headline.Ks
	i10 := rep.Arms[0].Headline.At(10)
	fmt.Fprintln(w, "## Categories 1-4 (headline)")
	fmt.Fprintln(w)
	hdr := "| arm |"
	sep := "| --- |"
	for _, k := range ks {
		hdr += fmt.Sprintf(" recall_all@%d |", k)
		sep += " ---: |"
	}
	hdr += " recall_any@10 | frac@10 | session@10 | multi-hop recall_all@10 | tokens top 10 (median) | p50 ms | p95 ms |"
	sep += " ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	fmt.Fprintln(w, hdr)
	fmt.Fprintln(w, sep)
	base := rep.Arms[0]
	for _, a := range rep.Arms {
		row := "| " + a.Name + " |"
		for i := range ks {
			row += " " + f3(a.Headline.RecallAll[i])
			if a.Name != base.Name && ks[i] == 10 {
				row += fmt.Sprintf(" (%+.3f)", a.Headline.RecallAll[i]-base.Headline.RecallAll[i])
			}
			row += " |"
		}
		mh := multiHop(a, i10)
		row += fmt.Sprintf(" %s | %s | %s | %s | %.0f | %.2f | %.2f |", f3(a.Headline.RecallAny[i10]), f3(a.Headline.Frac[i10]),
			f3(a.Headline.Session[i10]), f3(mh), a.TokensTop10, a.LatencyP50Ms, a.LatencyP95Ms)
		fmt.Fprintln(w, row)
	}
	writeWithinTable(w, rep)
	// Per category for the main arms; ablation rows only in the
	// headline table, where their deltas are.
	for _, a := range rep.Arms[:min(rep.MainArms, len(rep.Arms))] {
		fmt.Fprintf(w, "\n## %s by category\n\n", a.Name)
		hdr, sep := "| category | questions |", "| --- | ---: |"
		for _, k := range ks {
			hdr += fmt.Sprintf(" recall_all@%d |", k)
			sep += " ---: |"
		}
		fmt.Fprintln(w, hdr+" recall_any@10 | frac@10 | session@10 |")
		fmt.Fprintln(w, sep+" ---: | ---: | ---: |")
		rows := append([]locomo.CategoryScores{{Name: "1-4 (headline)", Scores: a.Headline}}, a.Categories...)
		for _, c := range rows {
			name := c.Name
			if c.Category != 0 {
				name = fmt.Sprintf("%d %s", c.Category, c.Name)
			}
			if c.Category == locomo.Adversarial {
				name += " (apart)"
			}
			row := fmt.Sprintf("| %s | %d |", name, c.N)
			for i := range ks {
				row += " " + f3(c.RecallAll[i]) + " |"
			}
			fmt.Fprintf(w, "%s %s | %s | %s |\n", row, f3(c.RecallAny[i10]), f3(c.Frac[i10]), f3(c.Session[i10]))
		}
	}
}

// writeWithinTable writes recall_all within each token budget for the
// main arms: the arms compared at equal cost, whatever their items' size.
func writeWithinTable(w io.Writer, rep *locomo.Report) {
	main := rep.Arms[:min(rep.MainArms, len(rep.Arms))]
	if len(main) == 0 || len(main[0].Within) == 0 {
		return
	}
	fmt.Fprintln(w, "\n## Recall within a token budget (categories 1-4)")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "mnemon packs its answer within each budget, as for a caller that names one (token_budget); bm25's %d best turns "+
		"are taken in rank order while they fit. A question counts when what is taken cites all its evidence.\n\n", locomo.BudgetLimit)
	hdr, sep := "| arm |", "| --- |"
	for _, b := range main[0].Within {
		hdr += fmt.Sprintf(" recall_all within %d |", b.Tokens)
		sep += " ---: |"
	}
	for _, b := range main[0].Within {
		hdr += fmt.Sprintf(" multi-hop within %d |", b.Tokens)
		sep += " ---: |"
	}
	fmt.Fprintln(w, hdr)
	fmt.Fprintln(w, sep)
	for _, a := range main {
		row := "| " + a.Name + " |"
		for _, b := range a.Within {
			row += " " + f3(b.RecallAll) + " |"
		}
		for _, b := range a.Within {
			row += " " + f3(b.MultiHop) + " |"
		}
		fmt.Fprintln(w, row)
	}
}

func multiHop(a locomo.ArmResult, i int) float64 {
	for _, c := range a.Categories {
		if c.Category == locomo.MultiHop {
			return c.RecallAll[i]
		}
	}
	return 0
}

func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// locomoRunAPI is locomoRun over HTTP: a server on 127.0.0.1 in this
// process (store, engine, job queue and API as `mnemon serve` builds them),
// the conversations captured session by session with their session ids,
// the questions asked from a later session.
func locomoRunAPI(ctx context.Context, samples []locomo.Sample, opt locomo.Options) (*locomo.Report, error) {
	dir, err := os.MkdirTemp("", "mnemon-bench-locomo-api-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	srv, err := startBenchServer(ctx, filepath.Join(dir, "locomo.db"))
	if err != nil {
		return nil, fmt.Errorf("bench locomo: %w", err)
	}
	defer srv.stop()

	clients := locomo.NewAPIClients(srv.url)
	corpus, err := ingestSamples(samples, opt.Progress, "ingest over the API", func(prog *bench.Progress) (*locomo.Corpus, error) {
		return locomo.IngestAPI(ctx, clients, samples, prog)
	})
	if err != nil {
		return nil, err
	}
	bm, err := locomo.NewBM25Arm()
	if err != nil {
		return nil, err
	}
	arms := []locomo.Arm{
		locomo.NewAPIArm("mnemon via API", clients, corpus, nil),
		locomo.NewAPIArm("mnemon via API, no context", clients, corpus, client.Turns(0)),
		locomo.NewAPIArm("mnemon via API, context 1", clients, corpus, client.Turns(1)),
		bm,
	}
	rep, err := locomo.Run(ctx, samples, arms, opt)
	if err != nil {
		return nil, fmt.Errorf("bench locomo: %w", err)
	}
	return rep, nil
}

// ingestSamples runs ingest with a progress bar over every turn.
func ingestSamples(samples []locomo.Sample, progress io.Writer, label string, ingest func(*bench.Progress) (*locomo.Corpus, error)) (*locomo.Corpus, error) {
	turns := 0
	for i := range samples {
		turns += samples[i].Turns()
	}
	prog := bench.NewProgress(progress, label, turns)
	corpus, err := ingest(prog)
	if err != nil {
		return nil, fmt.Errorf("bench locomo: %w", err)
	}
	prog.Done()
	return corpus, nil
}

// benchServer is an API server in this process, for benchmarks that go
// through HTTP.
type benchServer struct {
	url  string
	stop func()
}

// startBenchServer opens a store at path and serves it on a free loopback
// port in open mode, with no rate limit and `serve`'s other defaults.
func startBenchServer(ctx context.Context, path string) (*benchServer, error) {
	// NORMAL: nothing here needs to survive a power cut.
	opened, err := openBenchDB(ctx, path)
	if err != nil {
		return nil, err
	}
	st := opened.store
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := engine.New(engine.Config{Store: st, Logger: log})
	if err != nil {
		st.Close()
		return nil, err
	}
	q, err := jobs.Open(ctx, opened.withDriver(jobs.Config{Engine: eng, Logger: log, Workers: 2}))
	if err != nil {
		eng.Close()
		st.Close()
		return nil, err
	}
	api, err := httpapi.New(httpapi.Config{
		Engine: eng, Keys: st, Queue: q, Logger: log, Version: Version, Ready: q.Ready,
		Limits: httpapi.Limits{RatePerSecond: 1e9, RateBurst: 1e9},
	})
	if err != nil {
		eng.Close()
		st.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		eng.Close()
		st.Close()
		return nil, err
	}
	if err := q.Start(ctx); err != nil {
		ln.Close()
		eng.Close()
		st.Close()
		return nil, err
	}
	hs := &http.Server{Handler: api, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		_ = q.Stop(sctx)
		eng.Close()
		st.Close()
	}
	return &benchServer{url: "http://" + ln.Addr().String(), stop: stop}, nil
}
