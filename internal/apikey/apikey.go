// Package apikey makes and checks mnemon's API keys. A raw key is
// "mnk_" followed by 52 lowercase base32 characters (32 random bytes); the
// store keeps only its SHA-256, so the raw key exists in exactly one place:
// with whoever it was given to.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

const (
	// Prefix starts every raw key, so a leaked key is recognisable to
	// people and secret scanners.
	Prefix = "mnk_"
	// RandomBytes is how much randomness a key carries (256 bits).
	RandomBytes = 32
	// Len is the length of a raw key: Prefix and 52 base32 characters.
	Len = len(Prefix) + 52
	// ShownLen is how many leading characters of a raw key are stored (as
	// APIKey.Prefix) and shown in listings.
	ShownLen = 12
)

// encoding is lowercase RFC 4648 base32 without padding.
var encoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Generate makes a new key for namespace ns with role role. It returns the
// raw key, to show once, and the APIKey to store, which holds only its
// hash. name is a free-text label for people; now is the creation time.
func Generate(ns string, role memory.Role, name string, now time.Time) (string, *memory.APIKey, error) {
	if err := memory.ValidateNamespace(ns); err != nil {
		return "", nil, fmt.Errorf("generate API key: %w", err)
	}
	if !role.Valid() {
		return "", nil, fmt.Errorf("generate API key: %w", memory.Invalidf("role %q: use reader, writer or admin", role))
	}
	if len(name) > memory.MaxAPIKeyNameBytes {
		return "", nil, fmt.Errorf("generate API key: %w",
			memory.Invalidf("name is %d bytes; the limit is %d", len(name), memory.MaxAPIKeyNameBytes))
	}
	if now.IsZero() {
		return "", nil, fmt.Errorf("generate API key: %w", memory.Invalidf("zero creation time"))
	}
	b := make([]byte, RandomBytes)
	if _, err := rand.Read(b); err != nil {
		return "", nil, fmt.Errorf("generate API key: %w", err)
	}
	raw := Prefix + encoding.EncodeToString(b)
	k := &memory.APIKey{
		ID:        ids.New(ids.Key),
		Namespace: ns,
		Role:      role,
		Name:      name,
		Prefix:    raw[:ShownLen],
		Hash:      Hash(raw),
		CreatedAt: now.UTC(),
	}
	return raw, k, nil
}

// Hash returns the hex SHA-256 of a raw key: what the store keeps and looks
// keys up by. The key carries 256 random bits, so a plain hash (no salt,
// no stretching) is as hard to reverse as guessing the key.
func Hash(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// LooksValid reports whether raw has the exact shape of a key Generate
// makes, so garbage is refused before it reaches the store. It says
// nothing about whether the key exists.
func LooksValid(raw string) bool {
	body, ok := strings.CutPrefix(raw, Prefix)
	if !ok || len(raw) != Len {
		return false
	}
	b, err := encoding.DecodeString(body)
	// Re-encoding catches the spare low bits of the last character, which
	// the decoder ignores: each key has exactly one spelling.
	return err == nil && len(b) == RandomBytes && encoding.EncodeToString(b) == body
}
