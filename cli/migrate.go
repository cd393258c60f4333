package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemon-dev/mnemon/jobs"
)

// migrateReport is what 'mnemon migrate --json' prints.
type migrateReport struct {
	Database      string `json:"database"` // without a URL's password
	Backend       string `json:"backend"`  // sqlite or postgres
	SchemaVersion int    `json:"schema_version"`
}

func migrateCmd() *command {
	return &command{
		name: "migrate", summary: "bring the database's schema (and the job queue's tables) up to date; report its version",
		creates: true,
		help: `Applies the schema migrations this mnemon has and the database lacks, then River's
(the job queue's), and prints the schema version the database is at. Running it
again changes nothing. Every command that writes migrates a SQLite file too, and
'mnemon serve' and 'mnemon worker' migrate at start; on PostgreSQL, run it once
before starting several processes, or let the first one do it (migrations take
a lock, so processes starting together migrate once).

A database a newer mnemon wrote is refused and left untouched: upgrade mnemon.

Examples:
  mnemon migrate --db /var/lib/mnemon/mnemon.db
  MNEMON_DB='postgres://mnemon@db.internal:5432/mnemon' mnemon migrate --json`,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 0 {
				return usagef("migrate takes no arguments; got %q", strings.Join(args, " "))
			}
			if err := a.openStore(ctx); err != nil {
				return err
			}
			// A queue without workers only migrates River's tables.
			if _, err := jobs.Open(ctx, a.opened.withDriver(jobs.Config{})); err != nil {
				return err
			}
			v, err := a.opened.schemaVersion(ctx)
			if err != nil {
				return err
			}
			rep := migrateReport{Database: redactDB(a.dbPath), Backend: "sqlite", SchemaVersion: v}
			if a.opened.pg != nil {
				rep.Backend = "postgres"
			}
			if o.json {
				return writeJSON(a.env.Stdout, rep)
			}
			fmt.Fprintf(a.env.Stdout, "%s (%s): schema version %d, up to date; job queue tables up to date\n", rep.Database, rep.Backend, v)
			return nil
		},
	}
}
