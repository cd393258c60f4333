package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// newAPIKey fills every field of a key with a distinct value. Its hash is
// derived from ns and id, so two fixtures never share one by accident.
func newAPIKey(ns, id string, role memory.Role, created time.Time) *memory.APIKey {
	sum := sha256.Sum256([]byte(ns + "/" + id))
	return &memory.APIKey{
		ID:        id,
		Namespace: ns,
		Role:      role,
		Name:      "name of " + id,
		Prefix:    "mnk_" + hex.EncodeToString(sum[:4]),
		Hash:      hex.EncodeToString(sum[:]),
		CreatedAt: created,
	}
}

func apiKeyID(k *memory.APIKey) string { return k.ID }

func (s suite) keys(t *testing.T) {
	t.Run("CreateAndFindByHash", func(t *testing.T) {
		ctx, st := s.fresh(t)
		k := newAPIKey(ns, "key-1", memory.RoleWriter, at(0))
		must(t, st.CreateAPIKey(ctx, k))
		got, err := st.APIKeyByHash(ctx, k.Hash)
		must(t, err)
		same(t, "APIKeyByHash", k, got)
		if !got.Active() {
			t.Error("a new key is not active")
		}
		// Created revoked (as an import would): kept as given.
		revoked := newAPIKey("other", "key-2", memory.RoleReader, at(1))
		revoked.Name = ""
		revoked.RevokedAt = ptr(at(2))
		must(t, st.CreateAPIKey(ctx, revoked))
		got, err = st.APIKeyByHash(ctx, revoked.Hash)
		must(t, err)
		same(t, "APIKeyByHash of a revoked key", revoked, got)
	})

	t.Run("List", func(t *testing.T) {
		ctx, st := s.fresh(t)
		got, err := st.ListAPIKeys(ctx, memory.ListAPIKeysParams{})
		must(t, err)
		wantIDs(t, "ListAPIKeys of an empty store", ids(got, apiKeyID), nil)
		// Written out of order; created_at ties are broken by id.
		for _, k := range []*memory.APIKey{
			newAPIKey("beta", "key-e", memory.RoleReader, at(3)),
			newAPIKey(ns, "key-d", memory.RoleAdmin, at(2)),
			newAPIKey(ns, "key-b", memory.RoleReader, at(1)),
			newAPIKey("beta", "key-c", memory.RoleWriter, at(1)),
			newAPIKey(ns, "key-a", memory.RoleWriter, at(4)),
		} {
			must(t, st.CreateAPIKey(ctx, k))
		}
		cases := []struct {
			ns   string
			want []string
		}{
			{"", []string{"key-b", "key-c", "key-d", "key-e", "key-a"}},
			{ns, []string{"key-b", "key-d", "key-a"}},
			{"beta", []string{"key-c", "key-e"}},
			{"nobody", nil},
		}
		for _, c := range cases {
			got, err := st.ListAPIKeys(ctx, memory.ListAPIKeysParams{Namespace: c.ns})
			must(t, err)
			wantIDs(t, "ListAPIKeys "+c.ns, ids(got, apiKeyID), c.want)
			for _, k := range got {
				if c.ns != "" && k.Namespace != c.ns {
					t.Errorf("ListAPIKeys %s returned %s of namespace %s", c.ns, k.ID, k.Namespace)
				}
			}
		}
		all, err := st.ListAPIKeys(ctx, memory.ListAPIKeysParams{})
		must(t, err)
		same(t, "listed key", newAPIKey(ns, "key-d", memory.RoleAdmin, at(2)), all[2])
	})

	t.Run("Revoke", func(t *testing.T) {
		ctx, st := s.fresh(t)
		k := newAPIKey(ns, "key-1", memory.RoleAdmin, at(0))
		other := newAPIKey(ns, "key-2", memory.RoleAdmin, at(1))
		must(t, st.CreateAPIKey(ctx, k))
		must(t, st.CreateAPIKey(ctx, other))

		got, err := st.RevokeAPIKey(ctx, memory.RevokeAPIKeyParams{ID: k.ID, At: at(5)})
		must(t, err)
		want := *k
		want.RevokedAt = ptr(at(5))
		same(t, "RevokeAPIKey", &want, got)
		if got.Active() {
			t.Error("a revoked key is active")
		}

		// Revoking again changes nothing: the first time stands.
		got, err = st.RevokeAPIKey(ctx, memory.RevokeAPIKeyParams{ID: k.ID, At: at(9)})
		must(t, err)
		same(t, "RevokeAPIKey twice", &want, got)

		// The revoked key is still found, so the server can say "revoked".
		got, err = st.APIKeyByHash(ctx, k.Hash)
		must(t, err)
		same(t, "APIKeyByHash after revoke", &want, got)
		list, err := st.ListAPIKeys(ctx, memory.ListAPIKeysParams{Namespace: ns})
		must(t, err)
		if len(list) != 2 {
			t.Fatalf("ListAPIKeys after revoke: %d keys, want 2", len(list))
		}
		same(t, "listed revoked key", &want, list[0])
		same(t, "listed other key", other, list[1])
	})

	t.Run("CountActive", func(t *testing.T) {
		ctx, st := s.fresh(t)
		count := func(want int) {
			t.Helper()
			n, err := st.CountActiveAPIKeys(ctx)
			must(t, err)
			if n != want {
				t.Errorf("CountActiveAPIKeys = %d, want %d", n, want)
			}
		}
		count(0)
		for i, k := range []*memory.APIKey{
			newAPIKey(ns, "key-1", memory.RoleReader, at(0)),
			newAPIKey("beta", "key-2", memory.RoleWriter, at(1)),
			newAPIKey("gamma", "key-3", memory.RoleAdmin, at(2)),
		} {
			must(t, st.CreateAPIKey(ctx, k))
			count(i + 1)
		}
		_, err := st.RevokeAPIKey(ctx, memory.RevokeAPIKeyParams{ID: "key-2", At: at(3)})
		must(t, err)
		count(2)
		_, err = st.RevokeAPIKey(ctx, memory.RevokeAPIKeyParams{ID: "key-2", At: at(4)})
		must(t, err)
		count(2)
		revoked := newAPIKey(ns, "key-4", memory.RoleReader, at(5))
		revoked.RevokedAt = ptr(at(5))
		must(t, st.CreateAPIKey(ctx, revoked))
		count(2)
	})

	t.Run("Conflict", func(t *testing.T) {
		ctx, st := s.fresh(t)
		k := newAPIKey(ns, "key-1", memory.RoleReader, at(0))
		must(t, st.CreateAPIKey(ctx, k))
		sameHash := newAPIKey(ns, "key-2", memory.RoleAdmin, at(1))
		sameHash.Hash = k.Hash
		sameHashElsewhere := newAPIKey("beta", "key-3", memory.RoleAdmin, at(1))
		sameHashElsewhere.Hash = k.Hash
		sameID := newAPIKey(ns, "key-1", memory.RoleAdmin, at(1))
		sameID.Hash = strings.Repeat("ab", 32)
		// Key ids are unique across namespaces: revoke names a key by id.
		sameIDElsewhere := newAPIKey("beta", "key-1", memory.RoleAdmin, at(1))
		for name, dup := range map[string]*memory.APIKey{
			"same hash": sameHash, "same hash in another namespace": sameHashElsewhere,
			"same id": sameID, "same id in another namespace": sameIDElsewhere,
		} {
			wantErr(t, "CreateAPIKey with the "+name, st.CreateAPIKey(ctx, dup), memory.ErrConflict)
		}
		got, err := st.APIKeyByHash(ctx, k.Hash)
		must(t, err)
		same(t, "key after conflicts", k, got)
		list, err := st.ListAPIKeys(ctx, memory.ListAPIKeysParams{})
		must(t, err)
		wantIDs(t, "ListAPIKeys after conflicts", ids(list, apiKeyID), []string{"key-1"})
	})

	t.Run("ConcurrentSameHash", func(t *testing.T) {
		ctx, st := s.fresh(t)
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				k := newAPIKey(ns, "key-"+string(rune('a'+i)), memory.RoleReader, at(i))
				k.Hash = strings.Repeat("cd", 32)
				errs[i] = st.CreateAPIKey(ctx, k)
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else {
				wantErr(t, "concurrent CreateAPIKey with one hash", err, memory.ErrConflict)
			}
		}
		if ok != 1 {
			t.Errorf("%d concurrent creates with one hash succeeded, want 1", ok)
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		ctx, st := s.fresh(t)
		k := newAPIKey(ns, "key-1", memory.RoleReader, at(0))
		must(t, st.CreateAPIKey(ctx, k))
		_, err := st.APIKeyByHash(ctx, strings.Repeat("0", 64))
		wantErr(t, "APIKeyByHash of an unknown hash", err, memory.ErrNotFound)
		// A hash of another shape cannot be stored, so it is never found.
		_, err = st.APIKeyByHash(ctx, strings.ToUpper(k.Hash))
		wantErr(t, "APIKeyByHash in upper case", err, memory.ErrNotFound)
		_, err = st.RevokeAPIKey(ctx, memory.RevokeAPIKeyParams{ID: "key-nope", At: at(1)})
		wantErr(t, "RevokeAPIKey of an unknown id", err, memory.ErrNotFound)
		n, err := st.CountActiveAPIKeys(ctx)
		must(t, err)
		if n != 1 {
			t.Errorf("CountActiveAPIKeys = %d after a failed revoke, want 1", n)
		}
	})

	t.Run("InvalidInput", func(t *testing.T) {
		ctx, st := s.fresh(t)
		bad := func(change func(k *memory.APIKey)) *memory.APIKey {
			k := newAPIKey(ns, "key-1", memory.RoleReader, at(0))
			change(k)
			return k
		}
		calls := map[string]error{
			"nil key":         st.CreateAPIKey(ctx, nil),
			"invalid role":    st.CreateAPIKey(ctx, bad(func(k *memory.APIKey) { k.Role = "owner" })),
			"empty role":      st.CreateAPIKey(ctx, bad(func(k *memory.APIKey) { k.Role = "" })),
			"bad namespace":   st.CreateAPIKey(ctx, bad(func(k *memory.APIKey) { k.Namespace = "bad ns!" })),
			"empty namespace": st.CreateAPIKey(ctx, bad(func(k *memory.APIKey) { k.Namespace = "" })),
			"empty id":        st.CreateAPIKey(ctx, bad(func(k *memory.APIKey) { k.ID = "" })),
			"empty prefix":    st.CreateAPIKey(ctx, bad(func(k *memory.APIKey) { k.Prefix = "" })),
			"raw key as hash": st.CreateAPIKey(ctx, bad(func(k *memory.APIKey) { k.Hash = "mnk_" + strings.Repeat("a", 52) })),
			"empty hash":      st.CreateAPIKey(ctx, bad(func(k *memory.APIKey) { k.Hash = "" })),
			"zero created_at": st.CreateAPIKey(ctx, bad(func(k *memory.APIKey) { k.CreatedAt = time.Time{} })),
			"long name": st.CreateAPIKey(ctx, bad(func(k *memory.APIKey) {
				k.Name = strings.Repeat("n", memory.MaxAPIKeyNameBytes+1)
			})),
		}
		_, calls["APIKeyByHash empty"] = st.APIKeyByHash(ctx, "")
		_, calls["ListAPIKeys bad namespace"] = st.ListAPIKeys(ctx, memory.ListAPIKeysParams{Namespace: "bad ns!"})
		_, calls["RevokeAPIKey empty id"] = st.RevokeAPIKey(ctx, memory.RevokeAPIKeyParams{At: at(0)})
		must(t, st.CreateAPIKey(ctx, newAPIKey(ns, "key-ok", memory.RoleReader, at(0))))
		_, calls["RevokeAPIKey zero time"] = st.RevokeAPIKey(ctx, memory.RevokeAPIKeyParams{ID: "key-ok"})
		for name, err := range calls {
			wantErr(t, name, err, memory.ErrInvalid)
		}
		list, err := st.ListAPIKeys(ctx, memory.ListAPIKeysParams{})
		must(t, err)
		wantIDs(t, "ListAPIKeys after invalid calls", ids(list, apiKeyID), []string{"key-ok"})
		if !list[0].Active() {
			t.Error("a revoke with a zero time revoked the key")
		}
	})

	t.Run("NamespaceIsolation", func(t *testing.T) {
		ctx, st := s.fresh(t)
		a := newAPIKey("alpha", "key-a", memory.RoleAdmin, at(0))
		b := newAPIKey("beta", "key-b", memory.RoleReader, at(1))
		must(t, st.CreateAPIKey(ctx, a))
		must(t, st.CreateAPIKey(ctx, b))
		for _, k := range []*memory.APIKey{a, b} {
			got, err := st.ListAPIKeys(ctx, memory.ListAPIKeysParams{Namespace: k.Namespace})
			must(t, err)
			if len(got) != 1 {
				t.Fatalf("ListAPIKeys %s: %d keys, want 1", k.Namespace, len(got))
			}
			same(t, k.Namespace+"'s key", k, got[0])
			// The hash names its key and so its namespace, whoever asks.
			found, err := st.APIKeyByHash(ctx, k.Hash)
			must(t, err)
			same(t, "APIKeyByHash "+k.ID, k, found)
		}
		// Keys are access, not memory: they make no namespace appear.
		nss, err := st.Namespaces(ctx)
		must(t, err)
		wantIDs(t, "Namespaces with keys only", nss, nil)
		stats, err := st.Stats(ctx, memory.StatsParams{Namespace: "alpha"})
		must(t, err)
		same(t, "Stats of a namespace with a key only", &memory.Stats{Namespace: "alpha", Versions: map[memory.Status]int{}}, stats)
	})

	t.Run("AfterClose", func(t *testing.T) {
		ctx, st := s.fresh(t)
		k := newAPIKey(ns, "key-1", memory.RoleReader, at(0))
		must(t, st.CreateAPIKey(ctx, k))
		must(t, st.Close())
		calls := map[string]func() error{
			"CreateAPIKey": func() error { return st.CreateAPIKey(ctx, newAPIKey(ns, "key-2", memory.RoleReader, at(1))) },
			"APIKeyByHash": func() error { _, err := st.APIKeyByHash(ctx, k.Hash); return err },
			"ListAPIKeys":  func() error { _, err := st.ListAPIKeys(ctx, memory.ListAPIKeysParams{}); return err },
			"RevokeAPIKey": func() error {
				_, err := st.RevokeAPIKey(ctx, memory.RevokeAPIKeyParams{ID: k.ID, At: at(1)})
				return err
			},
			"CountActiveAPIKeys": func() error { _, err := st.CountActiveAPIKeys(ctx); return err },
		}
		for name, call := range calls {
			if err := call(); err == nil {
				t.Errorf("%s after Close: no error", name)
			}
		}
	})

	t.Run("Canceled", func(t *testing.T) {
		_, st := s.fresh(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		k := newAPIKey(ns, "key-1", memory.RoleReader, at(0))
		if err := st.CreateAPIKey(ctx, k); err == nil {
			t.Error("CreateAPIKey with a canceled context succeeded")
		}
		_, err := st.APIKeyByHash(t.Context(), k.Hash)
		wantErr(t, "key written with a canceled context", err, memory.ErrNotFound)
	})
}
