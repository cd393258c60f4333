// Package jobstest gives tests an SQLite file with both schemas a server
// needs already migrated: the store's and River's job tables (with the
// index jobs.Migrate adds). It is sqlitetest's template plus jobs.Migrate,
// made once per test binary and copied for each test; jobs.Open finds
// River's migrations done.
//
// Tests of migrating (a new file, an old schema) keep opening a new path.
package jobstest

import (
	"context"
	"testing"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

var template = sqlitetest.NewTemplate(func(ctx context.Context, st *sqlite.Store) error {
	return jobs.Migrate(ctx, riversqlite.New(st.WriterDB()))
})

// CopyTo writes a migrated, empty database file with River's tables at path
// (creating its directory); path must not exist yet.
func CopyTo(t testing.TB, path string) {
	t.Helper()
	template.CopyTo(t, path)
}

// WriteFile writes such a file at path (creating its directory) without a
// testing.TB, for code a test hooks in; path must not exist yet.
func WriteFile(path string) error {
	return template.WriteFile(path)
}

// Path returns the path of such a file of the test's own, named mnemon.db
// in a new temp directory.
func Path(t testing.TB) string {
	t.Helper()
	return template.Path(t)
}

// Open opens such a file of the test's own with opts, closed when the test
// ends; an empty opts.Synchronous means NORMAL, as in sqlitetest.Open.
func Open(t testing.TB, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	return template.Open(t, opts)
}
