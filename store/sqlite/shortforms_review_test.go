package sqlite

import (
	"bytes"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/memory"
)

// Two namespaces holding the same ids (an export imported twice), each
// with a note and its episode's version sharing one row (bit 2) whose text
// is the episode's (bit 8). Re-embedding either version, then deleting the
// episode of one namespace, keeps every text, subject, key and vector as
// written in both, and the other namespace's rows untouched.
func TestEpisodeTextAcrossNamespacesAndReembedding(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "eptext-ns.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	const text = "Moved the staging cluster to the new region after the outage review"
	vec := embed.NewWordVectors().Vector(text).EncodeCompact()
	other := embed.NewWordVectors().Vector("something else entirely").EncodeCompact()
	write := func(ns string) {
		t.Helper()
		err := s.InTx(ctx, func(tx memory.Executor) error {
			ep := &memory.Episode{ID: "e-1", Kind: "user_message", Speaker: "user", Content: text, OccurredAt: at, RecordedAt: at}
			if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{ep}}); err != nil {
				return err
			}
			for i, id := range []string{"v-note", "v-ep"} {
				m := &memory.Memory{Namespace: ns, ID: "m-" + id, Kind: memory.KindSemantic, Subject: "user", Key: "k-" + id, CreatedAt: at, UpdatedAt: at}
				if err := tx.CreateMemory(ctx, m); err != nil {
					return err
				}
				v := &memory.Version{Namespace: ns, ID: id, MemoryID: m.ID, Seq: 1, Kind: m.Kind, Type: memory.TypeFact,
					Subject: m.Subject, Key: m.Key, Value: text, Content: text, Status: memory.StatusActive, Operation: memory.OpAdd,
					ObservedAt: at, RecordedAt: at.Add(time.Duration(i)), ValidFrom: at, UpdatedAt: at,
					EvidenceEpisodeIDs: []string{"e-1"}, Embedding: vec}
				if err := tx.CreateVersion(ctx, v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	write("a")
	write("b")
	var shared int64
	if err := s.writer.QueryRowContext(ctx, `SELECT shared FROM versions WHERE namespace = 'a' AND id = 'v-ep'`).Scan(&shared); err != nil || shared&2 == 0 {
		t.Fatalf("v-ep does not share v-note's row (shared %d, %v): the case under test is not set up", shared, err)
	}
	if err := s.writer.QueryRowContext(ctx, `SELECT shared FROM versions WHERE namespace = 'a' AND id = 'v-note'`).Scan(&shared); err != nil || shared&12 != 12 {
		t.Fatalf("v-note does not refer to its memory and episode (shared %d, %v)", shared, err)
	}
	check := func(when, ns string, want map[string][]byte) {
		t.Helper()
		for id, emb := range want {
			v, err := s.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: id})
			if err != nil {
				t.Fatalf("%s: %s/%s: %v", when, ns, id, err)
			}
			if v.Content != text || v.Value != text || v.Subject != "user" || v.Key != "k-"+id || !bytes.Equal(v.Embedding, emb) {
				t.Errorf("%s: %s/%s reads content %q value %q subject %q key %q, vector equal %v",
					when, ns, id, v.Content, v.Value, v.Subject, v.Key, bytes.Equal(v.Embedding, emb))
			}
		}
		streamed := 0
		err := s.StreamVersions(ctx, memory.ScanParams{Namespace: ns}, func(v *memory.Version) error {
			streamed++
			if v.Content != text || !bytes.Equal(v.Embedding, want[v.ID]) {
				t.Errorf("%s: %s/%s streamed content %q", when, ns, v.ID, v.Content)
			}
			return nil
		})
		if err != nil || streamed != len(want) {
			t.Errorf("%s: %s streamed %d versions, %v", when, ns, streamed, err)
		}
	}
	both := map[string][]byte{"v-note": vec, "v-ep": vec}
	check("written", "a", both)
	check("written", "b", both)

	// Re-embed the version sharing the row, then the one holding it.
	reembed := func(id string) {
		t.Helper()
		err := s.SetEmbedding(ctx, memory.SetEmbeddingParams{Namespace: "a", ID: id, Embedding: other,
			Embedder: "other-embedder", EmbedderDim: 8, ChangedAt: at.Add(time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
	}
	reembed("v-ep")
	check("v-ep re-embedded", "a", map[string][]byte{"v-note": vec, "v-ep": other})
	reembed("v-note")
	check("v-note re-embedded", "a", map[string][]byte{"v-note": other, "v-ep": other})
	check("a re-embedded", "b", both)

	// The episode of namespace a goes (a purge's delete); b's, with the
	// same id, stays, and so do its versions' references to it.
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM episodes WHERE namespace = 'a' AND id = 'e-1'`); err != nil {
		t.Fatal(err)
	}
	check("a's episode deleted", "a", map[string][]byte{"v-note": other, "v-ep": other})
	check("a's episode deleted", "b", both)
	if err := s.writer.QueryRowContext(ctx, `SELECT shared FROM versions WHERE namespace = 'b' AND id = 'v-note'`).Scan(&shared); err != nil || shared&8 == 0 {
		t.Errorf("b's v-note no longer refers to b's episode (shared %d, %v)", shared, err)
	}

	// Then b's episode goes too.
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM episodes WHERE namespace = 'b' AND id = 'e-1'`); err != nil {
		t.Fatal(err)
	}
	check("b's episode deleted", "b", both)
	var fk int
	if err := s.writer.QueryRowContext(ctx, `SELECT count(*) FROM pragma_foreign_key_check`).Scan(&fk); err != nil || fk != 0 {
		t.Errorf("foreign key check: %d rows, %v", fk, err)
	}
}
