// Package pgtest gives a test a PostgreSQL schema of its own on the server
// MNEMON_TEST_POSTGRES names (default: the trust-authenticated server on
// 127.0.0.1:5432, database test), dropped when the test ends. Without a
// server the test is skipped with one line saying so.
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

// Schema creates a uniquely named, empty schema for t, dropped with
// everything in it when t ends, and returns the URL that selects it. Commits
// do not wait for the disk (synchronous_commit=off): nothing a test writes
// must survive a crash of the server.
func Schema(t testing.TB) string {
	t.Helper()
	Require(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "mnemon_t_" + hex.EncodeToString(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+schema)
	_ = conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, ServerURL())
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	return WithSearchPath(t, schema)
}

// WithSearchPath returns the server's URL with its schema set to schema.
func WithSearchPath(t testing.TB, schema string) string {
	t.Helper()
	raw := ServerURL()
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return raw + " search_path=" + schema + " synchronous_commit=off" // a key=value DSN
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	return u.String()
}
