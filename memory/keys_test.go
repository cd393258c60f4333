package memory

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRoleAllows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		role, need Role
		want       bool
	}{
		{RoleReader, RoleReader, true},
		{RoleReader, RoleWriter, false},
		{RoleReader, RoleAdmin, false},
		{RoleWriter, RoleReader, true},
		{RoleWriter, RoleWriter, true},
		{RoleWriter, RoleAdmin, false},
		{RoleAdmin, RoleReader, true},
		{RoleAdmin, RoleWriter, true},
		{RoleAdmin, RoleAdmin, true},
		{"", RoleReader, false},
		{"root", RoleReader, false},
		{"Admin", RoleReader, false},
		{RoleAdmin, "", false},
		{RoleAdmin, "root", false},
	}
	for _, c := range cases {
		if got := c.role.Allows(c.need); got != c.want {
			t.Errorf("%q.Allows(%q) = %v, want %v", c.role, c.need, got, c.want)
		}
	}
	for _, r := range Roles {
		if !r.Valid() {
			t.Errorf("%q is in Roles but not Valid", r)
		}
	}
	for _, r := range []Role{"", "root", "READER", " reader"} {
		if r.Valid() {
			t.Errorf("%q is Valid", r)
		}
	}
}

func TestAPIKeyValidate(t *testing.T) {
	t.Parallel()
	good := func() *APIKey {
		return &APIKey{
			ID: "key_1", Namespace: "acme", Role: RoleWriter, Name: "ci", Prefix: "mnk_abcdefgh",
			Hash: strings.Repeat("0123456789abcdef", 4), CreatedAt: time.Unix(1, 0).UTC(),
		}
	}
	cases := []struct {
		name   string
		change func(k *APIKey)
		want   string // "" means valid
	}{
		{"Good", func(*APIKey) {}, ""},
		{"NoName", func(k *APIKey) { k.Name = "" }, ""},
		{"Revoked", func(k *APIKey) { at := time.Unix(2, 0); k.RevokedAt = &at }, ""},
		{"NoID", func(k *APIKey) { k.ID = "" }, "id is empty"},
		{"BadNamespace", func(k *APIKey) { k.Namespace = "a b" }, "namespace"},
		{"BadRole", func(k *APIKey) { k.Role = "root" }, `role "root"`},
		{"LongName", func(k *APIKey) { k.Name = strings.Repeat("x", MaxAPIKeyNameBytes+1) }, "name is 201 bytes"},
		{"NoPrefix", func(k *APIKey) { k.Prefix = "" }, "prefix"},
		{"LongPrefix", func(k *APIKey) { k.Prefix = strings.Repeat("x", MaxAPIKeyPrefixBytes+1) }, "prefix"},
		{"RawKeyAsHash", func(k *APIKey) { k.Hash = "mnk_" + strings.Repeat("a", 52) }, "hash"},
		{"UpperHash", func(k *APIKey) { k.Hash = strings.ToUpper(k.Hash) }, "hash"},
		{"ShortHash", func(k *APIKey) { k.Hash = k.Hash[:63] }, "hash"},
		{"ZeroCreated", func(k *APIKey) { k.CreatedAt = time.Time{} }, "created_at"},
	}
	for _, c := range cases {
		k := good()
		c.change(k)
		err := k.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want ErrInvalid mentioning %q", c.name, err, c.want)
		}
	}
	var nilKey *APIKey
	if !errors.Is(nilKey.Validate(), ErrInvalid) || nilKey.Active() {
		t.Error("a nil key validates or is active")
	}
}

func TestAPIKeyJSONHidesHash(t *testing.T) {
	t.Parallel()
	k := &APIKey{ID: "key_1", Namespace: "acme", Role: RoleReader, Prefix: "mnk_abcdefgh", Hash: "secret-hash", CreatedAt: time.Unix(0, 0).UTC()}
	b, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "secret-hash") || strings.Contains(string(b), `"hash"`) || strings.Contains(string(b), "revoked_at") {
		t.Fatalf("JSON of an active key: %s", b)
	}
}
