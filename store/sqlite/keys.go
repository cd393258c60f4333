package sqlite

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemon-dev/mnemon/memory"
)

// API keys (memory.KeyStore). Keys live outside the namespaces they open:
// the table's primary key is the id alone and the hash is unique across the
// file, because a request's key is what tells the server its namespace.

const apiKeyCols = `id, namespace, role, name, prefix, hash, created_at, revoked_at`

const (
	qInsertAPIKey = `INSERT INTO api_keys (` + apiKeyCols + `) VALUES (?, /*ns*/?, ?, ?, ?, ?, ?, ?)`
	// The one store lookup without a namespace: it is how a request gets one.
	qAPIKeyByHash       = `SELECT ` + apiKeyCols + ` FROM api_keys WHERE hash = ?`
	qAPIKeyByID         = `SELECT ` + apiKeyCols + ` FROM api_keys WHERE id = ?`
	qListAPIKeys        = `SELECT ` + apiKeyCols + ` FROM api_keys WHERE namespace = /*ns*/? ORDER BY created_at, id`
	qListAllAPIKeys     = `SELECT ` + apiKeyCols + ` FROM api_keys ORDER BY created_at, id`
	qRevokeAPIKey       = `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`
	qCountActiveAPIKeys = `SELECT count(*) FROM api_keys WHERE revoked_at IS NULL`
)

// keyQueries are prepared on both pools at Open: every authenticated
// request runs qAPIKeyByHash.
var keyQueries = []string{
	qInsertAPIKey, qAPIKeyByHash, qAPIKeyByID, qListAPIKeys, qListAllAPIKeys,
	qRevokeAPIKey, qCountActiveAPIKeys,
}

func decodeAPIKey(d *decoder) *memory.APIKey {
	return &memory.APIKey{
		ID:        d.str(),
		Namespace: d.ns(),
		Role:      memory.Role(d.sym()),
		Name:      d.str(),
		Prefix:    d.str(),
		Hash:      d.str(),
		CreatedAt: d.time(),
		RevokedAt: d.timePtr(),
	}
}

// CreateAPIKey stores k. It returns memory.ErrInvalid when k fails
// Validate and memory.ErrConflict when its id or hash is taken.
func (s *Store) CreateAPIKey(ctx context.Context, k *memory.APIKey) error {
	id := ""
	if k != nil {
		id = " " + k.ID
	}
	err := s.write(ctx, func(e *executor) error { return e.createAPIKey(ctx, k) })
	if err != nil {
		return fmt.Errorf("sqlite: create API key%s: %w", id, err)
	}
	return nil
}

func (e *executor) createAPIKey(ctx context.Context, k *memory.APIKey) error {
	if err := k.Validate(); err != nil {
		return err
	}
	var c encoder
	args := []any{
		k.ID, k.Namespace, string(k.Role), k.Name, k.Prefix, k.Hash,
		c.time("created_at", k.CreatedAt), c.timePtr("revoked_at", k.RevokedAt),
	}
	if c.err != nil {
		return c.err
	}
	if _, err := e.exec(ctx, qInsertAPIKey, args...); err != nil {
		err = mapErr(err)
		if errors.Is(err, memory.ErrConflict) {
			return memory.Conflictf(err, "an API key with this id or hash exists")
		}
		return err
	}
	return nil
}

// APIKeyByHash finds a key by the hex SHA-256 of its raw form, in any
// namespace, revoked or not; memory.ErrNotFound if none has it.
func (s *Store) APIKeyByHash(ctx context.Context, hash string) (*memory.APIKey, error) {
	k, err := s.apiKeyByHash(ctx, hash)
	if err != nil {
		// The hash is not secret, but there is no reason to echo it.
		return nil, fmt.Errorf("sqlite: API key by hash: %w", err)
	}
	return k, nil
}

func (s *Store) apiKeyByHash(ctx context.Context, hash string) (*memory.APIKey, error) {
	if hash == "" {
		return nil, memory.Invalidf("empty API key hash")
	}
	if !memory.IsAPIKeyHash(hash) {
		// No stored hash has another shape: Create validates them.
		return nil, memory.ErrNotFound
	}
	return oneAPIKey(ctx, s.read, qAPIKeyByHash, hash)
}

// ListAPIKeys lists one namespace's keys, or every key when p.Namespace is
// empty, by created_at then id.
func (s *Store) ListAPIKeys(ctx context.Context, p memory.ListAPIKeysParams) ([]*memory.APIKey, error) {
	out, err := s.listAPIKeys(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list API keys: %w", err)
	}
	return out, nil
}

func (s *Store) listAPIKeys(ctx context.Context, p memory.ListAPIKeysParams) ([]*memory.APIKey, error) {
	if p.Namespace == "" {
		return collect(ctx, s.read, decodeAPIKey, qListAllAPIKeys)
	}
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, err
	}
	return collect(ctx, s.read, decodeAPIKey, qListAPIKeys, p.Namespace)
}

// RevokeAPIKey sets a key's revoked_at to p.At unless it is already
// revoked, and returns the key as stored, in one transaction.
func (s *Store) RevokeAPIKey(ctx context.Context, p memory.RevokeAPIKeyParams) (*memory.APIKey, error) {
	var k *memory.APIKey
	err := s.write(ctx, func(e *executor) error {
		var err error
		k, err = e.revokeAPIKey(ctx, p)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: revoke API key %s: %w", p.ID, err)
	}
	return k, nil
}

func (e *executor) revokeAPIKey(ctx context.Context, p memory.RevokeAPIKeyParams) (*memory.APIKey, error) {
	if err := checkID("API key", p.ID); err != nil {
		return nil, err
	}
	if p.At.IsZero() {
		return nil, memory.Invalidf("zero revocation time")
	}
	var c encoder
	at := c.time("revoked_at", p.At)
	if c.err != nil {
		return nil, c.err
	}
	if _, err := e.exec(ctx, qRevokeAPIKey, at, p.ID); err != nil {
		return nil, mapErr(err)
	}
	return oneAPIKey(ctx, e, qAPIKeyByID, p.ID)
}

// CountActiveAPIKeys counts the keys not revoked, across namespaces.
func (s *Store) CountActiveAPIKeys(ctx context.Context) (int, error) {
	rows, err := s.read.query(ctx, qCountActiveAPIKeys)
	if err != nil {
		return 0, fmt.Errorf("sqlite: count active API keys: %w", mapErr(err))
	}
	defer rows.Close()
	n := 0
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, fmt.Errorf("sqlite: count active API keys: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sqlite: count active API keys: %w", mapErr(err))
	}
	return n, nil
}

// oneAPIKey runs a query for at most one key, or memory.ErrNotFound.
func oneAPIKey(ctx context.Context, e *executor, q string, args ...any) (*memory.APIKey, error) {
	out, err := collect(ctx, e, decodeAPIKey, q, args...)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, memory.ErrNotFound
	}
	return out[0], nil
}
