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

func graphCmd() *command {
	var hops int
	return &command{
		name: "graph", args: "ENTITY", summary: "show an entity's neighbourhood in the knowledge graph: its claims, 1 or 2 hops out",
		readOnly: true,
		help: `The knowledge graph holds one claim (subject -relation-> object) per accepted fact: "Bob works
at Acme." is bob -works at-> acme. Raw episodes make no claims. ENTITY is a subject (user, bob,
atlas, sister) or a value (acme, pnpm, berlin), in any case. --hops 2 adds the claims of the
entities its claims name. Only current claims are shown; --history adds superseded and expired
ones, --as-of the claims true at a past time. Without scope flags the whole namespace is shown;
with them (--user, --agent, --project, --session) only what a recall with that scope could see:
namespace-wide memories and the named scope's. An entity nothing names prints an empty graph.
  mnemon graph user
  mnemon graph pnpm --hops 2
  mnemon graph berlin --history
  mnemon graph user --as-of 2025-01-01 --json`,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.IntVar(&hops, "hops", 1, "how far to go: 1 (the entity's claims) or 2 (also its neighbours')")
			fs.IntVar(&o.limit, "k", engine.DefaultGraphLimit, fmt.Sprintf("claims to show at most, 1 to %d (0: the default)", engine.MaxGraphLimit))
			fs.StringVar(&o.asOf, "as-of", "", "show the claims true at `TIME` (RFC 3339 or date)")
			fs.BoolVar(&o.history, "history", false, "also show superseded and expired claims")
			scopeFlags(fs, o)
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) == 0 {
				return usagef("graph needs an ENTITY, such as user or a project name")
			}
			entity := strings.Join(args, " ")
			if hops != 1 && hops != 2 {
				return usagef("--hops %d: use 1 or 2", hops)
			}
			if o.limit < 0 || o.limit > engine.MaxGraphLimit {
				return usagef("-k %d: use 1 to %d, or 0 for the default (%d)", o.limit, engine.MaxGraphLimit, engine.DefaultGraphLimit)
			}
			asOf, err := parseTime("as-of", o.asOf)
			if err != nil {
				return err
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			res, err := a.engine.Neighborhood(ctx, engine.GraphParams{Namespace: a.ns, Entity: entity, Hops: hops,
				AsOf: asOf, IncludeHistory: o.history, Limit: o.limit, Scope: o.scope()})
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(a.env.Stdout, res)
			}
			if len(res.Claims) == 0 {
				fmt.Fprintf(a.env.Stdout, "no claims about %s in namespace %s (list subjects with 'mnemon facts')\n", res.Entity, a.ns)
				return nil
			}
			tw := tabwriter.NewWriter(a.env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "HOP\tSUBJECT\tRELATION\tOBJECT\tSTATUS\tVALID\tMEMORY")
			for _, c := range res.Claims {
				valid := "since " + c.ValidFrom.Format(time.DateOnly)
				if c.ValidTo != nil {
					valid = c.ValidFrom.Format(time.DateOnly) + " to " + c.ValidTo.Format(time.DateOnly)
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Hop, c.Subject, c.Relation, clip(c.Object, 40), c.Status, valid, c.MemoryID)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			names := make([]string, 0, len(res.Entities))
			for _, en := range res.Entities {
				if en.Hop > 0 {
					names = append(names, en.Name)
				}
			}
			fmt.Fprintf(a.env.Stdout, "%d claims, %d entities within %d hop(s) of %s", len(res.Claims), len(names), res.Hops, res.Entity)
			if res.Truncated {
				fmt.Fprintf(a.env.Stdout, " (more in reach: raise -k)")
			}
			fmt.Fprintln(a.env.Stdout)
			return nil
		},
	}
}
