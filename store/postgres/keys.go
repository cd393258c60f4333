package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mnemon-dev/mnemon/memory"
)

// API keys (memory.KeyStore): administered across namespaces, so these
// queries are the one place that does not filter on a namespace.

const apiKeyCols = `id, namespace, role, name, prefix, hash, created_at, revoked_at`

const (
	qInsertAPIKey = `INSERT INTO api_keys (` + apiKeyCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
	ON CONFLICT DO NOTHING`
	qAPIKeyByHash       = `SELECT ` + apiKeyCols + ` FROM api_keys WHERE hash = $1`
	qAPIKeyByID         = `SELECT ` + apiKeyCols + ` FROM api_keys WHERE id = $1`
	qListAPIKeys        = `SELECT ` + apiKeyCols + ` FROM api_keys WHERE namespace = $1 ORDER BY created_at, id`
	qListAllAPIKeys     = `SELECT ` + apiKeyCols + ` FROM api_keys ORDER BY created_at, id`
	qRevokeAPIKey       = `UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`
	qCountActiveAPIKeys = `SELECT count(*) FROM api_keys WHERE revoked_at IS NULL`
)

func decodeAPIKey(r pgx.Rows) (*memory.APIKey, error) {
	var (
		k       memory.APIKey
		created int64
		revoked *int64
	)
	if err := r.Scan(&k.ID, &k.Namespace, &k.Role, &k.Name, &k.Prefix, &k.Hash, &created, &revoked); err != nil {
		return nil, err
	}
	k.CreatedAt, k.RevokedAt = fromNanos(created), fromNanosPtr(revoked)
	return &k, nil
}

func (s *Store) CreateAPIKey(ctx context.Context, k *memory.APIKey) error {
	id := ""
	if k != nil {
		id = " " + k.ID
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("postgres: create API key%s: %w", id, err)
	}
	var c enc
	args := []any{k.ID, k.Namespace, string(k.Role), k.Name, k.Prefix, k.Hash,
		c.time("created_at", k.CreatedAt), c.timePtr("revoked_at", k.RevokedAt)}
	if c.err != nil {
		return fmt.Errorf("postgres: create API key%s: %w", id, c.err)
	}
	return s.write(ctx, "", "create API key"+id, func(e *executor) error {
		tag, err := e.exec(ctx, qInsertAPIKey, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return memory.Conflictf(nil, "an API key with this id or hash exists")
		}
		return nil
	})
}

func (s *Store) APIKeyByHash(ctx context.Context, hash string) (*memory.APIKey, error) {
	if hash == "" {
		return nil, fmt.Errorf("postgres: API key by hash: %w", memory.Invalidf("empty API key hash"))
	}
	if !memory.IsAPIKeyHash(hash) {
		return nil, fmt.Errorf("postgres: API key by hash: %w", memory.ErrNotFound)
	}
	k, err := one(ctx, s.executor, decodeAPIKey, qAPIKeyByHash, hash)
	if err != nil {
		return nil, fmt.Errorf("postgres: API key by hash: %w", err)
	}
	return k, nil
}

func (s *Store) ListAPIKeys(ctx context.Context, p memory.ListAPIKeysParams) ([]*memory.APIKey, error) {
	var (
		out []*memory.APIKey
		err error
	)
	if p.Namespace == "" {
		out, err = collect(ctx, s.executor, decodeAPIKey, qListAllAPIKeys)
	} else if err = checkNamespace(p.Namespace); err == nil {
		out, err = collect(ctx, s.executor, decodeAPIKey, qListAPIKeys, p.Namespace)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: list API keys: %w", err)
	}
	return out, nil
}

func (s *Store) RevokeAPIKey(ctx context.Context, p memory.RevokeAPIKeyParams) (*memory.APIKey, error) {
	op := "revoke API key " + p.ID
	if err := checkID("API key", p.ID); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", op, err)
	}
	if p.At.IsZero() {
		return nil, fmt.Errorf("postgres: %s: %w", op, memory.Invalidf("zero revocation time"))
	}
	var c enc
	at := c.time("revoked_at", p.At)
	if c.err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", op, c.err)
	}
	var k *memory.APIKey
	err := s.write(ctx, "", op, func(e *executor) error {
		if _, err := e.exec(ctx, qRevokeAPIKey, at, p.ID); err != nil {
			return err
		}
		var err error
		k, err = one(ctx, e, decodeAPIKey, qAPIKeyByID, p.ID)
		return err
	})
	return k, err
}

func (s *Store) CountActiveAPIKeys(ctx context.Context) (int, error) {
	var n int
	if err := s.q.QueryRow(ctx, qCountActiveAPIKeys).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count active API keys: %w", mapErr(err))
	}
	return n, nil
}
