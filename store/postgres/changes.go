package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/memory"
)

// The change log (see memory.Executor and the changes table).
//
// seq comes from an identity sequence, which hands numbers out at insert,
// not at commit. Left alone, transaction A could take seq 10, B seq 11, B
// commit first, and a follower reading "seq > 9" would see 11, move to 11,
// and never see 10 once A commits. So a transaction takes its namespace's
// write lock (a transaction-scoped advisory lock keyed by schema and
// namespace, see writeTx) before it writes there, and the statement that
// appends changes takes it again (free when held) so no caller can skip
// it. It is held until commit or rollback: the next writer of the
// namespace takes its seq only after the previous one's commit is visible,
// so a namespace's changes become visible in seq order and a follower's
// "seq > last" never passes a row that commits later. A rolled-back
// transaction leaves a gap nobody waits for. Other namespaces are not held
// up.

// lockNamespace is the advisory lock class of the namespaces' write locks.
const lockNamespace = 0x6d6f

// qLockNamespace takes namespace $2's write lock until the transaction ends.
const qLockNamespace = `SELECT pg_advisory_xact_lock($1, hashtext(current_schema() || '/' || $2))`

const (
	// The lock is taken in the statement that inserts, before the rows (and
	// their sequence numbers) are made.
	// The same statement notifies the followers (delivered at commit,
	// one notification per namespace and transaction; see watch.go).
	qInsertChanges = `WITH ns_lock AS (
	  SELECT pg_advisory_xact_lock($4, hashtext(current_schema() || '/' || $1)),
	         pg_notify('` + changesChannel + `', current_schema() || '/' || $1)
	)
	INSERT INTO changes (namespace, version_id, updated_at)
	SELECT $1, v, $3 FROM ns_lock, unnest($2::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n`
	// One statement reads the horizon with the entries, so a prune cannot
	// slip between the two: a row with seq -1 says entries after the
	// position asked for were pruned.
	qListChanges = `(SELECT seq, version_id, updated_at FROM changes
	  WHERE namespace = $1 AND seq > $2 ORDER BY seq LIMIT $3)
	UNION ALL
	SELECT -1, '', 0 FROM change_horizons WHERE namespace = $1 AND pruned_through > $2
	ORDER BY 1`
	qLastChange = `SELECT COALESCE(MAX(seq), 0) FROM changes WHERE namespace = $1`
	// The newest entry written before the cutoff, never the namespace's
	// newest (LastChange must not go back).
	qPruneCut = `SELECT COALESCE(MAX(seq), 0) FROM changes
	WHERE namespace = $1 AND updated_at < $2
	  AND seq < (SELECT MAX(seq) FROM changes WHERE namespace = $1)`
	qPruneChanges = `DELETE FROM changes WHERE namespace = $1 AND seq <= $2`
	qPutHorizon   = `INSERT INTO change_horizons (namespace, pruned_through) VALUES ($1, $2)
	ON CONFLICT (namespace) DO UPDATE SET pruned_through = GREATEST(change_horizons.pruned_through, excluded.pruned_through)`
)

// withChange prefixes stmt, a write of one version, with the append of its
// change-log entry, so the two make one round trip instead of two. ns, id
// and updated name the statement's parameters holding the namespace, the
// version id and the entry's updated_at. The entry is written whenever the
// statement does not fail, as logChanges before it would be: a follower
// skips an entry whose version is not there. If the statement fails, the
// entry goes with it (one statement, all or nothing).
func withChange(stmt string, ns, id, updated int) string {
	return fmt.Sprintf(`WITH ns_lock AS (
	  SELECT pg_advisory_xact_lock(%[4]d, hashtext(current_schema() || '/' || $%[1]d::text)),
	         pg_notify('`+changesChannel+`', current_schema() || '/' || $%[1]d::text)
	), ch AS (
	  INSERT INTO changes (namespace, version_id, updated_at) SELECT $%[1]d::text, $%[2]d::text, $%[3]d::bigint FROM ns_lock
	)
	`, ns, id, updated, lockNamespace) + stmt
}

// logChanges appends version writes to the namespace's change log, under
// the namespace's change lock (see above).
func (e *executor) logChanges(ctx context.Context, ns string, versionIDs []string, updatedAt int64) error {
	if len(versionIDs) == 0 {
		return nil
	}
	_, err := e.exec(ctx, qInsertChanges, ns, versionIDs, updatedAt, lockNamespace)
	return err
}

func (e *executor) ListChanges(ctx context.Context, p memory.ListChangesParams) ([]memory.Change, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: list changes: %w", err)
	}
	if p.After < 0 || p.Limit < 0 {
		return nil, fmt.Errorf("postgres: list changes: %w", memory.Invalidf("after %d, limit %d: must not be negative", p.After, p.Limit))
	}
	out, err := collect(ctx, e, func(r pgx.Rows) (memory.Change, error) {
		var (
			c       memory.Change
			updated int64
		)
		if err := r.Scan(&c.Seq, &c.VersionID, &updated); err != nil {
			return c, err
		}
		if c.Seq < 0 {
			return c, memory.ErrChangesPruned
		}
		c.UpdatedAt = fromNanos(updated)
		return c, nil
	}, qListChanges, p.Namespace, p.After, limit(p.Limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: list changes: %w", err)
	}
	return out, nil
}

func (e *executor) LastChange(ctx context.Context, p memory.ScanParams) (int64, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return 0, fmt.Errorf("postgres: last change: %w", err)
	}
	var seq int64
	if err := e.q.QueryRow(ctx, qLastChange, p.Namespace).Scan(&seq); err != nil {
		return 0, fmt.Errorf("postgres: last change: %w", mapErr(err))
	}
	return seq, nil
}

func (e *executor) PruneChanges(ctx context.Context, p memory.PruneChangesParams) (int, error) {
	if err := checkNamespace(p.Namespace); err != nil {
		return 0, fmt.Errorf("postgres: prune changes: %w", err)
	}
	if p.Before.IsZero() {
		return 0, fmt.Errorf("postgres: prune changes: %w", memory.Invalidf("prune changes: no cutoff"))
	}
	var c enc
	before := c.time("before", p.Before)
	if c.err != nil {
		return 0, fmt.Errorf("postgres: prune changes: %w", c.err)
	}
	var n int
	err := e.write(ctx, p.Namespace, "prune changes", func(e *executor) error {
		var cut int64
		if err := e.q.QueryRow(ctx, qPruneCut, p.Namespace, before).Scan(&cut); err != nil {
			return mapErr(err)
		}
		if cut == 0 {
			return nil
		}
		tag, err := e.exec(ctx, qPruneChanges, p.Namespace, cut)
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected())
		_, err = e.exec(ctx, qPutHorizon, p.Namespace, cut)
		return err
	})
	return n, err
}
