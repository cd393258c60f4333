package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/apikey"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// createdJSON is what keys create --json prints.
type createdJSON struct {
	ID        string    `json:"id"`
	Key       string    `json:"key"`
	Namespace string    `json:"namespace"`
	Role      string    `json:"role"`
	Name      string    `json:"name"`
	Prefix    string    `json:"prefix"`
	CreatedAt time.Time `json:"created_at"`
}

// keyStore opens db directly, to check what the CLI stored.
func keyStore(t *testing.T, db string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(t.Context(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestKeysLifecycle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := migratedDB(t, filepath.Join(dir, "m.db"))

	// Plain create: the key on its own line, then how to use it.
	out := mustRun(t, db, "keys", "create", "--namespace", "acme", "--role", "writer", "--name", "ci deploys")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !apikey.LooksValid(lines[0]) {
		t.Fatalf("keys create printed:\n%s", out)
	}
	writerKey := lines[0]
	for _, want := range []string{"key_", "namespace acme", "role writer", "will not be shown again", "Authorization: Bearer <key>"} {
		if !strings.Contains(lines[1], want) {
			t.Fatalf("keys create's second line lacks %q:\n%s", want, out)
		}
	}

	// JSON create, with the global flag before the command.
	out = mustRun(t, db, "--namespace", "beta", "keys", "create", "--role", "reader", "--json")
	var created createdJSON
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatalf("keys create --json: %v\n%s", err, out)
	}
	for _, field := range []string{`"id"`, `"key"`, `"namespace"`, `"role"`, `"name"`, `"prefix"`, `"created_at"`} {
		if !strings.Contains(out, field) {
			t.Errorf("keys create --json lacks %s:\n%s", field, out)
		}
	}
	if !apikey.LooksValid(created.Key) || !strings.HasPrefix(created.ID, "key_") || created.Namespace != "beta" ||
		created.Role != "reader" || created.Name != "" || created.Prefix != created.Key[:12] || created.CreatedAt.IsZero() {
		t.Fatalf("keys create --json: %+v", created)
	}
	if strings.Contains(out, "hash") || strings.Contains(out, apikey.Hash(created.Key)) {
		t.Fatalf("keys create --json shows the hash:\n%s", out)
	}

	// The store holds the hash, never the key: not in any file of the
	// database (the WAL included).
	st := keyStore(t, db)
	for _, raw := range []string{writerKey, created.Key} {
		k, err := st.APIKeyByHash(t.Context(), apikey.Hash(raw))
		if err != nil || !k.Active() {
			t.Fatalf("key %s… in the store: %+v, %v", raw[:12], k, err)
		}
	}
	files, _ := filepath.Glob(db + "*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range []string{writerKey, created.Key} {
			if strings.Contains(string(b), raw) {
				t.Fatalf("%s holds a raw key", f)
			}
		}
	}

	// list: every namespace by default, MNEMON_NAMESPACE notwithstanding;
	// one namespace with --namespace; never the hash.
	all := map[string]string{"MNEMON_DB": db, "MNEMON_NAMESPACE": "beta"}
	code, out, errs := runEnv(t, context.Background(), all, "", "keys", "list")
	if code != 0 {
		t.Fatalf("keys list: exit %d: %s", code, errs)
	}
	for _, want := range []string{"ID", "NAMESPACE", "ROLE", "NAME", "PREFIX", "CREATED", "REVOKED", "acme", "beta", "writer", "reader", "ci deploys", writerKey[:12] + "…", created.ID} {
		if !strings.Contains(out, want) {
			t.Fatalf("keys list lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{writerKey, created.Key, apikey.Hash(writerKey), apikey.Hash(created.Key)} {
		if strings.Contains(out, secret) {
			t.Fatalf("keys list shows a key or hash:\n%s", out)
		}
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"keys", "list", "--json"}, []string{"acme", "beta"}},
		{[]string{"keys", "list", "--namespace", "acme", "--json"}, []string{"acme"}},
		{[]string{"--namespace", "beta", "keys", "list", "--json"}, []string{"beta"}},
		{[]string{"keys", "list", "--namespace", "nobody", "--json"}, []string{}},
	}
	for _, c := range cases {
		out := mustRun(t, db, c.args...)
		var res struct {
			Keys []map[string]any `json:"keys"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.Keys == nil {
			t.Fatalf("mnemon %v: %v\n%s", c.args, err, out)
		}
		var got []string
		for _, k := range res.Keys {
			got = append(got, k["namespace"].(string))
			if _, ok := k["hash"]; ok {
				t.Fatalf("mnemon %v shows the hash:\n%s", c.args, out)
			}
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("mnemon %v: namespaces %v, want %v", c.args, got, c.want)
		}
	}
	out = mustRun(t, db, "keys", "list", "--namespace", "nobody")
	if !strings.Contains(out, "no API keys in namespace nobody") {
		t.Fatalf("keys list of an empty namespace:\n%s", out)
	}

	// revoke: once, then again (nothing changes), then the store agrees.
	writer, err := st.APIKeyByHash(t.Context(), apikey.Hash(writerKey))
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, db, "", "--namespace", "beta", "keys", "revoke", writer.ID)
	oneLine(t, code, errs, 1, "no API key "+writer.ID+" in namespace beta")
	out = mustRun(t, db, "keys", "revoke", writer.ID)
	if !strings.Contains(out, "revoked "+writer.ID) || !strings.Contains(out, "namespace acme") {
		t.Fatalf("keys revoke:\n%s", out)
	}
	out = mustRun(t, db, "keys", "revoke", writer.ID)
	if !strings.Contains(out, "already revoked") {
		t.Fatalf("keys revoke twice:\n%s", out)
	}
	k, err := st.APIKeyByHash(t.Context(), apikey.Hash(writerKey))
	if err != nil || k.Active() {
		t.Fatalf("revoked key in the store: %+v, %v", k, err)
	}
	out = mustRun(t, db, "keys", "revoke", writer.ID, "--json")
	var revoked memory.APIKey
	if err := json.Unmarshal([]byte(out), &revoked); err != nil || revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(*k.RevokedAt) {
		t.Fatalf("keys revoke --json: %v\n%s", err, out)
	}
	n, err := st.CountActiveAPIKeys(t.Context())
	if err != nil || n != 1 {
		t.Fatalf("active keys after revoke: %d, %v", n, err)
	}
	out = mustRun(t, db, "keys", "list", "--namespace", "acme")
	if !strings.Contains(out, writer.ID) || !strings.Contains(out, k.RevokedAt.UTC().Format(time.RFC3339)) {
		t.Fatalf("keys list after revoke:\n%s", out)
	}
}

func TestKeysWrongCalls(t *testing.T) {
	t.Parallel()
	raw, _, err := apikey.Generate("acme", memory.RoleAdmin, "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "m.db")
	cases := []struct {
		args []string
		env  map[string]string
		code int
		want string
	}{
		{[]string{"keys"}, nil, 2, "keys needs a subcommand: create, list or revoke"},
		{[]string{"keys", "frobnicate"}, nil, 2, `keys: unknown subcommand "frobnicate"; use create, list or revoke`},
		{[]string{"keys", "lst"}, nil, 2, "(did you mean list?)"},
		{[]string{"keys", "new"}, nil, 2, "(did you mean create?)"},
		{[]string{"keys", "create", "--role", "writer"}, nil, 2, "name the namespace the key opens with --namespace NAME"},
		// MNEMON_NAMESPACE does not choose what a new key opens.
		{[]string{"keys", "create", "--role", "writer"}, map[string]string{"MNEMON_NAMESPACE": "acme"}, 2, "--namespace NAME"},
		{[]string{"keys", "create", "--namespace", "acme"}, nil, 2, "--role is required: reader, writer or admin"},
		{[]string{"keys", "create", "--namespace", "acme", "--role", "boss"}, nil, 2, `--role "boss": use reader, writer or admin`},
		{[]string{"keys", "create", "--namespace", "a b", "--role", "reader"}, nil, 2, `--namespace "a b" is not a namespace name`},
		{[]string{"keys", "create", "x", "--namespace", "acme", "--role", "reader"}, nil, 2, "keys create takes no arguments"},
		{[]string{"keys", "create", "--namespace", "acme", "--role", "reader", "--name", "two\nlines"}, nil, 2, "--name must be one line"},
		{[]string{"keys", "create", "--namespace", "acme", "--role", "reader", "--name", strings.Repeat("n", 201)}, nil, 2, "--name is 201 bytes; the limit is 200"},
		{[]string{"keys", "create", "--namespace", "acme", "--rol", "reader"}, nil, 2, "unknown flag --rol (did you mean --role?)"},
		{[]string{"keys", "list", "x"}, nil, 2, "keys list takes no arguments"},
		{[]string{"keys", "list", "--role", "admin"}, nil, 2, "keys list takes no --role or --name"},
		{[]string{"keys", "revoke"}, nil, 2, "keys revoke takes one KEY_ID"},
		{[]string{"keys", "revoke", "key_a", "key_b"}, nil, 2, "got 2 arguments"},
		{[]string{"keys", "revoke", "mem_x"}, nil, 2, `"mem_x" is not an API key id (key_…)`},
		{[]string{"keys", "revoke", "key_"}, nil, 2, "is not an API key id"},
		{[]string{"keys", "revoke", raw}, nil, 2, "not the key itself"},
		{[]string{"keys", "revoke", "key_x", "--name", "n"}, nil, 2, "keys revoke takes no --role or --name"},
		// list and revoke never create the database.
		{[]string{"keys", "list"}, nil, 1, "no database at " + db},
		{[]string{"keys", "revoke", "key_x"}, nil, 1, "no database at " + db},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			env := map[string]string{"MNEMON_DB": db}
			for k, v := range c.env {
				env[k] = v
			}
			code, out, errs := runEnv(t, context.Background(), env, "", c.args...)
			oneLine(t, code, errs, c.code, c.want)
			if out != "" || strings.Contains(errs, raw) {
				t.Fatalf("mnemon %v printed %q, stderr %q", c.args, out, errs)
			}
		})
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("wrong calls created the database: %v", err)
	}

	// On a database that exists, an unknown key is a failure, not a wrong call.
	mustRun(t, db, "keys", "create", "--namespace", "acme", "--role", "reader")
	code, _, errs := runCLI(t, db, "", "keys", "revoke", "key_nope")
	oneLine(t, code, errs, 1, "no API key key_nope; list keys with 'mnemon keys list'")
}

func TestKeysHelp(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "", "", "help", "keys")
	for _, want := range []string{
		"Usage: mnemon keys create|list|revoke [KEY_ID] [flags]",
		"Authorization: Bearer <key>",
		"mnemon keys create --namespace acme --role writer",
		"mnemon keys list --namespace acme",
		"mnemon keys revoke key_",
		"\n  --role ROLE ", "\n  --name NAME ",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("help keys lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = runCLI(t, "", "", "help")
	if !strings.Contains(out, "\n  keys ") {
		t.Fatalf("help does not list keys:\n%s", out)
	}
}
