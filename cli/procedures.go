package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
)

func proceduresCmd() *command {
	// --promote is this command's alone: kept here rather than in the
	// shared options.
	var promote bool
	return &command{
		name: "procedures", summary: "list procedures learned from successful sessions (--promote distils new ones first)",
		help: `A procedure is the ordered steps (agent messages, tool calls) that at least ` + fmt.Sprint(engine.ProcedureMinSessions) + `
successful sessions of one task type had in common. A session says how its task ended with a
task_result event whose metadata names the task type and the outcome:
  {"kind":"task_result","content":"atlas deployed","session_id":"s7",
   "metadata":{"task_type":"deploy_atlas","outcome":"success"}}
outcome is success or failure. --promote distils procedures from new sessions (more sessions
with the same steps reinforce a procedure, new steps supersede it: one procedure per task type
and scope), counts each failing session whose recall packed a procedure against it (once), and
flags procedures no recall packed for 90 days as stale. Running it twice changes nothing the
second time. Procedures are recalled like any memory ("how do I deploy atlas?").
  mnemon capture sessions.jsonl
  mnemon procedures --promote
  mnemon procedures --json`,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.BoolVar(&promote, "promote", false, "distil procedures from new sessions, count failures and flag stale ones first")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 0 {
				return usagef("procedures takes no arguments; got %q", strings.Join(args, " "))
			}
			a.readOnly = !promote // listing only reads
			if err := a.open(ctx); err != nil {
				return err
			}
			var rep *engine.ProcedureReport
			if promote {
				var err error
				if rep, err = a.engine.PromoteProcedures(ctx, a.ns); err != nil {
					return err
				}
			}
			ps, err := a.engine.Procedures(ctx, a.ns)
			if err != nil {
				return err
			}
			if ps == nil {
				ps = []*engine.Procedure{}
			}
			if o.json {
				out := map[string]any{"procedures": ps}
				if rep != nil {
					out["promotion"] = rep
				}
				return writeJSON(a.env.Stdout, out)
			}
			w := a.env.Stdout
			if rep != nil {
				fmt.Fprintf(w, "promotion: %d promoted, %d reinforced, %d superseded, %d failing sessions counted, %d flagged stale",
					len(rep.Promoted), len(rep.Reinforced), len(rep.Superseded), len(rep.Failures), len(rep.Stale))
				if rep.Ignored > 0 {
					fmt.Fprintf(w, "; %s without task_type, outcome or session ignored", plural(rep.Ignored, "task result", "task results"))
				}
				fmt.Fprintln(w)
				for _, t := range rep.Waiting {
					fmt.Fprintf(w, "  waiting: %s has %d successful of %d needed (%s)\n", t.TaskType, t.Successes, engine.ProcedureMinSessions, t.Reason)
				}
				if rep.More {
					fmt.Fprintln(w, "  more work left: run it again")
				}
			}
			if len(ps) == 0 {
				fmt.Fprintf(w, "no procedures in namespace %s\n", a.ns)
				return nil
			}
			for _, p := range ps {
				task := p.TaskType
				if task == "" {
					task = "(remembered)"
				}
				state := "fresh"
				if p.Stale {
					state = "STALE since " + p.StaleSince.Format(time.DateOnly)
				}
				used := "never used"
				if p.LastUsedAt != nil {
					used = "last used " + p.LastUsedAt.Format(time.DateOnly)
				}
				fmt.Fprintf(w, "%s  %s v%d  %s, %s; %d successful sessions, %d failures, trust %.2f\n",
					task, p.MemoryID, p.Seq, state, used, p.Successes, p.FailureCount, p.Trust)
				tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
				for i, s := range p.Steps {
					fmt.Fprintf(tw, "  %d.\t%s\n", i+1, s)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				if len(p.EpisodeIDs) > 0 {
					fmt.Fprintf(w, "  from task results: %s\n", strings.Join(p.EpisodeIDs, " "))
				}
			}
			return nil
		},
	}
}
