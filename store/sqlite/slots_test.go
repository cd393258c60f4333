package sqlite

import (
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// Migration 0026 on a store as 0025 left it: every memory gets its slot's
// hash, the memories read byte for byte as before, each is found by its
// slot (scope included) through the new memories_slot, a version list by
// subject and key or by one of them finds the same versions, and a second
// memory in a taken slot is still refused.
func TestMigrationSlotHash(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAtSchema(t, path, 25)
	made := ids.New(ids.Memory)
	blob, ok := appendID(nil, made)
	if !ok {
		t.Fatalf("%s: not compacted", made)
	}
	execAll(t, old,
		fmt.Sprintf(`INSERT INTO memories VALUES
			('n', x'%x', 'agent', 'u', 'p', 's', 's', 'user', 'editor', 5, 6),
			('n', 'm-other-scope', '', '', '', '', 's', 'user', 'editor', 5, 6),
			('n', 'm-note', '', '', '', '', 's', 'user', 'note:rotate_the_staging_keys_monthly', 3, 4),
			('n', 'm-empty', '', '', '', '', 's', '', '', 1, 1),
			('other', 'm-note', '', '', '', '', 's', 'user', 'note:rotate_the_staging_keys_monthly', 7, 8)`, blob),
		`INSERT INTO versions (namespace, id, memory_id, seq, agent_id, user_id, project_id, session_id, kind, type, subject, "key",
			value, content, criticality, confidence, usefulness, trust, reinforcement_count, failure_count, status, operation,
			superseded_by, observed_at, recorded_at, valid_from, valid_to, updated_at, evidence_episode_ids, evidence_spans,
			prov_extractor, prov_model, prov_prompt_version, prov_embedder, prov_embedder_dim, prov_source, tokens, search_text)
		VALUES ('n', 'v-note', 'm-note', 1, '', '', '', '', 's', 'fact', 'user', 'note:rotate_the_staging_keys_monthly',
			'', 'rotate the staging keys monthly', 'normal', 0.8, 0.5, 0.6, 0, 0, 'active', 'ADD', '', 1, 1, 1, NULL, 1,
			'null', 'null', 'note', '', '', 'emb', 4, 'remember', 3, '')`,
	)
	const dump = `SELECT group_concat(quote(namespace) || quote(id) || quote(agent_id) || quote(user_id) || quote(project_id) ||
		quote(session_id) || quote(kind) || quote(subject) || quote("key") || created_at || '/' || ` + memoryUpdatedAt + `, ';')
		FROM (SELECT * FROM memories ORDER BY namespace, id)`
	var before, after string
	if err := old.QueryRowContext(ctx, dump).Scan(&before); err != nil {
		t.Fatal(err)
	}
	s := migrateOld(t, old, path)
	if err := s.writer.QueryRowContext(ctx, dump).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("memories after migrating:\n  %s\nbefore:\n  %s", after, before)
	}
	rows, err := s.writer.QueryContext(ctx, `SELECT subject, "key", slot_hash FROM memories`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var subject, key string
		var h int64
		if err := rows.Scan(&subject, &key, &h); err != nil {
			t.Fatal(err)
		}
		if h != slotHash(subject, key) {
			t.Errorf("%s/%s: slot_hash %d, want %d", subject, key, h, slotHash(subject, key))
		}
	}
	rows.Close()
	var idx string
	if err := s.writer.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE name = 'memories_slot'`).Scan(&idx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(idx, "(namespace, slot_hash)") || strings.Contains(idx, "UNIQUE") {
		t.Errorf("memories_slot after migrating: %s", idx)
	}

	for _, c := range []struct {
		ns, subject, key string
		scope            memory.Scope
		want             string
	}{
		{"n", "user", "editor", memory.Scope{AgentID: "agent", UserID: "u", ProjectID: "p", SessionID: "s"}, made},
		{"n", "user", "editor", memory.Scope{}, "m-other-scope"},
		{"n", "user", "note:rotate_the_staging_keys_monthly", memory.Scope{}, "m-note"},
		{"other", "user", "note:rotate_the_staging_keys_monthly", memory.Scope{}, "m-note"},
		{"n", "", "", memory.Scope{}, "m-empty"},
		{"n", "user", "editor", memory.Scope{UserID: "u"}, ""},
		{"n", "user", "Editor", memory.Scope{}, ""},
		{"n", "use", "reditor", memory.Scope{}, ""},
	} {
		p := memory.FindMemoryParams{Namespace: c.ns, Subject: c.subject, Key: c.key, Scope: c.scope}
		m, err := s.FindMemory(ctx, p)
		switch {
		case c.want == "" && !errors.Is(err, memory.ErrNotFound):
			t.Errorf("find %+v: %v %v, want not found", p, m, err)
		case c.want != "" && (err != nil || m.ID != c.want):
			t.Errorf("find %+v: %v %v, want %s", p, m, err, c.want)
		}
		var head *memory.SlotHead
		err = s.InTx(ctx, func(tx memory.Executor) error {
			var err error
			head, err = tx.(memory.SlotHeadReader).ReadSlotHead(ctx, p)
			return err
		})
		switch {
		case c.want == "" && !errors.Is(err, memory.ErrNotFound):
			t.Errorf("slot head %+v: %v %v, want not found", p, head, err)
		case c.want != "" && (err != nil || head.Memory.ID != c.want):
			t.Errorf("slot head %+v: %v %v, want %s", p, head, err, c.want)
		}
	}

	for _, p := range []memory.ListVersionsParams{
		{Namespace: "n", Subject: "user", Key: "note:rotate_the_staging_keys_monthly"},
		{Namespace: "n", Key: "note:rotate_the_staging_keys_monthly"},
		{Namespace: "n", Subject: "user"},
	} {
		vs, err := s.ListVersions(ctx, p)
		if err != nil || len(vs) != 1 || vs[0].ID != "v-note" {
			t.Errorf("list versions %+v: %v %v", p, vs, err)
		}
	}
	if vs, err := s.ListVersions(ctx, memory.ListVersionsParams{Namespace: "n", Subject: "user", Key: "editor"}); err != nil || len(vs) != 0 {
		t.Errorf("list versions of a slot without any: %v %v", vs, err)
	}

	// A taken slot is refused; the same subject and key in another scope or
	// namespace is not.
	at := time.Unix(1_800_000_000, 0).UTC()
	mem := func(ns, id, key string, scope memory.Scope) *memory.Memory {
		return &memory.Memory{Namespace: ns, ID: id, Scope: scope, Kind: memory.KindSemantic, Subject: "user", Key: key, CreatedAt: at, UpdatedAt: at}
	}
	create := func(m *memory.Memory) error {
		return s.InTx(ctx, func(tx memory.Executor) error { return tx.CreateMemory(ctx, m) })
	}
	if err := create(mem("n", "m-dup", "note:rotate_the_staging_keys_monthly", memory.Scope{})); !errors.Is(err, memory.ErrConflict) {
		t.Errorf("a second memory in a taken slot: %v, want a conflict", err)
	}
	if err := create(mem("n", "m-dup", "note:rotate_the_staging_keys_monthly", memory.Scope{ProjectID: "p"})); err != nil {
		t.Errorf("the same key in another scope: %v", err)
	}
	if err := create(mem("third", "m-dup", "note:rotate_the_staging_keys_monthly", memory.Scope{})); err != nil {
		t.Errorf("the same key in another namespace: %v", err)
	}
	if m, err := s.FindMemory(ctx, memory.FindMemoryParams{Namespace: "n", Subject: "user", Key: "note:rotate_the_staging_keys_monthly",
		Scope: memory.Scope{ProjectID: "p"}}); err != nil || m.ID != "m-dup" {
		t.Errorf("find the new memory: %v %v", m, err)
	}
}

// The hash is FNV-1a (64 bits) over subject, a zero byte and key: fixed,
// since the stored column depends on it.
func TestSlotHashStable(t *testing.T) {
	for _, c := range [][2]string{{"", ""}, {"user", "editor"}, {"user", "note:rotate_the_staging_keys_monthly"}, {"ünï", "cödé"}} {
		h := fnv.New64a()
		h.Write([]byte(c[0] + "\x00" + c[1]))
		if got, want := uint64(slotHash(c[0], c[1])), h.Sum64(); got != want {
			t.Errorf("slotHash(%q, %q) = %#x, want %#x", c[0], c[1], got, want)
		}
	}
	if got := uint64(slotHash("", "")); got != 0xaf63bd4c8601b7df {
		t.Errorf("slotHash of nothing = %#x", got)
	}
	if slotHash("ab", "c") == slotHash("a", "bc") {
		t.Error("the separator does not separate")
	}
}

// Within one transaction: a slot found free is created without a second
// probe, and a second memory in it is refused all the same.
func TestCreateMemoryAfterFreeSlot(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_800_000_000, 0).UTC()
	p := memory.FindMemoryParams{Namespace: "n", Subject: "user", Key: "note:water_the_office_ferns"}
	mem := func(id string) *memory.Memory {
		return &memory.Memory{Namespace: "n", ID: id, Kind: memory.KindSemantic, Subject: p.Subject, Key: p.Key, CreatedAt: at, UpdatedAt: at}
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if _, err := tx.(memory.SlotHeadReader).ReadSlotHead(ctx, p); !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("a new slot: %v", err)
		}
		if err := tx.CreateMemory(ctx, mem("m-1")); err != nil {
			t.Fatalf("create in the free slot: %v", err)
		}
		if err := tx.CreateMemory(ctx, mem("m-2")); !errors.Is(err, memory.ErrConflict) {
			t.Errorf("a second memory in the slot just taken: %v, want a conflict", err)
		}
		if _, err := tx.FindMemory(ctx, memory.FindMemoryParams{Namespace: "n", Subject: "user", Key: "other"}); !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("another slot: %v", err)
		}
		if err := tx.CreateMemory(ctx, mem("m-3")); !errors.Is(err, memory.ErrConflict) {
			t.Errorf("the taken slot after another slot was found free: %v, want a conflict", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := s.FindMemory(ctx, p); err != nil || m.ID != "m-1" {
		t.Errorf("find: %v %v", m, err)
	}
}
