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
	// SQLite only: the file's size before and after giving its free pages
	// back (equal when too few were free to be worth a VACUUM).
	FileBytesBefore int64 `json:"file_bytes_before,omitempty"`
	FileBytesAfter  int64 `json:"file_bytes_after,omitempty"`
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

On SQLite it then gives the file's free pages back to the file system (a VACUUM)
when they are at least a quarter of the file and 4 MiB: upgrades that rebuild
tables leave the old copies' pages free (a 10k-note file from before schema 22
grew from 20 to 33 MB, 15 MB after). An upgrade by any other command does the
same, once; this reclaims what deletes freed since. Writers wait while it runs,
and the disk needs room for one more copy of the database for a moment.

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
			} else {
				before, after, err := a.opened.sqlite.ReclaimFreePages(ctx)
				if err != nil {
					return err
				}
				rep.FileBytesBefore, rep.FileBytesAfter = before.Bytes(), after.Bytes()
			}
			if o.json {
				return writeJSON(a.env.Stdout, rep)
			}
			fmt.Fprintf(a.env.Stdout, "%s (%s): schema version %d, up to date; job queue tables up to date\n", rep.Database, rep.Backend, v)
			if rep.FileBytesAfter < rep.FileBytesBefore {
				fmt.Fprintf(a.env.Stdout, "free pages given back: %s -> %s\n", mib(rep.FileBytesBefore), mib(rep.FileBytesAfter))
			}
			return nil
		},
	}
}

// mib formats a size in MiB with one decimal.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
