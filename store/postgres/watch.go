package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// Waking followers. Every statement that appends to a namespace's change
// log also calls pg_notify on changesChannel with "schema/namespace"
// (qInsertChanges); PostgreSQL delivers it when the transaction commits,
// never for one rolled back, and once per transaction and namespace. A
// follower LISTENs on a connection of its own and reads the change log of
// the namespace it is told about at once, instead of at its next poll. A
// notification carries no data: the change log stays the only record, so
// a missed notification (the listener reconnecting) costs one poll
// interval, never a write.

// changesChannel is the channel the change log notifies on.
const changesChannel = "mnemon_changes"

var _ memory.ChangeWatcher = (*Store)(nil)

// WatchChanges implements memory.ChangeWatcher with LISTEN on a connection
// taken out of the pool for the watch (closed when it ends). Schemas share
// the channel: only this store's schema is reported.
func (s *Store) WatchChanges(ctx context.Context, ready func(), fn func(namespace string)) error {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: watch changes: %w", err)
	}
	// Hijacked, the connection is ours: a wait cut short by ctx leaves it
	// in no state to go back to the pool.
	conn := pc.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return fmt.Errorf("postgres: watch changes: %w", err)
	}
	if _, err := conn.Exec(ctx, `LISTEN `+changesChannel); err != nil {
		return fmt.Errorf("postgres: watch changes: %w", err)
	}
	if ready != nil {
		ready()
	}
	prefix := schema + "/"
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("postgres: watch changes: %w", err)
		}
		if ns, ok := strings.CutPrefix(n.Payload, prefix); ok {
			fn(ns)
		}
	}
}
