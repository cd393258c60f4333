// Package pgtest gives a test a PostgreSQL schema of its own on the server
// MNEMON_TEST_POSTGRES names (default: the trust-authenticated server on
// 127.0.0.1:5432, database test), dropped when the test ends. Without a
// server the test is skipped with one line saying so. Every package's
// PostgreSQL tests use it, so the skip, the naming and the clean-up are
// the same everywhere.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the server the tests use unless MNEMON_TEST_POSTGRES says
// otherwise.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// ServerURL returns the URL of the test server (its default schema).
func ServerURL() string {
	if u := os.Getenv("MNEMON_TEST_POSTGRES"); u != "" {
		return u
	}
	return DefaultURL
}

var (
	once      sync.Once
	serverErr error
)

// Require skips t when no PostgreSQL server answers.
func Require(t testing.TB) {
	t.Helper()
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, ServerURL())
		if err != nil {
			serverErr = err
			return
		}
		serverErr = conn.Ping(ctx)
		_ = conn.Close(ctx)
	})
	if serverErr != nil {
		t.Skipf("no PostgreSQL at MNEMON_TEST_POSTGRES (default %s): %v", DefaultURL, serverErr)
	}
}

// Exec runs statements on the server's default schema on a connection of
// its own; it returns the error so a clean-up can report it its own way.
func Exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// NewSchemaName returns a fresh schema name with prefix.
func NewSchemaName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// CreateSchema creates an empty schema named name, failing t if it cannot.
// It is not dropped: see Schema for one that is.
func CreateSchema(t testing.TB, name string) {
	t.Helper()
	Require(t)
	if err := Exec(context.Background(), "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
}

// Schema creates a uniquely named, empty schema for t, dropped with
// everything in it when t ends, and returns the URL that selects it. Commits
// do not wait for the disk (synchronous_commit=off): nothing a test writes
// must survive a crash of the server.
func Schema(t testing.TB) string {
	t.Helper()
	return WithSearchPath(t, dropped(t))
}

// DurableSchema is Schema with commits that wait for the disk, as in
// production: for benchmarks, whose numbers must be a server's.
func DurableSchema(t testing.TB) string {
	t.Helper()
	return searchPath(t, dropped(t), false)
}

// dropped creates a schema dropped when t ends and returns its name.
func dropped(t testing.TB) string {
	t.Helper()
	schema := NewSchemaName("mnemon_t_")
	CreateSchema(t, schema)
	t.Cleanup(func() {
		if err := Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	return schema
}

// WithSearchPath returns the server's URL with its schema set to schema and
// commits that do not wait for the disk.
func WithSearchPath(t testing.TB, schema string) string {
	t.Helper()
	return searchPath(t, schema, true)
}

func searchPath(t testing.TB, schema string, fast bool) string {
	t.Helper()
	raw := ServerURL()
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		dsn := raw + " search_path=" + schema // a key=value DSN
		if fast {
			dsn += " synchronous_commit=off"
		}
		return dsn
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	if fast {
		q.Set("synchronous_commit", "off")
	}
	u.RawQuery = q.Encode()
	return u.String()
}
