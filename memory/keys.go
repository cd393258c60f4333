package memory

import (
	"context"
	"time"
)

// Role is what an API key may do in its namespace. Roles nest: an admin
// may do everything a writer may, a writer everything a reader may.
type Role string

const (
	RoleReader Role = "reader" // retrieve, list, show, explain, export
	RoleWriter Role = "writer" // and capture, remember, forget, feedback, import
	RoleAdmin  Role = "admin"  // and lifecycle and other maintenance
)

// Roles lists every valid role, weakest first.
var Roles = []Role{RoleReader, RoleWriter, RoleAdmin}

// rank orders the roles; an invalid role ranks 0 and allows nothing.
func (r Role) rank() int {
	switch r {
	case RoleReader:
		return 1
	case RoleWriter:
		return 2
	case RoleAdmin:
		return 3
	}
	return 0
}

// Valid reports whether r is one of Roles.
func (r Role) Valid() bool { return r.rank() > 0 }

// Allows reports whether a key with role r may do what needs role need:
// admin ⊇ writer ⊇ reader. An invalid role allows nothing and an invalid
// need is allowed to no one.
func (r Role) Allows(need Role) bool {
	return r.Valid() && need.Valid() && r.rank() >= need.rank()
}

// APIKey is a credential for the HTTP API, bound to one namespace with one
// role. The raw key is shown to its owner once, when it is made; the store
// keeps only its hash, so a copy of the database opens nothing.
type APIKey struct {
	ID        string `json:"id"` // "key_" + ULID, unique across namespaces
	Namespace string `json:"namespace"`
	Role      Role   `json:"role"`
	Name      string `json:"name,omitempty"` // what the key is for, for people
	// Prefix is the first characters of the raw key, so people can tell
	// their keys apart ("mnk_3fj2k1qa"); it opens nothing.
	Prefix string `json:"prefix"`
	// Hash is the hex SHA-256 of the raw key. It is never serialised.
	Hash      string     `json:"-"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// Active reports whether the key still opens its namespace.
func (k *APIKey) Active() bool { return k != nil && k.RevokedAt == nil }

// Limits on an APIKey's free-text fields.
const (
	MaxAPIKeyNameBytes   = 200
	MaxAPIKeyPrefixBytes = 32
)

// Validate checks the fields a store requires of a new key and returns an
// error wrapping ErrInvalid that names the first bad one.
func (k *APIKey) Validate() error {
	if k == nil {
		return Invalidf("nil API key")
	}
	if k.ID == "" {
		return Invalidf("API key id is empty")
	}
	if err := ValidateNamespace(k.Namespace); err != nil {
		return err
	}
	if !k.Role.Valid() {
		return Invalidf("API key role %q: use reader, writer or admin", k.Role)
	}
	if len(k.Name) > MaxAPIKeyNameBytes {
		return Invalidf("API key name is %d bytes; the limit is %d", len(k.Name), MaxAPIKeyNameBytes)
	}
	if k.Prefix == "" || len(k.Prefix) > MaxAPIKeyPrefixBytes {
		return Invalidf("API key prefix %q: use 1-%d characters", k.Prefix, MaxAPIKeyPrefixBytes)
	}
	if !IsAPIKeyHash(k.Hash) {
		return Invalidf("API key hash: use the 64 lowercase hex digits of a SHA-256, never the raw key")
	}
	if k.CreatedAt.IsZero() {
		return Invalidf("API key created_at is zero")
	}
	return nil
}

// IsAPIKeyHash reports whether h has the shape of a stored key hash: 64
// lowercase hex digits.
func IsAPIKeyHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := range len(h) {
		c := h[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// KeyStore holds the API keys. Unlike Executor it is not per namespace:
// keys are administered across namespaces (mnemon keys list shows them
// all), and ids are unique across the whole store.
//
// APIKeyByHash is the one lookup in the Store that does not filter on a
// namespace, because it is what establishes the namespace: the server finds
// the key a request presents and from then on serves that key's namespace
// only. Keys do not make a namespace appear in Store.Namespaces, which
// lists namespaces that hold memory.
type KeyStore interface {
	// CreateAPIKey stores a new key. It returns ErrConflict on a duplicate
	// id or hash and ErrInvalid when k fails Validate.
	CreateAPIKey(ctx context.Context, k *APIKey) error
	// APIKeyByHash finds the key whose hash is hash, or ErrNotFound (also
	// for a hash not shaped like one; an empty hash is ErrInvalid). It
	// returns revoked keys too: the caller checks Active.
	APIKeyByHash(ctx context.Context, hash string) (*APIKey, error)
	// ListAPIKeys lists keys ordered by created_at, then id.
	ListAPIKeys(ctx context.Context, p ListAPIKeysParams) ([]*APIKey, error)
	// RevokeAPIKey marks a key revoked at p.At and returns it as stored, or
	// ErrNotFound. Revoking a revoked key keeps the first time.
	RevokeAPIKey(ctx context.Context, p RevokeAPIKeyParams) (*APIKey, error)
	// CountActiveAPIKeys counts the keys not revoked, in every namespace.
	// The server is open (no authentication) only when this is 0.
	CountActiveAPIKeys(ctx context.Context) (int, error)
}

// ListAPIKeysParams filters the keys.
type ListAPIKeysParams struct {
	// Namespace, when set, restricts the list to one namespace; "" lists
	// every namespace's keys.
	Namespace string
}

// RevokeAPIKeyParams names the key to revoke and when.
type RevokeAPIKeyParams struct {
	ID string
	At time.Time
}
