package scale

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// The targets of issue 4, in the units the report measures.
const (
	targetP95At100k    = 10.0 // ms
	targetP95At1M      = 50.0 // ms
	targetIngest       = 2000.0
	targetStorageDrift = 0.10 // relative growth from 200 to 1,000 sessions
)

// ScoreTargets sets r.Targets from r's measurements: Run does, and so must
// whoever edits a report (such as one of medians over several runs).
func (r *Report) ScoreTargets() { r.Targets = targets(r) }

func targets(rep *Report) []Target {
	var out []Target
	p95 := func(size int, limit float64) Target {
		t := Target{Goal: fmt.Sprintf("retrieve p95 ≤ %.0f ms at %s memories in one namespace", limit, human(size)), Status: "not measured", Measured: "not run (see --sizes)"}
		for _, p := range rep.Sizes {
			if p.Memories == size {
				t.Measured = fmt.Sprintf("p95 %.2f ms", p.Retrieve.P95)
				t.Status = metOrMissed(p.Retrieve.P95 <= limit)
			}
		}
		return t
	}
	out = append(out, p95(100_000, targetP95At100k), p95(1_000_000, targetP95At1M))

	// Ingest is judged on statements (facts) per second, the stricter
	// count: each statement also adds its episode, so memory items per
	// second are twice that.
	ing := Target{Goal: "ingest ≥ 2,000 memories/s batched (judged on facts/s)", Status: "not measured", Measured: "not run (see --sizes)"}
	if len(rep.Sizes) > 0 {
		lo, hi := rep.Sizes[0].StatementsPerSecond, rep.Sizes[0].StatementsPerSecond
		for _, p := range rep.Sizes {
			lo, hi = min(lo, p.StatementsPerSecond), max(hi, p.StatementsPerSecond)
		}
		ing.Measured = fmt.Sprintf("%.0f to %.0f facts/s (%.0f to %.0f memory items/s) across sizes", lo, hi, 2*lo, 2*hi)
		ing.Status = metOrMissed(lo >= targetIngest)
	}
	out = append(out, ing)

	st := Target{Goal: "storage flat within 10 % from 200 to 1,000 sessions with consolidation on", Status: "not measured", Measured: "not run (see --sessions; needs 200 and 1000)"}
	for _, a := range rep.Sessions {
		if a.Name != "with consolidation" {
			continue
		}
		if !a.Available {
			st.Status, st.Measured = "not available", a.Note
			break
		}
		var at200, at1000 int64
		for _, p := range a.Points {
			switch p.Sessions {
			case 200:
				at200 = p.HeldBytes()
			case 1000:
				at1000 = p.HeldBytes()
			}
		}
		if at200 > 0 && at1000 > 0 {
			growth := float64(at1000-at200) / float64(at200)
			what := "database + WAL"
			for _, p := range a.Points {
				switch {
				case p.DataBytes > 0 && p.TraceBytes > 0:
					what = "data held less retrieval traces"
				case p.DataBytes > 0:
					what = "data held"
				}
			}
			st.Measured = fmt.Sprintf("%+.1f %% (%s %s to %s)", 100*growth, what, mib(at200), mib(at1000))
			st.Status = metOrMissed(growth <= targetStorageDrift)
		}
	}
	return append(out, st)
}

func metOrMissed(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// Markdown writes the report as tables for people.
func (r *Report) Markdown(w io.Writer) {
	if r.Runs > 1 {
		fmt.Fprintf(w, "Every number is the median over %d runs.\n\n", r.Runs)
	}
	if len(r.Sizes) > 0 {
		fmt.Fprintf(w, "## Memories in one namespace\n\n")
		fmt.Fprintf(w, "Keyed statements via RememberBatch (%d per call); each adds a fact and its episode. Ingest rates are per segment (previous size to this one). %d timed retrievals per size.\n\n", r.Batch, r.Queries)
		fmt.Fprintln(w, "| memories | indexed | ingest facts/s | ingest memories/s | retrieve p50 | p95 | p99 | db | WAL | RSS now | RSS peak | Go heap live |")
		fmt.Fprintln(w, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
		for _, p := range r.Sizes {
			fmt.Fprintf(w, "| %s | %d | %.0f | %.0f | %.2f ms | %.2f ms | %.2f ms | %s | %s | %s | %s | %s |\n",
				human(p.Memories), p.Indexed, p.StatementsPerSecond, p.MemoriesPerSecond,
				p.Retrieve.P50, p.Retrieve.P95, p.Retrieve.P99,
				mib(p.DBBytes), mib(p.WALBytes), mib(p.RSSBytes), mib(p.RSSPeakBytes), mib(p.HeapLiveBytes))
		}
		fmt.Fprintln(w)
	}
	if len(r.Sessions) > 0 {
		fmt.Fprintf(w, "## Sessions of one user\n\n")
		fmt.Fprintf(w, "Seeded conversations of %d turns each, captured through the capture path with extraction, one namespace. %d timed retrievals per point.\n\n", r.Turns, r.Queries)
		for _, a := range r.Sessions {
			if !a.Available {
				fmt.Fprintf(w, "**%s**: %s.\n\n", a.Name, a.Note)
				continue
			}
			fmt.Fprintf(w, "**%s**\n\n", a.Name)
			fmt.Fprintln(w, "| sessions | turns | episodes | memories | capture turns/s | retrieve p50 | p95 | p99 | data held | of it traces | db | WAL | RSS now |")
			fmt.Fprintln(w, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
			for _, p := range a.Points {
				fmt.Fprintf(w, "| %d | %d | %d | %d | %.0f | %.2f ms | %.2f ms | %.2f ms | %s | %s | %s | %s | %s |\n",
					p.Sessions, p.Turns, p.Episodes, p.Memories, p.TurnsPerSecond,
					p.Retrieve.P50, p.Retrieve.P95, p.Retrieve.P99, dataMiB(p.DataBytes), dataMiB(p.TraceBytes), mib(p.DBBytes), mib(p.WALBytes), mib(p.RSSBytes))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "## Targets\n\n| goal | measured | status |\n| --- | --- | --- |\n")
	for _, t := range r.Targets {
		fmt.Fprintf(w, "| %s | %s | %s |\n", t.Goal, t.Measured, strings.ToUpper(t.Status[:1])+t.Status[1:])
	}
	fmt.Fprintf(w, "\nRSS: %s.\n", r.RSSSource)
}

// Plots returns the report's curves, one plot per file name; a curve with
// no points is left out.
func (r *Report) Plots() map[string]Plot {
	out := map[string]Plot{}
	if len(r.Sizes) > 0 {
		lat := Plot{Title: "Retrieve latency vs memories in one namespace", XLabel: "memories (log scale)", YLabel: "latency (ms)", LogX: true}
		sto := Plot{Title: "Storage and memory vs memories in one namespace", XLabel: "memories (log scale)", YLabel: "MiB", LogX: true}
		var p50, p95, p99, db, rss Series
		p50.Name, p95.Name, p99.Name, db.Name, rss.Name = "p50", "p95", "p99", "database + WAL", "RSS"
		for _, p := range r.Sizes {
			x := float64(p.Memories)
			p50.add(x, p.Retrieve.P50)
			p95.add(x, p.Retrieve.P95)
			p99.add(x, p.Retrieve.P99)
			db.add(x, float64(p.StorageBytes())/(1<<20))
			rss.add(x, float64(p.RSSBytes)/(1<<20))
		}
		lat.Series = []Series{p50, p95, p99}
		sto.Series = []Series{db, rss}
		out["scale-latency-size.svg"] = lat
		out["scale-storage-size.svg"] = sto
	}
	lat := Plot{Title: "Retrieve latency vs sessions of one user", XLabel: "sessions (log scale)", YLabel: "latency (ms)", LogX: true}
	sto := Plot{Title: "Storage vs sessions of one user", XLabel: "sessions (log scale)", YLabel: "MiB", LogX: true}
	for _, a := range r.Sessions {
		if !a.Available || len(a.Points) == 0 {
			// Say so on the plot rather than leave the arm out silently.
			note := a.Note
			if a.Available {
				note = "no points"
			}
			lat.Notes = append(lat.Notes, a.Name+":", note)
			sto.Notes = append(sto.Notes, a.Name+":", note)
			continue
		}
		p50, p95 := Series{Name: "p50, " + a.Name}, Series{Name: "p95, " + a.Name}
		all, db, held := Series{Name: "db + WAL, " + a.Name}, Series{Name: "db, " + a.Name}, Series{Name: "data held, " + a.Name}
		if slices.ContainsFunc(a.Points, func(p SessionPoint) bool { return p.TraceBytes > 0 }) {
			held.Name = "data held less traces, " + a.Name // what the target judges
		}
		for _, p := range a.Points {
			x := float64(p.Sessions)
			p50.add(x, p.Retrieve.P50)
			p95.add(x, p.Retrieve.P95)
			all.add(x, float64(p.StorageBytes())/(1<<20))
			db.add(x, float64(p.DBBytes)/(1<<20))
			if p.DataBytes > 0 {
				held.add(x, float64(p.HeldBytes())/(1<<20))
			}
		}
		lat.Series = append(lat.Series, p50, p95)
		sto.Series = append(sto.Series, all, db)
		if len(held.X) > 0 {
			sto.Series = append(sto.Series, held)
		}
	}
	if len(lat.Series) > 0 {
		out["scale-latency-sessions.svg"] = lat
		out["scale-storage-sessions.svg"] = sto
	}
	return out
}

// dataMiB spells DataBytes, "–" when it was not measured.
func dataMiB(n int64) string {
	if n <= 0 {
		return "–"
	}
	return mib(n)
}
