package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/mnemon-dev/mnemon/internal/apikey"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// keysSubcommands are what follows "mnemon keys".
var keysSubcommands = []string{"create", "list", "revoke"}

// keysAliases are words a user may try for a subcommand.
var keysAliases = map[string]string{
	"new": "create", "add": "create", "make": "create", "generate": "create",
	"ls": "list", "show": "list",
	"rm": "revoke", "delete": "revoke", "remove": "revoke", "disable": "revoke", "del": "revoke",
}

func keysCmd() *command {
	return &command{
		name: "keys", args: "create|list|revoke [KEY_ID]", summary: "create, list and revoke API keys for the HTTP API",
		// create may make the database; list and revoke never do (see run).
		creates: true,
		help: `An API key opens one namespace with one role: reader (retrieve and read), writer (also store
and forget) or admin (everything). The key is printed once, when it is created; mnemon keeps only
its SHA-256 hash, so a lost key cannot be shown again: revoke it and create another. Clients send
it as the header "Authorization: Bearer <key>".
  mnemon keys create --namespace acme --role writer --name "ci deploys"
  mnemon keys create --namespace acme --role reader --json
  mnemon keys list                    (every namespace's keys)
  mnemon keys list --namespace acme
  mnemon keys revoke key_01jv3k9m2q8d7x5t4w6y0z1abc`,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.role, "role", "", "with create: the key's `ROLE`: reader, writer or admin")
			fs.StringVar(&o.name, "name", "", "with create: a `NAME` saying what the key is for")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) == 0 {
				return usagef("keys needs a subcommand: create, list or revoke; run 'mnemon help keys'")
			}
			sub, rest := args[0], args[1:]
			switch sub {
			case "create":
				return a.keysCreate(ctx, o, rest)
			case "list":
				return a.keysList(ctx, o, rest)
			case "revoke":
				return a.keysRevoke(ctx, o, rest)
			}
			hint := suggest(sub, keysSubcommands, func(s string) string { return s })
			if to, ok := keysAliases[strings.ToLower(sub)]; ok && hint == "" {
				hint = " (did you mean " + to + "?)"
			}
			return usagef("keys: unknown subcommand %q%s; use create, list or revoke", sub, hint)
		},
	}
}

// createdKey is what keys create --json prints: the only time the raw key
// leaves mnemon.
type createdKey struct {
	ID        string      `json:"id"`
	Key       string      `json:"key"`
	Namespace string      `json:"namespace"`
	Role      memory.Role `json:"role"`
	Name      string      `json:"name"`
	Prefix    string      `json:"prefix"`
	CreatedAt time.Time   `json:"created_at"`
}

func (a *app) keysCreate(ctx context.Context, o *options, args []string) error {
	if len(args) != 0 {
		return usagef("keys create takes no arguments; got %q (name the key with --name)", strings.Join(args, " "))
	}
	if !o.nsSet {
		return usagef("keys create: name the namespace the key opens with --namespace NAME")
	}
	role := memory.Role(strings.ToLower(strings.TrimSpace(o.role)))
	switch {
	case o.role == "":
		return usagef("keys create: --role is required: reader, writer or admin")
	case !role.Valid():
		return usagef("keys create: --role %q: use reader, writer or admin", o.role)
	}
	name := strings.TrimSpace(o.name)
	if len(name) > memory.MaxAPIKeyNameBytes {
		return usagef("keys create: --name is %d bytes; the limit is %d", len(name), memory.MaxAPIKeyNameBytes)
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return usagef("keys create: --name must be one line of text")
	}
	raw, k, err := apikey.Generate(a.ns, role, name, time.Now())
	if err != nil {
		return err
	}
	if err := a.openStore(ctx); err != nil {
		return err
	}
	if err := a.store.CreateAPIKey(ctx, k); err != nil {
		return err
	}
	if o.json {
		return writeJSON(a.env.Stdout, createdKey{
			ID: k.ID, Key: raw, Namespace: k.Namespace, Role: k.Role, Name: k.Name,
			Prefix: k.Prefix, CreatedAt: k.CreatedAt,
		})
	}
	fmt.Fprintln(a.env.Stdout, raw)
	fmt.Fprintf(a.env.Stdout, "created %s (namespace %s, role %s); this key will not be shown again: store it now, and send it as the header \"Authorization: Bearer <key>\"\n",
		k.ID, k.Namespace, k.Role)
	return nil
}

func (a *app) keysList(ctx context.Context, o *options, args []string) error {
	if len(args) != 0 {
		return usagef("keys list takes no arguments; got %q (use --namespace to filter)", strings.Join(args, " "))
	}
	if o.role != "" || o.name != "" {
		return usagef("keys list takes no --role or --name; it lists every key, or one namespace's with --namespace")
	}
	// Every namespace unless --namespace says otherwise: MNEMON_NAMESPACE
	// picks where an agent's memory goes, not which keys an operator sees.
	filter := ""
	if o.nsSet {
		filter = a.ns
	}
	a.creates = false
	if err := a.openStore(ctx); err != nil {
		return err
	}
	keys, err := a.store.ListAPIKeys(ctx, memory.ListAPIKeysParams{Namespace: filter})
	if err != nil {
		return err
	}
	if keys == nil {
		keys = []*memory.APIKey{}
	}
	if o.json {
		return writeJSON(a.env.Stdout, map[string]any{"keys": keys})
	}
	if len(keys) == 0 {
		where := ""
		if filter != "" {
			where = " in namespace " + filter
		}
		fmt.Fprintf(a.env.Stdout, "no API keys%s; create one with: mnemon keys create --namespace NAME --role reader|writer|admin\n", where)
		return nil
	}
	tw := tabwriter.NewWriter(a.env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAMESPACE\tROLE\tNAME\tPREFIX\tCREATED\tREVOKED")
	for _, k := range keys {
		revoked := "-"
		if k.RevokedAt != nil {
			revoked = keyTime(*k.RevokedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s…\t%s\t%s\n", k.ID, k.Namespace, k.Role,
			firstNonEmpty(clip(k.Name, 40), "-"), k.Prefix, keyTime(k.CreatedAt), revoked)
	}
	return tw.Flush()
}

func (a *app) keysRevoke(ctx context.Context, o *options, args []string) error {
	if len(args) != 1 {
		return usagef("keys revoke takes one KEY_ID (key_…); got %d arguments; list ids with 'mnemon keys list'", len(args))
	}
	if o.role != "" || o.name != "" {
		return usagef("keys revoke takes no --role or --name; name the key by its id")
	}
	id := strings.TrimSpace(args[0])
	if strings.HasPrefix(id, apikey.Prefix) {
		// Never echo what may be a secret.
		return usagef("keys revoke: give the key's id (key_…), not the key itself; 'mnemon keys list' shows ids and prefixes")
	}
	if !ids.HasPrefix(id, ids.Key) || len(id) <= len(ids.Key)+1 {
		return usagef("keys revoke: %q is not an API key id (key_…); list ids with 'mnemon keys list'", args[0])
	}
	a.creates = false
	if err := a.openStore(ctx); err != nil {
		return err
	}
	if o.nsSet {
		// --namespace makes the revoke refuse a key of another namespace.
		keys, err := a.store.ListAPIKeys(ctx, memory.ListAPIKeysParams{Namespace: a.ns})
		if err != nil {
			return err
		}
		found := false
		for _, k := range keys {
			found = found || k.ID == id
		}
		if !found {
			return &failure{msg: fmt.Sprintf("no API key %s in namespace %s; list keys with 'mnemon keys list'", id, a.ns), code: 1, err: memory.ErrNotFound}
		}
	}
	now := time.Now()
	k, err := a.store.RevokeAPIKey(ctx, memory.RevokeAPIKeyParams{ID: id, At: now})
	if errors.Is(err, memory.ErrNotFound) {
		return &failure{msg: fmt.Sprintf("no API key %s; list keys with 'mnemon keys list'", id), code: 1, err: err}
	}
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(a.env.Stdout, k)
	}
	if k.RevokedAt != nil && !k.RevokedAt.Equal(now) {
		fmt.Fprintf(a.env.Stdout, "%s was already revoked at %s; nothing changed\n", k.ID, keyTime(*k.RevokedAt))
		return nil
	}
	fmt.Fprintf(a.env.Stdout, "revoked %s (namespace %s, role %s, %s…); requests with it are refused from now on\n",
		k.ID, k.Namespace, k.Role, k.Prefix)
	return nil
}

// keyTime prints a key's time to the second, in UTC.
func keyTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
