package apikey

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

var now = time.Date(2026, 5, 1, 12, 30, 0, 123456789, time.FixedZone("CEST", 2*3600))

func TestGenerate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		ns      string
		role    memory.Role
		label   string
		now     time.Time
		wantErr bool
	}{
		{"Reader", "acme", memory.RoleReader, "", now, false},
		{"WriterNamed", "team.a-1_b", memory.RoleWriter, "ci deploys", now, false},
		{"Admin", "default", memory.RoleAdmin, "ops", now, false},
		{"NameAtLimit", "acme", memory.RoleReader, strings.Repeat("n", memory.MaxAPIKeyNameBytes), now, false},
		{"BadNamespace", "bad ns", memory.RoleReader, "", now, true},
		{"EmptyNamespace", "", memory.RoleReader, "", now, true},
		{"BadRole", "acme", memory.Role("owner"), "", now, true},
		{"EmptyRole", "acme", "", "", now, true},
		{"NameTooLong", "acme", memory.RoleReader, strings.Repeat("n", memory.MaxAPIKeyNameBytes+1), now, true},
		{"ZeroTime", "acme", memory.RoleReader, "", time.Time{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			raw, k, err := Generate(c.ns, c.role, c.label, c.now)
			if c.wantErr {
				if !errors.Is(err, memory.ErrInvalid) || raw != "" || k != nil {
					t.Fatalf("got %q, %+v, %v; want only an error wrapping ErrInvalid", raw, k, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !LooksValid(raw) || len(raw) != 56 || raw != strings.ToLower(raw) {
				t.Errorf("raw key %q has the wrong shape", raw)
			}
			if !ids.HasPrefix(k.ID, ids.Key) || !strings.HasPrefix(k.ID, "key_") {
				t.Errorf("id %q", k.ID)
			}
			if k.Namespace != c.ns || k.Role != c.role || k.Name != c.label {
				t.Errorf("key %+v", k)
			}
			if k.Prefix != raw[:12] || k.Hash != Hash(raw) || strings.Contains(k.Hash, raw) {
				t.Errorf("prefix %q, hash %q for raw %q", k.Prefix, k.Hash, raw)
			}
			if !k.CreatedAt.Equal(c.now) || k.CreatedAt.Location() != time.UTC {
				t.Errorf("created_at %v, want %v in UTC", k.CreatedAt, c.now)
			}
			if !k.Active() {
				t.Error("a new key is not active")
			}
			if err := k.Validate(); err != nil {
				t.Errorf("a generated key fails Validate: %v", err)
			}
		})
	}
}

func TestGenerateIsRandom(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	seenIDs := map[string]bool{}
	for range 200 {
		raw, k, err := Generate("acme", memory.RoleReader, "", now)
		if err != nil {
			t.Fatal(err)
		}
		if seen[raw] || seenIDs[k.ID] {
			t.Fatalf("duplicate key %q or id %q", raw, k.ID)
		}
		seen[raw], seenIDs[k.ID] = true, true
	}
}

func TestHash(t *testing.T) {
	t.Parallel()
	cases := []struct{ raw, want string }{
		// sha256 test vectors.
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, c := range cases {
		if got := Hash(c.raw); got != c.want {
			t.Errorf("Hash(%q) = %s, want %s", c.raw, got, c.want)
		}
		if !memory.IsAPIKeyHash(Hash(c.raw)) {
			t.Errorf("Hash(%q) does not look like a stored hash", c.raw)
		}
	}
}

func TestLooksValid(t *testing.T) {
	t.Parallel()
	good, _, err := Generate("acme", memory.RoleReader, "", now)
	if err != nil {
		t.Fatal(err)
	}
	body := good[len(Prefix):]
	// The last character carries one bit of the key and four spare bits,
	// so only 'a' and 'q' end a key.
	lastA := good[:len(good)-1] + "a"
	lastQ := good[:len(good)-1] + "q"
	lastB := good[:len(good)-1] + "b"
	cases := []struct {
		name string
		raw  string
		want bool
	}{
		{"Generated", good, true},
		{"EndsInA", lastA, true},
		{"EndsInQ", lastQ, true},
		{"AllA", Prefix + strings.Repeat("a", 52), true},
		{"Empty", "", false},
		{"PrefixOnly", Prefix, false},
		{"NoPrefix", body, false},
		{"WrongPrefix", "mnx_" + body, false},
		{"UpperPrefix", "MNK_" + body, false},
		{"Uppercase", Prefix + strings.ToUpper(body), false},
		{"Short", good[:len(good)-1], false},
		{"Long", good + "a", false},
		{"BadAlphabet1", Prefix + "1" + body[1:], false},
		{"BadAlphabet8", Prefix + "8" + body[1:], false},
		{"Padding", Prefix + body[:51] + "=", false},
		{"SpareBitsSet", lastB, false},
		{"Space", " " + good[1:], false},
		{"Newline", good[:len(good)-1] + "\n", false},
		{"Bearer", "Bearer " + good, false},
		{"Hash", Hash(good), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := LooksValid(c.raw); got != c.want {
				t.Errorf("LooksValid(%q) = %v, want %v", c.raw, got, c.want)
			}
		})
	}
}

func FuzzLooksValid(f *testing.F) {
	f.Add(Prefix + strings.Repeat("a", 52))
	f.Add("mnk_")
	f.Add("")
	f.Fuzz(func(t *testing.T, raw string) {
		if !LooksValid(raw) {
			return
		}
		if len(raw) != Len || !strings.HasPrefix(raw, Prefix) || strings.Trim(raw[len(Prefix):], "abcdefghijklmnopqrstuvwxyz234567") != "" {
			t.Fatalf("accepted %q", raw)
		}
	})
}
